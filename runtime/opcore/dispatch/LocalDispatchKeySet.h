// Thread-local dispatch state: keys added to (included) or removed from (excluded) every
// call's key set on this thread, with RAII guards. The autograd layer builds no-grad and
// "below autograd" modes on these.
//   { ExcludeDispatchKeyGuard g(DispatchKeySet(DispatchKey::AutogradCPU)); ... }
#pragma once

#include <opcore/core/DispatchKeySet.h>

namespace opcore {

struct LocalDispatchKeySet {
  DispatchKeySet included;
  DispatchKeySet excluded;
};

namespace detail {
// initial-exec: one instruction to reach it from the hot path (no __tls_get_addr call).
extern thread_local LocalDispatchKeySet tls_local_dispatch_key_set
    __attribute__((tls_model("initial-exec")));
}  // namespace detail

inline LocalDispatchKeySet tlsLocalDispatchKeySet() { return detail::tls_local_dispatch_key_set; }

// Adds keys to this thread's included set for the guard's lifetime.
class IncludeDispatchKeyGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKeySet keys)
      : added_(keys - detail::tls_local_dispatch_key_set.included) {
    detail::tls_local_dispatch_key_set.included = detail::tls_local_dispatch_key_set.included | added_;
  }
  ~IncludeDispatchKeyGuard() {
    detail::tls_local_dispatch_key_set.included = detail::tls_local_dispatch_key_set.included - added_;
  }
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard&) = delete;
  IncludeDispatchKeyGuard& operator=(const IncludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet added_;  // only what was not already included, so nesting restores exactly
};

// Removes keys from every call's key set on this thread for the guard's lifetime.
class ExcludeDispatchKeyGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKeySet keys)
      : added_(keys - detail::tls_local_dispatch_key_set.excluded) {
    detail::tls_local_dispatch_key_set.excluded = detail::tls_local_dispatch_key_set.excluded | added_;
  }
  ~ExcludeDispatchKeyGuard() {
    detail::tls_local_dispatch_key_set.excluded = detail::tls_local_dispatch_key_set.excluded - added_;
  }
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard&) = delete;
  ExcludeDispatchKeyGuard& operator=(const ExcludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet added_;
};

}  // namespace opcore

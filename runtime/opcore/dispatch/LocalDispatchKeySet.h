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
// initial-exec: one instruction to reach it from the hot path (no __tls_get_addr call);
// constinit: no check for a dynamic initializer on each access.
extern constinit thread_local LocalDispatchKeySet tls_local_dispatch_key_set
    __attribute__((tls_model("initial-exec")));
}  // namespace detail

inline LocalDispatchKeySet tlsLocalDispatchKeySet() { return detail::tls_local_dispatch_key_set; }

namespace detail {
// Adds keys to one of this thread's sets for the guard's lifetime. Only keys that were not
// already in the set are removed again, so nested guards restore exactly.
template <DispatchKeySet LocalDispatchKeySet::*Set>
class LocalKeySetGuard {
 public:
  explicit LocalKeySetGuard(DispatchKeySet keys)
      : added_(DispatchKeySet::fromRaw(keys.raw() & ~(tls_local_dispatch_key_set.*Set).raw())) {
    tls_local_dispatch_key_set.*Set = tls_local_dispatch_key_set.*Set | added_;
  }
  // Exact bit difference (not operator-, which keeps backend bits).
  ~LocalKeySetGuard() {
    auto& set = tls_local_dispatch_key_set.*Set;
    set = DispatchKeySet::fromRaw(set.raw() & ~added_.raw());
  }
  LocalKeySetGuard(const LocalKeySetGuard&) = delete;
  LocalKeySetGuard& operator=(const LocalKeySetGuard&) = delete;

 private:
  DispatchKeySet added_;
};
}  // namespace detail

// Adds keys to every call's key set on this thread for the guard's lifetime.
using IncludeDispatchKeyGuard = detail::LocalKeySetGuard<&LocalDispatchKeySet::included>;
// Removes keys from every call's key set on this thread for the guard's lifetime.
using ExcludeDispatchKeyGuard = detail::LocalKeySetGuard<&LocalDispatchKeySet::excluded>;

}  // namespace opcore

// DispatchKeySet: a set of runtime dispatch keys as a 64-bit mask (bit k-1 for key k).
// The highest set bit is the key that runs: see Note [Dispatch key priority].
//   DispatchKeySet ks{DispatchKey::CPU, DispatchKey::AutogradCPU};
//   ks.highestPriorityTypeId() == DispatchKey::AutogradCPU
#pragma once

#include <opcore/core/DispatchKey.h>

#include <cstdint>
#include <initializer_list>
#include <ostream>

namespace opcore {

class DispatchKeySet {
 public:
  static_assert(kNumRuntimeKeys <= 64, "runtime keys must fit in 64 bits");

  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(DispatchKey k)
      : repr_(k == DispatchKey::Undefined || isAliasKey(k)
                  ? 0
                  : uint64_t{1} << (static_cast<int>(k) - 1)) {}
  constexpr DispatchKeySet(std::initializer_list<DispatchKey> keys) {
    for (DispatchKey k : keys) repr_ |= DispatchKeySet(k).repr_;
  }
  static constexpr DispatchKeySet fromRaw(uint64_t repr) {
    DispatchKeySet s;
    s.repr_ = repr;
    return s;
  }
  // All runtime keys up to and including `k`.
  static constexpr DispatchKeySet upTo(DispatchKey k) {
    return fromRaw(static_cast<int>(k) >= 64 ? ~uint64_t{0}
                                             : (uint64_t{1} << static_cast<int>(k)) - 1);
  }

  constexpr uint64_t raw() const { return repr_; }
  constexpr bool empty() const { return repr_ == 0; }
  constexpr bool has(DispatchKey k) const { return (repr_ & DispatchKeySet(k).repr_) != 0; }
  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return fromRaw(repr_ | o.repr_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return fromRaw(repr_ & o.repr_); }
  constexpr DispatchKeySet operator-(DispatchKeySet o) const { return fromRaw(repr_ & ~o.repr_); }
  constexpr DispatchKeySet add(DispatchKey k) const { return *this | DispatchKeySet(k); }
  constexpr DispatchKeySet remove(DispatchKey k) const { return *this - DispatchKeySet(k); }
  constexpr bool operator==(DispatchKeySet o) const { return repr_ == o.repr_; }

  // Index into a dispatch table: the value of the highest key, 0 (Undefined) when empty.
  constexpr int highestPriorityIndex() const { return repr_ == 0 ? 0 : 64 - __builtin_clzll(repr_); }
  constexpr DispatchKey highestPriorityTypeId() const {
    return static_cast<DispatchKey>(highestPriorityIndex());
  }

 private:
  uint64_t repr_ = 0;
};

// Keys below autograd: what an autograd kernel redispatches to.
constexpr DispatchKeySet kAfterAutogradKeySet = DispatchKeySet::upTo(DispatchKey::ADInplaceOrView);

// "DispatchKeySet(CPU, AutogradCPU)"
std::ostream& operator<<(std::ostream& os, DispatchKeySet ks);

}  // namespace opcore

// DispatchKeySet: a set of dispatch keys in 64 bits, as backend bits x functionality bits.
//
//   bit:  0 .. kNumBackends-1             kNumBackends .. kNumBackends+kNumFunctionalityKeys-1
//         CPUBit CUDABit MetaBit PU1Bit   Dense BackendSelect Python ADInplaceOrView ... Autocast
//
// A runtime per-backend key sets two bits: DispatchKeySet(AutogradCUDA) = {AutogradFunctionality,
// CUDABit}. A set therefore means the cross product of its per-backend functionalities and its
// backends: {CPU, AutogradCUDA} also has AutogradCPU and CUDA. That is what tensors need (all of
// a tensor's layers are for its one backend) and what c10 does.
//
//   DispatchKeySet ks{DispatchKey::CPU, DispatchKey::AutogradCPU};
//   ks.highestPriorityTypeId() == DispatchKey::AutogradCPU
//   (ks & kAfterAutogradKeySet).highestPriorityTypeId() == DispatchKey::CPU
#pragma once

#include <opcore/core/DispatchKey.h>

#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <ostream>

namespace opcore {

namespace detail {

constexpr uint64_t kBackendMask = (uint64_t{1} << kNumBackends) - 1;
static_assert(kNumBackends + kNumFunctionalityKeys <= 64, "keys must fit in 64 bits");

constexpr uint64_t functionalityBit(DispatchKey functionality) {
  return uint64_t{1} << (kNumBackends + static_cast<int>(functionality) - 1);
}
constexpr uint64_t backendBit(BackendComponent b) {
  return b == BackendComponent::InvalidBit ? 0 : uint64_t{1} << (static_cast<int>(b) - 1);
}

// Note [Dispatch table layout]
// Slot 0 is Undefined. Then, per functionality key in priority order, one slot, or for a
// per-backend functionality 1 + kNumBackends slots: first the functionality without a backend
// bit (never has a kernel; it reports a missing kernel), then one per backend component.
// The slot of a key set is offset[f] + bit_width(repr & mask[f]) for its highest functionality
// f, where mask[f] is the backend mask for per-backend functionalities and 0 otherwise: two
// bit scans and one table load, no branch on the key.
struct FunctionalitySlots {
  uint64_t backend_mask = 0;
  uint16_t offset = 0;
};

constexpr auto makeFunctionalitySlots() {
  std::array<FunctionalitySlots, kNumFunctionalityKeys + 1> slots{};
  uint16_t next = 1;
  for (int f = 1; f <= kNumFunctionalityKeys; ++f) {
    const bool per_backend = isPerBackendFunctionalityKey(static_cast<DispatchKey>(f));
    slots[f] = {per_backend ? kBackendMask : 0, next};
    next += per_backend ? 1 + kNumBackends : 1;
  }
  return slots;
}
inline constexpr auto kFunctionalitySlots = makeFunctionalitySlots();

}  // namespace detail

// Number of dispatch-table slots (Note [Dispatch table layout]).
constexpr int kDispatchTableSize = [] {
  int n = 1;
  for (int f = 1; f <= kNumFunctionalityKeys; ++f) {
    n += isPerBackendFunctionalityKey(static_cast<DispatchKey>(f)) ? 1 + kNumBackends : 1;
  }
  return n;
}();

class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  // Undefined and alias keys give the empty set; see runtimeKeySetForAlias for aliases.
  constexpr explicit DispatchKeySet(DispatchKey k) : repr_(bitsOf(k)) {}
  constexpr explicit DispatchKeySet(BackendComponent b) : repr_(detail::backendBit(b)) {}
  constexpr DispatchKeySet(std::initializer_list<DispatchKey> keys) {
    for (DispatchKey k : keys) repr_ |= bitsOf(k);
  }
  static constexpr DispatchKeySet fromRaw(uint64_t repr) {
    DispatchKeySet s;
    s.repr_ = repr;
    return s;
  }
  // Every backend bit: masks that keep a call's backend whatever else they remove.
  static constexpr DispatchKeySet allBackends() { return fromRaw(detail::kBackendMask); }

  constexpr uint64_t raw() const { return repr_; }
  constexpr bool empty() const { return repr_ == 0; }
  // True when every bit of `k` is in the set (both bits for a per-backend key).
  constexpr bool has(DispatchKey k) const {
    const uint64_t bits = bitsOf(k);
    return bits != 0 && (repr_ & bits) == bits;
  }
  constexpr bool hasBackend(BackendComponent b) const { return (repr_ & detail::backendBit(b)) != 0; }

  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return fromRaw(repr_ | o.repr_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return fromRaw(repr_ & o.repr_); }
  // Removes the functionality bits of `o`, never backend bits: excluding AutogradCPU from a
  // CPU tensor's keys must leave it a CPU tensor. Use removeBackend to drop a backend.
  constexpr DispatchKeySet operator-(DispatchKeySet o) const {
    return fromRaw(repr_ & (detail::kBackendMask | ~o.repr_));
  }
  constexpr DispatchKeySet add(DispatchKey k) const { return fromRaw(repr_ | bitsOf(k)); }
  constexpr DispatchKeySet remove(DispatchKey k) const { return *this - DispatchKeySet(k); }
  constexpr DispatchKeySet removeBackend(BackendComponent b) const { return fromRaw(repr_ & ~detail::backendBit(b)); }
  constexpr bool operator==(DispatchKeySet o) const { return repr_ == o.repr_; }

  // The highest functionality key, Undefined when there is none.
  constexpr DispatchKey highestFunctionalityKey() const {
    return static_cast<DispatchKey>(std::bit_width(repr_ >> kNumBackends));
  }
  // The highest backend component, InvalidBit when there is none.
  constexpr BackendComponent highestBackend() const {
    return static_cast<BackendComponent>(std::bit_width(repr_ & detail::kBackendMask));
  }
  // The key that runs: the highest functionality, paired with the highest backend when it is
  // per-backend (Note [Dispatch key priority]).
  constexpr DispatchKey highestPriorityTypeId() const {
    return toRuntimePerBackendKey(highestFunctionalityKey(), highestBackend());
  }
  // The dispatch-table slot of highestPriorityTypeId() (Note [Dispatch table layout]).
  constexpr int dispatchTableIndex() const {
    const auto& slots = detail::kFunctionalitySlots[std::bit_width(repr_ >> kNumBackends)];
    return slots.offset + std::bit_width(repr_ & slots.backend_mask);
  }

 private:
  static constexpr uint64_t bitsOf(DispatchKey k) {
    if (isFunctionalityKey(k)) return detail::functionalityBit(k);
    if (isRuntimePerBackendKey(k)) {
      return detail::functionalityBit(toFunctionalityKey(k)) | detail::backendBit(toBackendComponent(k));
    }
    return 0;
  }

  uint64_t repr_ = 0;
};

// The slot of a runtime key, and the key a slot stands for (Note [Dispatch table layout]).
constexpr int dispatchTableIndex(DispatchKey k) { return DispatchKeySet(k).dispatchTableIndex(); }
DispatchKey dispatchKeyForTableIndex(int index);

// Keys below autograd: what an autograd kernel redispatches with (ks & kAfterAutogradKeySet).
constexpr DispatchKeySet kAfterAutogradKeySet =
    DispatchKeySet::fromRaw(detail::functionalityBit(DispatchKey::AutogradOther) - 1);
// Keys below ADInplaceOrView: what its kernels redispatch with.
constexpr DispatchKeySet kAfterADInplaceOrViewKeySet =
    DispatchKeySet::fromRaw(detail::functionalityBit(DispatchKey::ADInplaceOrView) - 1);
// Every autograd functionality: excluding it runs calls below autograd.
constexpr DispatchKeySet kAutogradKeySet{DispatchKey::AutogradOther, DispatchKey::AutogradFunctionality};

// The runtime keys a kernel registered at `k` serves: {k} for a runtime key, the covered keys
// for an alias (Autograd: every autograd key; CompositeExplicitAutograd[NonFunctional]: every
// backend key; CompositeImplicitAutograd: both).
DispatchKeySet runtimeKeySetForAlias(DispatchKey k);
// True when `alias` (or `k` itself) covers the kernel key `k` (see isKernelKey).
bool isIncludedInAlias(DispatchKey k, DispatchKey alias);

// "DispatchKeySet(CPU, AutogradCPU)": every runtime key the set has, lowest priority first.
std::ostream& operator<<(std::ostream& os, DispatchKeySet ks);

}  // namespace opcore

// DispatchKey: the layers an operator call passes through.
//
// Note [Functionality and backend keys]
// A key is one of
//   - a functionality key: a layer of the call (Dense, BackendSelect, Python, ADInplaceOrView,
//     AutogradOther, AutogradFunctionality, AutocastFunctionality). Dense, Autograd and
//     Autocast are per-backend: they exist once for every backend component;
//   - a runtime per-backend key: a per-backend functionality paired with a backend component
//     (CPU = Dense x CPUBit, AutogradCUDA = AutogradFunctionality x CUDABit, ...);
//   - an alias key (Autograd, CompositeImplicitAutograd, CompositeExplicitAutograd,
//     CompositeExplicitAutogradNonFunctional): registration only; a kernel registered there
//     serves every runtime key the alias covers (see runtimeKeySetForAlias).
// A DispatchKeySet stores functionality bits and backend bits separately (DispatchKeySet.h),
// as c10 does, so that adding a backend adds one bit, not one bit per layer.
//
// Note [Dispatch key priority]
// Functionality keys are listed lowest priority first: when a call's key set holds several,
// the highest one runs first and may redispatch to the ones below it. Among the backends of
// a per-backend functionality, the highest backend bit wins (PrivateUse1 > Meta > CUDA > CPU).
// This is c10's order restricted to the layers opcore has.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

namespace opcore {

// The backend half of a per-backend key. Bit b-1 of a DispatchKeySet for component b.
enum class BackendComponent : uint8_t {
  InvalidBit = 0,
  CPUBit,
  CUDABit,
  MetaBit,
  PrivateUse1Bit,
  EndOfBackends,
};
constexpr int kNumBackends = static_cast<int>(BackendComponent::EndOfBackends) - 1;

enum class DispatchKey : uint8_t {
  Undefined = 0,

  // --- functionality keys, lowest priority first (Note [Dispatch key priority]) ---
  Dense,                  // per-backend: the backend's own kernels
  BackendSelect,          // picks a backend for ops whose tensors do not decide it
  Python,                 // Python-implemented kernels
  ADInplaceOrView,        // view and in-place bookkeeping for autograd
  AutogradOther,          // autograd for backends without their own autograd key
  AutogradFunctionality,  // per-backend: autograd
  AutocastFunctionality,  // per-backend: automatic mixed precision
  EndOfFunctionalityKeys,

  // --- runtime per-backend keys, grouped by functionality, backends in BackendComponent order ---
  CPU = EndOfFunctionalityKeys,
  CUDA,
  Meta,
  PrivateUse1,
  AutogradCPU,
  AutogradCUDA,
  AutogradMeta,
  AutogradPrivateUse1,
  AutocastCPU,
  AutocastCUDA,
  AutocastMeta,
  AutocastPrivateUse1,
  EndOfRuntimeKeys,

  // --- alias keys: registration only ---
  Autograd = EndOfRuntimeKeys,
  CompositeImplicitAutograd,
  CompositeExplicitAutograd,
  CompositeExplicitAutogradNonFunctional,
  EndOfKeys,
};

// Number of functionality keys, Undefined excluded: the functionality bits of a key set.
constexpr int kNumFunctionalityKeys = static_cast<int>(DispatchKey::EndOfFunctionalityKeys) - 1;
// Number of keys a kernel may be registered at (runtime + alias), Undefined included.
constexpr int kNumKeys = static_cast<int>(DispatchKey::EndOfKeys);

constexpr bool isAliasKey(DispatchKey k) {
  return k >= DispatchKey::EndOfRuntimeKeys && k < DispatchKey::EndOfKeys;
}
constexpr bool isFunctionalityKey(DispatchKey k) {
  return k > DispatchKey::Undefined && k < DispatchKey::EndOfFunctionalityKeys;
}
constexpr bool isPerBackendFunctionalityKey(DispatchKey k) {
  return k == DispatchKey::Dense || k == DispatchKey::AutogradFunctionality ||
         k == DispatchKey::AutocastFunctionality;
}
constexpr bool isRuntimePerBackendKey(DispatchKey k) {
  return k >= DispatchKey::CPU && k < DispatchKey::EndOfRuntimeKeys;
}
// A key a table slot can stand for: a functionality key or a runtime per-backend key.
constexpr bool isRuntimeKey(DispatchKey k) { return isFunctionalityKey(k) || isRuntimePerBackendKey(k); }
// A runtime key kernels and fallbacks can be registered at: not a per-backend functionality
// on its own (Dense, AutogradFunctionality: register at CPU, AutogradCPU, ...).
constexpr bool isKernelKey(DispatchKey k) { return isRuntimeKey(k) && !isPerBackendFunctionalityKey(k); }

// CPU -> Dense, AutogradCUDA -> AutogradFunctionality; a functionality key maps to itself.
constexpr DispatchKey toFunctionalityKey(DispatchKey k) {
  if (!isRuntimePerBackendKey(k)) return k;
  constexpr DispatchKey kByGroup[] = {DispatchKey::Dense, DispatchKey::AutogradFunctionality,
                                      DispatchKey::AutocastFunctionality};
  return kByGroup[(static_cast<int>(k) - static_cast<int>(DispatchKey::CPU)) / kNumBackends];
}
// CPU -> CPUBit, AutogradCUDA -> CUDABit; InvalidBit for keys without a backend.
constexpr BackendComponent toBackendComponent(DispatchKey k) {
  if (!isRuntimePerBackendKey(k)) return BackendComponent::InvalidBit;
  return static_cast<BackendComponent>((static_cast<int>(k) - static_cast<int>(DispatchKey::CPU)) % kNumBackends + 1);
}
// (AutogradFunctionality, CUDABit) -> AutogradCUDA. A functionality that is not per-backend,
// or an invalid backend, gives the functionality key itself.
constexpr DispatchKey toRuntimePerBackendKey(DispatchKey functionality, BackendComponent b) {
  if (!isPerBackendFunctionalityKey(functionality) || b == BackendComponent::InvalidBit) return functionality;
  const int group = functionality == DispatchKey::Dense ? 0 : functionality == DispatchKey::AutogradFunctionality ? 1 : 2;
  return static_cast<DispatchKey>(static_cast<int>(DispatchKey::CPU) + group * kNumBackends +
                                  static_cast<int>(b) - 1);
}
// The Dense key of a backend component: CUDABit -> CUDA.
constexpr DispatchKey toBackendKey(BackendComponent b) { return toRuntimePerBackendKey(DispatchKey::Dense, b); }

// Backend keys: the runtime keys of the Dense functionality (CPU, CUDA, Meta, PrivateUse1).
constexpr bool isBackendKey(DispatchKey k) { return toFunctionalityKey(k) == DispatchKey::Dense && isRuntimePerBackendKey(k); }
constexpr bool isAutogradKey(DispatchKey k) {
  return k == DispatchKey::AutogradOther || (isRuntimePerBackendKey(k) && toFunctionalityKey(k) == DispatchKey::AutogradFunctionality);
}

const char* toString(DispatchKey k);
const char* toString(BackendComponent b);
// Parses a key's name ("CPU", "CompositeImplicitAutograd"); nullopt if unknown.
std::optional<DispatchKey> parseDispatchKey(std::string_view name);
inline std::ostream& operator<<(std::ostream& os, DispatchKey k) { return os << toString(k); }

}  // namespace opcore

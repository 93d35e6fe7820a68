// Names of dispatch keys, alias expansion and key-set printing.
#include <opcore/core/DispatchKey.h>
#include <opcore/core/DispatchKeySet.h>

namespace opcore {

const char* toString(DispatchKey k) {
  switch (k) {
    case DispatchKey::Undefined: return "Undefined";
    case DispatchKey::Dense: return "Dense";
    case DispatchKey::BackendSelect: return "BackendSelect";
    case DispatchKey::Python: return "Python";
    case DispatchKey::ADInplaceOrView: return "ADInplaceOrView";
    case DispatchKey::AutogradOther: return "AutogradOther";
    case DispatchKey::AutogradFunctionality: return "AutogradFunctionality";
    case DispatchKey::AutocastFunctionality: return "AutocastFunctionality";
    case DispatchKey::CPU: return "CPU";
    case DispatchKey::CUDA: return "CUDA";
    case DispatchKey::Meta: return "Meta";
    case DispatchKey::PrivateUse1: return "PrivateUse1";
    case DispatchKey::AutogradCPU: return "AutogradCPU";
    case DispatchKey::AutogradCUDA: return "AutogradCUDA";
    case DispatchKey::AutogradMeta: return "AutogradMeta";
    case DispatchKey::AutogradPrivateUse1: return "AutogradPrivateUse1";
    case DispatchKey::AutocastCPU: return "AutocastCPU";
    case DispatchKey::AutocastCUDA: return "AutocastCUDA";
    case DispatchKey::AutocastMeta: return "AutocastMeta";
    case DispatchKey::AutocastPrivateUse1: return "AutocastPrivateUse1";
    case DispatchKey::Autograd: return "Autograd";
    case DispatchKey::CompositeImplicitAutograd: return "CompositeImplicitAutograd";
    case DispatchKey::CompositeExplicitAutograd: return "CompositeExplicitAutograd";
    case DispatchKey::CompositeExplicitAutogradNonFunctional:
      return "CompositeExplicitAutogradNonFunctional";
    case DispatchKey::EndOfKeys: break;
  }
  return "UnknownDispatchKey";
}

const char* toString(BackendComponent b) {
  switch (b) {
    case BackendComponent::InvalidBit: return "InvalidBit";
    case BackendComponent::CPUBit: return "CPUBit";
    case BackendComponent::CUDABit: return "CUDABit";
    case BackendComponent::MetaBit: return "MetaBit";
    case BackendComponent::PrivateUse1Bit: return "PrivateUse1Bit";
    case BackendComponent::EndOfBackends: break;
  }
  return "UnknownBackendComponent";
}

std::optional<DispatchKey> parseDispatchKey(std::string_view name) {
  for (int i = 0; i < kNumKeys; ++i) {
    auto k = static_cast<DispatchKey>(i);
    if (name == toString(k)) return k;
  }
  return std::nullopt;
}

namespace {

constexpr auto kKeyForTableIndex = [] {
  std::array<DispatchKey, kDispatchTableSize> keys{};
  for (int i = 1; i < static_cast<int>(DispatchKey::EndOfRuntimeKeys); ++i) {
    const auto k = static_cast<DispatchKey>(i);
    if (isRuntimeKey(k)) keys[dispatchTableIndex(k)] = k;
  }
  return keys;
}();

DispatchKeySet allOfFunctionality(DispatchKey functionality) {
  return DispatchKeySet(functionality) | DispatchKeySet::allBackends();
}

}  // namespace

DispatchKey dispatchKeyForTableIndex(int index) {
  return index >= 0 && index < kDispatchTableSize ? kKeyForTableIndex[index] : DispatchKey::Undefined;
}

DispatchKeySet runtimeKeySetForAlias(DispatchKey k) {
  const DispatchKeySet autograd = DispatchKeySet(DispatchKey::AutogradOther) |
                                  allOfFunctionality(DispatchKey::AutogradFunctionality);
  switch (k) {
    case DispatchKey::Autograd: return autograd;
    case DispatchKey::CompositeImplicitAutograd: return autograd | allOfFunctionality(DispatchKey::Dense);
    case DispatchKey::CompositeExplicitAutograd:
    case DispatchKey::CompositeExplicitAutogradNonFunctional: return allOfFunctionality(DispatchKey::Dense);
    default: return DispatchKeySet(k);
  }
}

bool isIncludedInAlias(DispatchKey k, DispatchKey alias) {
  return k == alias || (isKernelKey(k) && runtimeKeySetForAlias(alias).has(k));
}

std::ostream& operator<<(std::ostream& os, DispatchKeySet ks) {
  os << "DispatchKeySet(";
  const char* sep = "";
  bool printed_backends = false;
  for (int f = 1; f <= kNumFunctionalityKeys; ++f) {
    const auto functionality = static_cast<DispatchKey>(f);
    if (!ks.has(functionality)) continue;
    if (!isPerBackendFunctionalityKey(functionality) || ks.highestBackend() == BackendComponent::InvalidBit) {
      os << sep << toString(functionality);
      sep = ", ";
      continue;
    }
    for (int b = 1; b <= kNumBackends; ++b) {
      if (!ks.hasBackend(static_cast<BackendComponent>(b))) continue;
      os << sep << toString(toRuntimePerBackendKey(functionality, static_cast<BackendComponent>(b)));
      sep = ", ";
      printed_backends = true;
    }
  }
  if (!printed_backends) {
    for (int b = 1; b <= kNumBackends; ++b) {
      if (!ks.hasBackend(static_cast<BackendComponent>(b))) continue;
      os << sep << toString(static_cast<BackendComponent>(b));
      sep = ", ";
    }
  }
  return os << ")";
}

}  // namespace opcore

// Names of dispatch keys.
#include <opcore/core/DispatchKey.h>

namespace opcore {

const char* toString(DispatchKey k) {
  switch (k) {
    case DispatchKey::Undefined: return "Undefined";
    case DispatchKey::CPU: return "CPU";
    case DispatchKey::CUDA: return "CUDA";
    case DispatchKey::Meta: return "Meta";
    case DispatchKey::PrivateUse1: return "PrivateUse1";
    case DispatchKey::BackendSelect: return "BackendSelect";
    case DispatchKey::Python: return "Python";
    case DispatchKey::ADInplaceOrView: return "ADInplaceOrView";
    case DispatchKey::AutogradOther: return "AutogradOther";
    case DispatchKey::AutogradCPU: return "AutogradCPU";
    case DispatchKey::AutogradCUDA: return "AutogradCUDA";
    case DispatchKey::AutogradMeta: return "AutogradMeta";
    case DispatchKey::AutogradPrivateUse1: return "AutogradPrivateUse1";
    case DispatchKey::AutocastCPU: return "AutocastCPU";
    case DispatchKey::AutocastCUDA: return "AutocastCUDA";
    case DispatchKey::Autograd: return "Autograd";
    case DispatchKey::CompositeImplicitAutograd: return "CompositeImplicitAutograd";
    case DispatchKey::CompositeExplicitAutograd: return "CompositeExplicitAutograd";
    case DispatchKey::CompositeExplicitAutogradNonFunctional:
      return "CompositeExplicitAutogradNonFunctional";
    case DispatchKey::EndOfKeys: break;
  }
  return "UnknownDispatchKey";
}

std::optional<DispatchKey> parseDispatchKey(std::string_view name) {
  for (int i = 0; i < kNumKeys; ++i) {
    auto k = static_cast<DispatchKey>(i);
    if (name == toString(k)) return k;
  }
  return std::nullopt;
}

}  // namespace opcore

#include <opcore/core/DispatchKeySet.h>

namespace opcore {

std::ostream& operator<<(std::ostream& os, DispatchKeySet ks) {
  os << "DispatchKeySet(";
  bool first = true;
  for (int i = 1; i < kNumRuntimeKeys; ++i) {
    auto k = static_cast<DispatchKey>(i);
    if (!ks.has(k)) continue;
    os << (first ? "" : ", ") << toString(k);
    first = false;
  }
  return os << ")";
}

}  // namespace opcore

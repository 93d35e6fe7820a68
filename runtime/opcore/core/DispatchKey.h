// DispatchKey: the layers an operator call passes through. Runtime keys index the dispatch
// table; alias keys (Autograd, Composite*) only appear in registrations and are expanded
// into runtime keys when the table is computed.
//
// Note [Dispatch key priority]
// A runtime key's value is its priority: when a call's key set holds several keys, the
// highest one runs first (it may then redispatch to the keys below it). Backends are lowest,
// then backend selection, then Python and view tracking, then autograd, then autocast.
// This is the order c10 uses; keeping one flat enum (rather than c10's functionality x
// backend product) keeps the table index a single count-leading-zeros.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

namespace opcore {

enum class DispatchKey : uint8_t {
  Undefined = 0,
  // --- runtime keys, lowest priority first (see Note [Dispatch key priority]) ---
  CPU,
  CUDA,
  Meta,
  PrivateUse1,
  BackendSelect,
  Python,
  ADInplaceOrView,
  AutogradOther,
  AutogradCPU,
  AutogradCUDA,
  AutogradMeta,
  AutogradPrivateUse1,
  AutocastCPU,
  AutocastCUDA,
  EndOfRuntimeKeys,
  // --- alias keys: registration only ---
  Autograd = EndOfRuntimeKeys,
  CompositeImplicitAutograd,
  CompositeExplicitAutograd,
  CompositeExplicitAutogradNonFunctional,
  EndOfKeys,
};

// Number of runtime keys, including Undefined at index 0: the dispatch-table size.
constexpr int kNumRuntimeKeys = static_cast<int>(DispatchKey::EndOfRuntimeKeys);
// Number of keys a kernel may be registered at (runtime + alias).
constexpr int kNumKeys = static_cast<int>(DispatchKey::EndOfKeys);

constexpr bool isAliasKey(DispatchKey k) { return k >= DispatchKey::EndOfRuntimeKeys; }
constexpr bool isBackendKey(DispatchKey k) {
  return k >= DispatchKey::CPU && k <= DispatchKey::PrivateUse1;
}
constexpr bool isAutogradKey(DispatchKey k) {
  return k >= DispatchKey::AutogradOther && k <= DispatchKey::AutogradPrivateUse1;
}

const char* toString(DispatchKey k);
// Parses the enumerator name ("CPU", "CompositeImplicitAutograd"); nullopt if unknown.
std::optional<DispatchKey> parseDispatchKey(std::string_view name);
inline std::ostream& operator<<(std::ostream& os, DispatchKey k) { return os << toString(k); }

}  // namespace opcore

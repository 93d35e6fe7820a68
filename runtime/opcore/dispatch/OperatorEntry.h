// OperatorEntry: everything the dispatcher knows about one operator overload: its schema,
// the kernels registered per dispatch key (canonical state) and the dispatch table computed
// from them (derived state, one slot per runtime key). See Note [Computing the dispatch table].
#pragma once

#include <opcore/core/DispatchKeySet.h>
#include <opcore/core/Macros.h>
#include <opcore/dispatch/FunctionSchema.h>
#include <opcore/dispatch/KernelFunction.h>

#include <array>
#include <cstdint>
#include <list>
#include <optional>
#include <string>

namespace opcore {

struct AnnotatedKernel {
  KernelFunction kernel;
  std::string debug;  // "registered at RegisterCPU.cpp:42"
};

class OperatorEntry {
 public:
  explicit OperatorEntry(OperatorName name) : name_(std::move(name)) {}
  OperatorEntry(const OperatorEntry&) = delete;
  OperatorEntry& operator=(const OperatorEntry&) = delete;

  const OperatorName& operatorName() const { return name_; }
  bool hasSchema() const { return schema_.has_value(); }
  // Precondition: hasSchema().
  const FunctionSchema& schema() const { return *schema_; }
  const std::string& schemaDebug() const { return schema_debug_; }

  // Hot path: the kernel for the highest-priority key of `ks`; throws when there is none.
  OPCORE_ALWAYS_INLINE const KernelFunction& lookup(DispatchKeySet ks) const {
    const KernelFunction& k = table_[ks.dispatchTableIndex()];
    if (OPCORE_UNLIKELY(!k.isValid())) reportMissingKernel(ks);
    return k;
  }

  // --- cold path; precondition: the dispatcher's registry mutex is held ---
  void registerSchema(FunctionSchema schema, std::string debug);
  void deregisterSchema();
  using KernelIt = std::list<AnnotatedKernel>::iterator;
  // Registers a kernel at a runtime or alias key; the newest registration for a key wins
  // until it is removed. Throws if its C++ signature differs from earlier kernels'.
  KernelIt registerKernel(DispatchKey key, AnnotatedKernel kernel);
  void deregisterKernel(DispatchKey key, KernelIt it);
  // True when no schema and no kernel is registered: the entry is inert.
  bool isEmpty() const;

  // Throws if `sig` differs from the signature of the registered kernels (for typed<>()).
  void assertSignatureIs(const CppSignature& sig, const char* what) const;
  bool hasKernelForDispatchKey(DispatchKey k) const { return !kernels_[static_cast<size_t>(k)].empty(); }

  // Stable text for tests and debugging: registrations per key, with their sites.
  std::string dumpState() const;
  // One line per runtime key with a kernel: which registration it resolves to, by which rule.
  std::string dumpComputedTable() const;
  // Recomputes the table and throws (internal error) if it differs from the stored one.
  void checkInvariants() const;

 private:
  struct Resolution {
    const AnnotatedKernel* kernel = nullptr;
    DispatchKey from = DispatchKey::Undefined;  // the key it was registered at
    const char* rule = "missing";
  };
  Resolution resolve(DispatchKey runtime_key) const;
  const AnnotatedKernel* active(DispatchKey k) const;
  void updateTable();
  [[noreturn]] OPCORE_NOINLINE void reportMissingKernel(DispatchKeySet ks) const;

  OperatorName name_;
  std::optional<FunctionSchema> schema_;
  std::string schema_debug_;
  std::array<std::list<AnnotatedKernel>, kNumKeys> kernels_;  // front() is active
  std::optional<CppSignature> signature_;                     // of the registered kernels
  std::string signature_debug_;
  std::array<KernelFunction, kDispatchTableSize> table_;
};

}  // namespace opcore

// OperatorEntry: everything the dispatcher knows about one operator overload: its schema,
// the kernels registered per dispatch key (canonical state) and the dispatch table computed
// from them and from the dispatcher's fallbacks (derived state).
// See Note [Computing the dispatch table] and Note [Lock-free calls].
#pragma once

#include <opcore/core/DispatchKeySet.h>
#include <opcore/core/Macros.h>
#include <opcore/dispatch/FunctionSchema.h>
#include <opcore/dispatch/KernelFunction.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opcore {

struct AnnotatedKernel {
  KernelFunction kernel;
  std::string debug;  // "registered at RegisterCPU.cpp:42"
};
using KernelList = std::list<AnnotatedKernel>;  // front() is the active registration
// The dispatcher-wide fallbacks: at most one per dispatch-table slot (Note [One fallback per
// key] in Dispatcher.cpp).
using FallbackTable = std::array<std::optional<AnnotatedKernel>, kDispatchTableSize>;

// Note [Lock-free calls]
// A call reads one DispatchTable through an atomic pointer and never writes shared memory.
// A writer (holding the dispatcher's mutex) builds a new table and publishes it with one
// release store, so a reader sees either the old table or the new one, never a mix. Published
// tables are immutable and never freed (each is ~1 KB and registration happens at load time,
// so this is bounded by the number of registrations), which is what makes reading them safe
// without reference counts or epochs. The kernel state a slot points to is freed when its
// registration is removed: as in c10, calling a kernel while removing that same kernel is
// the caller's race; calling any other kernel of the operator meanwhile is safe.
struct DispatchTable {
  std::array<KernelSlot, kDispatchTableSize> slots;
  // Per highest backend of a call (index 0: none): every key whose kernel is not fallthrough,
  // plus every backend bit. A call's key set is masked with it before the lookup.
  std::array<DispatchKeySet, kNumBackends + 1> non_fallthrough;
  // Boxed key extraction, from the schema: the number of arguments, a mask of those that
  // carry keys (bit i: argument i is a tensor, tensor list, device or generator), and whether any is a
  // tensor. Schemas have at most 64 arguments (checked at registration).
  size_t num_args = 0;
  uint64_t key_args = 0;
  bool has_tensor_args = false;

  OPCORE_ALWAYS_INLINE DispatchKeySet maskFallthrough(DispatchKeySet ks) const {
    return ks & non_fallthrough[static_cast<int>(ks.highestBackend())];
  }
  OPCORE_ALWAYS_INLINE const KernelSlot& lookup(DispatchKeySet masked) const {
    return slots[masked.dispatchTableIndex()];
  }
};

class OperatorEntry {
 public:
  OperatorEntry(OperatorName name, const FallbackTable& fallbacks);
  OperatorEntry(const OperatorEntry&) = delete;
  OperatorEntry& operator=(const OperatorEntry&) = delete;

  const OperatorName& operatorName() const { return name_; }
  bool hasSchema() const { return schema_.has_value(); }
  // The schema; throws opcore::Error naming the operator when it has none (never defined, or
  // its defining library was destroyed). The reference is valid until the definition goes.
  const FunctionSchema& schema() const {
    if (OPCORE_UNLIKELY(!schema_)) reportNoSchema();
    return *schema_;
  }
  const std::string& schemaDebug() const { return schema_debug_; }
  // The tags the definition gave (tags.yaml names: "pointwise", "core"); empty without a schema.
  const std::vector<std::string>& tags() const { return tags_; }

  // Hot path: the current table (Note [Lock-free calls]).
  OPCORE_ALWAYS_INLINE const DispatchTable& table() const { return *table_.load(std::memory_order_acquire); }

  // --- cold path; precondition: the dispatcher's registry mutex is held ---
  // Throws if a registered kernel's C++ types do not match `schema`.
  void registerSchema(FunctionSchema schema, std::string debug, std::vector<std::string> tags);
  void deregisterSchema();
  using KernelIt = KernelList::iterator;
  // Registers a kernel at a runtime or alias key; the newest registration for a key wins
  // until it is removed. Throws if its C++ types differ from earlier kernels' or the schema's.
  KernelIt registerKernel(DispatchKey key, AnnotatedKernel kernel);
  void deregisterKernel(DispatchKey key, KernelIt it);
  // Recomputes the table (after a kernel or fallback change) and publishes it.
  void updateTable();
  // True when no schema and no kernel is registered: the entry is inert.
  bool isEmpty() const;

  // Throws if `sig` differs from the signature of the registered kernels (for typed<>()).
  void assertSignatureIs(const CppSignature& sig, const std::string& inferred_schema, const char* what) const;
  // A kernel is registered at `k` itself (a runtime or alias key).
  bool hasKernelForDispatchKey(DispatchKey k) const { return !kernels_[static_cast<size_t>(k)].empty(); }
  // The active kernel registered at `k` itself (a runtime or alias key), or null.
  const AnnotatedKernel* active(DispatchKey k) const;
  // The computed table has a kernel (not fallthrough) for the runtime key `k`, by any rule.
  bool hasComputedKernelForDispatchKey(DispatchKey k) const;

  // Stable text for tests and debugging: registrations per key, with their sites.
  std::string dumpState() const;
  // One line per runtime key with a kernel: which registration it resolves to, by which rule.
  std::string dumpComputedTable() const;
  // Recomputes the table and throws (internal error) if it differs from the published one.
  void checkInvariants() const;
  [[noreturn]] OPCORE_NOINLINE void reportMissingKernel(DispatchKeySet ks) const;
  // Throws a clear error when the top values of a boxed call's `stack` cannot be this
  // operator's arguments (a tensor where the schema has none, or the reverse); returns
  // otherwise. Cold: called only once a boxed call has found no kernel.
  OPCORE_NOINLINE void checkBoxedArguments(const Stack& stack) const;

 private:
  struct Resolution {
    const AnnotatedKernel* kernel = nullptr;
    DispatchKey from = DispatchKey::Undefined;  // the key it was registered at
    const char* rule = "missing";
  };
  Resolution resolve(DispatchKey runtime_key) const;
  std::unique_ptr<DispatchTable> computeTable() const;
  void checkKernelMatchesSchema(const AnnotatedKernel& k, DispatchKey key, const FunctionSchema& schema) const;
  [[noreturn]] OPCORE_NOINLINE void reportNoSchema() const;

  OperatorName name_;
  const FallbackTable& fallbacks_;
  std::optional<FunctionSchema> schema_;
  std::string schema_debug_;
  std::vector<std::string> tags_;
  std::array<KernelList, kNumKeys> kernels_;
  std::optional<CppSignature> signature_;  // of the registered unboxed kernels
  std::string signature_debug_;
  std::atomic<const DispatchTable*> table_{nullptr};
  std::vector<std::unique_ptr<DispatchTable>> published_;  // Note [Lock-free calls]
};

}  // namespace opcore

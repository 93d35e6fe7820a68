// The Dispatcher: the registry of operators, kernels and fallbacks, and the call path.
//
//   auto op = Dispatcher::singleton().findSchemaOrThrow("aten::add", "Tensor")
//                 .typed<Tensor(const Tensor&, const Tensor&, const Scalar&)>();
//   Tensor r = op.call(a, b, 1);            // keys from the arguments + TLS
//   Tensor s = op.redispatch(ks, a, b, 1);  // keys given by the caller
//   Stack stack{a, b, 1};
//   op.callBoxed(stack);                    // stack == {result}
//
// Calls are inline, lock-free and allocation-free (unboxed): key extraction is a fold over
// the arguments, then one atomic load of the operator's table, one AND with its fallthrough
// mask and one slot load (Note [Lock-free calls]). Registration takes a mutex, recomputes
// the affected tables and publishes them (cold path).
#pragma once

#include <opcore/core/Macros.h>
#include <opcore/dispatch/DispatchKeyExtractor.h>
#include <opcore/dispatch/OperatorEntry.h>
#include <opcore/dispatch/RegistrationHandle.h>

#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace opcore {

template <typename FuncType>
class TypedOperatorHandle;

namespace detail {
// Whether calls print a dispatch trace: set at startup from OPCORE_SHOW_DISPATCH_TRACE, and
// at run time by opcore._C._dispatch_set_trace. A relaxed load on every call, as cheap as the
// constant it replaces.
extern std::atomic<bool> show_dispatch_trace;
inline bool dispatchTraceEnabled() { return show_dispatch_trace.load(std::memory_order_relaxed); }
// Prints "[call] op=[aten::add.Tensor], key=[CPU]", indented by the nesting depth of
// dispatcher calls on this thread, and holds one level of depth while it lives.
class DispatchTraceScope {
 public:
  DispatchTraceScope(const OperatorEntry& op, DispatchKeySet ks, bool redispatch);
  ~DispatchTraceScope();
  DispatchTraceScope(const DispatchTraceScope&) = delete;
  DispatchTraceScope& operator=(const DispatchTraceScope&) = delete;
};
}  // namespace detail

// A reference to a registered operator. Cheap to copy; valid for the process lifetime
// (entries are never freed, only emptied when their registrations go away).
class OperatorHandle {
 public:
  const OperatorName& operatorName() const { return entry_->operatorName(); }
  bool hasSchema() const { return entry_->hasSchema(); }
  const std::vector<std::string>& tags() const { return entry_->tags(); }
  // Where the schema was registered ("registered at file.cpp:42"); empty without one.
  const std::string& schemaDebug() const { return entry_->schemaDebug(); }
  // Changes whenever a registration changes what a call of this operator runs: the identity
  // of its current dispatch table (tables are never freed, so an identity is never reused).
  // Caches of dispatch decisions (the Python OperatorBase's) compare it to invalidate.
  const void* tableVersion() const { return &entry_->table(); }
  // Whether a call reaching runtime key `k` skips it (c10's isKernelFallthroughKernel).
  bool isKernelFallthroughKernel(DispatchKey k) const { return entry_->table().lookup(DispatchKeySet(k)).isFallthrough(); }
  const FunctionSchema& schema() const { return entry_->schema(); }
  // Introspection of the registrations (cold: they take the registry mutex, as writers change
  // that state under it while calls run on published tables).
  bool hasKernelForDispatchKey(DispatchKey k) const;
  bool hasComputedKernelForDispatchKey(DispatchKey k) const;
  std::string dumpState() const;
  std::string dumpComputedTable() const;
  void checkInvariants() const;

  // A handle for calls with C++ signature FuncType; throws if the registered kernels have a
  // different signature, or if FuncType's types do not match the schema.
  template <typename FuncType>
  TypedOperatorHandle<FuncType> typed() const {
    assertSignatureIs(CppSignature::make<FuncType>(), inferSchemaText<FuncType>());
    return TypedOperatorHandle<FuncType>(entry_);
  }

  // Boxed calls (Note [Boxed calling convention]): the arguments are on top of `stack`; the
  // kernel replaces them with the returns.
  void callBoxed(Stack& stack) const {
    const DispatchTable& table = entry_->table();
    const DispatchKeySet ks = table.maskFallthrough(detail::computeDispatchKeySetBoxed(
        stack, table.num_args, table.key_args, table.has_tensor_args));
    callBoxedImpl(table, ks, stack, false);
  }
  // Like callBoxed, dispatching on the caller's key set instead of the arguments'. The stack
  // must hold the arguments all the same: a boxed kernel may index it from the top by the
  // schema's argument count.
  void redispatchBoxed(DispatchKeySet ks, Stack& stack) const {
    const DispatchTable& table = entry_->table();
    if (OPCORE_UNLIKELY(stack.size() < table.num_args)) detail::reportTooFewValuesForOperator(stack.size(), table.num_args);
    callBoxedImpl(table, table.maskFallthrough(ks), stack, true);
  }
  // Calls the kernel the table holds for runtime key `k` (whatever rule put it there), or the
  // kernel registered at alias key `k` (CompositeImplicitAutograd: OpOverload.decompose),
  // passing it the key set of the arguments.
  void callBoxedForDispatchKey(DispatchKey k, Stack& stack) const;

 protected:
  friend class Dispatcher;
  explicit OperatorHandle(OperatorEntry* entry) : entry_(entry) {}

  void assertSignatureIs(const CppSignature& sig, const std::string& inferred_schema) const;
  // The traced call is out of line, so that the usual one is a tail call.
  void callBoxedImpl(const DispatchTable& table, DispatchKeySet ks, Stack& stack, bool is_redispatch) const {
    const KernelSlot& kernel = table.lookup(ks);
    if (OPCORE_UNLIKELY(detail::dispatchTraceEnabled())) return callBoxedTraced(kernel, ks, stack, is_redispatch);
    kernel.callBoxed(*this, ks, &stack);
  }
  OPCORE_NOINLINE void callBoxedTraced(const KernelSlot& kernel, DispatchKeySet ks, Stack& stack,
                                       bool is_redispatch) const;

  OperatorEntry* entry_;
};

template <typename Ret, typename... Args>
class TypedOperatorHandle<Ret(Args...)> final : public OperatorHandle {
 public:
  OPCORE_ALWAYS_INLINE Ret call(Args... args) const {
    const DispatchTable& table = entry_->table();
    const DispatchKeySet ks = table.maskFallthrough(detail::computeDispatchKeySet<Args...>(args...));
    return callImpl(table, ks, false, std::forward<Args>(args)...);
  }
  // Calls the kernel for the highest key of `ks` (minus fallthrough keys), ignoring the
  // arguments' own keys.
  OPCORE_ALWAYS_INLINE Ret redispatch(DispatchKeySet ks, Args... args) const {
    const DispatchTable& table = entry_->table();
    return callImpl(table, table.maskFallthrough(ks), true, std::forward<Args>(args)...);
  }

 private:
  friend class OperatorHandle;
  explicit TypedOperatorHandle(OperatorEntry* entry) : OperatorHandle(entry) {}

  OPCORE_ALWAYS_INLINE Ret callImpl(const DispatchTable& table, DispatchKeySet ks, bool is_redispatch,
                                    Args... args) const {
    const KernelSlot& kernel = table.lookup(ks);
    if (OPCORE_UNLIKELY(detail::dispatchTraceEnabled())) {
      detail::DispatchTraceScope trace(*entry_, ks, is_redispatch);
      return kernel.template call<Ret, Args...>(*this, ks, std::forward<Args>(args)...);
    }
    return kernel.template call<Ret, Args...>(*this, ks, std::forward<Args>(args)...);
  }
};

// Told about every operator definition (schema registration) and its removal; see
// Dispatcher::addRegistrationListener. Called with the dispatcher's mutex held: a listener
// may read the handle's name and schema, but must not register, call or dump operators.
class OpRegistrationListener {
 public:
  virtual ~OpRegistrationListener() = default;
  virtual void onOperatorRegistered(const OperatorHandle& op) = 0;
  virtual void onOperatorDeregistered(const OperatorHandle& op) = 0;
};

class Dispatcher {
 public:
  // The process-wide dispatcher (never destroyed, so static registrations may outlive main).
  static Dispatcher& singleton();

  // The operator with this name, if its schema is registered.
  std::optional<OperatorHandle> findSchema(const OperatorName& name);
  // Like findSchema; throws opcore::Error naming the operator when it is not registered.
  OperatorHandle findSchemaOrThrow(const char* name, const char* overload_name);

  // Defines an operator. Throws if it is already defined, naming both registration sites,
  // or if kernels registered before it do not match its schema.
  RegistrationHandleRAII registerDef(FunctionSchema schema, std::string debug, std::vector<std::string> tags = {});
  // Registers a kernel for `name` at `key` (a runtime or alias key). The operator need
  // not be defined yet (see findDanglingImpls).
  RegistrationHandleRAII registerImpl(OperatorName name, DispatchKey key, KernelFunction kernel,
                                      std::string debug);
  // Registers a dispatcher-wide fallback for `key` (a runtime key, or an alias for all the
  // keys it covers): a boxed kernel or makeFallthrough(), used by every operator that has no
  // kernel of its own for the key (rule 5 of Note [Computing the dispatch table]).
  RegistrationHandleRAII registerFallback(DispatchKey key, KernelFunction kernel, std::string debug);
  // Claims a namespace for one OPCORE_LIBRARY block; a second claim throws, naming both.
  RegistrationHandleRAII registerLibrary(const std::string& ns, std::string debug);
  // Records operators that this build left out (a selective build; `names` as "aten::add.Scalar"),
  // so that looking one up says so, and why: `reason`.
  RegistrationHandleRAII registerExcluded(std::vector<std::string> names, std::string reason);
  // Why the build left out `name` ("aten::add.Scalar", or "aten::add" for any of its overloads),
  // or "" when it did not.
  std::string excludedReason(const std::string& name);
  // Throws findSchemaOrThrow's error for an operator this build left out: the whole of its
  // `_ops` struct's call and redispatch (Operators_<i>.cpp).
  [[noreturn]] void throwExcluded(const char* name, const char* overload_name);
  // Adds a listener and tells it about every operator already defined.
  RegistrationHandleRAII addRegistrationListener(std::unique_ptr<OpRegistrationListener> listener);

  // Every operator with a schema, as "aten::add.Tensor", sorted.
  std::vector<std::string> allOperatorNames();
  // Operators with kernels but no schema (impl without def), sorted.
  std::vector<std::string> findDanglingImpls();
  // The fallback registrations per key, as text: "PrivateUse1: [registered at f.cpp:3]".
  std::string dumpFallbacks();
  // Checks every operator's table against a recomputation (see OperatorEntry).
  void checkInvariants();

 private:
  friend class OperatorHandle;  // its introspection takes mutex_
  Dispatcher() = default;
  OperatorEntry& findOrCreate(const OperatorName& name);  // precondition: mutex_ held
  void updateAllTables();                                 // precondition: mutex_ held

  std::mutex mutex_;
  FallbackTable fallbacks_;
  std::list<OperatorEntry> entries_;  // stable addresses: handles point into it
  std::unordered_map<std::string, OperatorEntry*> by_name_;
  std::unordered_map<std::string, std::string> libraries_;  // namespace -> debug
  std::unordered_map<std::string, std::string> excluded_;   // "aten::add.Scalar" -> why it is absent
  std::list<std::unique_ptr<OpRegistrationListener>> listeners_;
};

}  // namespace opcore

// The Dispatcher: the registry of operators and their kernels, and the call path.
//
//   auto op = Dispatcher::singleton().findSchemaOrThrow("aten::add", "Tensor")
//                 .typed<Tensor(const Tensor&, const Tensor&, const Scalar&)>();
//   Tensor r = op.call(a, b, 1);          // keys from the arguments + TLS
//   Tensor s = op.redispatch(ks, a, b, 1);  // keys given by the caller
//
// Calls are inline, lock-free and allocation-free: key extraction is a fold over the
// arguments, the kernel is one array load (OperatorEntry::lookup). Registration takes a
// mutex and recomputes the affected operator's table (cold path).
#pragma once

#include <opcore/core/Macros.h>
#include <opcore/dispatch/DispatchKeyExtractor.h>
#include <opcore/dispatch/OperatorEntry.h>
#include <opcore/dispatch/RegistrationHandle.h>

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

// A reference to a registered operator. Cheap to copy; valid for the process lifetime
// (entries are never freed, only emptied when their registrations go away).
class OperatorHandle {
 public:
  const OperatorName& operatorName() const { return entry_->operatorName(); }
  bool hasSchema() const { return entry_->hasSchema(); }
  const FunctionSchema& schema() const { return entry_->schema(); }
  bool hasKernelForDispatchKey(DispatchKey k) const { return entry_->hasKernelForDispatchKey(k); }
  std::string dumpState() const { return entry_->dumpState(); }
  std::string dumpComputedTable() const { return entry_->dumpComputedTable(); }
  void checkInvariants() const { entry_->checkInvariants(); }

  // A handle for calls with C++ signature FuncType; throws if the registered kernels
  // have a different signature.
  template <typename FuncType>
  TypedOperatorHandle<FuncType> typed() const {
    entry_->assertSignatureIs(CppSignature::make<FuncType>(), "typed<>()");
    return TypedOperatorHandle<FuncType>(entry_);
  }

 protected:
  friend class Dispatcher;
  explicit OperatorHandle(OperatorEntry* entry) : entry_(entry) {}
  OperatorEntry* entry_;
};

namespace detail {
// Set once at startup from OPCORE_SHOW_DISPATCH_TRACE.
extern const bool kShowDispatchTrace;
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

template <typename Ret, typename... Args>
class TypedOperatorHandle<Ret(Args...)> final : public OperatorHandle {
 public:
  OPCORE_ALWAYS_INLINE Ret call(Args... args) const {
    const DispatchKeySet ks = detail::computeDispatchKeySet<Args...>(args...);
    return redispatchImpl(ks, false, std::forward<Args>(args)...);
  }
  // Calls the kernel for the highest key of `ks`, ignoring the arguments' own keys.
  OPCORE_ALWAYS_INLINE Ret redispatch(DispatchKeySet ks, Args... args) const {
    return redispatchImpl(ks, true, std::forward<Args>(args)...);
  }

 private:
  friend class OperatorHandle;
  explicit TypedOperatorHandle(OperatorEntry* entry) : OperatorHandle(entry) {}

  OPCORE_ALWAYS_INLINE Ret redispatchImpl(DispatchKeySet ks, bool is_redispatch, Args... args) const {
    const KernelFunction& kernel = entry_->lookup(ks);
    if (OPCORE_UNLIKELY(detail::kShowDispatchTrace)) {
      detail::DispatchTraceScope trace(*entry_, ks, is_redispatch);
      return kernel.template call<Ret, Args...>(ks, std::forward<Args>(args)...);
    }
    return kernel.template call<Ret, Args...>(ks, std::forward<Args>(args)...);
  }
};

class Dispatcher {
 public:
  // The process-wide dispatcher (never destroyed, so static registrations may outlive main).
  static Dispatcher& singleton();

  // The operator with this name, if its schema is registered.
  std::optional<OperatorHandle> findSchema(const OperatorName& name);
  // Like findSchema; throws opcore::Error naming the operator when it is not registered.
  OperatorHandle findSchemaOrThrow(const char* name, const char* overload_name);

  // Defines an operator. Throws if it is already defined, naming both registration sites.
  RegistrationHandleRAII registerDef(FunctionSchema schema, std::string debug);
  // Registers a kernel for `name` at `key` (a runtime or alias key). The operator need
  // not be defined yet (see findDanglingImpls).
  RegistrationHandleRAII registerImpl(OperatorName name, DispatchKey key, KernelFunction kernel,
                                      std::string debug);
  // Claims a namespace for one OPCORE_LIBRARY block; a second claim throws, naming both.
  RegistrationHandleRAII registerLibrary(const std::string& ns, std::string debug);

  // Every operator with a schema, as "aten::add.Tensor", sorted.
  std::vector<std::string> allOperatorNames();
  // Operators with kernels but no schema (impl without def), sorted.
  std::vector<std::string> findDanglingImpls();

 private:
  Dispatcher() = default;
  OperatorEntry& findOrCreate(const OperatorName& name);  // precondition: mutex_ held

  std::mutex mutex_;
  std::list<OperatorEntry> entries_;  // stable addresses: handles point into it
  std::unordered_map<std::string, OperatorEntry*> by_name_;
  std::unordered_map<std::string, std::string> libraries_;  // namespace -> debug
};

}  // namespace opcore

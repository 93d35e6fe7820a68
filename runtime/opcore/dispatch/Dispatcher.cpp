// Registration (cold path), lookup by name, and dispatch tracing.
#include <opcore/dispatch/Dispatcher.h>

#include <opcore/core/Error.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace opcore {

namespace detail {

constinit thread_local LocalDispatchKeySet tls_local_dispatch_key_set;

static bool readTraceFlag() {
  const char* v = std::getenv("OPCORE_SHOW_DISPATCH_TRACE");
  return v != nullptr && std::strcmp(v, "") != 0 && std::strcmp(v, "0") != 0;
}
std::atomic<bool> show_dispatch_trace{readTraceFlag()};

namespace {
thread_local int tls_trace_depth = 0;
}  // namespace

DispatchTraceScope::DispatchTraceScope(const OperatorEntry& op, DispatchKeySet ks, bool redispatch) {
  std::cerr << std::string(static_cast<size_t>(2 * tls_trace_depth), ' ')
            << (redispatch ? "[redispatch] op=[" : "[call] op=[") << op.operatorName().str()
            << "], key=[" << toString(ks.highestPriorityTypeId()) << "]\n";
  ++tls_trace_depth;
}

DispatchTraceScope::~DispatchTraceScope() { --tls_trace_depth; }

void reportTooFewValuesForOperator(size_t stack_size, size_t num_args) {
  OPCORE_FAIL("boxed call with ", stack_size, " values on the stack, but the operator takes ", num_args, " arguments");
}

}  // namespace detail

Dispatcher& Dispatcher::singleton() {
  static Dispatcher* instance = new Dispatcher();  // leaked on purpose: see singleton()'s doc
  return *instance;
}

OperatorEntry& Dispatcher::findOrCreate(const OperatorName& name) {
  const std::string key = name.str();
  auto it = by_name_.find(key);
  if (it != by_name_.end()) return *it->second;
  OperatorEntry& entry = entries_.emplace_back(name, fallbacks_);
  by_name_.emplace(key, &entry);
  return entry;
}

void Dispatcher::updateAllTables() {
  for (OperatorEntry& e : entries_) e.updateTable();
}

std::optional<OperatorHandle> Dispatcher::findSchema(const OperatorName& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = by_name_.find(name.str());
  if (it == by_name_.end() || !it->second->hasSchema()) return std::nullopt;
  return OperatorHandle(it->second);
}

OperatorHandle Dispatcher::findSchemaOrThrow(const char* name, const char* overload_name) {
  OperatorName op{name, overload_name};
  auto handle = findSchema(op);
  if (!handle) {
    const std::string reason = excludedReason(op.str());
    OPCORE_CHECK(reason.empty(), "operator '", op.str(), "' was excluded from this build: ", reason);
    OPCORE_CHECK(false, "could not find schema for operator '", op.str(),
                 "': it is not defined (is the library that defines it loaded?)");
  }
  return *handle;
}

RegistrationHandleRAII Dispatcher::registerExcluded(std::vector<std::string> names, std::string reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const std::string& name : names) excluded_.emplace(name, reason);
  return RegistrationHandleRAII([this, names = std::move(names)] {
    std::lock_guard<std::mutex> guard(mutex_);
    for (const std::string& name : names) excluded_.erase(name);
  });
}

void Dispatcher::throwExcluded(const char* name, const char* overload_name) {
  findSchemaOrThrow(name, overload_name);
  OPCORE_FAIL("operator '", OperatorName{name, overload_name}.str(), "' was left out of this build, "
              "but a library has since defined it: its C++ API still throws");
}

std::string Dispatcher::excludedReason(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = excluded_.find(name); it != excluded_.end()) return it->second;
  const std::string overloads = name + ".";
  for (const auto& [excluded, reason] : excluded_) {
    if (excluded.compare(0, overloads.size(), overloads) == 0) return reason;
  }
  return "";
}

RegistrationHandleRAII Dispatcher::registerDef(FunctionSchema schema, std::string debug,
                                               std::vector<std::string> tags) {
  std::lock_guard<std::mutex> lock(mutex_);
  OperatorEntry& entry = findOrCreate(schema.operatorName());
  OPCORE_CHECK(!entry.hasSchema(), "operator '", schema.operatorName().str(),
               "' is defined twice: first ", entry.schemaDebug(), " as '", entry.schema().str(),
               "', then ", debug, " as '", schema.str(), "'");
  entry.registerSchema(std::move(schema), std::move(debug), std::move(tags));
  for (const auto& listener : listeners_) listener->onOperatorRegistered(OperatorHandle(&entry));
  return RegistrationHandleRAII([this, &entry] {
    std::lock_guard<std::mutex> guard(mutex_);
    for (const auto& listener : listeners_) listener->onOperatorDeregistered(OperatorHandle(&entry));
    entry.deregisterSchema();
  });
}

RegistrationHandleRAII Dispatcher::registerImpl(OperatorName name, DispatchKey key,
                                                KernelFunction kernel, std::string debug) {
  std::lock_guard<std::mutex> lock(mutex_);
  OperatorEntry& entry = findOrCreate(name);
  auto it = entry.registerKernel(key, AnnotatedKernel{std::move(kernel), std::move(debug)});
  return RegistrationHandleRAII([this, &entry, key, it] {
    std::lock_guard<std::mutex> guard(mutex_);
    entry.deregisterKernel(key, it);
  });
}

// Note [One fallback per key]
// A runtime key has at most one dispatcher-wide fallback, as in c10: a second registration,
// whether boxed or fallthrough, is rejected naming both sites, since letting it win would
// silently change every operator that relied on the first. A fallback at an alias key claims
// every runtime key of the alias, so it conflicts with a fallback at any of them (and the other
// way round). A fallthrough is no exception: over a boxed fallback it would switch that
// fallback off for all operators at once. To skip a key for one operator, register a
// fallthrough *kernel* for it at that key (rule 1 of Note [Computing the dispatch table] wins
// over the fallback); to replace a fallback, destroy the library that registered it first.
RegistrationHandleRAII Dispatcher::registerFallback(DispatchKey key, KernelFunction kernel, std::string debug) {
  OPCORE_CHECK(!kernel.cppSignature(), "the fallback for ", key, " (", debug,
               ") is an unboxed kernel; a fallback serves every operator, so it must be a boxed kernel "
               "(KernelFunction::makeFromBoxedFunction) or KernelFunction::makeFallthrough()");
  OPCORE_CHECK(isAliasKey(key) || isKernelKey(key),
               "cannot register a fallback at dispatch key ", key, " (", debug,
               "): use a runtime key such as CPU or AutogradCPU, or an alias key");
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<int> slots;  // the runtime keys `key` covers (itself, or an alias's keys)
  for (int i = 1; i < kDispatchTableSize; ++i) {
    if (!isIncludedInAlias(dispatchKeyForTableIndex(i), key)) continue;
    // Checked for every key before any is set, so a rejected alias registration adds nothing.
    OPCORE_CHECK(!fallbacks_[i], "dispatch key ", dispatchKeyForTableIndex(i), " already has a fallback (",
                 fallbacks_[i]->debug, "); the new fallback for ", key, " (", debug,
                 ") would shadow it. A key has one fallback: remove the first (destroy its library) "
                 "before registering another (Note [One fallback per key])");
    slots.push_back(i);
  }
  for (const int i : slots) fallbacks_[i] = AnnotatedKernel{kernel, debug};
  updateAllTables();
  return RegistrationHandleRAII([this, slots = std::move(slots)] {
    std::lock_guard<std::mutex> guard(mutex_);
    for (const int i : slots) fallbacks_[i].reset();
    updateAllTables();
  });
}

RegistrationHandleRAII Dispatcher::registerLibrary(const std::string& ns, std::string debug) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = libraries_.emplace(ns, debug);
  OPCORE_CHECK(inserted, "only one OPCORE_LIBRARY block may define namespace '", ns, "': one is ",
               it->second, ", another ", debug, ". Use OPCORE_LIBRARY_FRAGMENT for the others.");
  return RegistrationHandleRAII([this, ns] {
    std::lock_guard<std::mutex> guard(mutex_);
    libraries_.erase(ns);
  });
}

RegistrationHandleRAII Dispatcher::addRegistrationListener(std::unique_ptr<OpRegistrationListener> listener) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (OperatorEntry& e : entries_) {
    if (e.hasSchema()) listener->onOperatorRegistered(OperatorHandle(&e));
  }
  listeners_.push_back(std::move(listener));
  return RegistrationHandleRAII([this, it = std::prev(listeners_.end())] {
    std::lock_guard<std::mutex> guard(mutex_);
    listeners_.erase(it);
  });
}

std::vector<std::string> Dispatcher::allOperatorNames() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const OperatorEntry& e : entries_) {
    if (e.hasSchema()) names.push_back(e.operatorName().str());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> Dispatcher::findDanglingImpls() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const OperatorEntry& e : entries_) {
    if (!e.hasSchema() && !e.isEmpty()) names.push_back(e.operatorName().str());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string Dispatcher::dumpFallbacks() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  for (int i = 1; i < kDispatchTableSize; ++i) {
    if (!fallbacks_[i]) continue;
    const AnnotatedKernel& k = *fallbacks_[i];
    out += detail::strCat(toString(dispatchKeyForTableIndex(i)), ": [", k.kernel.isFallthrough() ? "fallthrough, " : "",
                          k.debug, "]\n");
  }
  return out;
}

void Dispatcher::checkInvariants() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const OperatorEntry& e : entries_) e.checkInvariants();
}

// ---- OperatorHandle: the cold parts ----------------------------------------------------------
// Introspection reads registration state, which writers change under the mutex.

std::string OperatorHandle::dumpState() const {
  std::lock_guard<std::mutex> lock(Dispatcher::singleton().mutex_);
  return entry_->dumpState();
}

std::string OperatorHandle::dumpComputedTable() const {
  std::lock_guard<std::mutex> lock(Dispatcher::singleton().mutex_);
  return entry_->dumpComputedTable();
}

void OperatorHandle::checkInvariants() const {
  std::lock_guard<std::mutex> lock(Dispatcher::singleton().mutex_);
  entry_->checkInvariants();
}

bool OperatorHandle::hasKernelForDispatchKey(DispatchKey k) const {
  std::lock_guard<std::mutex> lock(Dispatcher::singleton().mutex_);
  return entry_->hasKernelForDispatchKey(k);
}

bool OperatorHandle::hasComputedKernelForDispatchKey(DispatchKey k) const {
  std::lock_guard<std::mutex> lock(Dispatcher::singleton().mutex_);
  return entry_->hasComputedKernelForDispatchKey(k);
}

void OperatorHandle::assertSignatureIs(const CppSignature& sig, const std::string& inferred_schema) const {
  std::lock_guard<std::mutex> lock(Dispatcher::singleton().mutex_);
  entry_->assertSignatureIs(sig, inferred_schema, "typed<>()");
}

void OperatorHandle::callBoxedTraced(const KernelSlot& kernel, DispatchKeySet ks, Stack& stack,
                                     bool is_redispatch) const {
  detail::DispatchTraceScope trace(*entry_, ks, is_redispatch);
  kernel.callBoxed(*this, ks, &stack);
}

void OperatorHandle::callBoxedForDispatchKey(DispatchKey k, Stack& stack) const {
  OPCORE_CHECK(isRuntimeKey(k) || isAliasKey(k), "callBoxedForDispatchKey: ", k, " is not a runtime or alias key");
  const DispatchTable& table = entry_->table();
  const DispatchKeySet ks = table.maskFallthrough(
      detail::computeDispatchKeySetBoxed(stack, table.num_args, table.key_args, table.has_tensor_args));
  // An alias key's kernel is registration state, read under the mutex; the copy keeps its
  // functor alive for the call even if its registration goes meanwhile.
  std::optional<KernelFunction> registered;
  if (isAliasKey(k)) {
    std::lock_guard<std::mutex> lock(Dispatcher::singleton().mutex_);
    if (const AnnotatedKernel* active = entry_->active(k)) registered = active->kernel;
  }
  OPCORE_CHECK(!isAliasKey(k) || registered, "callBoxedForDispatchKey: '", operatorName().str(),
               "' has no kernel registered at ", k);
  const KernelSlot& kernel = registered ? registered->slot() : table.slots[dispatchTableIndex(k)];
  OPCORE_CHECK(!kernel.isFallthrough(), "callBoxedForDispatchKey: the kernel of '", operatorName().str(),
               "' for ", k, " is fallthrough");
  kernel.callBoxed(*this, ks, &stack);
}

}  // namespace opcore

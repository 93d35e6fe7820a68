// Registration bookkeeping and dispatch-table computation for one operator.
#include <opcore/dispatch/OperatorEntry.h>

#include <opcore/core/Error.h>
#include <opcore/dispatch/InferSchema.h>

#include <algorithm>
#include <sstream>

namespace opcore {

// Note [Computing the dispatch table]
// For each runtime key K, the table slot holds the first of:
//   1. a kernel registered at K itself;
//   2. for a backend key (CPU, CUDA, Meta, PrivateUse1): a CompositeExplicitAutogradNonFunctional,
//      then a CompositeExplicitAutograd kernel;
//   3. a CompositeImplicitAutograd kernel, for backend keys, and for autograd keys when the
//      operator has neither a kernel for the matching backend (rules 1-2) nor an Autograd
//      kernel: autograd is then derived by running the composite through autograd-aware ops;
//   4. for an autograd key: a kernel registered at the Autograd alias;
//   5. the dispatcher-wide fallback for K (Dispatcher::registerFallback);
//   6. nothing: calling reports the operator, the key and the keys that do have kernels.
// Undefined (a call whose tensor arguments are all undefined or None, and no device) counts as
// a backend key for rules 2 and 3: a composite can run without a backend; a backend kernel
// would be handed undefined tensors, so without a composite the call is an error.
// A fallthrough kernel found by these rules takes its slot like any other, and its key is
// also removed from the table's non_fallthrough masks, so calls skip it (Note [Fallthrough]).
// The table is recomputed in full on every registration change; it is derived state only.
//
// Note [Fallthrough]
// Fallthrough is decided per (operator, key, backend): the masks have one entry per highest
// backend of a call, because AutogradCPU may fall through while AutogradCUDA does not. A call
// computes its key set, masks it with non_fallthrough[highest backend] and dispatches on the
// highest remaining key: one AND and one load, no loop over skipped keys.

namespace {

// The boxed entry point of an empty slot. Its "functor" is the entry itself, smuggled through
// the OperatorKernel* parameter and cast back; it is never used as an OperatorKernel.
// A boxed call whose arguments are not where the schema says (Note [Boxed calling
// convention]) usually ends here, with no tensor where the operator expects one: say so
// rather than report the 'Undefined' backend such a call dispatches to.
void missingKernel(OperatorKernel* entry, const OperatorHandle&, DispatchKeySet ks, Stack* stack) {
  const auto* op = reinterpret_cast<const OperatorEntry*>(entry);
  if (stack != nullptr) op->checkBoxedArguments(*stack);
  op->reportMissingKernel(ks);
}

// Whether `v` may be the value of an argument of type `t` in a boxed call. Only where tensors
// are matters here: they decide the dispatch keys, and the kernels check the rest.
bool mayBeArgument(const IValue& v, const SchemaType& t) {
  if (v.isNone()) return t.isOptional();
  if (!t.isTensor()) return !v.isTensor() && !v.isTensorList();
  return t.isList() ? v.isTensorList() || v.isGenericList() : v.isTensor();
}

std::optional<DispatchKey> backendOfAutogradKey(DispatchKey k) {
  if (!isAutogradKey(k) || toBackendComponent(k) == BackendComponent::InvalidBit) return std::nullopt;
  return toBackendKey(toBackendComponent(k));
}

// See KeyOf in DispatchKeyExtractor.h: tensors, devices and generators select backends.
bool carriesKeys(const SchemaType& t) { return t.base == "Tensor" || t.base == "Device" || t.base == "Generator"; }

}  // namespace

OperatorEntry::OperatorEntry(OperatorName name, const FallbackTable& fallbacks)
    : name_(std::move(name)), fallbacks_(fallbacks) {
  updateTable();
}

const AnnotatedKernel* OperatorEntry::active(DispatchKey k) const {
  const auto& list = kernels_[static_cast<size_t>(k)];
  return list.empty() ? nullptr : &list.front();
}

OperatorEntry::Resolution OperatorEntry::resolve(DispatchKey k) const {
  using K = DispatchKey;
  if (const auto* direct = active(k)) return {direct, k, "kernel"};
  const bool backend_like = isBackendKey(k) || k == K::Undefined;
  if (backend_like) {
    for (K alias : {K::CompositeExplicitAutogradNonFunctional, K::CompositeExplicitAutograd}) {
      if (const auto* c = active(alias)) return {c, alias, "composite explicit"};
    }
  }
  if (const auto* implicit = active(K::CompositeImplicitAutograd)) {
    if (backend_like) return {implicit, K::CompositeImplicitAutograd, "composite implicit"};
    if (isAutogradKey(k) && !active(K::Autograd)) {
      const auto backend = backendOfAutogradKey(k);
      const Resolution for_backend = backend ? resolve(*backend) : Resolution{};
      const bool backend_has_own = for_backend.kernel && for_backend.from != K::CompositeImplicitAutograd;
      if (!backend_has_own) return {implicit, K::CompositeImplicitAutograd, "composite implicit"};
    }
  }
  if (isAutogradKey(k)) {
    if (const auto* ag = active(K::Autograd)) return {ag, K::Autograd, "autograd alias"};
  }
  const std::optional<AnnotatedKernel>& fallback = fallbacks_[dispatchTableIndex(k)];
  if (fallback) return {&*fallback, k, "fallback"};
  return {};
}

std::unique_ptr<DispatchTable> OperatorEntry::computeTable() const {
  auto table = std::make_unique<DispatchTable>();
  const KernelSlot missing(nullptr, &missingKernel,
                           reinterpret_cast<OperatorKernel*>(const_cast<OperatorEntry*>(this)));
  for (int i = 0; i < kDispatchTableSize; ++i) {
    const Resolution r = resolve(dispatchKeyForTableIndex(i));
    table->slots[i] = r.kernel ? r.kernel->kernel.slot() : missing;
  }
  for (int b = 0; b <= kNumBackends; ++b) {
    DispatchKeySet mask = DispatchKeySet::allBackends();
    for (int f = 1; f <= kNumFunctionalityKeys; ++f) {
      const DispatchKey key = toRuntimePerBackendKey(static_cast<DispatchKey>(f), static_cast<BackendComponent>(b));
      if (!table->slots[dispatchTableIndex(key)].isFallthrough()) mask = mask.add(static_cast<DispatchKey>(f));
    }
    table->non_fallthrough[b] = mask;
  }
  if (schema_) {
    const auto& args = schema_->arguments();
    table->num_args = args.size();
    for (size_t i = 0; i < args.size(); ++i) {
      if (!carriesKeys(args[i].type)) continue;
      table->key_args |= uint64_t{1} << i;
      table->has_tensor_args = table->has_tensor_args || args[i].type.isTensor();
    }
  }
  return table;
}

void OperatorEntry::updateTable() {
  published_.push_back(computeTable());
  table_.store(published_.back().get(), std::memory_order_release);
}

void OperatorEntry::checkKernelMatchesSchema(const AnnotatedKernel& k, DispatchKey key,
                                             const FunctionSchema& schema) const {
  const std::optional<std::string> inferred = k.kernel.inferredSchemaText();
  if (!inferred) return;  // boxed kernels take any arguments
  const auto problem = schemaMismatch(schema, FunctionSchema::parse("inferred" + *inferred));
  OPCORE_CHECK(!problem, "the kernel for '", name_.str(), "' at dispatch key ", key, " (", k.debug,
               ") does not match the operator's schema: ", *problem, ". Schema: '", schema.str(),
               "'; the kernel's C++ types mean '", *inferred, "'");
}

void OperatorEntry::registerSchema(FunctionSchema schema, std::string debug, std::vector<std::string> tags) {
  OPCORE_INTERNAL_ASSERT(!schema_, "duplicate schema must be rejected by the Dispatcher");
  OPCORE_CHECK(schema.arguments().size() <= 64, "operator '", name_.str(), "' (", debug, ") has ",
               schema.arguments().size(), " arguments; the dispatcher supports at most 64");
  for (int i = 0; i < kNumKeys; ++i) {
    for (const AnnotatedKernel& k : kernels_[i]) checkKernelMatchesSchema(k, static_cast<DispatchKey>(i), schema);
  }
  schema_ = std::move(schema);
  schema_debug_ = std::move(debug);
  tags_ = std::move(tags);
  updateTable();
}

void OperatorEntry::deregisterSchema() {
  schema_.reset();
  schema_debug_.clear();
  tags_.clear();
  updateTable();
}

OperatorEntry::KernelIt OperatorEntry::registerKernel(DispatchKey key, AnnotatedKernel kernel) {
  OPCORE_CHECK(isAliasKey(key) || isKernelKey(key),
               "cannot register a kernel for '", name_.str(), "' at dispatch key ", key, " (", kernel.debug,
               "): use a runtime key such as CPU or AutogradCPU, or an alias key");
  const std::optional<CppSignature>& sig = kernel.kernel.cppSignature();
  if (sig) {
    OPCORE_CHECK(!signature_ || *signature_ == *sig, "mismatched kernel signature for operator '", name_.str(),
                 "' at dispatch key ", key, ": the kernel ", kernel.debug, " has C++ type ", sig->name(),
                 ", but the kernel ", signature_debug_, " has ", signature_->name());
  }
  if (schema_) checkKernelMatchesSchema(kernel, key, *schema_);
  if (sig && !signature_) {
    signature_ = sig;
    signature_debug_ = kernel.debug;
  }
  auto& list = kernels_[static_cast<size_t>(key)];
  list.push_front(std::move(kernel));
  updateTable();
  return list.begin();
}

void OperatorEntry::deregisterKernel(DispatchKey key, KernelIt it) {
  kernels_[static_cast<size_t>(key)].erase(it);
  bool any = false;
  for (const auto& list : kernels_) {
    for (const auto& k : list) any = any || k.kernel.cppSignature().has_value();
  }
  if (!any) signature_.reset();
  updateTable();
}

bool OperatorEntry::isEmpty() const {
  if (schema_) return false;
  for (const auto& list : kernels_) {
    if (!list.empty()) return false;
  }
  return true;
}

bool OperatorEntry::hasComputedKernelForDispatchKey(DispatchKey k) const {
  OPCORE_CHECK(isRuntimeKey(k), "hasComputedKernelForDispatchKey: ", k, " is not a runtime key");
  const Resolution r = resolve(k);
  return r.kernel && !r.kernel->kernel.isFallthrough();
}

void OperatorEntry::assertSignatureIs(const CppSignature& sig, const std::string& inferred_schema,
                                      const char* what) const {
  OPCORE_CHECK(!signature_ || *signature_ == sig, "wrong C++ signature for operator '", name_.str(), "' in ", what,
               ": asked for ", sig.name(), ", but its kernels (", signature_debug_, ") have ", signature_->name());
  if (!schema_) return;
  const auto problem = schemaMismatch(*schema_, FunctionSchema::parse("inferred" + inferred_schema));
  OPCORE_CHECK(!problem, "wrong C++ signature for operator '", name_.str(), "' in ", what, ": asked for ",
               sig.name(), ", which means '", inferred_schema, "', but the schema is '", schema_->str(), "': ",
               *problem);
}

std::string OperatorEntry::dumpState() const {
  std::ostringstream os;
  os << "name: " << name_.str() << "\n";
  os << "schema: " << (schema_ ? schema_->str() : "(none)") << "\n";
  if (schema_) os << "debug: " << schema_debug_ << "\n";
  for (int i = 0; i < kNumKeys; ++i) {
    const auto& list = kernels_[i];
    if (list.empty()) continue;
    os << toString(static_cast<DispatchKey>(i)) << ":";
    for (const auto& k : list) os << " [" << (k.kernel.isFallthrough() ? "fallthrough, " : "") << k.debug << "]";
    os << "\n";
  }
  return os.str();
}

std::string OperatorEntry::dumpComputedTable() const {
  std::ostringstream os;
  for (int i = 0; i < kDispatchTableSize; ++i) {
    const auto key = dispatchKeyForTableIndex(i);
    const Resolution r = resolve(key);
    if (!r.kernel) continue;
    os << toString(key) << ": " << r.rule << (r.kernel->kernel.isFallthrough() ? " (fallthrough)" : "") << " from "
       << toString(r.from) << " [" << r.kernel->debug << "]\n";
  }
  return os.str();
}

void OperatorEntry::checkInvariants() const {
  const auto expected = computeTable();
  const DispatchTable& actual = table();
  for (int i = 0; i < kDispatchTableSize; ++i) {
    OPCORE_INTERNAL_ASSERT(expected->slots[i].sameKernel(actual.slots[i]), "stale dispatch table for ",
                           name_.str(), " at ", toString(dispatchKeyForTableIndex(i)));
  }
  OPCORE_INTERNAL_ASSERT(expected->non_fallthrough == actual.non_fallthrough, "stale fallthrough masks for ",
                         name_.str());
}

void OperatorEntry::reportNoSchema() const {
  OPCORE_FAIL("operator '", name_.str(), "' has no schema: it is not defined (never, or no longer: the ",
              "library that defined it was destroyed)");
}

void OperatorEntry::checkBoxedArguments(const Stack& stack) const {
  if (!schema_) return;
  const std::vector<Argument>& args = schema_->arguments();
  const size_t first = stack.size() - std::min(args.size(), stack.size());
  for (size_t i = 0; i < args.size() && first + i < stack.size(); ++i) {
    const IValue& v = stack[first + i];
    if (mayBeArgument(v, args[i].type)) continue;
    OPCORE_FAIL("boxed call of '", name_.str(), "': the operator takes ", args.size(), " arguments, so they are the top ",
                args.size(), " of the ", stack.size(), " values on the stack, but argument ", i, " '",
                args[i].name, "' (", args[i].type.str(), ") got ", v.tagName(),
                ". Push exactly the arguments, in schema order; values below them belong to the caller. "
                "Schema: '", schema_->str(), "'");
  }
}

void OperatorEntry::reportMissingKernel(DispatchKeySet ks) const {
  std::ostringstream available;
  bool first = true;
  for (int i = 1; i < kNumKeys; ++i) {
    if (kernels_[i].empty()) continue;
    available << (first ? "" : ", ") << toString(static_cast<DispatchKey>(i));
    first = false;
  }
  const char* key = toString(ks.highestPriorityTypeId());
  OPCORE_CHECK_NOT_IMPLEMENTED(false, "could not run '", name_.str(), "' with arguments from the '", key,
                               "' backend: no kernel is registered for dispatch key ", key, " (call key set: ", ks,
                               "). '", name_.str(), "' has kernels for: [", available.str(), "]");
}

}  // namespace opcore

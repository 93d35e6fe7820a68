// Registration bookkeeping and dispatch-table computation for one operator.
#include <opcore/dispatch/OperatorEntry.h>

#include <opcore/core/Error.h>

#include <sstream>

namespace opcore {

// Note [Computing the dispatch table]
// For each runtime key K, the table slot holds the first of:
//   1. a kernel registered at K itself;
//   2. for a backend key (CPU, CUDA, Meta, PrivateUse1): a CompositeExplicitAutogradNonFunctional,
//      then a CompositeExplicitAutograd kernel;
//   3. a CompositeImplicitAutograd kernel, for backend keys, and for autograd keys when the
//      matching backend has no kernel of its own (rules 1-2): autograd is then derived by
//      running the composite through autograd-aware ops;
//   4. for an autograd key: a kernel registered at the Autograd alias;
//   5. nothing: calling reports the operator, the key and the keys that do have kernels.
// Dispatcher-wide fallbacks (issue #3) slot in between 4 and 5.
// The table is recomputed in full on every registration change; it is derived state only.

namespace {

std::optional<DispatchKey> backendOfAutogradKey(DispatchKey k) {
  if (!isAutogradKey(k) || toBackendComponent(k) == BackendComponent::InvalidBit) return std::nullopt;
  return toBackendKey(toBackendComponent(k));
}

}  // namespace

const AnnotatedKernel* OperatorEntry::active(DispatchKey k) const {
  const auto& list = kernels_[static_cast<size_t>(k)];
  return list.empty() ? nullptr : &list.front();
}

OperatorEntry::Resolution OperatorEntry::resolve(DispatchKey k) const {
  using K = DispatchKey;
  if (const auto* direct = active(k)) return {direct, k, "kernel"};
  if (isBackendKey(k)) {
    for (K alias : {K::CompositeExplicitAutogradNonFunctional, K::CompositeExplicitAutograd}) {
      if (const auto* c = active(alias)) return {c, alias, "composite explicit"};
    }
  }
  if (const auto* implicit = active(K::CompositeImplicitAutograd)) {
    if (isBackendKey(k)) return {implicit, K::CompositeImplicitAutograd, "composite implicit"};
    if (isAutogradKey(k)) {
      const auto backend = backendOfAutogradKey(k);
      const Resolution for_backend = backend ? resolve(*backend) : Resolution{};
      const bool backend_has_own = for_backend.kernel && for_backend.from != K::CompositeImplicitAutograd;
      if (!backend_has_own) return {implicit, K::CompositeImplicitAutograd, "composite implicit"};
    }
  }
  if (isAutogradKey(k)) {
    if (const auto* ag = active(K::Autograd)) return {ag, K::Autograd, "autograd alias"};
  }
  return {};
}

void OperatorEntry::updateTable() {
  for (int i = 0; i < kDispatchTableSize; ++i) {
    const Resolution r = resolve(dispatchKeyForTableIndex(i));
    table_[i] = r.kernel ? r.kernel->kernel : KernelFunction();
  }
}

void OperatorEntry::registerSchema(FunctionSchema schema, std::string debug) {
  OPCORE_INTERNAL_ASSERT(!schema_, "duplicate schema must be rejected by the Dispatcher");
  schema_ = std::move(schema);
  schema_debug_ = std::move(debug);
}

void OperatorEntry::deregisterSchema() {
  schema_.reset();
  schema_debug_.clear();
}

OperatorEntry::KernelIt OperatorEntry::registerKernel(DispatchKey key, AnnotatedKernel kernel) {
  const CppSignature& sig = kernel.kernel.cppSignature();
  OPCORE_CHECK(!signature_ || *signature_ == sig, "mismatched kernel signature for operator '",
               name_.str(), "' at dispatch key ", key, ": the kernel ", kernel.debug, " has C++ type ",
               sig.name(), ", but the kernel ", signature_debug_, " has ", signature_->name());
  if (!signature_) {
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
  for (const auto& list : kernels_) any = any || !list.empty();
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

void OperatorEntry::assertSignatureIs(const CppSignature& sig, const char* what) const {
  OPCORE_CHECK(!signature_ || *signature_ == sig, "wrong C++ signature for operator '", name_.str(),
               "' in ", what, ": asked for ", sig.name(), ", but its kernels (", signature_debug_,
               ") have ", signature_->name());
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
    for (const auto& k : list) os << " [" << k.debug << "]";
    os << "\n";
  }
  return os.str();
}

std::string OperatorEntry::dumpComputedTable() const {
  std::ostringstream os;
  for (int i = 1; i < kDispatchTableSize; ++i) {
    const auto key = dispatchKeyForTableIndex(i);
    const Resolution r = resolve(key);
    if (!r.kernel) continue;
    os << toString(key) << ": " << r.rule << " from " << toString(r.from) << " [" << r.kernel->debug << "]\n";
  }
  return os.str();
}

void OperatorEntry::checkInvariants() const {
  for (int i = 0; i < kDispatchTableSize; ++i) {
    const Resolution r = resolve(dispatchKeyForTableIndex(i));
    const bool ok = r.kernel ? table_[i].sameKernel(r.kernel->kernel) : !table_[i].isValid();
    OPCORE_INTERNAL_ASSERT(ok, "stale dispatch table for ",
                           name_.str(), " at ", toString(dispatchKeyForTableIndex(i)));
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
  OPCORE_FAIL("could not run '", name_.str(), "' with arguments from the '",
              toString(ks.highestPriorityTypeId()), "' backend: no kernel is registered for dispatch key ",
              toString(ks.highestPriorityTypeId()), " (call key set: ", ks, "). '", name_.str(),
              "' has kernels for: [", available.str(), "]");
}

}  // namespace opcore

#include <opcore/autograd/Variable.h>

#include <opcore/autograd/GradMode.h>
#include <opcore/autograd/KernelSupport.h>
#include <opcore/autograd/Views.h>

namespace opcore::autograd {

namespace {
constexpr DispatchKeySet kAutogradFunctionality{DispatchKey::AutogradFunctionality};
}  // namespace

void setAutogradKey(const TensorBase& t, bool on) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  impl->setKeySet(on ? impl->key_set() | kAutogradFunctionality : impl->key_set() - kAutogradFunctionality);
}

AutogradMeta* autogradMeta(const TensorBase& t) {
  return static_cast<AutogradMeta*>(t.unsafeGetTensorImpl()->autogradMeta());
}

AutogradMeta& materializeAutogradMeta(const TensorBase& t) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  OPCORE_CHECK(impl, "autograd: operation on an undefined tensor");
  if (!impl->autogradMeta()) impl->setAutogradMeta(std::make_unique<AutogradMeta>());
  return *static_cast<AutogradMeta*>(impl->autogradMeta());
}

std::shared_ptr<Node> grad_fn(const TensorBase& t) {
  AutogradMeta* meta = t.defined() ? autogradMeta(t) : nullptr;
  if (!meta) return nullptr;
  if (!meta->is_view) return meta->grad_fn;
  // Note [Views and in-place changes]: an in-place change through another alias moved the
  // base's graph on; this view's gradient now flows into it. Threads using one view (of a
  // weight) read it at once: the first regenerates, under the lock (Note [Concurrent backward]).
  std::lock_guard<std::mutex> lock(meta->view_mutex);
  if (meta->attr_version != version(t)) {
    meta->grad_fn = makeViewOfBase(t);
    meta->output_nr = 0;
    meta->attr_version = version(t);
  }
  return meta->grad_fn;
}

std::shared_ptr<Node> gradAccumulator(const TensorBase& t) {
  AutogradMeta* meta = autogradMeta(t);
  if (!meta || !meta->requires_grad) return nullptr;
  // Threads making graphs from one leaf (a model's weight) get the same node.
  std::lock_guard<std::mutex> lock(meta->accumulator_mutex);
  std::shared_ptr<Node> acc = meta->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    meta->grad_accumulator = acc;
  }
  return acc;
}

Edge gradientEdge(const TensorBase& t) {
  if (!t.defined() || !t.key_set().has(DispatchKey::AutogradFunctionality)) return Edge();
  if (std::shared_ptr<Node> fn = grad_fn(t)) return Edge(std::move(fn), autogradMeta(t)->output_nr);
  if (std::shared_ptr<Node> acc = gradAccumulator(t)) return Edge(std::move(acc), 0);
  return Edge();
}

uint32_t version(const TensorBase& t) {
  const Storage& s = t.unsafeGetTensorImpl()->storage();
  return s ? s->version() : 0;
}

void incrementVersion(const TensorBase& t) {
  if (const Storage& s = t.unsafeGetTensorImpl()->storage()) s->bumpVersion();
}

Tensor shallowAlias(const TensorBase& t) {
  const TensorImpl& src = *t.unsafeGetTensorImpl();
  auto impl = makeIntrusive<TensorImpl>(src.storage(), src.dtype(), src.device());
  impl->setSizesAndStrides(src.sizes(), src.strides(), src.storage_offset());
  impl->setKeySet(src.key_set() - kAutogradFunctionality);
  return Tensor(TensorBase(std::move(impl)));
}

// Floating and complex tensors take part in autograd; a complex tensor's gradient is the
// conjugate Wirtinger derivative (Note [Complex gradients] in Formulas.h).
bool isDifferentiableType(ScalarType t) { return isFloatingType(t) || isComplexType(t); }

void setHistory(const TensorBase& t, const std::shared_ptr<Node>& fn) {
  const uint32_t input_nr = fn->addInputMetadata(t);
  if (!t.defined() || !isDifferentiableType(t.scalar_type())) return;
  AutogradMeta& meta = materializeAutogradMeta(t);
  meta.grad_fn = fn;
  meta.output_nr = input_nr;
  meta.attr_version = version(t);
  setAutogradKey(t, true);
}

void checkInplace(const Tensor& self, bool requires_grad) {
  if (!requires_grad) return;
  AutogradMeta* meta = autogradMeta(self);
  if (!meta) return;
  if (meta->is_view) {
    AutogradMeta* base = autogradMeta(meta->base);
    OPCORE_CHECK(!(base && base->requires_grad && !base->grad_fn),
                 "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
  OPCORE_CHECK(!(meta->requires_grad && !grad_fn(self)),
               "a leaf Variable that requires grad is being used in an in-place operation.");
}

void checkOutNotRequiringGrad(std::string_view op, bool requires_grad) {
  OPCORE_CHECK(!requires_grad, op,
               "(): functions with out=... arguments don't support automatic differentiation, but one "
               "of the arguments requires grad.");
}

}  // namespace opcore::autograd

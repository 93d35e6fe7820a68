// The autograd members of TensorBase and Tensor (declared in core/TensorBase.h and in the
// generated Tensor.h, gen/templates/Tensor.h.j2).
#include <opcore/Tensor.h>
#include <opcore/autograd/Engine.h>
#include <opcore/autograd/Variable.h>
#include <opcore/ops/add.h>
#include <opcore/ops/clone.h>

#include <memory>
#include <mutex>

namespace opcore {

using autograd::AutogradMeta;
using autograd::autogradMeta;
using autograd::materializeAutogradMeta;

namespace {

// The gradient grad() reads: a leaf's accumulated one, or a non-leaf's retained one.
Tensor& gradSlot(AutogradMeta& meta) { return meta.retained_grad ? *meta.retained_grad : meta.grad; }
}  // namespace

bool TensorBase::requires_grad() const {
  if (!defined() || !key_set().has(DispatchKey::AutogradFunctionality)) return false;
  AutogradMeta* meta = autogradMeta(*this);
  return meta && (meta->requires_grad || autograd::grad_fn(*this));
}

Tensor& Tensor::requires_grad_(bool requires_grad) {
  OPCORE_CHECK(is_leaf() || requires_grad,
               "you can only change requires_grad flags of leaf variables. If you want to use a computed "
               "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  OPCORE_CHECK(!requires_grad || autograd::isDifferentiableType(scalar_type()),
               "only Tensors of floating point and complex dtype can require gradients (this one is ",
               opcore::toString(scalar_type()), ")");
  if (!requires_grad && !autogradMeta(*this)) return *this;
  AutogradMeta& meta = materializeAutogradMeta(*this);
  meta.requires_grad = requires_grad;
  if (requires_grad || !meta.is_view) {  // views keep the key (Note [Autograd keys on tensors])
    autograd::setAutogradKey(*this, requires_grad);
  }
  return *this;
}

const Tensor& Tensor::grad() const { return mutable_grad(); }

Tensor& Tensor::mutable_grad() const { return gradSlot(materializeAutogradMeta(*this)); }

bool TensorBase::is_leaf() const { return autograd::grad_fn(*this) == nullptr; }

std::shared_ptr<autograd::Node> TensorBase::grad_fn() const { return autograd::grad_fn(*this); }

uint32_t TensorBase::output_nr() const {
  AutogradMeta* meta = autogradMeta(*this);
  return meta ? meta->output_nr : 0;
}

uint32_t TensorBase::_version() const { return autograd::version(*this); }

Tensor Tensor::detach() const { return autograd::shallowAlias(*this); }

Tensor& Tensor::detach_() {
  if (AutogradMeta* meta = autogradMeta(*this)) {
    OPCORE_CHECK(!meta->is_view, "detach_() of a view is not allowed; use detach()");
    meta->grad_fn = nullptr;
    meta->output_nr = 0;
    meta->requires_grad = false;
  }
  autograd::setAutogradKey(*this, false);
  return *this;
}

void TensorBase::retain_grad() const {
  OPCORE_CHECK(requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf()) return;  // leaves keep their gradient anyway
  AutogradMeta& meta = materializeAutogradMeta(*this);
  if (meta.retains_grad) return;
  meta.retains_grad = true;
  // The hook cannot hold this tensor (tensor -> grad_fn -> hook -> tensor would be a cycle):
  // the tensor and the hook share the slot the gradient is kept in. Concurrent backward()
  // calls through one graph run the hook at once: it adds under the slot's lock (Note
  // [Concurrent backward] in Engine.h).
  struct Slot {
    std::mutex mutex;
    Tensor grad;
  };
  auto slot = std::make_shared<Slot>();
  meta.retained_grad = std::shared_ptr<Tensor>(slot, &slot->grad);
  grad_fn()->addPreHook(output_nr(), [slot](const Tensor& g) {
    std::lock_guard<std::mutex> lock(slot->mutex);
    slot->grad = slot->grad.defined() ? opcore::add(slot->grad, g) : g.clone();
    return Tensor();
  });
}

bool TensorBase::retains_grad() const {
  AutogradMeta* meta = autogradMeta(*this);
  return meta && meta->retains_grad;
}

Tensor TensorHook::operator()(const Tensor& grad) const {
  Tensor result;
  impl_->call(grad, result);
  return result;
}

unsigned Tensor::register_hook(TensorHook hook) const {
  OPCORE_CHECK(requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& meta = materializeAutogradMeta(*this);
  if (std::shared_ptr<autograd::Node> fn = grad_fn()) {
    const unsigned id = fn->addPreHook(output_nr(), std::move(hook));
    meta.hook_nodes.emplace_back(id, fn);
    return id;
  }
  const unsigned id = autograd::nextHookId();
  meta.hooks.emplace_back(id, std::move(hook));
  return id;
}

void TensorBase::remove_hook(unsigned id) const {
  AutogradMeta* meta = autogradMeta(*this);
  OPCORE_CHECK(meta, "remove_hook: no hook ", id, " on this tensor");
  for (auto it = meta->hooks.begin(); it != meta->hooks.end(); ++it) {
    if (it->first == id) {
      meta->hooks.erase(it);
      return;
    }
  }
  for (auto it = meta->hook_nodes.begin(); it != meta->hook_nodes.end(); ++it) {
    if (it->first == id) {
      if (std::shared_ptr<autograd::Node> fn = it->second.lock()) fn->removePreHook(id);
      meta->hook_nodes.erase(it);
      return;
    }
  }
  OPCORE_FAIL("remove_hook: no hook ", id, " on this tensor");
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  autograd::backward({*this}, gradient.defined() ? autograd::variable_list{gradient} : autograd::variable_list{},
                     retain_graph, create_graph);
}

}  // namespace opcore

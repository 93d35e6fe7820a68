// Note [Views and in-place changes] (Views.h): asView, rebaseHistory, and the CopySlices and
// ViewOfBase nodes.
#include <opcore/autograd/Views.h>

#include <opcore/autograd/GradMode.h>
#include <opcore/autograd/Variable.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/empty_strided.h>
#include <opcore/ops/fill.h>

namespace opcore::autograd {

namespace {

// Where a view lies in its base's memory, relative to the base. A view may have another dtype
// than its base (view_as_real, view_as_complex): sizes and strides count the view's elements,
// the offset bytes.
struct ViewGeometry {
  std::vector<int64_t> sizes, strides;
  int64_t offset_bytes;  // storage offset minus the base's
  ScalarType dtype;
};

struct BaseGeometry {
  std::vector<int64_t> sizes, strides;
  ScalarType dtype;
  Device device;
};

ViewGeometry viewGeometry(const TensorBase& view, const TensorBase& base) {
  const auto bytes = [](const TensorBase& t) {
    return t.storage_offset() * static_cast<int64_t>(t.element_size());
  };
  return {{view.sizes().begin(), view.sizes().end()},
          {view.strides().begin(), view.strides().end()},
          bytes(view) - bytes(base),
          view.scalar_type()};
}

BaseGeometry baseGeometry(const TensorBase& base) {
  return {{base.sizes().begin(), base.sizes().end()},
          {base.strides().begin(), base.strides().end()},
          base.scalar_type(),
          base.device()};
}

// A tensor laid out like the base (same strides), so that view geometry addresses it.
Tensor emptyLikeBase(const BaseGeometry& base) {
  return opcore::empty_strided(base.sizes, base.strides, base.dtype, std::nullopt, base.device);
}

// The part of `t` (laid out like the base) that the view covers, in the view's dtype. Not an
// operator: the gradients built with it are first-order only (Note [Views and in-place
// changes]).
Tensor viewPart(const Tensor& t, const ViewGeometry& view) {
  auto impl = makeIntrusive<TensorImpl>(t.storage(), view.dtype, t.device());
  const int64_t bytes = t.storage_offset() * static_cast<int64_t>(t.element_size()) + view.offset_bytes;
  impl->setSizesAndStrides(view.sizes, view.strides, bytes / static_cast<int64_t>(elementSize(view.dtype)));
  return Tensor(TensorBase(std::move(impl)));
}

// The base's gradient from an in-place operation `fn` on one of its views: the gradient of
// the base with the view's part replaced by fn's gradient for the view.
class CopySlices final : public Node {
 public:
  CopySlices(const TensorBase& base, const TensorBase& view, std::shared_ptr<Node> fn)
      : base_(baseGeometry(base)), view_(viewGeometry(view, base)), fn_(std::move(fn)) {
    addNextEdge(gradientEdge(base));
    for (size_t i = 1; i < fn_->numOutputs(); ++i) addNextEdge(fn_->nextEdge(i));
  }

  variable_list apply(variable_list&& grads) override {
    Tensor result = emptyLikeBase(base_);
    result.copy_(grads[0]);
    Tensor part = viewPart(result, view_);
    variable_list res = fn_->apply({part.clone()});
    variable_list out(numOutputs());
    if (res[0].defined()) {
      part.copy_(res[0]);
    } else {
      part.fill_(0);
    }
    out[0] = std::move(result);
    for (size_t i = 1; i < out.size() && i < res.size(); ++i) out[i] = std::move(res[i]);
    return out;
  }
  std::string name() const override { return "CopySlices"; }
  void releaseVariables() override { fn_->releaseVariables(); }

 private:
  BaseGeometry base_;
  ViewGeometry view_;
  std::shared_ptr<Node> fn_;
};

// A view's gradient, carried into its base's graph: zeros of the base's shape with the
// view's part set to the gradient.
class ViewOfBase final : public Node {
 public:
  ViewOfBase(const TensorBase& base, const TensorBase& view)
      : base_(baseGeometry(base)), view_(viewGeometry(view, base)) {
    addNextEdge(gradientEdge(base));
    addInputMetadata(view);
  }

  variable_list apply(variable_list&& grads) override {
    Tensor result = emptyLikeBase(base_);
    result.fill_(0);
    viewPart(result, view_).copy_(grads[0]);
    return {result};
  }
  std::string name() const override { return "ViewOfBase"; }

 private:
  BaseGeometry base_;
  ViewGeometry view_;
};

}  // namespace

Tensor asView(const Tensor& base, Tensor view) {
  AutogradMeta& meta = materializeAutogradMeta(view);
  AutogradMeta* base_meta = autogradMeta(base);
  meta.is_view = true;
  meta.base = base_meta && base_meta->is_view ? base_meta->base : static_cast<const TensorBase&>(base);
  meta.attr_version = version(view);
  // In grad mode the view enters the autograd layer even if nothing requires grad yet: an
  // in-place change of its base may give it a gradient later (Note [Autograd keys on
  // tensors]). Views made with grad mode off (formulas in backward, optimizer steps) do not
  // pay for that; an in-place change made through them still reaches the base.
  if (GradMode::is_enabled()) {
    setAutogradKey(view, true);
  }
  return view;
}

std::shared_ptr<Node> makeViewOfBase(const TensorBase& t) {
  const TensorBase& base = autogradMeta(t)->base;
  if (!gradientEdge(base).valid()) return nullptr;
  return std::make_shared<ViewOfBase>(base, t);
}

void rebaseHistory(const Tensor& self, const std::shared_ptr<Node>& fn) {
  AutogradMeta* meta = autogradMeta(self);
  if (!meta || !meta->is_view) {
    setHistory(self, fn);
    return;
  }
  const TensorBase base = meta->base;
  setHistory(base, std::make_shared<CopySlices>(base, self, fn));
  std::lock_guard<std::mutex> lock(meta->view_mutex);  // as grad_fn() takes it
  meta->grad_fn = makeViewOfBase(self);
  meta->output_nr = 0;
  meta->attr_version = version(self);
}

}  // namespace opcore::autograd

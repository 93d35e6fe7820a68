// What the generated autograd code calls (build/generated/opcore/Autograd_<i>.cpp): one header
// so that the generated files include one thing. An Autograd kernel, for
// `mul.Tensor(Tensor self, Tensor other) -> Tensor`, reads:
//
//   Tensor mul_Tensor(DispatchKeySet ks, const Tensor& self, const Tensor& other) {
//     std::shared_ptr<MulBackward0> grad_fn;
//     if (autograd::computeRequiresGrad(self, other)) {
//       grad_fn = std::make_shared<MulBackward0>();
//       grad_fn->setNextEdges(autograd::collectNextEdges(self, other));
//       if (grad_fn->shouldComputeOutput(1)) grad_fn->self_ = SavedVariable(self, false);
//       if (grad_fn->shouldComputeOutput(0)) grad_fn->other_ = SavedVariable(other, false);
//     }
//     Tensor result = [&] {
//       autograd::AutoDispatchBelowADInplaceOrView guard;
//       return _ops::mul_Tensor::redispatch(ks & kAfterAutogradKeySet, self, other);
//     }();
//     if (grad_fn) autograd::setHistory(result, grad_fn);
//     return result;
//   }
//
// and is registered at the Autograd alias key. In-place kernels call checkInplace before and
// rebaseHistory after; view operators get an ADInplaceOrView kernel that calls asView, and
// in-place ones one that calls incrementVersion.
#pragma once

#include <opcore/autograd/GradMode.h>
#include <opcore/autograd/Node.h>
#include <opcore/autograd/SavedVariable.h>
#include <opcore/autograd/Variable.h>
#include <opcore/autograd/Views.h>

#include <optional>
#include <string_view>

namespace opcore::autograd {

// Whether `t` requires grad (a leaf with requires_grad_(), or a tensor with a grad_fn).
// (Tensor, not TensorBase: the catch-all template below must not be a better match.)
inline bool requires_grad(const Tensor& t) { return t.requires_grad(); }
inline bool requires_grad(const std::optional<Tensor>& t) { return t && requires_grad(*t); }
inline bool requires_grad(ArrayRef<Tensor> ts) {
  for (const Tensor& t : ts) {
    if (requires_grad(t)) return true;
  }
  return false;
}
inline bool requires_grad(ArrayRef<std::optional<Tensor>> ts) {
  for (const auto& t : ts) {
    if (requires_grad(t)) return true;
  }
  return false;
}
// Non-tensor arguments never require grad.
template <typename T>
bool requires_grad(const T&) { return false; }

// Whether the call must record the graph: grad mode is on and some argument requires grad.
template <typename... Args>
bool computeRequiresGrad(const Args&... args) {
  return GradMode::is_enabled() && (requires_grad(args) || ...);
}

namespace detail {
inline void appendEdges(edge_list& edges, const Tensor& t) { edges.push_back(gradientEdge(t)); }
inline void appendEdges(edge_list& edges, const std::optional<Tensor>& t) {
  edges.push_back(t ? gradientEdge(*t) : Edge());
}
inline void appendEdges(edge_list& edges, ArrayRef<Tensor> ts) {
  for (const Tensor& t : ts) edges.push_back(gradientEdge(t));
}
}  // namespace detail

// The next edges of a node for the given differentiable tensor arguments, in order: one per
// Tensor or Tensor? argument, one per element of a Tensor[] argument.
template <typename... Args>
edge_list collectNextEdges(const Args&... args) {
  edge_list edges;
  edges.reserve(sizeof...(args));
  (detail::appendEdges(edges, args), ...);
  return edges;
}

// Before an in-place operation on `self` that records the graph: throws PyTorch's errors when
// `self` is a leaf that requires grad, or a view of one.
void checkInplace(const Tensor& self, bool requires_grad);

// For out= overloads: throws "<op>(): functions with out=... arguments don't support automatic
// differentiation, but one of the arguments requires grad." when `requires_grad`.
void checkOutNotRequiringGrad(std::string_view op, bool requires_grad);

}  // namespace opcore::autograd

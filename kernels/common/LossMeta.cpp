// The meta functions of the structured loss operators (Note [Structured kernels] in
// gen/api/structured.py): nll_loss_forward and nll_loss_backward, with PyTorch's checks and
// messages.
#include <opcore/core/Reduction.h>
#include <opcore/core/Empty.h>
#include <opcore/ops/binary_cross_entropy_backward_native.h>
#include <opcore/ops/binary_cross_entropy_native.h>
#include <opcore/ops/binary_cross_entropy_with_logits_native.h>
#include <opcore/ops/huber_loss_backward_native.h>
#include <opcore/ops/huber_loss_native.h>
#include <opcore/ops/mse_loss_backward_native.h>
#include <opcore/ops/mse_loss_native.h>
#include <opcore/ops/nll_loss_backward_native.h>
#include <opcore/ops/nll_loss_forward_native.h>
#include <opcore/ops/smooth_l1_loss_backward_native.h>
#include <opcore/ops/smooth_l1_loss_native.h>

#include "common/LossChecks.h"
#include "common/Shape.h"
#include "common/TypePromotion.h"

namespace opcore::meta {

namespace {

// The checks both directions share: input [N, C] or [C] of a floating dtype, target [N] or []
// of Long or Byte, weight (if any) of C elements and the input's dtype, all on one device; a
// known reduction.
void checkNllLossOperands(const char* name, const Tensor& self, const Tensor& target,
                          const std::optional<Tensor>& weight, int64_t reduction) {
  OPCORE_CHECK(reduction >= Reduction::None && reduction <= Reduction::Sum,
               "nll_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), got ", reduction);
  OPCORE_CHECK(self.dim() > 0 && self.dim() <= 2, "input tensor should be 1D or 2D");
  OPCORE_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
  const bool batched = self.dim() == 2;
  OPCORE_CHECK(batched ? target.dim() == 1 && target.size(0) == self.size(0) : target.dim() == 0,
               "size mismatch (got input: ", self.sizes(), ", target: ", target.sizes(), ")");
  OPCORE_CHECK(target.scalar_type() == kLong || target.scalar_type() == kByte,
               "expected scalar type Long but found ", target.scalar_type());
  const ScalarType dtype = self.scalar_type();
  if (dtype != kFloat && dtype != kDouble && dtype != kBFloat16) detail::throwNotImplementedForDtype(name, dtype);
  OPCORE_CHECK(target.device() == self.device(), name, ": expected all tensors to be on the same device, but found "
               "at least two devices, ", self.device(), " and ", target.device());
  if (weight && weight->defined()) {
    const int64_t classes = self.size(-1);
    OPCORE_CHECK(weight->numel() == classes, "weight tensor should be defined either for all ", classes,
                 " classes or no classes but got weight tensor of shape: ", weight->sizes());
    OPCORE_CHECK(weight->scalar_type() == dtype, "expected scalar type ", dtype, " but found ",
                 weight->scalar_type());
    OPCORE_CHECK(weight->device() == self.device(), name, ": expected all tensors to be on the same device, but "
                 "found at least two devices, ", self.device(), " and ", weight->device());
  }
}

}  // namespace

// output: [N] for reduction None of a batch, else 0-dim; total_weight: 0-dim; both of the
// input's dtype, exactly (the impl writes them directly).
nll_loss_forward_output nll_loss_forward(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                         int64_t reduction, int64_t /*ignore_index*/) {
  checkNllLossOperands("nll_loss_forward", self, target, weight, reduction);
  std::vector<int64_t> shape;
  if (reduction == Reduction::None && self.dim() == 2) shape = {self.size(0)};
  return {TensorSpec{shape, self.scalar_type(), self.device(), /*exact_dtype=*/true},
          TensorSpec{{}, self.scalar_type(), self.device(), /*exact_dtype=*/true}};
}

// grad_input: the input's shape and dtype; grad_output must have the forward output's shape.
nll_loss_backward_grad_input nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                               const std::optional<Tensor>& weight, int64_t reduction,
                                               int64_t /*ignore_index*/, const Tensor& total_weight) {
  checkNllLossOperands("nll_loss_backward", self, target, weight, reduction);
  OPCORE_CHECK(total_weight.numel() == 1, "expected total_weight to be a single element tensor, got: ",
               total_weight.sizes(), " (", total_weight.numel(), " elements)");
  if (reduction == Reduction::None && self.dim() == 2) {
    OPCORE_CHECK(grad_output.dim() == 1 && grad_output.size(0) == self.size(0),
                 "Expected a tensor of dimension 1 and tensor.size[0] == ", self.size(0),
                 " but got: dimension ", grad_output.dim(), " and tensor.size[0] == ",
                 grad_output.dim() > 0 ? grad_output.size(0) : 1);
  } else {
    OPCORE_CHECK(grad_output.numel() == 1, "Expected a single element grad_output tensor, but got: ",
                 grad_output.sizes());
  }
  OPCORE_CHECK(grad_output.scalar_type() == self.scalar_type() && total_weight.scalar_type() == self.scalar_type(),
               "expected scalar type ", self.scalar_type(), " but found ",
               grad_output.scalar_type() != self.scalar_type() ? grad_output.scalar_type() : total_weight.scalar_type());
  return {TensorSpec{self.sizes().vec(), self.scalar_type(), self.device(), /*exact_dtype=*/true}};
}

// ---- pointwise losses (issue #34) ------------------------------------------------------------
// self and target broadcast together in their result type, as PyTorch's TensorIterator losses;
// the result is that shape for reduction None, else 0-dim. The backward operators' result is
// the broadcast of grad_output, self and target (grad_output is 0-dim for Mean and Sum).

namespace {

void checkReduction(const char* name, int64_t reduction) {
  OPCORE_CHECK(reduction >= Reduction::None && reduction <= Reduction::Sum, name,
               ": reduction must be 0 (none), 1 (mean) or 2 (sum), got ", reduction);
}

void checkSameDevice(const char* name, const Tensor& a, const Tensor& b) {
  OPCORE_CHECK(a.device() == b.device() || (b.dim() == 0 && b.is_cpu()), name,
               ": expected all tensors to be on the same device, but found at least two devices, ", a.device(),
               " and ", b.device());
}

TensorSpec pointwiseLoss(const char* name, const Tensor& self, const Tensor& target, int64_t reduction) {
  checkReduction(name, reduction);
  checkSameDevice(name, self, target);
  const std::vector<int64_t> shape = native::broadcastShapes(self.sizes(), target.sizes());
  return {reduction == Reduction::None ? shape : std::vector<int64_t>{}, native::resultType(self, target),
          self.device()};
}

TensorSpec pointwiseLossBackward(const char* name, const Tensor& grad_output, const Tensor& self,
                                 const Tensor& target, int64_t reduction) {
  checkReduction(name, reduction);
  checkSameDevice(name, self, target);
  checkSameDevice(name, self, grad_output);
  const std::vector<int64_t> inputs = native::broadcastShapes(self.sizes(), target.sizes());
  return {native::broadcastShapes(grad_output.sizes(), inputs),
          promoteTypes(grad_output.scalar_type(), native::resultType(self, target)), self.device()};
}

}  // namespace

mse_loss_out mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return {pointwiseLoss("mse_loss", self, target, reduction)};
}

mse_loss_backward_grad_input mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                               int64_t reduction) {
  return {pointwiseLossBackward("mse_loss_backward", grad_output, self, target, reduction)};
}

smooth_l1_loss_out smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  OPCORE_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  return {pointwiseLoss("smooth_l1_loss", self, target, reduction)};
}

smooth_l1_loss_backward_grad_input smooth_l1_loss_backward(const Tensor& grad_output, const Tensor& self,
                                                           const Tensor& target, int64_t reduction, double beta) {
  OPCORE_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  return {pointwiseLossBackward("smooth_l1_loss_backward", grad_output, self, target, reduction)};
}

huber_loss_out huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  OPCORE_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  return {pointwiseLoss("huber_loss", self, target, reduction)};
}

huber_loss_backward_out huber_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                            int64_t reduction, double delta) {
  OPCORE_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  return {pointwiseLossBackward("huber_loss_backward", grad_output, self, target, reduction)};
}

namespace {

// binary_cross_entropy's weight multiplies the loss in place (PyTorch's loss.mul_(weight)): it
// must broadcast to the loss's shape without growing it.
void checkLossWeight(const char* name, const std::vector<int64_t>& shape, const std::optional<Tensor>& weight) {
  if (!weight || !weight->defined()) return;
  const std::vector<int64_t> joint = native::broadcastShapes(shape, weight->sizes());
  OPCORE_CHECK(joint == shape, name, ": weight of shape ", weight->sizes(),
               " does not broadcast to the loss's shape ", IntArrayRef(shape));
}

}  // namespace

// binary_cross_entropy_with_logits: the loss's shape (self and target broadcast; weight and
// pos_weight broadcast into it) and dtype, for the CPU and the Meta kernel.
TensorSpec binaryCrossEntropyWithLogitsSpec(const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight,
                                            const std::optional<Tensor>& pos_weight, int64_t reduction) {
  constexpr const char* name = "binary_cross_entropy_with_logits";
  TensorSpec spec = pointwiseLoss(name, self, target, reduction);
  const std::vector<int64_t> shape = native::broadcastShapes(self.sizes(), target.sizes());
  checkLossWeight(name, shape, weight);
  checkLossWeight(name, shape, pos_weight);
  return spec;
}

binary_cross_entropy_out binary_cross_entropy(const Tensor& self, const Tensor& target,
                                              const std::optional<Tensor>& weight, int64_t reduction) {
  TensorSpec spec = pointwiseLoss("binary_cross_entropy", self, target, reduction);
  checkLossWeight("binary_cross_entropy", native::broadcastShapes(self.sizes(), target.sizes()), weight);
  return {spec};
}

binary_cross_entropy_backward_grad_input binary_cross_entropy_backward(const Tensor& grad_output, const Tensor& self,
                                                                       const Tensor& target,
                                                                       const std::optional<Tensor>& weight,
                                                                       int64_t reduction) {
  TensorSpec spec = pointwiseLossBackward("binary_cross_entropy_backward", grad_output, self, target, reduction);
  checkLossWeight("binary_cross_entropy_backward", spec.sizes, weight);
  return {spec};
}

}  // namespace opcore::meta

namespace opcore::native {

// binary_cross_entropy_with_logits on the Meta backend: the result's shape and dtype, the
// checks of the CPU kernel (not structured, as PyTorch's is not).
Tensor binary_cross_entropy_with_logits_meta(const Tensor& self, const Tensor& target,
                                             const std::optional<Tensor>& weight,
                                             const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const TensorSpec spec = meta::binaryCrossEntropyWithLogitsSpec(self, target, weight, pos_weight, reduction);
  return detail::empty(spec.sizes, spec.dtype, kMeta);
}

}  // namespace opcore::native

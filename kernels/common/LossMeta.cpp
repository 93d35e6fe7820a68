// The meta functions of the structured loss operators (Note [Structured kernels] in
// gen/api/structured.py): nll_loss_forward and nll_loss_backward, with PyTorch's checks and
// messages.
#include <opcore/core/Reduction.h>
#include <opcore/ops/nll_loss_backward_native.h>
#include <opcore/ops/nll_loss_forward_native.h>

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

}  // namespace opcore::meta

// The CUDA kernels of the pointwise losses: mse_loss, smooth_l1_loss, huber_loss,
// binary_cross_entropy, binary_cross_entropy_with_logits and the gradients (the impls of
// structured operators run after their meta functions in common/LossMeta.cpp). Each element is
// the function the CPU kernel computes (kernels/common/pointwise/Loss.h). A loss reduced to
// its mean or sum is written elementwise in the compute dtype (float for Half and BFloat16),
// then reduced by sum: two passes, as PyTorch's CUDA kernels, where the CPU kernels fuse them
// (Note [Pointwise loss reductions] in kernels/cpu/PointwiseLoss.cpp).
#include "CudaOperands.h"

#include "common/LossChecks.h"
#include "common/Shape.h"
#include "common/TypePromotion.h"

#include <opcore/core/Reduction.h>
#include <opcore/ops/binary_cross_entropy_backward_native.h>
#include <opcore/ops/binary_cross_entropy_native.h>
#include <opcore/ops/binary_cross_entropy_with_logits_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/huber_loss_backward_native.h>
#include <opcore/ops/huber_loss_native.h>
#include <opcore/ops/mse_loss_backward_native.h>
#include <opcore/ops/mse_loss_native.h>
#include <opcore/ops/smooth_l1_loss_backward_native.h>
#include <opcore/ops/smooth_l1_loss_native.h>

#include <optional>

namespace opcore::native {
namespace {

using cuda::BinaryOp;
using cuda::PointwiseArgs;
using cuda::TernaryOp;

bool defined(const std::optional<Tensor>& t) { return t && t->defined(); }

// `loss` (elementwise, the broadcast shape) into out: itself for None, else its mean or sum.
void reduceInto(const Tensor& loss, int64_t reduction, const Tensor& out) {
  if (reduction == Reduction::None) {
    if (!loss.is_same(out)) out.copy_(loss);
  } else {
    out.copy_(reduction == Reduction::Mean ? loss.mean() : loss.sum());
  }
}

// The elementwise loss of `op` over self and target broadcast, computed in `dtype`: written
// into out for None, else, unrounded, into a temporary of the compute dtype (float for 16-bit
// dtypes) that is then reduced. A 0-dim CPU operand (which the meta function lets through as a
// number) is moved to the GPU, as in the other pointwise kernels.
Tensor elementwiseLoss(BinaryOp op, const char* name, const Tensor& self, const Tensor& target, int64_t reduction,
                       const Tensor& out, const PointwiseArgs& args = {}) {
  const ScalarType dtype = resultType(self, target);
  const ScalarType compute = reduction == Reduction::None ? dtype : cuda::opmathType(dtype);
  const Tensor loss = reduction == Reduction::None
                          ? out
                          : opcore::empty(broadcastShapes(self.sizes(), target.sizes()), out.options().dtype(compute));
  const Tensor a = cuda::onDevice(self, loss), b = cuda::onDevice(target, loss);
  cuda::launchBinary(op, name, compute, cuda::stridedOperands<3>(name, {&loss, &a, &b}), args);
  return loss;
}

void lossBackward(TernaryOp op, const char* name, const Tensor& grad_output, const Tensor& self,
                  const Tensor& target, int64_t reduction, const Tensor& grad_input, double param = 0) {
  const ScalarType dtype = promoteTypes(grad_output.scalar_type(), resultType(self, target));
  PointwiseArgs args;
  args.scalars[0] = reduction == Reduction::Mean ? 1.0 / static_cast<double>(grad_input.numel()) : 1.0;
  args.scalars[1] = param;
  const Tensor g = cuda::onDevice(grad_output, grad_input), a = cuda::onDevice(self, grad_input),
               b = cuda::onDevice(target, grad_input);
  cuda::launchTernary(op, name, dtype, cuda::stridedOperands<4>(name, {&grad_input, &g, &a, &b}), args);
}

}  // namespace

void mse_loss_out_cuda(const Tensor& self, const Tensor& target, int64_t reduction, const Tensor& out) {
  reduceInto(elementwiseLoss(BinaryOp::MseLoss, "mse_loss", self, target, reduction, out), reduction, out);
}

void mse_loss_backward_out_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                int64_t reduction, const Tensor& grad_input) {
  lossBackward(TernaryOp::MseLossBackward, "mse_loss_backward", grad_output, self, target, reduction, grad_input);
}

void smooth_l1_loss_out_cuda(const Tensor& self, const Tensor& target, int64_t reduction, double beta,
                             const Tensor& out) {
  PointwiseArgs args;
  args.scalars[0] = beta;
  reduceInto(elementwiseLoss(BinaryOp::SmoothL1Loss, "smooth_l1_loss", self, target, reduction, out, args),
             reduction, out);
}

void smooth_l1_loss_backward_out_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                      int64_t reduction, double beta, const Tensor& grad_input) {
  lossBackward(TernaryOp::SmoothL1LossBackward, "smooth_l1_loss_backward", grad_output, self, target, reduction,
               grad_input, beta);
}

void huber_loss_out_cuda(const Tensor& self, const Tensor& target, int64_t reduction, double delta,
                         const Tensor& out) {
  PointwiseArgs args;
  args.scalars[0] = delta;
  reduceInto(elementwiseLoss(BinaryOp::HuberLoss, "huber_loss", self, target, reduction, out, args), reduction, out);
}

void huber_loss_backward_out_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                  int64_t reduction, double delta, const Tensor& grad_input) {
  lossBackward(TernaryOp::HuberLossBackward, "huber_loss_backward", grad_output, self, target, reduction, grad_input,
               delta);
}

// binary_cross_entropy's inputs must be probabilities (NaN is not one), checked before
// anything is written: a reduction read back to the host, as the CPU kernel raises.
void binary_cross_entropy_out_cuda(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                   int64_t reduction, const Tensor& out) {
  OPCORE_CHECK(self.ge(0).logical_and(self.le(1)).all().item<bool>(), "all elements of input should be between 0 and 1");
  const Tensor loss = elementwiseLoss(BinaryOp::BinaryCrossEntropy, "binary_cross_entropy", self, target, reduction, out);
  if (defined(weight)) loss.mul_(*weight);
  reduceInto(loss, reduction, out);
}

void binary_cross_entropy_backward_out_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction,
                                            const Tensor& grad_input) {
  lossBackward(TernaryOp::BinaryCrossEntropyBackward, "binary_cross_entropy_backward", grad_output, self, target,
               reduction, grad_input);
  if (defined(weight)) grad_input.mul_(*weight);
}

Tensor binary_cross_entropy_with_logits_cuda(const Tensor& self, const Tensor& target,
                                             const std::optional<Tensor>& weight,
                                             const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const TensorSpec spec = meta::binaryCrossEntropyWithLogitsSpec(self, target, weight, pos_weight, reduction);
  const Tensor out = opcore::empty(spec.sizes, self.options().dtype(spec.dtype));
  const ScalarType compute = reduction == Reduction::None ? spec.dtype : cuda::opmathType(spec.dtype);
  const Tensor loss = reduction == Reduction::None
                          ? out
                          : opcore::empty(broadcastShapes(self.sizes(), target.sizes()), self.options().dtype(compute));
  PointwiseArgs args;
  args.flags[0] = defined(pos_weight);
  const Tensor& third = defined(pos_weight) ? *pos_weight : target;
  cuda::launchTernary(TernaryOp::BinaryCrossEntropyWithLogits, "binary_cross_entropy_with_logits", compute,
                      cuda::stridedOperands<4>("binary_cross_entropy_with_logits", {&loss, &self, &target, &third}),
                      args);
  if (defined(weight)) loss.mul_(*weight);
  reduceInto(loss, reduction, out);
  return out;
}

}  // namespace opcore::native

// The element functions of the pointwise losses (mse_loss, smooth_l1_loss, huber_loss,
// binary_cross_entropy, binary_cross_entropy_with_logits) and of their gradients, written once
// for every backend: the CPU kernels (kernels/cpu/PointwiseLoss.cpp) call the ones without logs
// and exps (they run the others through SLEEF's vector functions, block by block) and the CUDA
// launchers (kernels/cuda/CudaBinaryKernels.cu, CudaTernaryKernels.cu) instantiate all of
// them. Each takes and returns opmath_t values, with PyTorch's formulas; nvcc-clean (Note
// [nvcc-clean pointwise headers] in Binary.h). `norm` is what a gradient is scaled by: 1, or
// 1 / the number of elements for the mean.
//   float l = opcore::native::pointwise::huberOf(2.0f, 0.5f, /*delta=*/1.0f);
#pragma once

#include <opcore/core/Macros.h>

#include <cmath>

namespace opcore::native::pointwise {

// Both values are computed before one is chosen, which keeps the CPU loops branch-free (a
// choice between two computed values vectorizes; one that skips a computation may keep a
// branch per element under -ftrapping-math).
template <typename M>
OPCORE_HOST_DEVICE inline M pick(bool c, M a, M b) {
  return c ? a : b;
}

// std::max's choice (a NaN `a` is kept), for host and device.
template <typename M>
OPCORE_HOST_DEVICE inline M maxOf(M a, M b) {
  return pick(a < b, b, a);
}

template <typename M>
OPCORE_HOST_DEVICE inline M mseOf(M x, M y) {
  const M d = x - y;
  return d * d;
}

template <typename M>
OPCORE_HOST_DEVICE inline M mseBackwardOf(M grad, M x, M y, M norm) {
  return M(2) * norm * (x - y) * grad;
}

// 0.5 z^2 / beta below beta, z - beta / 2 above, of z = |x - y|. beta = 0 is the L1 loss:
// z < 0 never holds, so 0.5 z^2 / 0 is computed (NaN or inf) but never chosen.
template <typename M>
OPCORE_HOST_DEVICE inline M smoothL1Of(M x, M y, M beta) {
  const M z = std::abs(x - y);
  return pick(z < beta, M(0.5) * z * z / beta, z - M(0.5) * beta);
}

template <typename M>
OPCORE_HOST_DEVICE inline M smoothL1BackwardOf(M grad, M x, M y, M norm, M beta) {
  const M d = x - y;
  const M sign = pick(d >= beta, M(1), pick(d <= -beta, M(-1), d / beta));
  return norm * sign * grad;
}

// 0.5 z^2 below delta, delta (z - delta / 2) above, of z = |x - y|.
template <typename M>
OPCORE_HOST_DEVICE inline M huberOf(M x, M y, M delta) {
  const M z = std::abs(x - y);
  return pick(z < delta, M(0.5) * z * z, delta * (z - M(0.5) * delta));
}

template <typename M>
OPCORE_HOST_DEVICE inline M huberBackwardOf(M grad, M x, M y, M norm, M delta) {
  const M d = x - y;
  const M slope = pick(d >= delta, delta, pick(d <= -delta, -delta, d));
  return norm * slope * grad;
}

// -(y log(x) + (1 - y) log(1 - x)) of a probability x, each log clamped at -100 (PyTorch's).
template <typename M>
OPCORE_HOST_DEVICE inline M binaryCrossEntropyOf(M x, M y) {
  const M log_x = std::log(x), log_1mx = std::log1p(-x);
  return (y - M(1)) * maxOf(log_1mx, M(-100)) - y * maxOf(log_x, M(-100));
}

// grad (x - y) / max((1 - x) x, 1e-12) (PyTorch's EPSILON).
template <typename M>
OPCORE_HOST_DEVICE inline M binaryCrossEntropyBackwardOf(M grad, M x, M y, M norm) {
  const M denominator = (M(1) - x) * x;
  return norm * grad * (x - y) / maxOf(denominator, M(1e-12));
}

// binary_cross_entropy of sigmoid(x) from the logit x without overflow, the positive examples
// weighed by pos_weight (1 for none): (1 - y) x + (1 + (pos_weight - 1) y) softplus(-x), with
// softplus(-x) = log1p(exp(-|x|)) + max(-x, 0).
template <typename M>
OPCORE_HOST_DEVICE inline M binaryCrossEntropyWithLogitsOf(M x, M y, M pos_weight) {
  const M softplus = std::log1p(std::exp(-std::abs(x))) + maxOf(-x, M(0));
  return (M(1) - y) * x + (M(1) + (pos_weight - M(1)) * y) * softplus;
}

}  // namespace opcore::native::pointwise

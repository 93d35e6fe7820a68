// The element functions of the softmax family (issue #34): what each element of a row becomes
// once the row's maximum and sum are known. Written once, for the CPU kernels
// (kernels/cpu/Softmax.cpp) and the CUDA ones; nvcc-clean: value types and <cmath> only.
// A is the type computed in: float for float, Half and BFloat16, double for double.
//   softmax::scaled(e, inv_sum)            // an element of softmax: exp(x - max) / sum
#pragma once

#include <opcore/core/Macros.h>

#include <cmath>

namespace opcore::native::softmax {

// Note [Softmax of rows with NaN and infinities]
// The maximum skips NaN (x > best is false), which needs nothing more: a NaN element makes
// its x - max NaN, so the row's sum, and every element of the result, NaN. A row holding +inf
// gives inf - inf = NaN in the sum, so NaN everywhere; a row of -inf only gives -inf - -inf =
// NaN: both as PyTorch's kernels (and as exp(x) / sum(exp(x)) computed exactly would not
// define otherwise). A -inf among finite elements gives exp(-inf) = 0 (log_softmax: -inf).
template <typename A>
OPCORE_HOST_DEVICE constexpr A maxOf(A x, A best) {
  return x > best ? x : best;
}

// softmax: exp(x - max) times the reciprocal of the row's sum of those (PyTorch's kernels
// multiply by the reciprocal too).
template <typename A>
OPCORE_HOST_DEVICE constexpr A scaled(A e, A inv_sum) {
  return e * inv_sum;
}

// log_softmax: (x - max) - log(sum(exp(x - max))).
template <typename A>
OPCORE_HOST_DEVICE constexpr A logScaled(A shifted, A log_sum) {
  return shifted - log_sum;
}

// softmax's gradient: y * (g - sum(g * y)), y the softmax, g the gradient of the result.
template <typename A>
OPCORE_HOST_DEVICE constexpr A softmaxGrad(A g, A y, A dot) {
  return y * (g - dot);
}

// log_softmax's gradient: g - exp(y) * sum(g), y the log_softmax.
template <typename A>
OPCORE_HOST_DEVICE constexpr A logSoftmaxGrad(A g, A exp_y, A sum) {
  return g - exp_y * sum;
}

}  // namespace opcore::native::softmax

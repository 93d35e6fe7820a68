// The element functions of the activation operators of issue #34 (sigmoid_backward,
// tanh_backward, gelu, gelu_backward, silu, silu_backward and their kin), written once for every
// backend: the CPU kernels (kernels/cpu/Activation.cpp) call them and a CUDA kernel can
// instantiate the same ones. Each takes and returns opmath_t values (float for Half and
// BFloat16; Note [Reduced precision] in kernels/cpu/Loops.h), with PyTorch's CPU formulas.
// nvcc-clean (Note [nvcc-clean pointwise headers] in Binary.h): the real overloads are
// OPCORE_HOST_DEVICE; the complex ones of sigmoid_backward and silu are host-only.
//   float y = opcore::native::pointwise::geluOf(0.5f, /*tanh=*/false);
#pragma once

#include <opcore/core/Complex.h>
#include <opcore/core/Macros.h>

#include <common/pointwise/Unary.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace opcore::native::pointwise {

// The gradient of sigmoid given its output y: grad * (1 - y) * y, in that order (PyTorch's: a
// zero gradient times an overflowing (1 - y) * y stays zero), and grad * conj((1 - y) * y) for
// complex.
template <typename T>
OPCORE_HOST_DEVICE inline T sigmoidBackwardOf(T grad, T y) {
  return grad * (T(1) - y) * y;
}
template <typename T>
OPCORE_HOST_DEVICE inline complex<T> sigmoidBackwardOf(complex<T> grad, complex<T> y) {
  return grad * conj((complex<T>(1) - y) * y);
}

// The gradient of tanh given its output y: grad * (1 - y * y), conjugated for complex.
template <typename T>
OPCORE_HOST_DEVICE inline T tanhBackwardOf(T grad, T y) {
  return grad * opcore::pointwise::conjOf(T(1) - y * y);
}

// ---- gelu ------------------------------------------------------------------------------------
// approximate='none': x * Phi(x) = x / 2 * (1 + erf(x / sqrt(2)));
// approximate='tanh': x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))).

template <typename T>
struct GeluConstants {
  static constexpr T kAlpha = T(0.707106781186547524400844362104849039);   // 1 / sqrt(2)
  static constexpr T kPdf = T(0.398942280401432677939946059934381868);     // 1 / sqrt(2 pi)
  static constexpr T kBeta = T(0.797884560802865355879892119868763737);    // sqrt(2 / pi)
  static constexpr T kKappa = T(0.044715);
};

template <typename T>
OPCORE_HOST_DEVICE inline T geluOf(T x, bool tanh_approximation) {
  using C = GeluConstants<T>;
  if (tanh_approximation) {
    const T inner = C::kBeta * (x + C::kKappa * x * x * x);
    return T(0.5) * x * (T(1) + std::tanh(inner));
  }
  return x * T(0.5) * (T(1) + std::erf(x * C::kAlpha));
}

template <typename T>
OPCORE_HOST_DEVICE inline T geluBackwardOf(T grad, T x, bool tanh_approximation) {
  using C = GeluConstants<T>;
  if (tanh_approximation) {
    const T x_sq = x * x;
    const T inner = C::kBeta * (x + C::kKappa * x_sq * x);
    const T tanh_inner = std::tanh(inner);
    const T left = T(0.5) * x;
    const T right = T(1) + tanh_inner;
    const T left_derivative = T(0.5) * right;
    const T tanh_derivative = T(1) - tanh_inner * tanh_inner;
    const T inner_derivative = C::kBeta * (T(1) + T(3) * C::kKappa * x_sq);
    const T right_derivative = left * tanh_derivative * inner_derivative;
    return grad * (left_derivative + right_derivative);
  }
  const T cdf = T(0.5) * (T(1) + std::erf(x * C::kAlpha));
  const T pdf = C::kPdf * std::exp(T(-0.5) * x * x);
  return grad * (cdf + x * pdf);
}

// ---- silu: x * sigmoid(x) ------------------------------------------------------------------------

template <typename T>
OPCORE_HOST_DEVICE inline T siluOf(T x) {
  return x / (T(1) + std::exp(-x));
}
template <typename T>
OPCORE_HOST_DEVICE inline complex<T> siluOf(complex<T> z) {
  return z / (complex<T>(1) + exp(-z));
}

// grad * s * (1 + x * (1 - s)), s = sigmoid(x). Not conjugated for complex, as PyTorch's
// silu_backward is not (silu's derivative passes conj(self) instead: derivatives.yaml).
template <typename T>
OPCORE_HOST_DEVICE inline T siluBackwardOf(T grad, T x) {
  const T s = T(1) / (T(1) + std::exp(-x));
  return grad * s * (T(1) + x * (T(1) - s));
}
template <typename T>
OPCORE_HOST_DEVICE inline complex<T> siluBackwardOf(complex<T> grad, complex<T> x) {
  const complex<T> one(1);
  const complex<T> s = one / (one + exp(-x));
  return grad * s * (one + x * (one - s));
}

// ---- leaky_relu, elu, hardtanh -------------------------------------------------------------------

// `a` if `c`, else `b`, both computed: a select of their bits on the CPU. Written as
// `x > 0 ? x : x * slope`, GCC moved the product into the branch that uses it (under its
// default -ftrapping-math a product the source does not need may not be computed, and
// `x * (x > 0 ? 1 : slope)` became that too), and left a branch per element unvectorized:
// leaky_relu ran 12x slower on inputs of mixed signs than on positive ones (bench/README.md).
template <typename T>
OPCORE_HOST_DEVICE inline T selectComputed(bool c, T a, T b) {
#if defined(__CUDA_ARCH__)
  return c ? a : b;
#else
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "a float or a double");
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  const U mask = U(0) - U(c);
  return std::bit_cast<T>((std::bit_cast<U>(a) & mask) | (std::bit_cast<U>(b) & ~mask));
#endif
}

template <typename T>
OPCORE_HOST_DEVICE inline T leakyReluOf(T x, T negative_slope) {
  return selectComputed(x > T(0), x, x * negative_slope);
}
template <typename T>
OPCORE_HOST_DEVICE inline T leakyReluBackwardOf(T grad, T x, T negative_slope) {
  return selectComputed(x > T(0), grad, grad * negative_slope);
}

// elu: poscoef * x for x > 0, negcoef * (exp(x * negiptcoef) - 1) otherwise (NaN too), where
// negcoef = alpha * scale, poscoef = scale, negiptcoef = input_scale.
template <typename T>
OPCORE_HOST_DEVICE inline T eluOf(T x, T negcoef, T poscoef, T negiptcoef) {
  return x > T(0) ? x * poscoef : std::expm1(x * negiptcoef) * negcoef;
}

// elu's gradient at b: elu's input, or (is_result) its output, where the gradient is
// negiptcoef * (b + negcoef) for b <= 0; negcoef = alpha * scale, poscoef = scale.
// A NaN b takes the negative branch (NaN), as PyTorch's vectorized kernel.
template <typename T>
OPCORE_HOST_DEVICE inline T eluBackwardOf(T grad, T b, T negcoef, T poscoef, T negiptcoef, bool is_result) {
  if (is_result) return b > T(0) ? grad * poscoef : grad * negiptcoef * (b + negcoef);
  return b > T(0) ? grad * poscoef : grad * negiptcoef * negcoef * std::exp(b * negiptcoef);
}

// clamp to [lo, hi], NaN kept (PyTorch's clamp: min(max(x, lo), hi)).
template <typename T>
OPCORE_HOST_DEVICE inline T hardtanhOf(T x, T lo, T hi) {
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) return x;
  }
  const T y = x < lo ? lo : x;
  return y > hi ? hi : y;
}
// grad strictly inside (lo, hi), else 0 (a NaN x too, as PyTorch's vectorized kernel).
template <typename T>
OPCORE_HOST_DEVICE inline T hardtanhBackwardOf(T grad, T x, T lo, T hi) {
  return (x > lo && x < hi) ? grad : T(0);
}

}  // namespace opcore::native::pointwise

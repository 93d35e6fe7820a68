// The scalar element functions of the unary pointwise operators (issue #33), written once for
// every backend: the CPU kernels (kernels/cpu/UnaryOps.cpp) call them and a CUDA kernel can
// instantiate the same ones. nvcc-clean: value-type headers, <cmath> and <type_traits> only.
//   float y = pointwise::erfinvOf(0.5f);   complex<double> w = pointwise::sinOf(complex<double>(1, 2));
#pragma once

#include <opcore/core/Complex.h>
#include <opcore/core/Macros.h>

#include <common/Wrapping.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace opcore::pointwise {

// Note [Unary element functions]
// Each function takes and returns an element in its compute type: float or double (Half and
// BFloat16 elements reach it as float, Note [Reduced precision] in kernels/cpu/Loops.h), an
// integer or bool type where the operator keeps integers (ceil, bitwise_not, sgn), or
// complex<T>. Every overload is OPCORE_HOST_DEVICE: the real ones use only <cmath>, the complex
// ones std::complex's functions on the host (as PyTorch's c10::complex does) and libcu++'s
// cuda::std::complex in CUDA device code (detail::StdComplex in opcore/core/Complex.h).
// Results follow PyTorch's CPU kernels, edge cases included: round is round-half-to-even
// (nearbyint), ceil, floor, round and trunc of an integer are the integer, frac(inf) is NaN,
// sgn(0) is 0.

template <typename T>
inline constexpr bool kIsReal = std::is_floating_point_v<T>;

// ---- trigonometric and hyperbolic -----------------------------------------------------------

// complex<float> is computed in double and rounded once: std::complex<float>'s functions lose
// an ulp or two where the reference (PyTorch's OpInfo compares in complex128) does not.
template <typename T>
using ComplexWork = detail::StdComplex<std::conditional_t<std::is_same_v<T, float>, double, T>>;
template <typename T>
OPCORE_HOST_DEVICE inline ComplexWork<T> widen(complex<T> z) {
  return ComplexWork<T>(z.real(), z.imag());
}
template <typename T, typename W>
OPCORE_HOST_DEVICE inline complex<T> roundComplex(const W& w) {
  return complex<T>(static_cast<T>(w.real()), static_cast<T>(w.imag()));
}

#define OPCORE_POINTWISE_STD_FUNCTION(fn)                                           \
  template <typename T, std::enable_if_t<kIsReal<T>, int> = 0>                     \
  OPCORE_HOST_DEVICE inline T fn##Of(T x) {                                         \
    return std::fn(x);                                                              \
  }                                                                                 \
  template <typename T>                                                             \
  OPCORE_HOST_DEVICE inline complex<T> fn##Of(complex<T> z) {                       \
    return roundComplex<T>(fn(widen(z)));                                           \
  }

OPCORE_POINTWISE_STD_FUNCTION(sin)
OPCORE_POINTWISE_STD_FUNCTION(cos)
OPCORE_POINTWISE_STD_FUNCTION(tan)
OPCORE_POINTWISE_STD_FUNCTION(asin)
OPCORE_POINTWISE_STD_FUNCTION(acos)
OPCORE_POINTWISE_STD_FUNCTION(atan)
OPCORE_POINTWISE_STD_FUNCTION(sinh)
OPCORE_POINTWISE_STD_FUNCTION(cosh)
OPCORE_POINTWISE_STD_FUNCTION(asinh)
OPCORE_POINTWISE_STD_FUNCTION(acosh)
OPCORE_POINTWISE_STD_FUNCTION(atanh)
OPCORE_POINTWISE_STD_FUNCTION(log10)
#undef OPCORE_POINTWISE_STD_FUNCTION

// ---- exponentials and logarithms ------------------------------------------------------------

// exp, log, sqrt and tanh: <cmath>'s for real x, Complex.h's for complex z.
#define OPCORE_POINTWISE_COMPLEX_H_FUNCTION(fn)                \
  template <typename T>                                        \
  OPCORE_HOST_DEVICE inline T fn##Of(T x) {                    \
    return std::fn(x);                                         \
  }                                                            \
  template <typename T>                                        \
  OPCORE_HOST_DEVICE inline complex<T> fn##Of(complex<T> z) {  \
    return fn(z);                                              \
  }
OPCORE_POINTWISE_COMPLEX_H_FUNCTION(exp)
OPCORE_POINTWISE_COMPLEX_H_FUNCTION(log)
OPCORE_POINTWISE_COMPLEX_H_FUNCTION(sqrt)
OPCORE_POINTWISE_COMPLEX_H_FUNCTION(tanh)
#undef OPCORE_POINTWISE_COMPLEX_H_FUNCTION

template <typename T>
OPCORE_HOST_DEVICE inline T log2Of(T x) {
  return std::log2(x);
}
// std::complex has no log2: log(z) / log(2), as c10::complex's.
template <typename T>
OPCORE_HOST_DEVICE inline complex<T> log2Of(complex<T> z) {
  const auto l = log(widen(z));
  const double ln2 = 0.693147180559945309417232121458176568;
  return complex<T>(static_cast<T>(l.real() / ln2), static_cast<T>(l.imag() / ln2));
}

template <typename T>
OPCORE_HOST_DEVICE inline T log1pOf(T x) {
  return std::log1p(x);
}
template <typename T>
OPCORE_HOST_DEVICE inline T expm1Of(T x) {
  return std::expm1(x);
}
template <typename T>
OPCORE_HOST_DEVICE inline T exp2Of(T x) {
  return std::exp2(x);
}
template <typename T>
OPCORE_HOST_DEVICE inline T erfOf(T x) {
  return std::erf(x);
}

// The inverse of erf on [-1, 1] (NaN outside, +-inf at +-1): a rational first approximation,
// then two Newton steps on erf(x) = y, as PyTorch's calc_erfinv (itself from Pavlis's MATLAB
// erfinv).
template <typename T>
OPCORE_HOST_DEVICE inline T erfinvOf(T y) {
  const T a[4] = {T(0.886226899), T(-1.645349621), T(0.914624893), T(-0.140543331)};
  const T b[4] = {T(-2.118377725), T(1.442710462), T(-0.329097515), T(0.012229801)};
  const T c[4] = {T(-1.970840454), T(-1.624906493), T(3.429567803), T(1.641345311)};
  const T d[2] = {T(3.543889200), T(1.637067800)};
  const T y_abs = std::fabs(y);
  if (y_abs > T(1)) return std::nan("");
  if (y_abs == T(1)) return std::copysign(T(INFINITY), y);
  T x;
  if (y_abs <= T(0.7)) {
    const T z = y * y;
    const T num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    const T dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + T(1);
    x = y * num / dem;
  } else {  // also NaN
    const T z = std::sqrt(-std::log((T(1) - y_abs) / T(2)));
    const T num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    const T dem = (d[1] * z + d[0]) * z + T(1);
    x = std::copysign(num, y) / dem;
  }
  const T two_over_sqrt_pi = T(1.12837916709551257389615890312154517);
  x = x - (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  x = x - (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  return x;
}

// ---- reciprocals ------------------------------------------------------------------------------

template <typename T>
OPCORE_HOST_DEVICE inline T reciprocalOf(T x) {
  return T(1) / x;
}
template <typename T>
OPCORE_HOST_DEVICE inline complex<T> reciprocalOf(complex<T> z) {
  return complex<T>(T(1)) / z;
}

template <typename T>
OPCORE_HOST_DEVICE inline T rsqrtOf(T x) {
  return T(1) / std::sqrt(x);
}
template <typename T>
OPCORE_HOST_DEVICE inline complex<T> rsqrtOf(complex<T> z) {
  return roundComplex<T>(ComplexWork<T>(1) / sqrt(widen(z)));
}

// ---- rounding (integers are their own) --------------------------------------------------------

#define OPCORE_POINTWISE_ROUNDING_FUNCTION(name, fn) \
  template <typename T>                               \
  OPCORE_HOST_DEVICE inline T name(T x) {             \
    if constexpr (kIsReal<T>) {                       \
      return std::fn(x);                              \
    } else {                                          \
      return x;                                       \
    }                                                 \
  }

OPCORE_POINTWISE_ROUNDING_FUNCTION(ceilOf, ceil)
OPCORE_POINTWISE_ROUNDING_FUNCTION(floorOf, floor)
OPCORE_POINTWISE_ROUNDING_FUNCTION(truncOf, trunc)
// Half to even, in the current rounding mode (nearest), as PyTorch's std::nearbyint.
OPCORE_POINTWISE_ROUNDING_FUNCTION(roundOf, nearbyint)
#undef OPCORE_POINTWISE_ROUNDING_FUNCTION

// round(x, decimals): x scaled by 10^decimals, rounded half to even, scaled back (for negative
// decimals, divided first), as PyTorch's round_decimals_kernel.
template <typename T>
struct RoundDecimals {
  T ten_pow;
  bool negative;
  OPCORE_HOST_DEVICE explicit RoundDecimals(int64_t decimals)
      : ten_pow(static_cast<T>(std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals)))),
        negative(decimals < 0) {}
  OPCORE_HOST_DEVICE T operator()(T x) const {
    return negative ? std::nearbyint(x / ten_pow) * ten_pow : std::nearbyint(x * ten_pow) / ten_pow;
  }
};

template <typename T>
OPCORE_HOST_DEVICE inline T fracOf(T x) {
  return x - std::trunc(x);
}

// ---- signs ------------------------------------------------------------------------------------

// -1, 0 or 1 (NaN stays NaN; bool values are their own); for complex z, z / |z| (0 at 0).
template <typename T>
OPCORE_HOST_DEVICE inline T sgnOf(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x;
  } else if constexpr (std::is_unsigned_v<T>) {
    return static_cast<T>(x != T(0));
  } else if constexpr (kIsReal<T>) {
    return std::isnan(x) ? x : static_cast<T>((T(0) < x) - (x < T(0)));
  } else {
    return static_cast<T>((T(0) < x) - (x < T(0)));
  }
}
template <typename T>
OPCORE_HOST_DEVICE inline complex<T> sgnOf(complex<T> z) {
  if (z.real() == T(0) && z.imag() == T(0)) return complex<T>(T(0), T(0));
  const T magnitude = abs(z);
  return complex<T>(z.real() / magnitude, z.imag() / magnitude);
}

// -x; integers wrap (neg of int8 -128 is -128, as PyTorch's).
template <typename T>
OPCORE_HOST_DEVICE inline T negOf(T x) {
  return native::wrappingNeg(x);
}

// |x| for real x (unsigned and bool values are their own; abs(INT_MIN) is INT_MIN, as PyTorch's).
template <typename T>
OPCORE_HOST_DEVICE inline T absOf(T x) {
  if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) {
    return x;
  } else if constexpr (kIsReal<T>) {
    return std::fabs(x);
  } else {
    return x < 0 ? native::wrappingNeg(x) : x;
  }
}
// |z| of complex z: its real dtype.
template <typename T>
OPCORE_HOST_DEVICE inline T absOf(complex<T> z) {
  return abs(z);
}

// The argument: pi for negative reals, 0 for the others, NaN for NaN; for complex z,
// atan2(imag, real) (std::arg's).
template <typename T>
OPCORE_HOST_DEVICE inline T angleOf(T x) {
  if (std::isnan(x)) return x;
  return x < T(0) ? static_cast<T>(3.141592653589793238462643383279502884) : T(0);
}
template <typename T>
OPCORE_HOST_DEVICE inline T angleOf(complex<T> z) {
  return std::atan2(z.imag(), z.real());
}

// The complex conjugate; a real value is its own.
template <typename T>
OPCORE_HOST_DEVICE inline T conjOf(T x) {
  return x;
}
template <typename T>
OPCORE_HOST_DEVICE inline complex<T> conjOf(complex<T> z) {
  return conj(z);
}

// max(x, 0) that keeps NaN, like PyTorch's relu (clamp_min).
template <typename T>
OPCORE_HOST_DEVICE inline T reluOf(T x) {
  if constexpr (kIsReal<T>) {
    return (x > T(0) || std::isnan(x)) ? x : T(0);
  } else {
    return x > T(0) ? x : T(0);
  }
}

// 1 / (1 + exp(-x)), real or complex.
template <typename T>
OPCORE_HOST_DEVICE inline T sigmoidOf(T x) {
  return T(1) / (T(1) + expOf(-x));
}

// ---- bits and predicates ----------------------------------------------------------------------

template <typename T>
OPCORE_HOST_DEVICE inline T bitwiseNotOf(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return !x;
  } else {
    return static_cast<T>(~x);
  }
}

template <typename T>
OPCORE_HOST_DEVICE inline bool logicalNotOf(T x) {
  return !static_cast<bool>(x);
}

template <typename T>
OPCORE_HOST_DEVICE inline bool isnanOf(T x) {
  if constexpr (kIsReal<T>) {
    return std::isnan(x);
  } else {
    return false;
  }
}
template <typename T>
OPCORE_HOST_DEVICE inline bool isnanOf(complex<T> z) {
  return std::isnan(z.real()) || std::isnan(z.imag());
}

template <typename T>
OPCORE_HOST_DEVICE inline bool isinfOf(T x) {
  if constexpr (kIsReal<T>) {
    return std::isinf(x);
  } else {
    return false;
  }
}
template <typename T>
OPCORE_HOST_DEVICE inline bool isinfOf(complex<T> z) {
  return std::isinf(z.real()) || std::isinf(z.imag());
}

// NaN, +inf and -inf replaced by the given values (already converted to T); others kept.
template <typename T>
struct NanToNum {
  T nan, posinf, neginf;
  OPCORE_HOST_DEVICE T operator()(T x) const {
    if constexpr (kIsReal<T>) {
      return std::isnan(x) ? nan : (x == T(INFINITY) ? posinf : (x == -T(INFINITY) ? neginf : x));
    } else {
      return x;
    }
  }
};

}  // namespace opcore::pointwise

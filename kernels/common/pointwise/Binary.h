// The element functions of the binary and ternary pointwise operators (issue #33), written
// once for every backend: the CPU kernels (kernels/cpu/BinaryOps.cpp, Pow.cpp, Ternary.cpp)
// call them, and a CUDA kernel can instantiate the same functions on the GPU. Each takes and
// returns opmath_t values (float for Half and BFloat16; Note [Reduced precision] in
// kernels/cpu/Loops.h).
//   float r = opcore::native::pointwise::remainder(-5.0f, 3.0f);  // 1.0f, Python's -5 % 3
//
// Note [nvcc-clean pointwise headers]
// This header includes only <cmath>, <type_traits> and the value types of <opcore/core/...>,
// and marks every function OPCORE_HOST_DEVICE, so that nvcc compiles it for the device. What
// cannot run there (a thrown error) is reported through a flag the caller checks: integer
// division by zero sets `*by_zero` and returns 0, and the CPU kernel raises PyTorch's
// "ZeroDivisionError" after the loop.
#pragma once

#include <opcore/core/Complex.h>
#include <opcore/core/Macros.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace opcore::native::pointwise {

template <typename T>
OPCORE_HOST_DEVICE inline bool isNan(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return x != x;
  } else {
    return false;
  }
}

// --- bitwise and shifts (integral and bool) ---------------------------------------------------

template <typename T>
OPCORE_HOST_DEVICE inline T bitwiseAnd(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return static_cast<T>(a & b);
  }
}
template <typename T>
OPCORE_HOST_DEVICE inline T bitwiseOr(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    return static_cast<T>(a | b);
  }
}
template <typename T>
OPCORE_HOST_DEVICE inline T bitwiseXor(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a != b;
  } else {
    return static_cast<T>(a ^ b);
  }
}

// Note [Shifts out of range]
// C++ leaves a shift by a negative amount or by the operand's width or more undefined; PyTorch
// defines them: a left shift gives 0, a right shift gives 0 for non-negative values and -1 for
// negative ones (the sign fills every bit). Left shifts are done in the unsigned type, so that
// shifting a negative value or into the sign bit wraps instead of being undefined.
template <typename T>
OPCORE_HOST_DEVICE inline T shiftLeft(T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr T kBits = static_cast<T>(sizeof(T) * 8);
  if ((std::is_signed_v<T> && b < 0) || b >= kBits) return T(0);
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << b));
}
template <typename T>
OPCORE_HOST_DEVICE inline T shiftRight(T a, T b) {
  constexpr T kBits = static_cast<T>(sizeof(T) * 8);
  if ((std::is_signed_v<T> && b < 0) || b >= kBits) {
    if constexpr (std::is_signed_v<T>) {
      return a < 0 ? T(-1) : T(0);
    } else {
      return T(0);
    }
  }
  return static_cast<T>(a >> b);
}

// --- division-like: fmod, remainder, floor division -------------------------------------------

// C's fmod: the remainder of the division truncated toward zero, with the sign of a.
template <typename T>
OPCORE_HOST_DEVICE inline T fmod(T a, T b, bool* by_zero) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) {
      *by_zero = true;
      return T(0);
    }
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return T(0);  // MIN % -1 traps on x86
    }
    return static_cast<T>(a % b);
  } else {
    return std::fmod(a, b);
  }
}

// Python's %: the remainder of the division rounded toward -inf, with the sign of b.
template <typename T>
OPCORE_HOST_DEVICE inline T remainder(T a, T b, bool* by_zero) {
  T r = pointwise::fmod(a, b, by_zero);
  if constexpr (std::is_integral_v<T> && !std::is_signed_v<T>) {
    return r;
  } else {
    if (r != T(0) && ((r < T(0)) != (b < T(0)))) r = static_cast<T>(r + b);
    return r;
  }
}

// Integer division rounding toward zero / toward -inf; -1 apart because MIN / -1 traps.
template <typename T>
OPCORE_HOST_DEVICE inline T truncDivInt(T a, T b, bool* by_zero) {
  if (b == 0) {
    *by_zero = true;
    return T(0);
  }
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return static_cast<T>(T(0) - static_cast<std::make_unsigned_t<T>>(a));
  }
  return static_cast<T>(a / b);
}
template <typename T>
OPCORE_HOST_DEVICE inline T floorDivInt(T a, T b, bool* by_zero) {
  const T q = truncDivInt(a, b, by_zero);
  if constexpr (std::is_signed_v<T>) {
    if (b == 0 || b == -1) return q;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
  } else {
    return q;  // unsigned: truncation is flooring
  }
}
// Python's floor division for floats: exact for integral quotients, such as 1 // 0.1 == 9.
template <typename T>
OPCORE_HOST_DEVICE inline T floorDivFloat(T a, T b) {
  if (b == 0) return a / b;
  const T mod = std::fmod(a, b);
  T q = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) q -= 1;
  if (q == 0) return std::copysign(T(0), a / b);
  T fq = std::floor(q);
  if (q - fq > T(0.5)) fq += 1;
  return fq;
}
template <typename T>
OPCORE_HOST_DEVICE inline T floorDivide(T a, T b, bool* by_zero) {
  if constexpr (std::is_integral_v<T>) {
    return floorDivInt(a, b, by_zero);
  } else {
    return floorDivFloat(a, b);
  }
}

// --- maximum, minimum, clamp ------------------------------------------------------------------

// NaN wins (either operand); otherwise the larger, `a` on ties (so maximum(0.0, -0.0) is 0.0).
template <typename T>
OPCORE_HOST_DEVICE inline T maximum(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    if (isNan(a)) return a;
    if (isNan(b)) return b;
    return a < b ? b : a;
  }
}
template <typename T>
OPCORE_HOST_DEVICE inline T minimum(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    if (isNan(a)) return a;
    if (isNan(b)) return b;
    return b < a ? b : a;
  }
}

// Note [Clamp and NaN]
// As PyTorch: with number bounds, a NaN element stays NaN, a single NaN bound is ignored (std::max
// and std::min keep their first operand when the comparison is false), and a NaN among two bounds
// makes every element NaN (clamp_out in kernels/cpu/Ternary.cpp); with tensor bounds, NaN in any
// of the three gives NaN (maximum and minimum). `hi` wins where lo > hi.
template <typename T>
OPCORE_HOST_DEVICE inline T clampScalar(T x, T lo, T hi, bool has_lo, bool has_hi) {
  if (isNan(x)) return x;
  if (has_lo) x = x < lo ? lo : x;
  if (has_hi) x = hi < x ? hi : x;
  return x;
}
template <typename T>
OPCORE_HOST_DEVICE inline T clampMinScalar(T x, T lo) {
  return x < lo ? lo : x;
}
template <typename T>
OPCORE_HOST_DEVICE inline T clampMaxScalar(T x, T hi) {
  return hi < x ? hi : x;
}

// --- floating functions -----------------------------------------------------------------------

template <typename T>
OPCORE_HOST_DEVICE inline T atan2(T a, T b) {
  return std::atan2(a, b);
}
template <typename T>
OPCORE_HOST_DEVICE inline T hypot(T a, T b) {
  return std::hypot(a, b);
}
template <typename T>
OPCORE_HOST_DEVICE inline T copysign(T a, T b) {
  return std::copysign(a, b);
}

// Note [Integer powers]
// An integer raised to a non-negative integer is computed by squaring, wrapping on overflow as
// PyTorch's results do. A negative exponent gives 0, except for the bases 1 (1) and -1 (-1 or
// 1 by the exponent's parity), as PyTorch's elementwise kernel; a negative number exponent with
// an integral tensor is refused before the loop (pow.Tensor_Scalar's meta function).
template <typename T>
OPCORE_HOST_DEVICE inline T powInt(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return T(1);
      if (base == -1) return (exp % 2 != 0) ? T(-1) : T(1);
      return T(0);
    }
  }
  using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
  U result = 1, b = static_cast<U>(base);
  auto e = exp;
  while (e) {
    if (e & 1) result = static_cast<U>(result * b);
    e = static_cast<T>(e >> 1);
    b = static_cast<U>(b * b);
  }
  return static_cast<T>(result);
}

// x ** y for floating x and y; for complex ones std::complex's pow (libcu++'s on the GPU).
template <typename T>
OPCORE_HOST_DEVICE inline T powFloat(T x, T y) {
  return std::pow(x, y);
}
template <typename T>
OPCORE_HOST_DEVICE inline complex<T> powFloat(complex<T> x, complex<T> y) {
  const auto r = pow(detail::StdComplex<T>(x.real(), x.imag()), detail::StdComplex<T>(y.real(), y.imag()));
  return complex<T>(r.real(), r.imag());
}

// |x|, real or complex: lerp's choice of end (Note [Lerp from the nearer end]).
template <typename T>
OPCORE_HOST_DEVICE inline T magnitude(T x) {
  return std::abs(x);
}
template <typename T>
OPCORE_HOST_DEVICE inline T magnitude(complex<T> z) {
  return abs(z);
}

// --- ternary ----------------------------------------------------------------------------------

// where's element: `a` where the condition holds, else `b` (the CPU loop selects bits without a
// branch instead, Note [Branchless where] in kernels/cpu/Compare.cpp; a GPU runs this).
template <typename T>
OPCORE_HOST_DEVICE inline T whereSelect(bool c, T a, T b) {
  return c ? a : b;
}

// Note [Lerp from the nearer end]
// As PyTorch: self + w * (end - self) for |w| < 0.5, end - (end - self) * (1 - w) otherwise, so
// w == 1 gives `end` exactly and the rounding error is smallest near both ends.
template <typename T, typename W>
OPCORE_HOST_DEVICE inline T lerp(T self, T end, W weight, bool small_weight) {
  return small_weight ? self + weight * (end - self) : end - (end - self) * (W(1) - weight);
}

}  // namespace opcore::native::pointwise

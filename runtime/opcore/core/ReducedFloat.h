// What Half and BFloat16 share: bit casts, and the arithmetic c10 gives its 16-bit floats.
// Both convert to float implicitly and from float with round-to-nearest-even; an operation on
// two of them computes in float and rounds once. Mixed with a built-in type they behave as
// c10's do: with float or double the result is that type, with an integer it stays 16-bit.
//   Half h = 1.5f;  Half s = h + h;  float f = h * 2.0f;
#pragma once

#include <opcore/core/Macros.h>

#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace opcore {

namespace detail {

OPCORE_HOST_DEVICE inline uint32_t floatToBits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  return std::bit_cast<uint32_t>(f);
#endif
}

OPCORE_HOST_DEVICE inline float bitsToFloat(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  return std::bit_cast<float>(u);
#endif
}

// The std::numeric_limits members Half and BFloat16 share: signed binary floats with
// infinities, NaNs and subnormals, rounding to nearest. Their numeric_limits derive from it.
struct ReducedFloatLimits {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr bool has_denorm_loss = false;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;
  static constexpr int radix = 2;
};

}  // namespace detail

// Specialised to true by Half and BFloat16: enables the operators below.
template <typename T>
inline constexpr bool is_reduced_floating_point_v = false;

template <typename T>
concept ReducedFloat = is_reduced_floating_point_v<T>;

// The type a mixed operation returns (c10's rules): float and double win, integers do not.
template <ReducedFloat R, typename A>
using reduced_float_result_t = std::conditional_t<std::is_floating_point_v<A>, A, R>;

#define OPCORE_REDUCED_FLOAT_BINARY_OP(op)                                                   \
  template <ReducedFloat R>                                                                  \
  OPCORE_HOST_DEVICE inline R operator op(R a, R b) {                                        \
    return R(static_cast<float>(a) op static_cast<float>(b));                                \
  }                                                                                          \
  template <ReducedFloat R, typename A>                                                      \
    requires std::is_arithmetic_v<A>                                                         \
  OPCORE_HOST_DEVICE inline reduced_float_result_t<R, A> operator op(R a, A b) {             \
    using Result = reduced_float_result_t<R, A>;                                             \
    using Compute = std::conditional_t<std::is_same_v<A, double>, double, float>;            \
    return Result(static_cast<Compute>(a) op static_cast<Compute>(b));                       \
  }                                                                                          \
  template <ReducedFloat R, typename A>                                                      \
    requires std::is_arithmetic_v<A>                                                         \
  OPCORE_HOST_DEVICE inline reduced_float_result_t<R, A> operator op(A a, R b) {             \
    using Result = reduced_float_result_t<R, A>;                                             \
    using Compute = std::conditional_t<std::is_same_v<A, double>, double, float>;            \
    return Result(static_cast<Compute>(a) op static_cast<Compute>(b));                       \
  }                                                                                          \
  template <ReducedFloat R, typename A>                                                      \
  OPCORE_HOST_DEVICE inline R& operator op##=(R & a, A b) {                                  \
    return a = R(static_cast<float>(a) op static_cast<float>(b));                            \
  }

OPCORE_REDUCED_FLOAT_BINARY_OP(+)
OPCORE_REDUCED_FLOAT_BINARY_OP(-)
OPCORE_REDUCED_FLOAT_BINARY_OP(*)
OPCORE_REDUCED_FLOAT_BINARY_OP(/)
#undef OPCORE_REDUCED_FLOAT_BINARY_OP

template <ReducedFloat R>
OPCORE_HOST_DEVICE inline R operator-(R a) {
  return R(-static_cast<float>(a));
}

// Comparisons compare the float values (so NaN is unequal to itself).
#define OPCORE_REDUCED_FLOAT_COMPARISON(op)                                                  \
  template <ReducedFloat R>                                                                  \
  OPCORE_HOST_DEVICE inline bool operator op(R a, R b) {                                     \
    return static_cast<float>(a) op static_cast<float>(b);                                   \
  }                                                                                          \
  template <ReducedFloat R, typename A>                                                      \
    requires std::is_arithmetic_v<A>                                                         \
  OPCORE_HOST_DEVICE inline bool operator op(R a, A b) {                                     \
    return static_cast<float>(a) op b;                                                       \
  }                                                                                          \
  template <ReducedFloat R, typename A>                                                      \
    requires std::is_arithmetic_v<A>                                                         \
  OPCORE_HOST_DEVICE inline bool operator op(A a, R b) {                                     \
    return a op static_cast<float>(b);                                                       \
  }

OPCORE_REDUCED_FLOAT_COMPARISON(==)
OPCORE_REDUCED_FLOAT_COMPARISON(!=)
OPCORE_REDUCED_FLOAT_COMPARISON(<)
OPCORE_REDUCED_FLOAT_COMPARISON(<=)
OPCORE_REDUCED_FLOAT_COMPARISON(>)
OPCORE_REDUCED_FLOAT_COMPARISON(>=)
#undef OPCORE_REDUCED_FLOAT_COMPARISON

}  // namespace opcore

// BFloat16: the upper 16 bits of an IEEE binary32 (8 exponent bits, 7 mantissa bits),
// c10::BFloat16's value type. Converts from float with round-to-nearest-even (NaN stays a quiet
// NaN) and to float exactly; arithmetic computes in float and rounds once (ReducedFloat.h).
//   BFloat16 b = 1.0f / 3;  float(b) == 0.333984375f
#pragma once

#include <opcore/core/ReducedFloat.h>

#include <cstdint>
#include <limits>
#include <ostream>

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#endif

namespace opcore {

namespace detail {

OPCORE_HOST_DEVICE inline uint16_t floatToBFloat16Bits(float f) {
  const uint32_t u = floatToBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;  // NaN: quiet, as c10's
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);  // round to nearest even
}

OPCORE_HOST_DEVICE inline float bfloat16BitsToFloat(uint16_t b) {
  return bitsToFloat(static_cast<uint32_t>(b) << 16);
}

}  // namespace detail

struct alignas(2) BFloat16 {
  uint16_t x;  // the bits

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return {}; }

  BFloat16() = default;
  constexpr OPCORE_HOST_DEVICE BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  OPCORE_HOST_DEVICE BFloat16(float value) {  // NOLINT: implicit, as c10::BFloat16
#if defined(__CUDA_ARCH__)
    x = __bfloat16_as_ushort(__float2bfloat16_rn(value));
#else
    x = detail::floatToBFloat16Bits(value);
#endif
  }
  OPCORE_HOST_DEVICE operator float() const {  // NOLINT: implicit, as c10::BFloat16
#if defined(__CUDA_ARCH__)
    return __bfloat162float(__ushort_as_bfloat16(x));
#else
    return detail::bfloat16BitsToFloat(x);
#endif
  }
};

template <>
inline constexpr bool is_reduced_floating_point_v<BFloat16> = true;

inline std::ostream& operator<<(std::ostream& os, BFloat16 b) { return os << static_cast<float>(b); }

}  // namespace opcore

template <>
class std::numeric_limits<opcore::BFloat16> : public opcore::detail::ReducedFloatLimits {
  using B = opcore::BFloat16;

 public:
  static constexpr bool is_iec559 = false;
  static constexpr int digits = 8;
  static constexpr int digits10 = 2;
  static constexpr int max_digits10 = 4;
  static constexpr int min_exponent = -125;
  static constexpr int min_exponent10 = -37;
  static constexpr int max_exponent = 128;
  static constexpr int max_exponent10 = 38;
  static constexpr B min() { return B(0x0080, B::from_bits()); }
  static constexpr B lowest() { return B(0xff7f, B::from_bits()); }
  static constexpr B max() { return B(0x7f7f, B::from_bits()); }
  static constexpr B epsilon() { return B(0x3c00, B::from_bits()); }  // 2^-7
  static constexpr B round_error() { return B(0x3f00, B::from_bits()); }  // 0.5
  static constexpr B infinity() { return B(0x7f80, B::from_bits()); }
  static constexpr B quiet_NaN() { return B(0x7fc0, B::from_bits()); }
  static constexpr B signaling_NaN() { return B(0x7f80 | 0x0001, B::from_bits()); }
  static constexpr B denorm_min() { return B(0x0001, B::from_bits()); }
};

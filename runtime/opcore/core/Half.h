// Half: IEEE 754 binary16 (float16), c10::Half's value type. Stored as 16 bits; converts from
// float with round-to-nearest-even (overflow to inf, NaN kept quiet) and to float exactly.
// Arithmetic computes in float and rounds once (ReducedFloat.h).
//   Half h = 0.1f;  float(h) == 0.0999755859375f;  Half(70000.f) is inf
#pragma once

#include <opcore/core/ReducedFloat.h>

#include <cstdint>
#include <limits>
#include <ostream>

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

namespace opcore {

namespace detail {

// Note [Branch-free conversions]
// Both conversions compute every case (normal, subnormal, inf/NaN) and pick one with bit
// masks, without branches: the compiler then vectorizes a loop of them (in each clone of
// Note [Instruction sets] in kernels/cpu/Loops.h), which converts at memory speed where the
// branching form ran at a third of it. The results are those of the branching form for every
// input (checked on all 2^32 floats and 2^16 halves when this was written).

// (c ? x : y) as bit masks: a select the compiler does not turn back into a branch.
OPCORE_HOST_DEVICE inline uint32_t selectBits(bool c, uint32_t x, uint32_t y) {
  const uint32_t mask = 0u - static_cast<uint32_t>(c);
  return (x & mask) | (y & ~mask);
}

// binary32 -> binary16, round to nearest even.
OPCORE_HOST_DEVICE inline uint16_t floatToHalfBits(float f) {
  const uint32_t u = floatToBits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7fffffffu;
  // A normal half (a >= 2^-14): drop 13 mantissa bits, rounding (a carry into the exponent is
  // right, up to inf), and rebias the exponent 127 -> 15.
  const uint32_t normal = (a + 0xfffu + ((a >> 13) & 1u) - 0x38000000u) >> 13;
  // A subnormal half (or zero): adding 0.5 makes the float unit 2^-24, the half's, so the FPU
  // rounds to nearest even and the low mantissa bits are the half's.
  const uint32_t subnormal = floatToBits(bitsToFloat(a) + 0.5f) - 0x3f000000u;
  uint32_t bits = selectBits(a >= 0x38800000u, normal, subnormal);
  bits = selectBits(a >= 0x47800000u, 0x7c00u, bits);  // >= 2^16: inf
  bits = selectBits(a > 0x7f800000u, 0x7e00u, bits);   // NaN
  return static_cast<uint16_t>(sign | bits);
}

// binary16 -> binary32, exact.
OPCORE_HOST_DEVICE inline float halfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t a = h & 0x7fffu;
  const uint32_t normal = (a << 13) + 0x38000000u;  // rebias 15 -> 127
  const uint32_t special = (a << 13) | 0x7f800000u;  // inf, NaN (its payload kept)
  // Subnormal: a * 2^-24, as (0.5 + a * 2^-24) - 0.5, both exact.
  const uint32_t subnormal = floatToBits(bitsToFloat(0x3f000000u | a) - 0.5f);
  uint32_t bits = selectBits(a >= 0x400u, normal, subnormal);
  bits = selectBits(a >= 0x7c00u, special, bits);
  return bitsToFloat(sign | bits);
}

}  // namespace detail

struct alignas(2) Half {
  uint16_t x;  // the bits

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return {}; }

  Half() = default;
  constexpr OPCORE_HOST_DEVICE Half(uint16_t bits, from_bits_t) : x(bits) {}
  OPCORE_HOST_DEVICE Half(float value) {  // NOLINT: implicit, as c10::Half
#if defined(__CUDA_ARCH__)
    x = __half_as_ushort(__float2half_rn(value));
#else
    x = detail::floatToHalfBits(value);
#endif
  }
  OPCORE_HOST_DEVICE operator float() const {  // NOLINT: implicit, as c10::Half
#if defined(__CUDA_ARCH__)
    return __half2float(__ushort_as_half(x));
#else
    return detail::halfBitsToFloat(x);
#endif
  }
};

template <>
inline constexpr bool is_reduced_floating_point_v<Half> = true;

inline std::ostream& operator<<(std::ostream& os, Half h) { return os << static_cast<float>(h); }

}  // namespace opcore

template <>
class std::numeric_limits<opcore::Half> : public opcore::detail::ReducedFloatLimits {
  using H = opcore::Half;

 public:
  static constexpr bool is_iec559 = true;
  static constexpr int digits = 11;
  static constexpr int digits10 = 3;
  static constexpr int max_digits10 = 5;
  static constexpr int min_exponent = -13;
  static constexpr int min_exponent10 = -4;
  static constexpr int max_exponent = 16;
  static constexpr int max_exponent10 = 4;
  static constexpr H min() { return H(0x0400, H::from_bits()); }  // 2^-14
  static constexpr H lowest() { return H(0xfbff, H::from_bits()); }
  static constexpr H max() { return H(0x7bff, H::from_bits()); }  // 65504
  static constexpr H epsilon() { return H(0x1400, H::from_bits()); }  // 2^-10
  static constexpr H round_error() { return H(0x3800, H::from_bits()); }  // 0.5
  static constexpr H infinity() { return H(0x7c00, H::from_bits()); }
  static constexpr H quiet_NaN() { return H(0x7e00, H::from_bits()); }
  static constexpr H signaling_NaN() { return H(0x7d00, H::from_bits()); }
  static constexpr H denorm_min() { return H(0x0001, H::from_bits()); }  // 2^-24
};

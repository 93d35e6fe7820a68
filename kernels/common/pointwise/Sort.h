// The keys of opcore's sorts, written once for the CPU kernels (kernels/cpu/Sort.cpp) and the
// CUDA ones (kernels/cuda/CudaSortKernels.cu): unsigned integers whose order is the sort's
// (Note [Radix sort keys] in kernels/cpu/Sort.cpp). nvcc-clean.
//   sortKey(1.5f) < sortKey(NAN);  sortKey(-0.0f) == sortKey(0.0f)
#pragma once

#include <opcore/core/Macros.h>
#include <opcore/core/ScalarType.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace opcore::native {

// The unsigned type of T's width.
template <typename T>
using KeyOf = std::conditional_t<sizeof(T) == 1, uint8_t,
              std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;

// value's key: floating values sign-magnitude to an unsigned order, -0.0 with +0.0, every NaN
// the largest key; signed integers with their sign bit flipped.
template <typename T>
OPCORE_ALWAYS_INLINE OPCORE_HOST_DEVICE KeyOf<T> sortKey(T value) {
  using K = KeyOf<T>;
  constexpr K kSign = K(K(1) << (sizeof(K) * 8 - 1));
  if constexpr (std::is_same_v<T, bool>) {
    return static_cast<K>(value);
  } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
    return static_cast<K>(value);
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<K>(static_cast<K>(value) ^ kSign);
  } else {
    const auto x = static_cast<opmath_t<T>>(value);
    if (x != x) return static_cast<K>(~K(0));
    K bits;
    memcpy(&bits, &value, sizeof(K));
    if (x == 0) bits = 0;  // -0.0 sorts with +0.0
    return (bits & kSign) ? static_cast<K>(~bits) : static_cast<K>(bits | kSign);
  }
}

}  // namespace opcore::native

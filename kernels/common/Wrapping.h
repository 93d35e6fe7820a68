// Integer arithmetic that wraps, as PyTorch's results do (int32 INT_MIN + INT_MIN == 0, INT_MIN *
// -1 == INT_MIN), without the undefined behaviour of signed overflow in C++. For the CPU and the
// CUDA kernels alike (Note [nvcc-clean pointwise headers] in common/pointwise/Binary.h).
#pragma once

#include <type_traits>

#include <opcore/core/Macros.h>

namespace opcore::native {

// Note [Wrapping integer arithmetic]
// PyTorch's integer kernels wrap on overflow, and opcore's results must too, but a signed
// overflow in C++ is undefined behaviour: UBSan stops the sanitizer suite on it, and an
// optimiser may assume it never happens. So signed integers are added, subtracted, multiplied
// and negated in an unsigned type (at least `unsigned`, so that uint8 and uint16 operands are
// not promoted to int and overflow there), whose arithmetic is modulo 2^N, and converted back,
// which C++20 defines as modulo 2^N too. Floating, complex and bool operands use the plain
// operators. The conversions cost nothing: two's complement bits are the same.
template <typename T>
constexpr bool kWraps = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
using WrapUnsigned = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
OPCORE_ALWAYS_INLINE OPCORE_HOST_DEVICE T wrappingAdd(T a, T b) {
  if constexpr (kWraps<T>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) + static_cast<WrapUnsigned<T>>(b));
  } else {
    return a + b;
  }
}

template <typename T>
OPCORE_ALWAYS_INLINE OPCORE_HOST_DEVICE T wrappingSub(T a, T b) {
  if constexpr (kWraps<T>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) - static_cast<WrapUnsigned<T>>(b));
  } else {
    return a - b;
  }
}

template <typename T>
OPCORE_ALWAYS_INLINE OPCORE_HOST_DEVICE T wrappingMul(T a, T b) {
  if constexpr (kWraps<T>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) * static_cast<WrapUnsigned<T>>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;  // the product of bools, without GCC's warning of `*` on them
  } else {
    return a * b;
  }
}

template <typename T>
OPCORE_ALWAYS_INLINE OPCORE_HOST_DEVICE T wrappingNeg(T a) {
  if constexpr (kWraps<T>) {
    return static_cast<T>(WrapUnsigned<T>(0) - static_cast<WrapUnsigned<T>>(a));
  } else {
    return -a;
  }
}

}  // namespace opcore::native

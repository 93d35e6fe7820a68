// The element functions of the scatter reductions (scatter.reduce, scatter_add,
// scatter_reduce.two; ScatterAdd also for index_put_ and put_ with accumulate=True): how the
// element already at a place combines with one scattered there.
// nvcc-clean (value-type headers only), so that a CUDA kernel instantiates the same functors.
//   T now = pointwise::ScatterMax{}(now, src);   // T an opmath type: float for Half, BFloat16
#pragma once

#include <cstdint>
#include <type_traits>

#include <opcore/core/Macros.h>

namespace opcore::native::pointwise {

// x != x: NaN for floating types, never for integers and bool.
template <typename T>
OPCORE_HOST_DEVICE inline bool isNanValue(T x) {
  return x != x;
}

// scatter.src, scatter.value: the scattered element replaces the one there.
struct ScatterAssign {
  template <typename T>
  OPCORE_HOST_DEVICE T operator()(T /*now*/, T src) const {
    return src;
  }
};

// "add" / "sum" (bool: or, as PyTorch's `+=` on bool).
struct ScatterAdd {
  template <typename T>
  OPCORE_HOST_DEVICE T operator()(T now, T src) const {
    if constexpr (std::is_integral_v<T>) {  // wraps, as PyTorch's: in uint64_t, where overflow is defined
      return static_cast<T>(static_cast<uint64_t>(now) + static_cast<uint64_t>(src));
    } else {
      return static_cast<T>(now + src);
    }
  }
};

// "multiply" / "prod" (bool: and).
struct ScatterMultiply {
  template <typename T>
  OPCORE_HOST_DEVICE T operator()(T now, T src) const {
    if constexpr (std::is_integral_v<T>) {  // wraps, as PyTorch's: in uint64_t, where overflow is defined
      return static_cast<T>(static_cast<uint64_t>(now) * static_cast<uint64_t>(src));
    } else {
      return static_cast<T>(now * src);
    }
  }
};

// "amax": NaN wins, from either side, as PyTorch's ReduceMaximum.
struct ScatterMax {
  template <typename T>
  OPCORE_HOST_DEVICE T operator()(T now, T src) const {
    return isNanValue(src) ? src : (now < src ? src : now);
  }
};

// "amin": NaN wins, from either side, as PyTorch's ReduceMinimum.
struct ScatterMin {
  template <typename T>
  OPCORE_HOST_DEVICE T operator()(T now, T src) const {
    return isNanValue(src) ? src : (src < now ? src : now);
  }
};

}  // namespace opcore::native::pointwise

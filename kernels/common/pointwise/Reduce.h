// The element functions of the reductions, scans and sorts (issue #33): how two elements
// compare with PyTorch's NaN rules and what counts as nonzero. Written once, for the CPU
// kernels (kernels/cpu/ReduceOps.cpp, Scan.cpp, Sort.cpp) and the CUDA ones; nvcc-clean: value
// types and <cmath> only.
//   reduce::greaterOrNan(x, best)   // x replaces best as a maximum (NaN beats every number)
#pragma once

#include <opcore/core/BFloat16.h>
#include <opcore/core/Complex.h>
#include <opcore/core/Half.h>
#include <opcore/core/Macros.h>

#include <cmath>
#include <type_traits>

namespace opcore::native::reduce {

// Note [NaN in reductions and sorts]
// As PyTorch's: amax, amin, max, min, argmax and argmin propagate NaN (a NaN is the maximum
// and the minimum; the first NaN is the index); sort and topk put NaN above every number
// (last ascending, first descending), and so do kthvalue, median and mode as orderings
// (median ignores nothing: a NaN in the row gives NaN).
template <typename T>
OPCORE_HOST_DEVICE constexpr bool isNan(T x) {
  if constexpr (std::is_integral_v<T>) {
    return false;
  } else {
    return x != x;
  }
}

// x replaces `best` as the running maximum: larger, or the first NaN.
template <typename T>
OPCORE_HOST_DEVICE constexpr bool greaterOrNan(T x, T best) {
  return x > best || (isNan(x) && !isNan(best));
}

// x replaces `best` as the running minimum: smaller, or the first NaN.
template <typename T>
OPCORE_HOST_DEVICE constexpr bool lessOrNan(T x, T best) {
  return x < best || (isNan(x) && !isNan(best));
}

// The order sort uses: a before b when a < b, NaN after every number (ascending).
template <typename T>
OPCORE_HOST_DEVICE constexpr bool lessNanLast(T a, T b) {
  return (!isNan(a) && isNan(b)) || a < b;
}

// The order of a descending sort: a before b when a > b, NaN before every number.
template <typename T>
OPCORE_HOST_DEVICE constexpr bool greaterNanFirst(T a, T b) {
  return (isNan(a) && !isNan(b)) || a > b;
}

// Whether x counts as true for any/all: nonzero (NaN is nonzero; a complex number with a
// nonzero part).
template <typename T>
OPCORE_HOST_DEVICE constexpr bool isNonzero(T x) {
  if constexpr (std::is_same_v<T, complex<float>> || std::is_same_v<T, complex<double>>) {
    return x.real() != 0 || x.imag() != 0;
  } else {
    return x != T(0);
  }
}

}  // namespace opcore::native::reduce

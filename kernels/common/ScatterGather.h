// Checks shared by the meta functions and the kernels of scatter, gather and index_select
// (kernels/common/IndexingMeta.cpp), with PyTorch's messages.
#pragma once

#include <opcore/core/Structured.h>
#include <opcore/core/ScalarType.h>
#include <opcore/core/TensorBase.h>

#include <cstdint>
#include <limits>
#include <type_traits>
#include <string_view>

namespace opcore::native {

// How a scatter combines an element with the one already at its place.
enum class ScatterReduce { Assign, Add, Multiply, Mean, Max, Min };

// Throws unless `index` is Long: "<op>(): Expected dtype int64 for index".
void checkIndexDtype(const char* op, const TensorBase& index);
// gather: index has self's rank (0-dim counting as 1-dim) and is no larger apart from `dim`.
void gatherShapeCheck(const TensorBase& self, int64_t dim, const TensorBase& index);
// scatter: index has self's (and src's) rank, is no larger than src, nor than self apart
// from `dim`. Nothing is checked when index is empty. `src` may be null (a Scalar value).
void scatterShapeCheck(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase* src);
// The result of every scatter: self's sizes, dtype and device; an out= tensor must have the
// dtype exactly (the kernels write self's elements directly), as PyTorch's.
TensorSpec scatterSpec(const TensorBase& self);
// Throws PyTorch's error when out and input share memory (a gather reads input while it
// writes out).
void checkNoOverlap(const TensorBase& out, const TensorBase& input);
// scatter.reduce's `reduce`: "add" or "multiply".
ScatterReduce parseScatterReduce(std::string_view reduce);
// scatter_reduce.two's `reduce`: "sum", "prod", "mean", "amax" or "amin".
ScatterReduce parseScatterReduceTwo(std::string_view reduce);

// The value the places that receive elements start from when include_self is false.
template <typename T>
inline T scatterReductionIdentity(ScatterReduce reduce) {
  using Math = opmath_t<T>;
  switch (reduce) {
    case ScatterReduce::Multiply:
      return static_cast<T>(Math(1));
    case ScatterReduce::Max:
    case ScatterReduce::Min:
      if constexpr (is_complex_v<T>) {
        break;
      } else if constexpr (std::is_same_v<T, bool>) {
        return reduce == ScatterReduce::Min;
      } else if constexpr (std::is_floating_point_v<Math>) {
        const Math inf = std::numeric_limits<Math>::infinity();
        return static_cast<T>(reduce == ScatterReduce::Max ? -inf : inf);
      } else {
        return reduce == ScatterReduce::Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
      }
    default:
      break;
  }
  return static_cast<T>(Math(0));
}

}  // namespace opcore::native

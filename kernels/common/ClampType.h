// The dtype clamp computes in, for its CPU and CUDA kernels: self promoted with the bounds that
// are given (numbers, or defined tensors), as PyTorch's result_type.
//   const ScalarType dtype = clampType(self, min, max);
#pragma once

#include "common/TypePromotion.h"

#include <opcore/Tensor.h>

#include <optional>

namespace opcore::native {

template <typename Bound>  // Scalar or Tensor
ScalarType clampType(const Tensor& self, const std::optional<Bound>& min, const std::optional<Bound>& max) {
  ResultTypeState state;
  state.add(self);
  for (const std::optional<Bound>* bound : {&min, &max}) {
    if constexpr (std::is_same_v<Bound, Tensor>) {
      if (*bound && (*bound)->defined()) state.add(**bound);
    } else {
      if (*bound) state.add(**bound);
    }
  }
  return state.result();
}

}  // namespace opcore::native

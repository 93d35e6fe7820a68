// The checks and result shape of binary_cross_entropy_with_logits, shared by its CPU kernel and
// its Meta kernel (it is not structured, as PyTorch's is not); defined in common/LossMeta.cpp.
#pragma once

#include <opcore/Tensor.h>
#include <opcore/core/Structured.h>

#include <optional>

namespace opcore::meta {

// The loss's shape (self and target broadcast; weight and pos_weight must broadcast into it),
// dtype and device; throws PyTorch's errors.
TensorSpec binaryCrossEntropyWithLogitsSpec(const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight,
                                            const std::optional<Tensor>& pos_weight, int64_t reduction);

}  // namespace opcore::meta

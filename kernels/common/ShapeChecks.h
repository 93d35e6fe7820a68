// Argument checks shared by the CPU kernels and the Meta kernels of the copying shape
// operators of issue #33 (cat, flip, roll), so that both backends raise the same errors.
#pragma once

#include <opcore/core/TensorBase.h>

#include <vector>

namespace opcore::native {

// Whether cat skips `t`: a 1-D tensor with no elements (Note [cat's legacy empty tensors]).
inline bool isSkippedByCat(const TensorBase& t) { return t.dim() == 1 && t.numel() == 0; }

// flip's dimensions, wrapped, as a mask over self's dimensions; throws on a repeated one.
std::vector<bool> flipDims(const TensorBase& self, IntArrayRef dims);

// Throws PyTorch's errors for roll's arguments.
void checkRollArguments(const TensorBase& self, IntArrayRef shifts, IntArrayRef dims);

}  // namespace opcore::native

// Shape arithmetic shared by kernels and composites: broadcasting, -1 inference, the strides
// of a view, reduced shapes and arange lengths. Pure functions of sizes; no tensor data (resize_'s
// checks read a tensor's flags).
//   broadcastShapes({2, 1}, {3}) == DimVector{2, 3}
#pragma once

#include <opcore/core/TensorFwd.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace opcore {
class TensorBase;
}  // namespace opcore

namespace opcore::native {

using DimVector = std::vector<int64_t>;

// The shape `a` and `b` broadcast to under PyTorch's rules; throws on a mismatch.
DimVector broadcastShapes(IntArrayRef a, IntArrayRef b);

// Replaces a single -1 in `shape` so that the result has `numel` elements; throws when
// that is impossible ("shape '[2, 5]' is invalid for input of size 6").
DimVector inferSize(IntArrayRef shape, int64_t numel);

// Strides that let a tensor with (old_sizes, old_strides) be viewed as `new_sizes` without
// copying, or nullopt when no such strides exist. Precondition: equal element counts.
std::optional<DimVector> computeViewStrides(IntArrayRef old_sizes, IntArrayRef old_strides,
                                            IntArrayRef new_sizes);

// Which dimensions of a rank-`ndim` tensor a reduction over `dim` covers (none given or an
// empty list: all). Throws for out-of-range or repeated dimensions.
std::vector<bool> reductionMask(OptionalIntArrayRef dim, int64_t ndim);

// The result shape of a reduction: reduced dimensions become 1 (keepdim) or disappear.
DimVector reducedShape(IntArrayRef sizes, const std::vector<bool>& mask, bool keepdim);

// The checks of a selection along one dimension (kthvalue, median, mode), shared by the CPU
// and CUDA kernels: the dimension is not empty ("<fn>: Expected reduction dim 1 to have
// non-zero size."), values has self's dtype and indices is Long.
void checkSelectionDim(const TensorBase& self, int64_t dim, const char* fn);
void checkSelectionOutputs(const TensorBase& self, const TensorBase& values, const TensorBase& indices,
                           const char* name);

// unique_dim's checks, shared by the CPU and CUDA kernels (PyTorch's messages): self has a
// dimension `dim`, and no empty dimension unless it is `dim`, alone. Returns dim wrapped.
int64_t checkUniqueDim(const TensorBase& self, int64_t dim);

// The number of elements of arange(start, end, step): ceil((end - start) / step); throws on
// a zero step or when the step points away from `end`.
int64_t arangeLength(const Scalar& start, const Scalar& end, const Scalar& step);

// resize_'s checks, the same on every backend: self does not require grad (its autograd
// history could not follow), no size is negative, and the format names a layout.
void checkResizable(const TensorBase& self, IntArrayRef size, std::optional<MemoryFormat> memory_format);

}  // namespace opcore::native

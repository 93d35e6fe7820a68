// Shape arithmetic shared by kernels and composites (see Shape.h).
#include "common/Shape.h"

#include <opcore/core/Error.h>
#include <opcore/core/TensorBase.h>

#include <algorithm>
#include <cmath>

namespace opcore::native {

DimVector broadcastShapes(IntArrayRef a, IntArrayRef b) {
  const size_t ndim = std::max(a.size(), b.size());
  DimVector out(ndim);
  for (size_t i = 0; i < ndim; ++i) {
    // Align from the right; missing leading dimensions count as 1.
    const size_t from_end = ndim - 1 - i;
    const int64_t sa = from_end < a.size() ? a[a.size() - 1 - from_end] : 1;
    const int64_t sb = from_end < b.size() ? b[b.size() - 1 - from_end] : 1;
    OPCORE_CHECK(sa == sb || sa == 1 || sb == 1, "The size of tensor a (", sa,
                 ") must match the size of tensor b (", sb, ") at non-singleton dimension ", i);
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

DimVector inferSize(IntArrayRef shape, int64_t numel) {
  DimVector out = shape.vec();
  std::optional<size_t> infer;
  int64_t known = 1;
  bool overflow = false;  // of the product of the known sizes
  bool has_zero = false;   // ... which is then 0, whether or not it overflowed before
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      OPCORE_CHECK(!infer, "only one dimension can be inferred");
      infer = i;
    } else {
      OPCORE_CHECK(shape[i] >= 0, "invalid shape dimension ", shape[i]);
      has_zero |= shape[i] == 0;
      overflow |= __builtin_mul_overflow(known, shape[i], &known);
    }
  }
  if (has_zero) known = 0;
  OPCORE_CHECK(has_zero || !overflow, "shape '", shape, "' is invalid for input of size ", numel);
  OPCORE_CHECK(!infer || known != 0 || numel != 0, "cannot reshape tensor of 0 elements into shape ", shape,
               " because the unspecified dimension size -1 can be any value and is ambiguous");
  const bool ok = infer ? (known != 0 && numel % known == 0) : known == numel;
  OPCORE_CHECK(ok, "shape '", shape, "' is invalid for input of size ", numel);
  if (infer) out[*infer] = numel / known;
  return out;
}

// Note [View strides]
// The old dimensions split into "chunks", maximal runs of dimensions
// that are contiguous with one another. A view is possible when, walking from the innermost
// dimension, every chunk is covered exactly by a run of new dimensions; inside a chunk the
// new strides are contiguous multiples of the chunk's innermost stride. Size-1 dimensions
// fit anywhere.
std::optional<DimVector> computeViewStrides(IntArrayRef old_sizes, IntArrayRef old_strides,
                                            IntArrayRef new_sizes) {
  DimVector new_strides(new_sizes.size(), 1);
  if (old_sizes.empty() || checkedNumel(old_sizes) == 0) {
    // A scalar or an empty tensor: any shape with the same element count is contiguous.
    contiguousStridesInto(new_sizes, new_strides.data());
    return new_strides;
  }
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_stride = old_strides.back();  // stride of the chunk's innermost element
  int64_t chunk_numel = 1;
  int64_t view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    chunk_numel *= old_sizes[d];
    const bool chunk_ends =
        d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != chunk_numel * chunk_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < chunk_numel || new_sizes[view_d] == 1)) {
      new_strides[view_d] = view_numel * chunk_stride;
      view_numel *= new_sizes[view_d];
      --view_d;
    }
    if (view_numel != chunk_numel) return std::nullopt;
    if (d > 0) {
      chunk_stride = old_strides[d - 1];
      chunk_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}

std::vector<bool> reductionMask(OptionalIntArrayRef dim, int64_t ndim) {
  std::vector<bool> mask(static_cast<size_t>(ndim), false);
  if (!dim || dim->empty()) {
    mask.assign(mask.size(), true);
    return mask;
  }
  // A 0-dim tensor accepts dim 0 / -1, which reduce nothing away.
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(ndim, 1)), false);
  for (int64_t d : *dim) {
    const auto w = static_cast<size_t>(wrapDim(d, ndim));
    OPCORE_CHECK(!seen[w], "dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
    if (ndim > 0) mask[w] = true;
  }
  return mask;
}

void checkSelectionDim(const TensorBase& self, int64_t dim, const char* fn) {
  OPCORE_CHECK_INDEX(self.numel() != 0 || (self.dim() == 0 ? 1 : self.size(dim)) != 0, fn,
                     ": Expected reduction dim ", dim, " to have non-zero size.");
}

int64_t checkUniqueDim(const TensorBase& self, int64_t dim) {
  OPCORE_CHECK_INDEX(self.dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t d = self.wrapDim(dim);
  const auto zero_dims = std::count(self.sizes().begin(), self.sizes().end(), int64_t{0});
  if (self.size(d) == 0) {
    OPCORE_CHECK(zero_dims == 1, "Number of zero sized dimensions is more than one, so unique cannot be applied ");
  } else {
    OPCORE_CHECK(zero_dims == 0, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  }
  return d;
}

void checkSelectionOutputs(const TensorBase& self, const TensorBase& values, const TensorBase& indices,
                           const char* name) {
  OPCORE_CHECK(values.scalar_type() == self.scalar_type(), name, ": Expected out tensor values to have dtype ",
               self.scalar_type(), ", but got ", values.scalar_type(), " instead");
  OPCORE_CHECK(indices.scalar_type() == ScalarType::Long, name, ": Expected out tensor indices to have dtype ",
               ScalarType::Long, ", but got ", indices.scalar_type(), " instead");
}

DimVector reducedShape(IntArrayRef sizes, const std::vector<bool>& mask, bool keepdim) {
  DimVector out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!mask[i]) {
      out.push_back(sizes[i]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return out;
}

int64_t arangeLength(const Scalar& start, const Scalar& end, const Scalar& step) {
  const bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  const double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  OPCORE_CHECK(st != 0, "step must be nonzero");
  OPCORE_CHECK(std::isfinite(s) && std::isfinite(e), "unsupported range: ", start, " -> ", end);
  OPCORE_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
               "upper bound and larger bound inconsistent with step sign");
  if (integral) {
    // Exact integer ceil-division: (end - start) and step have the same sign here.
    const int64_t stp = step.toLong();
    int64_t span = 0;
    OPCORE_CHECK(!__builtin_sub_overflow(end.toLong(), start.toLong(), &span), "arange: the range ", start,
                 " -> ", end, " has more elements than int64_t can count");
    return span / stp + (span % stp != 0 ? 1 : 0);
  }
  const double n = std::ceil((e - s) / st);
  OPCORE_CHECK(n >= 0 && n < 9.2e18, "arange: invalid number of elements ", n);
  return static_cast<int64_t>(n);
}

void checkResizable(const TensorBase& self, IntArrayRef size, std::optional<MemoryFormat> memory_format) {
  OPCORE_CHECK(!self.requires_grad(), "cannot resize variables that require grad");
  for (const int64_t s : size) {
    OPCORE_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", size);
  }
  OPCORE_CHECK(memory_format != MemoryFormat::Preserve, "resize_: unsupported memory format Preserve (it names no layout)");
}

}  // namespace opcore::native

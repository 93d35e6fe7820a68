// Device-generic view kernels of issue #33 (registered for CPU, CUDA and Meta): permute,
// squeeze (all dimensions, a list of them), diagonal, alias and as_strided. Like View.cpp's,
// they compute sizes, strides and an offset over the same storage and touch no data.
#include <opcore/ops/alias_native.h>
#include <opcore/ops/as_strided_native.h>
#include <opcore/ops/diagonal_native.h>
#include <opcore/ops/permute_native.h>
#include <opcore/ops/squeeze_native.h>
#include <opcore/core/Empty.h>

#include "common/Shape.h"

#include <algorithm>
#include <vector>

namespace opcore::native {

Tensor permute(const Tensor& self, IntArrayRef dims) {
  const int64_t ndim = self.dim();
  OPCORE_CHECK(static_cast<int64_t>(dims.size()) == ndim,
               "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
               "desired ordering of dimensions i.e. input.dim() = ",
               ndim, " is not equal to len(dims) = ", dims.size());
  DimVector sizes(dims.size()), strides(dims.size());
  std::vector<bool> seen(static_cast<size_t>(ndim), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = self.wrapDim(dims[i]);
    OPCORE_CHECK(!seen[static_cast<size_t>(d)], "permute(): duplicate dims are not allowed.");
    seen[static_cast<size_t>(d)] = true;
    sizes[i] = self.size(d);
    strides[i] = self.stride(d);
  }
  return detail::makeView(self, sizes, strides, self.storage_offset());
}

Tensor squeeze(const Tensor& self) {
  DimVector sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.size(d) != 1) {
      sizes.push_back(self.size(d));
      strides.push_back(self.stride(d));
    }
  }
  return detail::makeView(self, sizes, strides, self.storage_offset());
}

Tensor squeeze(const Tensor& self, IntArrayRef dim) {
  const int64_t ndim = self.dim();
  std::vector<bool> drop(static_cast<size_t>(std::max<int64_t>(ndim, 1)), false);
  for (int64_t d : dim) {
    const auto w = static_cast<size_t>(self.wrapDim(d));  // a 0-dim tensor takes 0 and -1
    OPCORE_CHECK(!drop[w], "dim ", w, " appears multiple times in the list of dims");
    drop[w] = true;
  }
  DimVector sizes, strides;
  for (int64_t d = 0; d < ndim; ++d) {
    if (drop[static_cast<size_t>(d)] && self.size(d) == 1) continue;
    sizes.push_back(self.size(d));
    strides.push_back(self.stride(d));
  }
  return detail::makeView(self, sizes, strides, self.storage_offset());
}

Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t ndim = self.dim();
  const int64_t d1 = self.wrapDim(dim1), d2 = self.wrapDim(dim2);  // IndexError below 2 dimensions
  OPCORE_CHECK(ndim >= 2, "diagonal dimensions requires ndim larger than 1, but got ndim = ", ndim);
  OPCORE_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t length = 0;
  int64_t storage_offset = self.storage_offset();
  if (offset >= 0) {
    length = std::max<int64_t>(std::min(self.size(d1), self.size(d2) - offset), 0);
    if (length > 0) storage_offset += offset * self.stride(d2);
  } else {
    length = std::max<int64_t>(std::min(self.size(d1) + offset, self.size(d2)), 0);
    if (length > 0) storage_offset -= offset * self.stride(d1);
  }
  DimVector sizes, strides;
  for (int64_t d = 0; d < ndim; ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(self.size(d));
    strides.push_back(self.stride(d));
  }
  sizes.push_back(length);
  strides.push_back(self.stride(d1) + self.stride(d2));
  return detail::makeView(self, sizes, strides, storage_offset);
}

Tensor alias(const Tensor& self) {
  return detail::makeView(self, self.sizes(), self.strides(), self.storage_offset());
}

Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  OPCORE_CHECK(size.size() == stride.size(), "mismatch in length of strides and shape");
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  OPCORE_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  int64_t last = offset;  // the largest element index the view reaches
  bool empty = false;
  for (size_t i = 0; i < size.size(); ++i) {
    OPCORE_CHECK(size[i] >= 0, "Trying to create tensor with negative dimension ", size[i], ": ", size);
    OPCORE_CHECK(stride[i] >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ",
                 stride);
    empty |= size[i] == 0;
    last += (size[i] - 1) * stride[i];
  }
  if (!empty && !self.device().is_meta()) {
    const auto available = static_cast<int64_t>(self.storage()->nbytes() / self.element_size());
    OPCORE_CHECK(last < available, "setStorage: sizes ", size, ", strides ", stride, ", storage offset ", offset,
                 ", and itemsize ", self.element_size(), " requiring a storage size of ",
                 (last + 1) * static_cast<int64_t>(self.element_size()), " are out of bounds for storage of size ",
                 self.storage()->nbytes());
  }
  return detail::makeView(self, size, stride, offset);
}

}  // namespace opcore::native

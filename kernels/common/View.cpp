// Device-generic view kernels (registered for CPU, CUDA and Meta): view, transpose, expand,
// unsqueeze, squeeze. They only compute sizes, strides and offsets over the same storage.
#include <opcore/ops/expand_native.h>
#include <opcore/ops/reshape.h>
#include <opcore/ops/squeeze.h>
#include <opcore/ops/squeeze_native.h>
#include <opcore/ops/transpose.h>
#include <opcore/ops/transpose_native.h>
#include <opcore/ops/unsqueeze.h>
#include <opcore/ops/unsqueeze_native.h>
#include <opcore/ops/view_native.h>
#include <opcore/core/Empty.h>

#include "common/Shape.h"

#include <utility>

namespace opcore::native {

namespace {

Tensor viewAs(const Tensor& self, IntArrayRef sizes, IntArrayRef strides) {
  return detail::makeView(self, sizes, strides, self.storage_offset());
}

}  // namespace

Tensor view(const Tensor& self, IntArrayRef size) {
  const DimVector sizes = inferSize(size, self.numel());
  const std::optional<DimVector> strides = computeViewStrides(self.sizes(), self.strides(), sizes);
  OPCORE_CHECK(strides.has_value(),
               "view(", size, "): the tensor's strides cannot express this shape without copying "
               "(a new dimension would span two separately strided blocks); use reshape(), which "
               "copies when it must");
  return viewAs(self, sizes, *strides);
}

Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  const int64_t d0 = self.wrapDim(dim0), d1 = self.wrapDim(dim1);
  DimVector sizes = self.sizes().vec(), strides = self.strides().vec();
  if (self.dim() > 0) {
    std::swap(sizes[d0], sizes[d1]);
    std::swap(strides[d0], strides[d1]);
  }
  return viewAs(self, sizes, strides);
}

Tensor expand(const Tensor& self, IntArrayRef size, bool implicit) {
  const auto ndim = static_cast<int64_t>(size.size());
  OPCORE_CHECK(ndim >= self.dim(), "expand(", self.scalar_type(), "Tensor", self.sizes(), ", size=", size,
               "): the number of sizes provided (", ndim,
               ") must be greater or equal to the number of dimensions in the tensor (", self.dim(), ")");
  DimVector sizes(size.size()), strides(size.size());
  const int64_t lead = ndim - self.dim();  // new leading dimensions
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t target = size[i];
    if (i < lead) {
      OPCORE_CHECK(target >= 0, "The expanded size of the tensor (", target,
                   ") isn't allowed in a leading, non-existing dimension ", i);
      sizes[i] = target;
      strides[i] = 0;
      continue;
    }
    const int64_t old = self.sizes()[i - lead];
    const int64_t wanted = target == -1 ? old : target;
    OPCORE_CHECK(old == wanted || old == 1, "The expanded size of the tensor (", wanted,
                 ") must match the existing size (", old, ") at non-singleton dimension ", i,
                 ".  Target sizes: ", size, ".  Tensor sizes: ", self.sizes());
    OPCORE_CHECK(wanted >= 0, "expand: invalid size ", wanted, " at dimension ", i);
    sizes[i] = wanted;
    strides[i] = old == wanted ? self.strides()[i - lead] : 0;
  }
  return viewAs(self, sizes, strides);
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  const int64_t d = wrapDim(dim, self.dim() + 1);
  DimVector sizes = self.sizes().vec(), strides = self.strides().vec();
  // Any stride works for a size-1 dimension; this one keeps contiguous tensors contiguous.
  const int64_t stride = d >= self.dim() ? 1 : sizes[d] * strides[d];
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return viewAs(self, sizes, strides);
}

Tensor squeeze(const Tensor& self, int64_t dim) {
  const int64_t d = self.wrapDim(dim);
  DimVector sizes = self.sizes().vec(), strides = self.strides().vec();
  if (self.dim() > 0 && sizes[d] == 1) {
    sizes.erase(sizes.begin() + d);
    strides.erase(strides.begin() + d);
  }
  return viewAs(self, sizes, strides);
}

}  // namespace opcore::native

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
#include <opcore/ops/view_as_complex_native.h>
#include <opcore/ops/view_as_real_native.h>
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

// A complex tensor as pairs of reals: every stride doubles, a last dimension [re, im] of stride 1.
Tensor view_as_real(const Tensor& self) {
  OPCORE_CHECK(isComplexType(self.scalar_type()), "view_as_real is only supported for complex tensors");
  DimVector sizes = self.sizes().vec(), strides;
  for (int64_t s : self.strides()) strides.push_back(2 * s);
  sizes.push_back(2);
  strides.push_back(1);
  return detail::makeView(self, toRealValueType(self.scalar_type()), sizes, strides, 2 * self.storage_offset());
}

// Pairs of reals along a last dimension of size 2 and stride 1 as complex values.
Tensor view_as_complex(const Tensor& self) {
  const ScalarType dtype = self.scalar_type();
  OPCORE_CHECK(dtype == kFloat || dtype == kDouble,
               "view_as_complex is only supported for float and double tensors, but got a tensor of scalar type: ", dtype);
  OPCORE_CHECK(self.dim() > 0 && self.sizes().back() == 2, "Tensor must have a last dimension of size 2");
  OPCORE_CHECK(self.strides().back() == 1, "Tensor must have a last dimension with stride 1");
  DimVector sizes(self.sizes().begin(), self.sizes().end() - 1), strides;
  for (size_t d = 0; d + 1 < static_cast<size_t>(self.dim()); ++d) {
    OPCORE_CHECK(self.strides()[d] % 2 == 0, "Tensor must have a stride divisible by 2 for all but last dimension");
    strides.push_back(self.strides()[d] / 2);
  }
  OPCORE_CHECK(self.storage_offset() % 2 == 0, "Tensor must have a storage_offset divisible by 2");
  return detail::makeView(self, toComplexType(dtype), sizes, strides, self.storage_offset() / 2);
}

}  // namespace opcore::native

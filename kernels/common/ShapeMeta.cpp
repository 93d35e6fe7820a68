// Meta functions and Meta kernels of the copying shape operators of issue #33: cat (structured),
// tril and triu (structured), flip and roll (Meta kernels: the result has self's shape).
#include <opcore/ops/cat_native.h>
#include <opcore/ops/flip_native.h>
#include <opcore/ops/roll_native.h>
#include <opcore/ops/tril_native.h>
#include <opcore/ops/triu_native.h>
#include <opcore/core/Empty.h>

#include "common/Shape.h"
#include "common/ShapeChecks.h"
#include "common/TypePromotion.h"

namespace opcore::meta {

// Note [cat's legacy empty tensors]
// As in PyTorch, a 1-D tensor with no elements (size [0]) joins any cat: it is skipped, whatever
// the others' rank, though its dtype still takes part in the result type. The first tensor not
// skipped sets the rank and the sizes every other one must have outside `dim`.
cat_out cat(TensorList tensors, int64_t dim) {
  OPCORE_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  native::ResultTypeState state;
  const Tensor* first = nullptr;
  size_t first_index = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    OPCORE_CHECK(t.dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    OPCORE_CHECK(t.device() == tensors[0].device(), "Expected all tensors to be on the same device, but found at "
                 "least two devices, ", tensors[0].device(), " and ", t.device(), "!");
    state.add(t);
    if (first == nullptr && !native::isSkippedByCat(t)) {
      first = &t;
      first_index = i;
    }
  }
  const ScalarType dtype = state.result();
  if (first == nullptr) {  // every tensor skipped: an empty 1-D result
    return {TensorSpec{{0}, dtype, tensors[0].device()}, wrapDim(dim, 1)};
  }
  const int64_t d = first->wrapDim(dim);
  std::vector<int64_t> sizes = first->sizes().vec();
  sizes[static_cast<size_t>(d)] = 0;
  for (size_t i = first_index; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (native::isSkippedByCat(t)) continue;
    OPCORE_CHECK(t.dim() == first->dim(), "Tensors must have same number of dimensions: got ", first->dim(),
                 " and ", t.dim());
    for (int64_t k = 0; k < t.dim(); ++k) {
      if (k == d) continue;
      OPCORE_CHECK(t.size(k) == first->size(k), "Sizes of tensors must match except in dimension ", d,
                   ". Expected size ", first->size(k), " but got size ", t.size(k), " for tensor number ", i,
                   " in the list.");
    }
    sizes[static_cast<size_t>(d)] += t.size(d);
  }
  return {TensorSpec{sizes, dtype, first->device()}, d};
}

tril_out tril(const Tensor& self, int64_t diagonal) {
  OPCORE_CHECK(self.dim() >= 2, "tril: input tensor must have at least 2 dimensions");
  return {{self.sizes().vec(), self.scalar_type(), self.device()}};
}

triu_out triu(const Tensor& self, int64_t diagonal) {
  OPCORE_CHECK(self.dim() >= 2, "triu: input tensor must have at least 2 dimensions");
  return {{self.sizes().vec(), self.scalar_type(), self.device()}};
}

}  // namespace opcore::meta

namespace opcore::native {

Tensor flip_meta(const Tensor& self, IntArrayRef dims) {
  flipDims(self, dims);  // the argument checks
  return detail::empty(self.sizes(), self.scalar_type(), self.device());
}

Tensor roll_meta(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  checkRollArguments(self, shifts, dims);
  return detail::empty(self.sizes(), self.scalar_type(), self.device());
}

}  // namespace opcore::native

// Composite indexing operators: the functional forms of index_put_, masked_fill_,
// masked_scatter_, put_ and index_fill_ (the in-place kernel on a copy of self, broadcast
// against the mask for the mask operators, as PyTorch's), and select_scatter and
// slice_scatter (a copy of self with src written through the select or slice view).
#include <opcore/ops/clone.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/index_fill.h>
#include <opcore/ops/index_fill_native.h>
#include <opcore/ops/index_put.h>
#include <opcore/ops/index_put_native.h>
#include <opcore/ops/masked_fill.h>
#include <opcore/ops/masked_fill_native.h>
#include <opcore/ops/masked_scatter.h>
#include <opcore/ops/masked_scatter_native.h>
#include <opcore/ops/put.h>
#include <opcore/ops/put_native.h>
#include <opcore/ops/select.h>
#include <opcore/ops/select_scatter_native.h>
#include <opcore/ops/slice.h>
#include <opcore/ops/slice_scatter_native.h>

#include "common/Shape.h"

namespace opcore::native {
namespace {

// A copy of self broadcast against mask (contiguous when it had to be broadcast).
Tensor copyBroadcast(const Tensor& self, const Tensor& mask) {
  const DimVector shape = broadcastShapes(self.sizes(), mask.sizes());
  return opcore::clone(IntArrayRef(shape) == self.sizes() ? self : self.expand(shape));
}

void checkScatterSource(const char* op, const Tensor& view, const Tensor& src) {
  OPCORE_CHECK(view.sizes() == src.sizes(), op, "(): expected src to have a size equal to the slice of self. src size = ",
               src.sizes(), ", slice size = ", view.sizes());
}

}  // namespace

Tensor index_put(const Tensor& self, OptionalTensorList indices, const Tensor& values, bool accumulate) {
  Tensor result = opcore::clone(self);
  return opcore::index_put_(result, indices, values, accumulate);
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  Tensor result = copyBroadcast(self, mask);
  return result.masked_fill_(mask, value);
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  Tensor result = copyBroadcast(self, mask);
  return result.masked_fill_(mask, value);
}

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  Tensor result = copyBroadcast(self, mask);
  return result.masked_scatter_(mask, source);
}

Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  Tensor result = opcore::clone(self);
  return result.put_(index, source, accumulate);
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor result = opcore::clone(self);
  return result.index_fill_(dim, index, value);
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  Tensor result = opcore::clone(self);
  return result.index_fill_(dim, index, value);
}

Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  Tensor result = opcore::clone(self);
  Tensor view = opcore::select(result, dim, index);
  checkScatterSource("select_scatter", view, src);
  opcore::copy_(view, src);
  return result;
}

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  Tensor result = opcore::clone(self);
  Tensor view = opcore::slice(result, dim, start, end, step);
  checkScatterSource("slice_scatter", view, src);
  opcore::copy_(view, src);
  return result;
}

}  // namespace opcore::native

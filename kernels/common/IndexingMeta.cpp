// The meta functions of the structured scatter and gather operators (Note [Structured
// kernels] in gen/api/structured.py): PyTorch's checks of dtypes and shapes, and the result's
// spec, shared by every backend and all that the Meta backend runs. See Note [Scatter and
// gather] in kernels/cpu/ScatterGather.cpp.
#include <opcore/ops/gather_native.h>
#include <opcore/ops/index_add_native.h>
#include <opcore/ops/scatter_add_native.h>
#include <opcore/ops/scatter_native.h>
#include <opcore/ops/scatter_reduce_native.h>

#include "common/ScatterGather.h"
#include "cpu/Loops.h"

namespace opcore::native {
namespace {

int64_t nonemptyDim(const TensorBase& t) { return t.dim() == 0 ? 1 : t.dim(); }
int64_t nonemptySize(const TensorBase& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); }

}  // namespace

void checkNoOverlap(const TensorBase& out, const TensorBase& input) {
  OPCORE_CHECK(!cpu::sharesStorage(out, input),
               "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
               "memory location. Please clone() the tensor before performing the operation.");
}

void checkIndexDtype(const char* op, const TensorBase& index) {
  OPCORE_CHECK(index.scalar_type() == ScalarType::Long, op, "(): Expected dtype int64 for index");
}

void gatherShapeCheck(const TensorBase& self, int64_t dim, const TensorBase& index) {
  OPCORE_CHECK(nonemptyDim(index) == nonemptyDim(self),
               "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t d = 0; d < nonemptyDim(self); ++d) {
    if (d == dim) continue;
    OPCORE_CHECK(nonemptySize(index, d) <= nonemptySize(self, d), "Size does not match at dimension ", d,
                 " expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
                 " apart from dimension ", dim);
  }
}

void scatterShapeCheck(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase* src) {
  if (index.numel() == 0) return;
  OPCORE_CHECK(nonemptyDim(index) == nonemptyDim(self),
               "Index tensor must have the same number of dimensions as self tensor");
  if (src) {
    OPCORE_CHECK(nonemptyDim(index) == nonemptyDim(*src),
                 "Index tensor must have the same number of dimensions as src tensor");
  }
  bool smaller = true;
  for (int64_t d = 0; d < nonemptyDim(self); ++d) {
    if (d != dim && nonemptySize(index, d) > nonemptySize(self, d)) smaller = false;
    if (src && nonemptySize(index, d) > nonemptySize(*src, d)) smaller = false;
  }
  if (src) {
    OPCORE_CHECK(smaller, "Expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
                 " apart from dimension ", dim, " and to be smaller size than src ", src->sizes());
  } else {
    OPCORE_CHECK(smaller, "Expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
                 " apart from dimension ", dim);
  }
}

ScatterReduce parseScatterReduce(std::string_view reduce) {
  if (reduce == "add") return ScatterReduce::Add;
  if (reduce == "multiply") return ScatterReduce::Multiply;
  OPCORE_FAIL("reduce argument must be either add or multiply, got ", reduce);
}

ScatterReduce parseScatterReduceTwo(std::string_view reduce) {
  if (reduce == "sum") return ScatterReduce::Add;
  if (reduce == "prod") return ScatterReduce::Multiply;
  if (reduce == "mean") return ScatterReduce::Mean;
  if (reduce == "amax") return ScatterReduce::Max;
  if (reduce == "amin") return ScatterReduce::Min;
  OPCORE_FAIL("reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
}

// The result of every scatter: self's sizes and dtype; an out= tensor must have exactly the
// dtype (the kernel writes self's elements directly), as PyTorch's structured kernels ask.
TensorSpec scatterSpec(const TensorBase& self) {
  return TensorSpec{self.sizes().vec(), self.scalar_type(), self.device(), /*exact_dtype=*/true};
}

namespace {

TensorSpec scatterMeta(const char* op, const TensorBase& self, int64_t dim, const TensorBase& index,
                       const TensorBase* src) {
  const int64_t d = self.wrapDim(dim);
  checkIndexDtype(op, index);
  if (src) {
    OPCORE_CHECK(self.scalar_type() == src->scalar_type(), op, "(): Expected self.dtype to be equal to src.dtype");
    OPCORE_CHECK(src->device() == self.device() && index.device() == self.device(), op,
                 "(): Expected all tensors to be on the same device, got self on ", self.device(), ", index on ",
                 index.device(), " and src on ", src->device());
  } else {
    OPCORE_CHECK(index.device() == self.device(), op, "(): Expected all tensors to be on the same device, got self on ",
                 self.device(), " and index on ", index.device());
  }
  scatterShapeCheck(self, d, index, src);
  return scatterSpec(self);
}

}  // namespace
}  // namespace opcore::native

namespace opcore::meta {

gather_out gather(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/) {
  const int64_t d = self.wrapDim(dim);
  native::checkIndexDtype("gather", index);
  OPCORE_CHECK(index.device() == self.device(), "gather(): Expected all tensors to be on the same device, got self on ",
               self.device(), " and index on ", index.device());
  if (index.numel() != 0) native::gatherShapeCheck(self, d, index);
  return {{index.sizes().vec(), self.scalar_type(), self.device(), /*exact_dtype=*/true}};
}

scatter_src_out scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return {native::scatterMeta("scatter", self, dim, index, &src)};
}

scatter_value_out scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& /*value*/) {
  return {native::scatterMeta("scatter", self, dim, index, nullptr)};
}

scatter_reduce_out scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce) {
  native::parseScatterReduce(reduce);
  return {native::scatterMeta("scatter", self, dim, index, &src)};
}

scatter_value_reduce_out scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& /*value*/,
                                 std::string_view reduce) {
  native::parseScatterReduce(reduce);
  return {native::scatterMeta("scatter", self, dim, index, nullptr)};
}

scatter_add_out scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return {native::scatterMeta("scatter_add", self, dim, index, &src)};
}

scatter_reduce_two_out scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                      std::string_view reduce, bool /*include_self*/) {
  native::parseScatterReduceTwo(reduce);
  return {native::scatterMeta("scatter_reduce", self, dim, index, &src)};
}

// PyTorch's index_func_meta_impl: a vector index with one entry per slice of source along
// dim, source's slices shaped as self's, one dtype.
index_add_out index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                        const Scalar& /*alpha*/) {
  const int64_t d = self.wrapDim(dim);
  const char* op = "index_add_";
  OPCORE_CHECK_INDEX(index.dim() <= 1, op, "(): Index is supposed to be a vector");
  OPCORE_CHECK(index.scalar_type() == ScalarType::Long || index.scalar_type() == ScalarType::Int, op,
               "(): Expected dtype int32/int64 for index");
  OPCORE_CHECK(self.scalar_type() == source.scalar_type(), op, "(): self (", toString(self.scalar_type()),
               ") and source (", toString(source.scalar_type()), ") must have the same scalar type");
  OPCORE_CHECK(index.device() == self.device() && source.device() == self.device(), op,
               "(): Expected all tensors to be on the same device, got self on ", self.device(), ", index on ",
               index.device(), " and source on ", source.device());
  OPCORE_CHECK(d == 0 || d < source.dim(), op, "(): Indexing dim ", d, " is out of bounds of tensor");
  const int64_t slices = source.dim() == 0 ? 1 : source.size(d);
  OPCORE_CHECK(index.numel() == slices, op, "(): Number of indices (", index.numel(),
               ") should be equal to source.size(dim) (", slices, ")");
  std::vector<int64_t> self_slice = self.sizes().vec(), source_slice = source.sizes().vec();
  if (!self_slice.empty()) self_slice.erase(self_slice.begin() + d);
  if (!source_slice.empty()) source_slice.erase(source_slice.begin() + d);
  OPCORE_CHECK(self_slice == source_slice, op, "(): Source/destination tensor must have same slice shapes. ",
               "Destination slice shape: ", IntArrayRef(self_slice), " at dimension ", d, " and source slice shape: ",
               IntArrayRef(source_slice), " at dimension 0.");
  return {native::scatterSpec(self)};
}

}  // namespace opcore::meta

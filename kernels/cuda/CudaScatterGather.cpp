// The CUDA kernels of gather, scatter (src, value and reduce forms), scatter_add,
// scatter_reduce.two, index_add, index_fill_, take and put_: each one launchIndexed problem
// (Note [CUDA gather and scatter] in CudaLaunch.h), with the CPU kernels' checks (the meta
// functions of the structured ones have run; the others call their Meta kernels) and
// errors. The indices are checked on the GPU first (cuda::badIndex), so that one out of range
// raises the CPU's IndexError before anything is written. Elements scattered to one place combine in the GPU's order (the CPU's:
// in order along the dimension), and of elements assigned to one place, one wins.
#include "CudaOperands.h"

#include "common/ScatterGather.h"
#include "cpu/Loops.h"
#include "cpu/ScalarConvert.h"

#include <opcore/ops/_local_scalar_dense.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/gather_native.h>
#include <opcore/ops/index_add_native.h>
#include <opcore/ops/index_fill_native.h>
#include <opcore/ops/put_native.h>
#include <opcore/ops/scatter_add_native.h>
#include <opcore/ops/scatter_native.h>
#include <opcore/ops/scatter_reduce_native.h>
#include <opcore/ops/take_native.h>
#include <opcore/core/Empty.h>
#include <opcore/ops/zeros.h>

#include <limits>
#include <optional>
#include <vector>

namespace opcore::native {
namespace {

using cuda::IndexedOp;
using cuda::IndexedOperand;

// t's strides over `rank` dimensions: a 0-dim tensor (one element) moves in none.
std::vector<int64_t> stridesOver(const Tensor& t, size_t rank) {
  return t.dim() == 0 ? std::vector<int64_t>(rank, 0) : t.strides().vec();
}

int64_t sizeAlong(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); }
int64_t strideAlong(const Tensor& t, int64_t d) { return t.dim() == 0 ? 0 : t.stride(d); }

// An input that out shares memory with, copied (the kernel writes out while it reads it).
Tensor unaliased(const Tensor& out, const Tensor& input) { return cpu::sharesStorage(out, input) ? input.clone() : input; }

// out's start: a copy of self (in-place: out is self).
void prepareScatterOut(const Tensor& self, const Tensor& out) {
  if (!out.is_same(self)) out.copy_(unaliased(out, self));
}

// One value of out's dtype on out's GPU, read as a tensor that never moves.
Tensor valueOn(const Tensor& out, const Scalar& value) {
  Tensor v = opcore::empty({}, out.options());
  v.fill_(value);
  return v;
}

// Throws the CPU kernels' IndexError for the first index outside `bound` along d: "index 5 is
// out of bounds for dimension 0 with size 4".
void checkAlong(const Tensor& index, int64_t d, int64_t bound, bool wrap = false) {
  if (const std::optional<int64_t> bad = cuda::badIndex(index, bound, wrap)) {
    OPCORE_CHECK_INDEX(false, "index ", *bad, " is out of bounds for dimension ", d, " with size ", bound);
  }
}

// Runs `op` over `shape` with out as the written side, moved along `d` by the indices (checked
// first; negative ones wrapped when `wrap`).
void launchAlong(IndexedOp op, const char* name, const Tensor& out, int64_t d, IntArrayRef shape,
                 const IndexedOperand& read, const IndexedOperand& index, bool wrap = false,
                 const Scalar& alpha = Scalar(1)) {
  IndexedOperand written{&out, stridesOver(out, shape.size())};
  if (out.dim() > 0) written.strides[static_cast<size_t>(d)] = 0;
  const int64_t bound = sizeAlong(out, d);
  checkAlong(*index.tensor, d, bound, wrap);
  cuda::launchIndexed(op, name, out.scalar_type(),
                      cuda::indexedProblem(name, shape, written, read, index, strideAlong(out, d), bound, wrap),
                      alpha);
}

// The walked shape of a gather or scatter: index's (a 0-dim index: one position).
std::vector<int64_t> walkedShape(const Tensor& index) {
  return index.dim() == 0 ? std::vector<int64_t>{1} : index.sizes().vec();
}

// out[p with p[d] = index[p]] (op)= src[p] for every position p of index. index and src may
// not share out's memory: the callers take unaliased copies before out is first written.
void scatterInto(IndexedOp op, const char* name, const Tensor& out, int64_t d, const Tensor& index, const Tensor& src) {
  if (index.numel() == 0) return;
  const std::vector<int64_t> shape = walkedShape(index);
  launchAlong(op, name, out, d, shape, {&src, stridesOver(src, shape.size())},
              {&index, stridesOver(index, shape.size())});
}

IndexedOp indexedOpOf(ScatterReduce reduce) {
  switch (reduce) {
    case ScatterReduce::Assign: return IndexedOp::Assign;
    case ScatterReduce::Add:
    case ScatterReduce::Mean: return IndexedOp::Add;
    case ScatterReduce::Multiply: return IndexedOp::Multiply;
    case ScatterReduce::Max: return IndexedOp::Max;
    case ScatterReduce::Min: return IndexedOp::Min;
  }
  return IndexedOp::Assign;
}

}  // namespace

// ---- gather ----------------------------------------------------------------------------------------

void gather_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/, const Tensor& out) {
  if (index.numel() == 0) return;
  checkNoOverlap(out, self);
  checkNoOverlap(out, index);
  const int64_t d = self.wrapDim(dim);
  const std::vector<int64_t> shape = walkedShape(index);
  IndexedOperand read{&self, stridesOver(self, shape.size())};
  if (self.dim() > 0) read.strides[static_cast<size_t>(d)] = 0;
  const int64_t bound = sizeAlong(self, d);
  checkAlong(index, d, bound);
  cuda::launchIndexed(IndexedOp::Gather, "gather", self.scalar_type(),
                      cuda::indexedProblem("gather", shape, {&out, stridesOver(out, shape.size())}, read,
                                           {&index, stridesOver(index, shape.size())}, strideAlong(self, d), bound,
                                           false));
}

// ---- scatter -----------------------------------------------------------------------------------------

void scatter_src_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          const Tensor& out) {
  const Tensor positions = unaliased(out, index), source = unaliased(out, src);
  prepareScatterOut(self, out);
  scatterInto(IndexedOp::Assign, "scatter", out, self.wrapDim(dim), positions, source);
}

void scatter_value_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                            const Tensor& out) {
  const Tensor positions = unaliased(out, index), source = valueOn(out, value);
  prepareScatterOut(self, out);
  scatterInto(IndexedOp::Assign, "scatter", out, self.wrapDim(dim), positions, source);
}

void scatter_reduce_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                             std::string_view reduce, const Tensor& out) {
  const IndexedOp op = indexedOpOf(parseScatterReduce(reduce));
  const Tensor positions = unaliased(out, index), source = unaliased(out, src);
  prepareScatterOut(self, out);
  scatterInto(op, "scatter", out, self.wrapDim(dim), positions, source);
}

void scatter_value_reduce_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                                   std::string_view reduce, const Tensor& out) {
  const IndexedOp op = indexedOpOf(parseScatterReduce(reduce));
  const Tensor positions = unaliased(out, index), source = valueOn(out, value);
  prepareScatterOut(self, out);
  scatterInto(op, "scatter", out, self.wrapDim(dim), positions, source);
}

void scatter_add_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          const Tensor& out) {
  const Tensor positions = unaliased(out, index), source = unaliased(out, src);
  prepareScatterOut(self, out);
  scatterInto(IndexedOp::Add, "scatter_add", out, self.wrapDim(dim), positions, source);
}

// ---- scatter_reduce.two ----------------------------------------------------------------------------

namespace {

// The value the places that receive elements start from when include_self is false: the
// identity of the reduction (amax: -inf, or the lowest integer).
Tensor reductionIdentity(const Tensor& out, ScatterReduce reduce) {
  Tensor v = opcore::empty({}, out.options().device(Device(DeviceType::CPU)));
  OPCORE_DISPATCH_EVERY_TYPE(out.scalar_type(), "scatter_reduce", [&] {
    *v.data_ptr<scalar_t>() = scatterReductionIdentity<scalar_t>(reduce);
  });
  return v.to(out.device());
}

}  // namespace

void scatter_reduce_two_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                 std::string_view reduce, bool include_self, const Tensor& out) {
  const ScatterReduce op = parseScatterReduceTwo(reduce);
  // the dtypes the CPU refuses for the reduction (mean: Bool; amax, amin: complex), refused
  // before anything is written
  const ScalarType dtype = self.scalar_type();
  if ((op == ScatterReduce::Mean && dtype == ScalarType::Bool) ||
      ((op == ScatterReduce::Max || op == ScatterReduce::Min) && isComplexType(dtype))) {
    detail::throwNotImplementedForDtype("scatter_reduce", dtype);
  }
  const Tensor positions = unaliased(out, index), source = unaliased(out, src);
  prepareScatterOut(self, out);
  if (index.numel() == 0) return;
  const int64_t d = self.wrapDim(dim);
  if (!include_self) scatterInto(IndexedOp::Assign, "scatter_reduce", out, d, positions, reductionIdentity(out, op));
  scatterInto(indexedOpOf(op), "scatter_reduce", out, d, positions, source);
  if (op != ScatterReduce::Mean) return;
  // mean: each place divided by the elements it received (+ 1 with include_self), floor
  // division for integers, as PyTorch's
  const Tensor counts = opcore::zeros(out.sizes(), out.options().dtype(ScalarType::Long));
  const Tensor one = valueOn(counts, Scalar(int64_t{1}));
  scatterInto(IndexedOp::Add, "scatter_reduce", counts, d, positions, one);
  if (include_self) counts.add_(1);
  counts.clamp_min_(1);
  out.copy_(isIntegralType(out.scalar_type(), false) ? out.div(counts, "floor") : out.div(counts));
}

// ---- index_add, index_fill_ ------------------------------------------------------------------------

void index_add_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                        const Scalar& alpha, const Tensor& out) {
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "index_add_", [&] { cpu::checkedConvert<scalar_t>(alpha); });
  const Tensor src = unaliased(out, source);
  const Tensor longs = unaliased(out, index.to(ScalarType::Long).contiguous());
  prepareScatterOut(self, out);
  if (longs.numel() == 0 || src.numel() == 0) return;
  const int64_t d = self.wrapDim(dim);
  // the index, one value per position along d, broadcast over source's other dimensions
  const std::vector<int64_t> shape = walkedShape(src);
  IndexedOperand positions{&longs, std::vector<int64_t>(shape.size(), 0)};
  positions.strides[static_cast<size_t>(d)] = 1;
  launchAlong(IndexedOp::AddScaled, "index_add_", out, d, shape, {&src, stridesOver(src, shape.size())}, positions,
              false, alpha);
}

Tensor& index_fill_cuda_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  index_fill_meta_(self, dim, index, value);
  const int64_t d = self.wrapDim(dim);
  cpu::checkNoInternalOverlap(self);
  if (index.numel() == 0) return self;
  const Tensor indices = unaliased(self, index);
  if (self.numel() == 0) {  // nothing to fill, but the indices are checked as on the CPU
    checkAlong(indices, d, sizeAlong(self, d), /*wrap=*/true);
    return self;
  }
  // self's positions with d's replaced by the index's: the value fills the slices they name
  std::vector<int64_t> shape = walkedShape(self);
  shape[static_cast<size_t>(d)] = indices.numel();
  IndexedOperand positions{&indices, std::vector<int64_t>(shape.size(), 0)};
  positions.strides[static_cast<size_t>(d)] = indices.dim() == 0 ? 0 : indices.stride(0);
  const Tensor v = valueOn(self, value);
  launchAlong(IndexedOp::Assign, "index_fill_", self, d, shape, {&v, std::vector<int64_t>(shape.size(), 0)},
              positions, /*wrap=*/true);
  return self;
}

Tensor& index_fill_cuda_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  index_fill_meta_(self, dim, index, value);
  return index_fill_cuda_(self, dim, index, opcore::_local_scalar_dense(value));
}

// ---- take, put_ -------------------------------------------------------------------------------------

namespace {

// take's and put_'s error for the first index outside [-numel, numel).
void checkFlat(const Tensor& index, int64_t numel) {
  if (const std::optional<int64_t> bad = cuda::badIndex(index, numel, /*wrap=*/true)) {
    OPCORE_CHECK_INDEX(false, "out of range: tried to access index ", *bad, " on a tensor of ", numel, " elements.");
  }
}

}  // namespace

Tensor& take_out_cuda(const Tensor& self, const Tensor& index, Tensor& out) {
  Tensor values = self.contiguous();
  if (cpu::sharesStorage(values, out)) values = values.clone();
  const Tensor positions = unaliased(out, index);
  take_out_meta(self, index, out);  // PyTorch's checks; out resized
  OPCORE_CHECK_INDEX(self.numel() > 0 || index.numel() == 0, "take(): tried to take from an empty tensor");
  if (out.numel() == 0) return out;
  // a gather from the elements of self in row-major order
  const std::vector<int64_t> shape = walkedShape(index);
  checkFlat(positions, self.numel());
  cuda::launchIndexed(IndexedOp::Gather, "take", self.scalar_type(),
                      cuda::indexedProblem("take", shape, {&out, stridesOver(out, shape.size())},
                                           {&values, std::vector<int64_t>(shape.size(), 0)},
                                           {&positions, stridesOver(positions, shape.size())}, 1, self.numel(),
                                           /*wrap=*/true));
  return out;
}

Tensor take_cuda(const Tensor& self, const Tensor& index) {
  Tensor out = opcore::empty({0}, self.options());
  return take_out_cuda(self, index, out);
}

Tensor& put_cuda_(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  put_meta_(self, index, source, accumulate);
  OPCORE_CHECK_INDEX(self.numel() > 0 || index.numel() == 0, "put_(): Tried to put elements into an empty tensor");
  cpu::checkNoInternalOverlap(self);
  if (index.numel() == 0) return self;
  // a scatter into the elements of self in row-major order: into self when it is contiguous
  const Tensor dense = self.is_contiguous() ? self : self.contiguous();
  const std::vector<int64_t> shape = walkedShape(index);
  const Tensor src = unaliased(dense, source).reshape(shape), positions = unaliased(dense, index);
  checkFlat(positions, self.numel());
  cuda::launchIndexed(accumulate ? IndexedOp::Add : IndexedOp::Assign, "put_", self.scalar_type(),
                      cuda::indexedProblem("put_", shape, {&dense, std::vector<int64_t>(shape.size(), 0)},
                                           {&src, stridesOver(src, shape.size())},
                                           {&positions, stridesOver(positions, shape.size())}, 1, self.numel(),
                                           /*wrap=*/true));
  if (!dense.is_same(self)) self.copy_(dense);
  return self;
}

}  // namespace opcore::native

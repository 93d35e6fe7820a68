// The CUDA kernels of advanced indexing and of the mask operators: index.Tensor, index_put_,
// nonzero, masked_select and masked_scatter_, with the CPU kernels' checks and errors.
//  - index and index_put_ plan as the CPU's (common/AdvancedIndex.h, Note [Advanced
//    indexing]): the indices are read to the host and checked there, and the element offsets
//    they add over the broadcast index shape B go back to the GPU as one Long tensor; the
//    copy then walks the result's shape on the GPU (launchIndexed, Note [CUDA gather and
//    scatter] in CudaLaunch.h). Reading the indices waits for the stream, as PyTorch's CUDA
//    kernels do for a Bool mask.
//  - nonzero: the flags' prefix sums (cumsum) place each true element, the count is read back
//    (the result's size depends on it), and a kernel writes the flat positions, turned into
//    coordinates by division. masked_select is a take at those positions, masked_scatter_ a
//    put_.
#include "CudaOperands.h"

#include "common/AdvancedIndex.h"
#include "common/Shape.h"
#include "cpu/Loops.h"

#include <opcore/core/Empty.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/index_native.h>
#include <opcore/ops/index_put_native.h>
#include <opcore/ops/masked_scatter_native.h>
#include <opcore/ops/masked_select_native.h>
#include <opcore/ops/nonzero_native.h>
#include <opcore/ops/take.h>

#include <cstring>
#include <limits>
#include <vector>

namespace opcore::native {
namespace {

using cuda::IndexedOp;
using cuda::IndexedOperand;

// The element offset of self each position of B adds: the sum over the indices of the value
// at that position times self's stride along the index's dimension; Long, contiguous over B,
// on self's GPU.
Tensor offsetsOverB(const Tensor& self, const std::vector<DimIndex>& dims, const IndexPlan& plan) {
  const std::vector<int64_t> b(plan.out_sizes.begin() + static_cast<int64_t>(plan.b_start),
                               plan.out_sizes.begin() + static_cast<int64_t>(plan.b_start + plan.b_rank));
  int64_t n = 1;
  for (const int64_t s : b) n *= s;
  std::vector<int64_t> offsets(static_cast<size_t>(n), 0);
  std::vector<int64_t> pos(b.size(), 0);  // the position in B, odometer-style
  for (int64_t e = 0; e < n; ++e) {
    for (size_t k = 0; k < dims.size(); ++k) {
      int64_t at = 0;
      for (size_t j = 0; j < b.size(); ++j) at += pos[j] * plan.b_strides[k][j];
      offsets[static_cast<size_t>(e)] += dims[k].values[static_cast<size_t>(at)] * self.stride(dims[k].dim);
    }
    for (size_t j = b.size(); j-- > 0;) {
      if (++pos[j] < b[j]) break;
      pos[j] = 0;
    }
  }
  Tensor host = detail::emptyCpu({n}, ScalarType::Long);
  if (n > 0) std::memcpy(host.data_ptr(), offsets.data(), static_cast<size_t>(n) * sizeof(int64_t));
  return host.to(self.device());
}

// The operands over the result's shape: self's strides on its plain dimensions (0 on B's), and
// the offsets' contiguous strides on B's dimensions (0 elsewhere).
std::vector<int64_t> plainStrides(const Tensor& self, const IndexPlan& plan) {
  std::vector<int64_t> strides(plan.out_sizes.size(), 0);
  for (size_t o = 0; o < strides.size(); ++o) {
    if (plan.source_dim[o] >= 0) strides[o] = self.stride(plan.source_dim[o]);
  }
  return strides;
}

std::vector<int64_t> offsetStrides(const IndexPlan& plan) {
  std::vector<int64_t> strides(plan.out_sizes.size(), 0);
  int64_t stride = 1;
  for (size_t j = plan.b_rank; j-- > 0;) {
    strides[plan.b_start + j] = stride;
    stride *= plan.out_sizes[plan.b_start + j];
  }
  return strides;
}

// The offsets are checked already: no bound limits them.
constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

// The flat positions of the true elements of `flags` (Bool, any shape) in row-major order.
Tensor truePositions(const Tensor& flags) {
  const Tensor flat = flags.contiguous().reshape({-1});
  const Tensor positions = flat.cumsum(0, ScalarType::Long);
  const int64_t count = flat.numel() == 0 ? 0 : positions.select(0, flat.numel() - 1).item<int64_t>();
  const Tensor out = opcore::empty({count}, flat.options().dtype(ScalarType::Long));
  cuda::launchCompact(flat.data_ptr<bool>(), positions.data_ptr<int64_t>(), flat.numel(), out.data_ptr<int64_t>());
  return out;
}

// PyTorch's masks are Bool (Byte was deprecated and is refused, as on the CPU).
void checkMask(const char* op, const Tensor& mask) {
  OPCORE_CHECK(mask.scalar_type() == ScalarType::Bool, op, " only supports boolean masks, but got mask with dtype ",
               toString(mask.scalar_type()));
}

}  // namespace

// ---- index, index_put_ ------------------------------------------------------------------------------

Tensor index_cuda(const Tensor& self, OptionalTensorList indices) {
  const std::vector<DimIndex> dims = readIndices(self, indices);
  const IndexPlan plan = planIndex(self, dims);
  const Tensor out = opcore::empty(plan.out_sizes, self.options());
  if (out.numel() == 0) return out;
  const Tensor offsets = offsetsOverB(self, dims, plan);
  cuda::launchIndexed(IndexedOp::Gather, "index", self.scalar_type(),
                      cuda::indexedProblem("index", plan.out_sizes, {&out, out.strides().vec()},
                                           {&self, plainStrides(self, plan)}, {&offsets, offsetStrides(plan)}, 1,
                                           kUnbounded, false));
  return out;
}

Tensor& index_put_cuda_(Tensor& self, OptionalTensorList indices, const Tensor& values, bool accumulate) {
  const std::vector<DimIndex> dims = readIndices(self, indices);
  const IndexPlan plan = planIndex(self, dims);
  const DimVector shape = checkIndexPut(self, plan, values);
  cpu::checkNoInternalOverlap(self);
  // values broadcast to the indexed shape, in a buffer of their own (they may alias self)
  const Tensor v = opcore::empty(shape, self.options());
  if (v.numel() == 0) return self;
  v.copy_(values);
  const Tensor offsets = offsetsOverB(self, dims, plan);
  cuda::launchIndexed(accumulate ? IndexedOp::Add : IndexedOp::Assign, "index_put_", self.scalar_type(),
                      cuda::indexedProblem("index_put_", plan.out_sizes, {&self, plainStrides(self, plan)},
                                           {&v, v.strides().vec()}, {&offsets, offsetStrides(plan)}, 1, kUnbounded,
                                           false));
  return self;
}

// ---- nonzero, masked_select, masked_scatter_ ----------------------------------------------------------

Tensor& nonzero_out_cuda(const Tensor& self, Tensor& out) {
  OPCORE_CHECK(out.scalar_type() == ScalarType::Long, "nonzero(): Expected out tensor to have scalar type Long but got ",
               toString(out.scalar_type()));
  Tensor flat = truePositions(self.ne(0));
  detail::resizeOutput(out, {flat.numel(), self.dim()});
  // coordinates from the last dimension to the first: the position modulo its size, then
  // divided by it
  for (int64_t d = self.dim(); d-- > 0;) {
    out.select(1, d).copy_(flat.remainder(self.size(d)));
    flat = flat.div(self.size(d), "floor");
  }
  return out;
}

Tensor nonzero_cuda(const Tensor& self) {
  Tensor out = opcore::empty({0}, self.options().dtype(ScalarType::Long));
  return nonzero_out_cuda(self, out);
}

Tensor& masked_select_out_cuda(const Tensor& self, const Tensor& mask, Tensor& out) {
  checkMask("masked_select", mask);
  OPCORE_CHECK(out.scalar_type() == self.scalar_type(), "masked_select(): self and result must have the same scalar type");
  const DimVector shape = broadcastShapes(self.sizes(), mask.sizes());
  const Tensor positions = truePositions(mask.expand(shape));
  const Tensor values = self.expand(shape).contiguous();  // take reads it apart from out
  opcore::take_out(out, cpu::sharesStorage(values, out) ? values.clone() : values, positions);
  return out;
}

Tensor masked_select_cuda(const Tensor& self, const Tensor& mask) {
  Tensor out = opcore::empty({0}, self.options());
  return masked_select_out_cuda(self, mask, out);
}

Tensor& masked_scatter_cuda_(Tensor& self, const Tensor& mask, const Tensor& source) {
  masked_scatter_meta_(self, mask, source);  // PyTorch's checks
  cpu::checkNoInternalOverlap(self);
  const Tensor positions = truePositions(mask.expand(self.sizes()));
  const int64_t count = positions.numel();
  OPCORE_CHECK(count <= source.numel(), "masked_scatter: Number of elements of source (", source.numel(),
               ") < number of ones in mask (", count, ")");
  if (count == 0) return self;
  // source's first `count` elements in row-major order, apart from self
  const Tensor src = source.contiguous().reshape({-1}).narrow(0, 0, count).clone();
  self.put_(positions, src);
  return self;
}

}  // namespace opcore::native

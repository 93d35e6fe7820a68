// The CUDA kernels of the factories with values (arange, eye), cat, index_select and
// embedding_dense_backward, with the CPU kernels' checks (their Meta kernels run first) and
// results. Indices are checked on the GPU before anything is written (cuda::badIndex), to
// raise the CPU's IndexError.
#include "CudaOperands.h"
#include "CudaRuntime.h"

#include "common/ShapeChecks.h"
#include "cpu/Loops.h"

#include <opcore/core/DeviceGuard.h>
#include <opcore/core/Empty.h>
#include <opcore/ops/arange_native.h>
#include <opcore/ops/cat_native.h>
#include <opcore/ops/embedding_dense_backward_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/eye_native.h>
#include <opcore/ops/index_select_native.h>
#include <opcore/ops/zeros.h>

namespace opcore::native {

// ---- factories ----------------------------------------------------------------------------------

Tensor& arange_out_cuda(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  arange_out_meta(start, end, step, out);  // checks the arguments, resizes out
  const bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  cuda::launchArange(out.scalar_type(), static_cast<char*>(out.data_ptr()), out.numel() > 0 ? out.stride(0) : 1,
                     out.numel(), integral, integral ? start.toLong() : 0, integral ? step.toLong() : 0,
                     start.toDouble(), step.toDouble());
  return out;
}

Tensor& eye_out_cuda(int64_t n, int64_t m, Tensor& out) {
  eye_out_meta(n, m, out);
  out.fill_(0);
  const int64_t diagonal = std::min(n, m);
  if (diagonal > 0) {
    Tensor(detail::makeView(out, {diagonal}, {out.stride(0) + out.stride(1)}, out.storage_offset())).fill_(1);
  }
  return out;
}

Tensor& eye_out_cuda(int64_t n, Tensor& out) { return eye_out_cuda(n, n, out); }

// ---- cat: a copy of each tensor into its slice of out (meta::cat has wrapped dim) -----------------

void cat_out_cuda(TensorList tensors, int64_t dim, const Tensor& out) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    OPCORE_CHECK(t.numel() == 0 || out.numel() == 0 || !cpu::sharesStorage(out, t),
                 "unsupported operation: the input tensors cannot refer to any of the output memory locations. "
                 "Found overlap in input tensor ", i);
  }
  if (out.numel() == 0) return;
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (isSkippedByCat(t)) continue;
    const int64_t size = t.size(dim);
    out.narrow(dim, offset, size).copy_(t);
    offset += size;
  }
}

// ---- index_select -------------------------------------------------------------------------------

Tensor& index_select_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  index_select_out_meta(self, dim, index, out);  // PyTorch's checks; out resized
  const int64_t d = self.dim() == 0 ? 0 : self.wrapDim(dim);
  OPCORE_CHECK(!cpu::sharesStorage(out, self) && !cpu::sharesStorage(out, index),
               "index_select(): unsupported operation: more than one element of the written-to tensor refers to a "
               "single memory location. Please clone() the tensor before performing the operation.");
  OPCORE_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  OPCORE_CHECK(index.scalar_type() == kLong || index.scalar_type() == kInt,
               "index_select(): Expected dtype int32 or int64 for index");
  const Tensor longs = index.to(kLong).contiguous();
  const int64_t size = self.dim() == 0 ? 1 : self.size(d);
  // checked even when the result is empty (self has no elements), as on the CPU
  const std::optional<int64_t> bad = longs.numel() > 0 ? cuda::badIndex(longs, size) : std::nullopt;
  OPCORE_CHECK_INDEX(!bad, "index ", bad.value_or(0), " is out of bounds for dimension ", d, " with size ", size);
  if (out.numel() == 0) return out;
  const Tensor src = self.contiguous();
  const Tensor dst = out.is_contiguous() ? out : opcore::empty(out.sizes(), out.options());
  cuda::IndexSelectProblem p;
  p.src = static_cast<const char*>(src.data_ptr());
  p.dst = static_cast<char*>(dst.data_ptr());
  p.index = longs.data_ptr<int64_t>();
  p.size = size;
  p.n = longs.numel();
  for (int64_t k = 0; k < d; ++k) p.outer *= self.size(k);
  for (int64_t k = d + 1; k < self.dim(); ++k) p.inner *= self.size(k);
  p.element_size = self.element_size();
  cuda::launchIndexSelect(p);
  if (!dst.is_same(out)) out.copy_(dst);
  return out;
}

Tensor index_select_cuda(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor out = opcore::empty({0}, self.options());
  return index_select_out_cuda(self, dim, index, out);
}

// ---- embedding_dense_backward ----------------------------------------------------------------------

Tensor embedding_dense_backward_cuda(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                     int64_t padding_idx, bool scale_grad_by_freq) {
  embedding_dense_backward_meta(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq);
  const ScalarType dtype = grad_output.scalar_type();
  const int64_t dim = grad_output.size(-1);
  const ScalarType acc = cuda::opmathType(dtype);
  const Tensor sums = opcore::zeros({num_weights, dim}, grad_output.options().dtype(acc));
  const Tensor grad = grad_output.contiguous();
  const Tensor longs = indices.to(kLong).contiguous();
  if (const std::optional<int64_t> bad = cuda::badIndex(longs, num_weights)) {
    OPCORE_CHECK_INDEX(false, "embedding_dense_backward: index ", *bad, " is out of range for ", num_weights,
                       " weights");
  }
  Tensor counts;
  cuda::EmbeddingBackwardProblem p;
  p.grad = static_cast<const char*>(grad.data_ptr());
  p.index = longs.data_ptr<int64_t>();
  p.n = longs.numel();
  p.dim = dim;
  p.num_weights = num_weights;
  p.padding_idx = padding_idx;
  p.scale_by_freq = scale_grad_by_freq;
  if (scale_grad_by_freq) {
    counts = opcore::zeros({num_weights}, grad_output.options().dtype(kLong));
    p.counts = counts.data_ptr<int64_t>();
  }
  p.sums = sums.data_ptr();
  cuda::launchEmbeddingBackward(dtype, p);
  return acc == dtype ? sums : sums.to(dtype);
}

}  // namespace opcore::native

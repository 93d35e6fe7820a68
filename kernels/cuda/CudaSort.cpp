// The CUDA kernels of sort (stable, the impl of the structured sort.values_stable) and topk
// (its first k of a sort, largest first or smallest first: the first of equal elements, as the
// CPU kernel's). The sorted dimension is moved last and made contiguous, each row sorted by
// CudaSortKernels.cu, and the results moved back into values and indices.
#include "CudaOperands.h"

#include "cpu/Loops.h"

#include <opcore/ops/empty.h>
#include <opcore/ops/sort_native.h>
#include <opcore/ops/topk_native.h>

#include <utility>
#include <vector>

namespace opcore::native {
namespace {

// self's values sorted along `d` (wrapped): [rows, len] values and indices, and the order of
// self's dimensions that lays them out (d last).
struct SortedRows {
  Tensor values, indices;
  std::vector<int64_t> order;
};

SortedRows sortRows(const Tensor& self, int64_t d, bool descending) {
  SortedRows r;
  for (int64_t k = 0; k < self.dim(); ++k) {
    if (k != d) r.order.push_back(k);
  }
  if (self.dim() > 0) r.order.push_back(d);
  const Tensor rows = self.dim() == 0 ? self.reshape({1, 1}) : self.permute(r.order).contiguous();
  const int64_t len = self.dim() == 0 ? 1 : self.size(d);
  const int64_t count = len == 0 ? 0 : rows.numel() / len;
  r.values = opcore::empty({count, len}, self.options());
  r.indices = opcore::empty({count, len}, self.options().dtype(ScalarType::Long));
  const Tensor scratch =
      opcore::empty({count * cuda::sortSpan(len) * cuda::kSortPairBytes}, self.options().dtype(ScalarType::Byte));
  cuda::launchSort(self.scalar_type(), static_cast<const char*>(rows.data_ptr()), count, len, descending,
                   scratch.data_ptr(), static_cast<char*>(r.values.data_ptr()), r.indices.data_ptr<int64_t>());
  return r;
}

// `sorted` ([rows, n], rows in `order`'s layout) into out (self's layout, n along d).
void moveBack(const Tensor& sorted, const std::vector<int64_t>& order, const Tensor& out) {
  if (out.dim() == 0) {
    out.copy_(sorted.reshape({}));
    return;
  }
  std::vector<int64_t> permuted_sizes, inverse(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    permuted_sizes.push_back(out.size(order[k]));
    inverse[static_cast<size_t>(order[k])] = static_cast<int64_t>(k);
  }
  out.copy_(sorted.reshape(permuted_sizes).permute(inverse));
}

// The input, copied when it shares memory with an output (the outputs are written while it is read).
Tensor readInput(const Tensor& self, const Tensor& values, const Tensor& indices) {
  return cpu::sharesStorage(self, values) || cpu::sharesStorage(self, indices) ? self.clone() : self;
}

}  // namespace

// Stable whatever `stable` says (PyTorch allows it), as the CPU's.
void sort_stable_out_cuda(const Tensor& self, std::optional<bool> /*stable*/, int64_t dim, bool descending,
                          const Tensor& values, const Tensor& indices) {
  cpu::checkNoInternalOverlap(values);
  cpu::checkNoInternalOverlap(indices);
  const Tensor in = readInput(self, values, indices);
  const int64_t d = in.wrapDim(dim);
  detail::resizeOutput(values, in.sizes());
  detail::resizeOutput(indices, in.sizes());
  if (in.numel() == 0) return;
  const SortedRows r = sortRows(in, d, descending);
  moveBack(r.values, r.order, values);
  moveBack(r.indices, r.order, indices);
}

// meta::topk has checked k and wrapped dim.
void topk_out_cuda(const Tensor& self, int64_t k, int64_t dim, bool largest, bool /*sorted*/, const Tensor& values,
                   const Tensor& indices) {
  cpu::checkNoInternalOverlap(values);
  cpu::checkNoInternalOverlap(indices);
  const Tensor in = readInput(self, values, indices);
  if (in.scalar_type() == ScalarType::Bool) detail::throwNotImplementedForDtype("topk", in.scalar_type());  // the CPU's dtypes
  std::vector<int64_t> shape = in.sizes().vec();
  if (in.dim() > 0) shape[static_cast<size_t>(dim)] = k;
  detail::resizeOutput(values, shape);
  detail::resizeOutput(indices, shape);
  if (k == 0 || values.numel() == 0) return;
  const SortedRows r = sortRows(in, dim, largest);
  moveBack(r.values.narrow(1, 0, k), r.order, values);
  moveBack(r.indices.narrow(1, 0, k), r.order, indices);
}

}  // namespace opcore::native

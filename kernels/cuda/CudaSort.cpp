// The CUDA kernels of sort (stable, the impl of the structured sort.values_stable), topk (a
// sort's first k, largest first or smallest first: the first of equal elements, as the CPU
// kernel's), kthvalue and median (an element of each row's stable sort: the CPU kernel's
// choice among equal elements). The dimension is moved last and made contiguous, each row
// sorted by CudaSortKernels.cu, and the results moved back into values and indices.
#include "CudaOperands.h"

#include "common/Shape.h"
#include "cpu/Loops.h"

#include <opcore/ops/empty.h>
#include <opcore/ops/full.h>
#include <opcore/ops/full_like.h>
#include <opcore/ops/kthvalue_native.h>
#include <opcore/ops/median_native.h>
#include <opcore/ops/sort_native.h>
#include <opcore/ops/topk_native.h>
#include <opcore/ops/where.h>

#include <limits>
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

// values and indices of each row's element at `positions` ([rows, 1] Long) of its stable sort,
// reduced along d (kept as size 1 with keepdim), with the selection's checks.
void selectSorted(const Tensor& in, const SortedRows& r, const Tensor& positions, int64_t d, bool keepdim,
                  const Tensor& values, const Tensor& indices) {
  std::vector<bool> mask(static_cast<size_t>(in.dim()), false);
  if (in.dim() > 0) mask[static_cast<size_t>(d)] = true;
  const DimVector reduced = reducedShape(in.sizes(), mask, keepdim);
  detail::resizeOutput(values, reduced);
  detail::resizeOutput(indices, reduced);
  values.copy_(r.values.gather(1, positions).reshape(reduced));
  indices.copy_(r.indices.gather(1, positions).reshape(reduced));
}

// Where each sorted row's median is: its first NaN (median propagates NaN; NaN sorts last, in
// the order of the row) when it has one, else its lower median.
Tensor medianPositions(const SortedRows& r) {
  const int64_t len = r.values.size(1);
  const Tensor nans = r.values.isnan().sum(1, true);
  return opcore::where(nans.gt(0), nans.neg().add(len), opcore::full_like(nans, (len - 1) / 2));
}

void checkSelection(const Tensor& self, const Tensor& values, const Tensor& indices, const char* name) {
  if (self.scalar_type() == ScalarType::Bool) detail::throwNotImplementedForDtype(name, ScalarType::Bool);
  checkSelectionOutputs(self, values, indices, name);
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


std::tuple<Tensor&, Tensor&> kthvalue_out_cuda(const Tensor& self, int64_t k, int64_t dim, bool keepdim,
                                               Tensor& values, Tensor& indices) {
  const int64_t d = self.wrapDim(dim);
  checkSelectionDim(self, d, "kthvalue()");
  const int64_t len = self.dim() == 0 ? 1 : self.size(d);
  OPCORE_CHECK(k >= 1 && k <= len, "kthvalue(): selected number k out of range for dimension ", d);
  checkSelection(self, values, indices, "kthvalue");
  const Tensor in = readInput(self, values, indices);
  const SortedRows r = sortRows(in, d, false);
  selectSorted(in, r, opcore::full({r.values.size(0), 1}, k - 1, r.indices.options()), d, keepdim, values, indices);
  return {values, indices};
}

std::tuple<Tensor&, Tensor&> median_out_cuda(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                             Tensor& indices) {
  const int64_t d = self.wrapDim(dim);
  checkSelectionDim(self, d, "median()");
  checkSelection(self, values, indices, "median");
  const Tensor in = readInput(self, values, indices);
  const SortedRows r = sortRows(in, d, false);
  selectSorted(in, r, medianPositions(r), d, keepdim, values, indices);
  return {values, indices};
}

// median of every element: NaN for an empty self (floating), NaN when self has one.
Tensor median_cuda(const Tensor& self) {
  OPCORE_CHECK(self.numel() > 0 || isFloatingType(self.scalar_type()),
               "median() of an empty tensor is NaN, which ", self.scalar_type(), " cannot hold");
  if (self.scalar_type() == ScalarType::Bool) detail::throwNotImplementedForDtype("median", ScalarType::Bool);
  if (self.numel() == 0) return opcore::full({}, std::numeric_limits<double>::quiet_NaN(), self.options());
  const SortedRows r = sortRows(self.reshape({-1}), 0, false);
  return r.values.gather(1, medianPositions(r)).reshape({});
}

}  // namespace opcore::native

// The CUDA kernels of sort (stable, the impl of the structured sort.values_stable), topk (a
// sort's first k, largest first or smallest first: the first of equal elements, as the CPU
// kernel's), kthvalue, median and mode (an element of each row's stable sort: the CPU kernel's
// choice among equal elements), and unique (the groups of equal neighbours in a stable sort).
// The dimension is moved last and made contiguous, each row sorted by CudaSortKernels.cu, and
// the results moved back into values and indices; the rest are tensor operations on the GPU.
#include "CudaOperands.h"

#include "common/Shape.h"
#include "cpu/Loops.h"

#include <opcore/ops/_unique2_native.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/cat.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/full.h>
#include <opcore/ops/full_like.h>
#include <opcore/ops/kthvalue_native.h>
#include <opcore/ops/median_native.h>
#include <opcore/ops/mode_native.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/sort.h>
#include <opcore/ops/sort_native.h>
#include <opcore/ops/topk_native.h>
#include <opcore/ops/unique_dim_native.h>
#include <opcore/ops/where.h>
#include <opcore/ops/zeros.h>

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

SortedRows sortRows(const char* name, const Tensor& self, int64_t d, bool descending) {
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
  cuda::launchSort(name, self.scalar_type(), static_cast<const char*>(rows.data_ptr()), count, len, descending,
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
  const SortedRows r = sortRows("sort", in, d, descending);
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
  const SortedRows r = sortRows("topk", in, dim, largest);
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
  const SortedRows r = sortRows("kthvalue", in, d, false);
  selectSorted(in, r, opcore::full({r.values.size(0), 1}, k - 1, r.indices.options()), d, keepdim, values, indices);
  return {values, indices};
}

std::tuple<Tensor&, Tensor&> median_out_cuda(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                             Tensor& indices) {
  const int64_t d = self.wrapDim(dim);
  checkSelectionDim(self, d, "median()");
  checkSelection(self, values, indices, "median");
  const Tensor in = readInput(self, values, indices);
  const SortedRows r = sortRows("median", in, d, false);
  selectSorted(in, r, medianPositions(r), d, keepdim, values, indices);
  return {values, indices};
}

// median of every element: NaN for an empty self (floating), NaN when self has one.
Tensor median_cuda(const Tensor& self) {
  OPCORE_CHECK(self.numel() > 0 || isFloatingType(self.scalar_type()),
               "median() of an empty tensor is NaN, which ", self.scalar_type(), " cannot hold");
  if (self.scalar_type() == ScalarType::Bool) detail::throwNotImplementedForDtype("median", ScalarType::Bool);
  if (self.numel() == 0) return opcore::full({}, std::numeric_limits<double>::quiet_NaN(), self.options());
  const SortedRows r = sortRows("median", self.reshape({-1}), 0, false);
  return r.values.gather(1, medianPositions(r)).reshape({});
}

namespace {

// The CPU kernel's refusal of complex dtypes, naming the operator (sortedRows would name sort).
void refuseComplex(const char* name, const Tensor& self) {
  if (isComplexType(self.scalar_type())) detail::throwNotImplementedForDtype(name, self.scalar_type());
}

// self's elements along d sorted (stable, through the dispatcher: on the GPU sort_stable_out_cuda),
// as [rows, len] values and indices; the functions below are tensor operations on any device,
// which tests/api/CudaCompositionTest.cpp checks on the CPU.
std::tuple<Tensor, Tensor> sortedRows(const Tensor& self, int64_t d) {
  const Tensor moved = self.dim() == 0 ? self.reshape({1}) : self.movedim(d, -1);
  const int64_t len = moved.size(-1), rows = len == 0 ? 0 : moved.numel() / len;
  auto [values, indices] = opcore::sort(moved, /*stable=*/true, -1, false);
  return {values.reshape({rows, len}), indices.reshape({rows, len})};
}

}  // namespace

// The mode of each row: in the stable sort, the longest run of equal elements (NaN with NaN,
// as the CPU's keys), the first (the smallest value) of equally long ones, and the index of its
// last element: the CPU kernel's choice.
std::tuple<Tensor, Tensor> mode_cuda(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = self.wrapDim(dim);
  checkSelectionDim(self, d, "mode()");
  refuseComplex("mode", self);
  const auto [sorted, order] = sortedRows(self, d);
  const int64_t rows = sorted.size(0), len = sorted.size(1);
  const Tensor next = sorted.narrow(1, 1, len - 1), previous = sorted.narrow(1, 0, len - 1);
  Tensor differs = next.ne(previous);
  if (isFloatingType(self.scalar_type())) {
    differs = differs.logical_and(next.isnan().logical_and(previous.isnan()).logical_not());
  }
  const Tensor starts = opcore::cat({opcore::ones({rows, 1}, differs.options()), differs}, 1);
  const Tensor run = starts.cumsum(1, ScalarType::Long).sub(1);  // each sorted element's run
  const Tensor lengths = opcore::zeros({rows, len}, run.options()).scatter_add_(1, run, opcore::full_like(run, 1));
  const Tensor longest = lengths.argmax(1, true);  // the first of the longest
  const Tensor last = lengths.cumsum(1).gather(1, longest).sub(1);
  std::vector<bool> mask(static_cast<size_t>(self.dim()), false);
  if (self.dim() > 0) mask[static_cast<size_t>(d)] = true;
  const DimVector reduced = reducedShape(self.sizes(), mask, keepdim);
  return {sorted.gather(1, last).reshape(reduced), order.gather(1, last).reshape(reduced)};
}

namespace {

// unique's results from `order` (n > 0 positions of the rows in their sorted order) and
// `differs` (n - 1 flags: sorted row i + 1 differs from row i): the sorted positions where the
// groups begin, each row's group (in inverse_shape), and the groups' sizes. The group count is
// read back (a wait for the stream): it is the results' size.
struct UniqueGroups {
  Tensor first, inverse, counts;
};

UniqueGroups uniqueGroups(const Tensor& order, const Tensor& differs, bool return_inverse, bool return_counts,
                          IntArrayRef inverse_shape) {
  const int64_t n = order.numel();
  const Tensor starts = opcore::cat({opcore::ones({1}, differs.options()), differs});
  UniqueGroups g;
  g.first = starts.nonzero().view({-1});
  const int64_t k = g.first.numel();
  g.inverse = opcore::empty({0}, order.options());
  g.counts = opcore::empty({0}, order.options());
  if (return_inverse) {
    const Tensor group = starts.cumsum(0, ScalarType::Long).sub(1);
    g.inverse = opcore::empty({n}, order.options()).scatter_(0, order, group).view(inverse_shape);
  }
  if (return_counts) {
    const Tensor ends = opcore::cat({g.first.narrow(0, 1, k - 1), opcore::full({1}, n, order.options())});
    g.counts = ends.sub(g.first);
  }
  return g;
}

}  // namespace

// torch.unique without dim: the distinct elements, sorted (a NaN equals nothing, as the CPU's).
std::tuple<Tensor, Tensor, Tensor> _unique2_cuda(const Tensor& self, bool /*sorted*/, bool return_inverse,
                                                 bool return_counts) {
  const int64_t n = self.numel();
  const Tensor none = opcore::empty({0}, self.options().dtype(ScalarType::Long));
  if (n == 0) {
    return {opcore::empty({0}, self.options()),
            return_inverse ? opcore::empty(self.sizes(), none.options()) : none, none};
  }
  refuseComplex("unique", self);
  const auto [sorted, sorted_order] = sortedRows(self.reshape({-1}), 0);
  const Tensor values = sorted.view({n}), order = sorted_order.view({n});
  const Tensor differs = values.narrow(0, 1, n - 1).ne(values.narrow(0, 0, n - 1));
  const UniqueGroups g = uniqueGroups(order, differs, return_inverse, return_counts, self.sizes());
  return {values.index_select(0, g.first), g.inverse, g.counts};
}

// torch.unique(dim=d): the distinct slices along d in lexicographic order (NaN above every
// number, as the CPU's). The slices are ordered by a stable sort of each column, from the last
// to the first (a least-significant-first radix sort of the rows: one sort per column).
std::tuple<Tensor, Tensor, Tensor> unique_dim_cuda(const Tensor& self, int64_t dim, bool /*sorted*/,
                                                   bool return_inverse, bool return_counts) {
  const int64_t d = checkUniqueDim(self, dim);
  const auto longs = self.options().dtype(ScalarType::Long);
  if (self.size(d) == 0) {
    return {opcore::empty(self.sizes(), self.options()), opcore::empty({0}, longs), opcore::empty({0}, longs)};
  }
  refuseComplex("unique_dim", self);
  const Tensor moved = self.movedim(d, 0).contiguous();
  const int64_t n = self.size(d), m = self.numel() / n;
  const Tensor rows = moved.view({n, m});
  Tensor order = opcore::arange(n, longs);
  for (int64_t c = m - 1; c >= 0; --c) {
    const Tensor column_order = std::get<1>(sortedRows(rows.select(1, c).index_select(0, order), 0));
    order = order.index_select(0, column_order.view({n}));
  }
  const Tensor sorted = rows.index_select(0, order);
  const Tensor differs = sorted.narrow(0, 1, n - 1).ne(sorted.narrow(0, 0, n - 1)).any(1);
  const UniqueGroups g = uniqueGroups(order, differs, return_inverse, return_counts, IntArrayRef({n}));
  std::vector<int64_t> shape = moved.sizes().vec();
  shape[0] = g.first.numel();
  const Tensor values = sorted.index_select(0, g.first).view(shape).movedim(0, d).contiguous();
  return {values, g.inverse, g.counts};
}

}  // namespace opcore::native

// CPU sorting and selection of issue #33: sort (always stable; a radix sort), topk, kthvalue,
// median (every element, and along a dimension) and mode, with PyTorch's NaN order (Note [NaN in
// reductions and sorts] in common/pointwise/Reduce.h). Rows along the dimension are handled in
// parallel (Note [Reduction rows]).
#include <opcore/ops/_unique2_native.h>
#include <opcore/ops/kthvalue_native.h>
#include <opcore/ops/median_native.h>
#include <opcore/ops/mode_native.h>
#include <opcore/ops/sort_native.h>
#include <opcore/ops/topk_native.h>
#include <opcore/ops/unique_dim_native.h>
#include <opcore/ops/kthvalue.h>
#include <opcore/ops/median.h>
#include <opcore/ops/mode.h>
#include <opcore/ops/sort.h>
#include <opcore/core/Empty.h>

#include "common/Shape.h"
#include "common/pointwise/Reduce.h"
#include "common/pointwise/Sort.h"
#include "cpu/Loops.h"
#include "cpu/ReduceRows.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

namespace opcore::native {

namespace {

// Note [Radix sort keys]
// A stable sort of n > kRadixMin elements is an LSD radix sort of unsigned keys whose order is
// the sort's: floating values map sign-magnitude to an unsigned order (negative: all bits
// flipped; positive: the sign bit set), -0.0 to +0.0's key (they are equal: a stable sort keeps
// their order), every NaN to the largest key; signed integers flip their sign bit. A descending
// sort complements the keys, which keeps it stable and puts NaN first. Passes whose digit is the
// same for every key are skipped. Shorter rows use std::stable_sort on the same keys
// (common/pointwise/Sort.h's sortKey, which the CUDA sort shares).
constexpr int64_t kRadixMin = 256;

// order[0..n) = the positions of row[0..n) in stable sorted order.
template <typename T>
void sortRow(const T* row, int64_t n, bool descending, int64_t* order, std::vector<KeyOf<T>>& keys,
             std::vector<KeyOf<T>>& keys2, std::vector<int64_t>& order2) {
  using K = KeyOf<T>;
  keys.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const K k = sortKey(row[i]);
    keys[static_cast<size_t>(i)] = descending ? static_cast<K>(~k) : k;
    order[i] = i;
  }
  if (n < kRadixMin) {
    std::stable_sort(order, order + n, [&](int64_t a, int64_t b) { return keys[static_cast<size_t>(a)] < keys[static_cast<size_t>(b)]; });
    return;
  }
  keys2.resize(static_cast<size_t>(n));
  order2.resize(static_cast<size_t>(n));
  K* src_k = keys.data();
  K* dst_k = keys2.data();
  int64_t* src_o = order;
  int64_t* dst_o = order2.data();
  for (size_t shift = 0; shift < sizeof(K) * 8; shift += 8) {
    int64_t count[256] = {};
    for (int64_t i = 0; i < n; ++i) ++count[(src_k[i] >> shift) & 0xFF];
    if (count[(src_k[0] >> shift) & 0xFF] == n) continue;  // one digit for every key
    int64_t offset = 0;
    for (int64_t& c : count) {
      const int64_t here = c;
      c = offset;
      offset += here;
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t to = count[(src_k[i] >> shift) & 0xFF]++;
      dst_k[to] = src_k[i];
      dst_o[to] = src_o[i];
    }
    std::swap(src_k, dst_k);
    std::swap(src_o, dst_o);
  }
  if (src_o != order) std::copy(src_o, src_o + n, order);
}

// The [outer, n] rows of an output `out` (already of its final shape), in rows order: out's
// own memory when that view of it is contiguous with `dtype`, else a buffer that finish()
// copies into it.
class RowsOutput {
 public:
  RowsOutput(const TensorBase& out, const std::vector<bool>& mask, ScalarType dtype)
      : view_(rowsOrderView(out, mask)),
        buffer_(view_.is_contiguous() && out.scalar_type() == dtype ? view_ : detail::emptyCpu(view_.sizes(), dtype)) {}
  template <typename T>
  T* data() const {
    return buffer_.data_ptr<T>();
  }
  void finish() const {
    if (!buffer_.is_same(view_)) cpu::copyInto(view_, buffer_);
  }

 private:
  TensorBase view_;
  TensorBase buffer_;
};

// (key, index) in the order of a selection: by key, then the earlier index first, a total order,
// so that a selection picks the same elements whatever the blocks (Note [Parallel top-k]).
template <typename K>
struct Keyed {
  K key;
  int64_t index;
  bool operator<(const Keyed& o) const { return key < o.key || (key == o.key && index < o.index); }
};

template <typename T>
std::vector<Keyed<KeyOf<T>>> keyedRow(const T* row, int64_t first, int64_t n, bool largest) {
  using K = KeyOf<T>;
  std::vector<Keyed<K>> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const K k = sortKey(row[first + i]);
    v[static_cast<size_t>(i)] = {largest ? static_cast<K>(~k) : k, first + i};
  }
  return v;
}

// The k first of `v` in order, sorted; v is reordered.
template <typename K>
void selectFirst(std::vector<Keyed<K>>& v, int64_t k) {
  if (k < static_cast<int64_t>(v.size())) {
    std::nth_element(v.begin(), v.begin() + k, v.end());
    v.resize(static_cast<size_t>(k));
  }
  std::sort(v.begin(), v.end());
}

// Note [Parallel top-k]
// topk of a few long rows cuts each into blocks, one per thread: the k first of each block in
// parallel, then the k first of those candidates. The order is total (key, then index), so the
// result is the one a serial selection gives whatever the number of blocks; fewer blocks cost
// less, as each block's selection starts over (its first elements all enter).
constexpr int64_t kMinSelectBlock = 4 * kGrainSize;

// Whether one of the n keys of p (complemented when `largest`) is below `bound`; compared whole,
// into a flag as wide as the key, which vectorizes.
template <typename T>
OPCORE_CPU_CLONES bool anyKeyBelow(const T* p, int64_t n, bool largest, KeyOf<T> bound) {
  using K = KeyOf<T>;
  const K flip = largest ? static_cast<K>(~K(0)) : K(0);
  K hit = 0;
  for (int64_t j = 0; j < n; ++j) hit |= static_cast<K>(static_cast<K>(sortKey(p[j]) ^ flip) < bound);
  return hit != 0;
}

// The k first of row[first, first + n) in order, sorted. Few of many (k * 64 <= n, as PyTorch's
// choice of a partial sort): most elements are only compared with the worst of the k best so
// far (a heap of the k best spent 80% of a 1M-element topk(1000) in its pops and pushes); else
// a selection over every element.
template <typename T>
std::vector<Keyed<KeyOf<T>>> selectOfRange(const T* row, int64_t first, int64_t n, int64_t k, bool largest) {
  using K = KeyOf<T>;
  if (k == 0) return {};
  if (k * 64 > n) {
    auto v = keyedRow(row, first, n, largest);
    selectFirst(v, k);
    return v;
  }
  // Candidates: the first k, then every element below the worst of the k best known when its
  // block is read (its index is above every earlier one, so an equal key does not enter: the
  // key alone decides). When they reach kSpare times k they are cut back to the k best, whose
  // worst becomes the new bound. A block with no key below it is skipped whole; in one with
  // some, every element is written and only those below count (no branch to mispredict).
  constexpr int64_t kSpare = 4, kBlock = 64;
  std::vector<Keyed<K>> best = keyedRow(row, first, k, largest);
  K bound = std::max_element(best.begin(), best.end())->key;
  auto size = static_cast<int64_t>(best.size());
  best.resize(static_cast<size_t>(kSpare * k + kBlock));
  for (int64_t i = first + k; i < first + n; i += kBlock) {
    const int64_t end = std::min(first + n, i + kBlock);
    if (!anyKeyBelow(row + i, end - i, largest, bound)) continue;
    for (int64_t j = i; j < end; ++j) {
      const K key0 = sortKey(row[j]);
      const K key = largest ? static_cast<K>(~key0) : key0;
      best[static_cast<size_t>(size)] = {key, j};
      size += key < bound;
    }
    if (size >= kSpare * k) {
      std::nth_element(best.begin(), best.begin() + (k - 1), best.begin() + size);
      size = k;
      bound = best[static_cast<size_t>(k - 1)].key;
    }
  }
  best.resize(static_cast<size_t>(size));
  selectFirst(best, k);
  return best;
}

template <typename T>
std::vector<Keyed<KeyOf<T>>> topkOfRow(const T* row, int64_t n, int64_t k, bool largest, bool parallel) {
  const int64_t blocks = parallel ? std::min<int64_t>(get_num_threads(), n / kMinSelectBlock) : 1;
  if (blocks < 2 || k > n / blocks) return selectOfRange(row, 0, n, k, largest);
  std::vector<std::vector<Keyed<KeyOf<T>>>> parts(static_cast<size_t>(blocks));
  parallel_for(0, blocks, 1, [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) {
      const int64_t start = n * b / blocks, end = n * (b + 1) / blocks;
      parts[static_cast<size_t>(b)] = selectOfRange(row, start, end - start, k, largest);
    }
  });
  std::vector<Keyed<KeyOf<T>>> all;
  for (auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  selectFirst(all, k);
  return all;
}

// values/indices of a selection along `dim` with a reduced result (kthvalue, median, mode):
// pick(row, n, &value_index) gives the index in the row of the selected element.
struct ModePick;

template <typename Pick>
void selectAlongDim(const TensorBase& self, int64_t dim, bool keepdim, const TensorBase& values,
                    const TensorBase& indices, const char* name, const Pick& pick) {
  // kthvalue and median refuse Bool, as PyTorch's CPU kernels; mode takes it.
  if (self.scalar_type() == kBool && !std::is_same_v<Pick, ModePick>) detail::throwNotImplementedForDtype(name, kBool);
  checkSelectionOutputs(self, values, indices, name);
  const std::vector<bool> mask = oneDimMask(self.dim(), dim);
  const DimVector shape = reducedShape(self.sizes(), mask, keepdim);
  if (self.is_meta()) {
    detail::resizeOutput(values, shape);
    detail::resizeOutput(indices, shape);
    return;
  }
  cpu::checkCpu(name, {&self, &values, &indices});
  const TensorBase in = readInput(self, {&values, &indices});
  const Rows rows = reductionRows(in, mask);
  detail::resizeOutput(values, shape);
  detail::resizeOutput(indices, shape);
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, in.scalar_type(), name, [&] {
    const scalar_t* src = rows.data.data_ptr<scalar_t>();
    writeOutput<int64_t>(indices, kLong, [&](int64_t* ip) {
      const int64_t grain = grainFor(rows.len);
      parallel_for(0, rows.outer, grain, [&](int64_t first, int64_t last) {
        for (int64_t o = first; o < last; ++o) ip[o] = pick(src + o * rows.len, rows.len);
      });
      writeOutput<scalar_t>(values, in.scalar_type(), [&](scalar_t* vp) {
        for (int64_t o = 0; o < rows.outer; ++o) vp[o] = src[o * rows.len + ip[o]];
      });
    });
  });
}

// The index of the k-th (from 0) smallest of row[0..n) in the selection order.
struct KthPick {
  int64_t k;
  template <typename T>
  int64_t operator()(const T* row, int64_t n) const {
    auto v = keyedRow(row, 0, n, false);
    std::nth_element(v.begin(), v.begin() + k, v.end());
    return v[static_cast<size_t>(k)].index;
  }
};

// The lower median's index, or the first NaN's (median propagates NaN, as PyTorch's).
struct MedianPick {
  template <typename T>
  int64_t operator()(const T* row, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) {
      if (reduce::isNan(static_cast<opmath_t<T>>(row[i]))) return i;
    }
    return KthPick{(n - 1) / 2}(row, n);
  }
};

// The most frequent value's index (of its last occurrence); of equally frequent values the
// smallest.
struct ModePick {
  template <typename T>
  int64_t operator()(const T* row, int64_t n) const {
    auto v = keyedRow(row, 0, n, false);
    std::sort(v.begin(), v.end());
    int64_t best = 0, best_count = 0;
    for (int64_t i = 0; i < n;) {
      int64_t j = i;
      while (j + 1 < n && v[static_cast<size_t>(j + 1)].key == v[static_cast<size_t>(i)].key) ++j;
      if (j - i + 1 > best_count) {
        best_count = j - i + 1;
        best = v[static_cast<size_t>(j)].index;
      }
      i = j + 1;
    }
    return best;
  }
};

int64_t sliceSize(const TensorBase& self, int64_t dim) {
  return self.dim() == 0 ? 1 : self.size(dim);
}

}  // namespace

// The impl of structured sort.values_stable: stable whatever `stable` says (PyTorch allows it).
void sort_stable_out(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending,
                     const Tensor& values, const Tensor& indices) {
  (void)stable;
  cpu::checkCpu("sort", {&self, &values, &indices});
  cpu::checkNoInternalOverlap(values);
  cpu::checkNoInternalOverlap(indices);
  const TensorBase in = readInput(self, {&values, &indices});
  const int64_t d = in.wrapDim(dim);
  const std::vector<bool> mask = oneDimMask(in.dim(), d);
  const Rows rows = reductionRows(in, mask);
  detail::resizeOutput(values, in.sizes());
  detail::resizeOutput(indices, in.sizes());
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, in.scalar_type(), "sort", [&] {
    const RowsOutput v(values, mask, in.scalar_type()), ix(indices, mask, kLong);
    const scalar_t* src = rows.data.data_ptr<scalar_t>();
    scalar_t* vp = v.data<scalar_t>();
    int64_t* ip = ix.data<int64_t>();
    const int64_t len = rows.len;
    const int64_t grain = grainFor(len);
    parallel_for(0, rows.outer, grain, [&](int64_t first, int64_t last) {
      std::vector<KeyOf<scalar_t>> keys, keys2;
      std::vector<int64_t> order2;
      for (int64_t o = first; o < last; ++o) {
        int64_t* order = ip + o * len;
        sortRow(src + o * len, len, descending, order, keys, keys2, order2);
        for (int64_t i = 0; i < len; ++i) vp[o * len + i] = src[o * len + order[i]];
      }
    });
    v.finish();
    ix.finish();
  });
}

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return opcore::sort(self, std::optional<bool>(false), dim, descending);
}

std::tuple<Tensor&, Tensor&> sort_out(const Tensor& self, int64_t dim, bool descending, Tensor& values, Tensor& indices) {
  return opcore::sort_outf(self, std::optional<bool>(false), dim, descending, values, indices);
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(opcore::sort(self, std::optional<bool>(false), dim, descending));
}

Tensor argsort(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(opcore::sort(self, std::optional<bool>(stable), dim, descending));
}

// The impl of structured topk.values (meta::topk has checked k and wrapped dim): sorted
// whatever `sorted` says, the first of equal elements.
void topk_out_cpu(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted, const Tensor& values,
                  const Tensor& indices) {
  (void)sorted;
  cpu::checkCpu("topk", {&self, &values, &indices});
  cpu::checkNoInternalOverlap(values);
  cpu::checkNoInternalOverlap(indices);
  const TensorBase in = readInput(self, {&values, &indices});
  const std::vector<bool> mask = oneDimMask(in.dim(), dim);
  const Rows rows = reductionRows(in, mask);
  DimVector shape = in.sizes().vec();
  if (in.dim() > 0) shape[static_cast<size_t>(dim)] = k;
  detail::resizeOutput(values, shape);
  detail::resizeOutput(indices, shape);
  if (k == 0 || rows.outer == 0) return;
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, in.scalar_type(), "topk", [&] {
    const RowsOutput v(values, mask, in.scalar_type()), ix(indices, mask, kLong);
    const scalar_t* src = rows.data.data_ptr<scalar_t>();
    scalar_t* vp = v.data<scalar_t>();
    int64_t* ip = ix.data<int64_t>();
    const int64_t len = rows.len;
    const auto one = [&](int64_t o, bool parallel) {
      const auto best = topkOfRow(src + o * len, len, k, largest, parallel);
      for (int64_t i = 0; i < k; ++i) {
        const int64_t at = best[static_cast<size_t>(i)].index;
        ip[o * k + i] = at;
        vp[o * k + i] = src[o * len + at];
      }
    };
    if (rows.outer < 8) {
      for (int64_t o = 0; o < rows.outer; ++o) one(o, true);
    } else {
      const int64_t grain = grainFor(len);
      parallel_for(0, rows.outer, grain, [&](int64_t first, int64_t last) {
        for (int64_t o = first; o < last; ++o) one(o, false);
      });
    }
    v.finish();
    ix.finish();
  });
}

std::tuple<Tensor&, Tensor&> kthvalue_out_cpu(const Tensor& self, int64_t k, int64_t dim, bool keepdim, Tensor& values,
                                              Tensor& indices) {
  const int64_t d = self.wrapDim(dim);
  checkSelectionDim(self, d, "kthvalue()");
  OPCORE_CHECK(k >= 1 && k <= sliceSize(self, d), "kthvalue(): selected number k out of range for dimension ", d);
  selectAlongDim(self, d, keepdim, values, indices, "kthvalue", KthPick{k - 1});
  return {values, indices};
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  Tensor values(detail::empty({0}, self.scalar_type(), self.device()));
  Tensor indices(detail::empty({0}, kLong, self.device()));
  opcore::kthvalue_outf(self, k, dim, keepdim, values, indices);
  return {values, indices};
}

// median of every element (PyTorch's median_cpu): NaN for an empty self (floating), NaN when
// self has one.
Tensor median_cpu(const Tensor& self) {
  Tensor out(detail::empty({}, self.scalar_type(), self.device()));
  if (self.is_meta()) return out;
  OPCORE_CHECK(self.numel() > 0 || isFloatingType(self.scalar_type()),
               "median() of an empty tensor is NaN, which ", self.scalar_type(), " cannot hold");
  if (self.numel() == 0) {
    OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), "median", [&] {
      out.data_ptr<scalar_t>()[0] = static_cast<scalar_t>(std::numeric_limits<float>::quiet_NaN());
    });
    return out;
  }
  const TensorBase flat = cpu::contiguousCopy(self);
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), "median", [&] {
    const scalar_t* p = flat.data_ptr<scalar_t>();
    out.data_ptr<scalar_t>()[0] = p[MedianPick{}(p, flat.numel())];
  });
  return out;
}

std::tuple<Tensor&, Tensor&> median_out_cpu(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                            Tensor& indices) {
  const int64_t d = self.wrapDim(dim);
  checkSelectionDim(self, d, "median()");
  selectAlongDim(self, d, keepdim, values, indices, "median", MedianPick{});
  return {values, indices};
}

std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  Tensor values(detail::empty({0}, self.scalar_type(), self.device()));
  Tensor indices(detail::empty({0}, kLong, self.device()));
  opcore::median_outf(self, dim, keepdim, values, indices);
  return {values, indices};
}

std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = self.wrapDim(dim);
  checkSelectionDim(self, d, "mode()");
  Tensor values(detail::empty({0}, self.scalar_type(), self.device()));
  Tensor indices(detail::empty({0}, kLong, self.device()));
  selectAlongDim(self, d, keepdim, values, indices, "mode", ModePick{});
  return {values, indices};
}

std::tuple<Tensor&, Tensor&> mode_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values, Tensor& indices) {
  checkSelectionOutputs(self, values, indices, "mode");
  const auto [v, i] = opcore::mode(self, dim, keepdim);
  detail::resizeOutput(values, v.sizes());
  detail::resizeOutput(indices, i.sizes());
  values.copy_(v);
  indices.copy_(i);
  return {values, indices};
}

namespace {

// Row i of a [n, m] contiguous block equals row j: element by element with == (a NaN equals
// nothing, so rows holding one are each distinct, as in PyTorch).
template <typename T>
bool sameRow(const T* a, const T* b, int64_t m) {
  for (int64_t i = 0; i < m; ++i) {
    if (!(static_cast<opmath_t<T>>(a[i]) == static_cast<opmath_t<T>>(b[i]))) return false;
  }
  return true;
}

// Lexicographic order of rows, NaN above every number.
template <typename T>
bool rowLess(const T* a, const T* b, int64_t m) {
  for (int64_t i = 0; i < m; ++i) {
    const auto x = static_cast<opmath_t<T>>(a[i]), y = static_cast<opmath_t<T>>(b[i]);
    if (reduce::lessNanLast(x, y)) return true;
    if (reduce::lessNanLast(y, x)) return false;
  }
  return false;
}

// The groups of equal rows of `data` ([n, m]) visited in `order`: group[i] for the i-th row in
// order, and the number of groups.
template <typename T>
int64_t groupRows(const T* data, int64_t m, const std::vector<int64_t>& order, std::vector<int64_t>& group) {
  const auto n = static_cast<int64_t>(order.size());
  group.assign(order.size(), 0);
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0 && !sameRow(data + order[i] * m, data + order[i - 1] * m, m)) ++k;
    group[static_cast<size_t>(i)] = k;
  }
  return n == 0 ? 0 : k + 1;
}

// The three results of unique from the rows `data` ([n, m]) in sorted `order`: the first row of
// each group into `first` (k of them), the inverse (n) and the counts (k).
struct UniqueParts {
  std::vector<int64_t> first;
  Tensor inverse;
  Tensor counts;
};

template <typename T>
UniqueParts uniqueParts(const T* data, int64_t m, const std::vector<int64_t>& order, bool return_inverse,
                        bool return_counts, IntArrayRef inverse_shape) {
  std::vector<int64_t> group;
  const int64_t k = groupRows(data, m, order, group);
  UniqueParts parts;
  parts.first.assign(static_cast<size_t>(k), 0);
  for (size_t i = order.size(); i-- > 0;) parts.first[static_cast<size_t>(group[i])] = order[i];
  parts.inverse = Tensor(detail::emptyCpu(return_inverse ? inverse_shape : IntArrayRef({0}), kLong));
  parts.counts = Tensor(detail::emptyCpu({return_counts ? k : 0}, kLong));
  if (return_inverse) {
    int64_t* inv = parts.inverse.data_ptr<int64_t>();
    for (size_t i = 0; i < order.size(); ++i) inv[order[i]] = group[i];
  }
  if (return_counts) {
    int64_t* c = parts.counts.data_ptr<int64_t>();
    std::fill(c, c + k, 0);
    for (int64_t g : group) ++c[g];
  }
  return parts;
}

}  // namespace

// torch.unique without dim: the distinct elements, always sorted (stable radix sort, then one
// pass over equal neighbours).
std::tuple<Tensor, Tensor, Tensor> _unique2_cpu(const Tensor& self, bool sorted, bool return_inverse,
                                                bool return_counts) {
  (void)sorted;
  cpu::checkCpu("_unique2", {&self});
  const TensorBase flat = cpu::contiguousCopy(self);
  const int64_t n = flat.numel();
  std::tuple<Tensor, Tensor, Tensor> result;
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, self.scalar_type(), "unique", [&] {
    const scalar_t* p = flat.data_ptr<scalar_t>();
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::vector<KeyOf<scalar_t>> keys, keys2;
    std::vector<int64_t> order2;
    if (n > 0) sortRow(p, n, false, order.data(), keys, keys2, order2);
    UniqueParts parts = uniqueParts(p, 1, order, return_inverse, return_counts, self.sizes());
    Tensor values(detail::emptyCpu({static_cast<int64_t>(parts.first.size())}, self.scalar_type()));
    scalar_t* v = values.data_ptr<scalar_t>();
    for (size_t g = 0; g < parts.first.size(); ++g) v[g] = p[parts.first[g]];
    result = {values, parts.inverse, parts.counts};
  });
  return result;
}

// torch.unique(dim=d): the distinct slices along d in lexicographic order.
std::tuple<Tensor, Tensor, Tensor> unique_dim_cpu(const Tensor& self, int64_t dim, bool sorted, bool return_inverse,
                                                  bool return_counts) {
  (void)sorted;
  cpu::checkCpu("unique_dim", {&self});
  const int64_t d = checkUniqueDim(self, dim);
  if (self.size(d) == 0) {  // PyTorch's results, as its unique_dim_cpu
    return {Tensor(detail::emptyCpu(self.sizes(), self.scalar_type())), Tensor(detail::emptyCpu({0}, kLong)),
            Tensor(detail::emptyCpu({0}, kLong))};
  }
  // Rows: dimension d first (kept), every other one after it.
  std::vector<bool> rest(static_cast<size_t>(self.dim()), true);
  if (self.dim() > 0) rest[static_cast<size_t>(d)] = false;
  const Rows rows = reductionRows(self, rest);
  const int64_t n = self.dim() == 0 ? 1 : self.size(d);
  const int64_t m = n == 0 ? 0 : self.numel() / n;
  std::tuple<Tensor, Tensor, Tensor> result;
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, self.scalar_type(), "unique_dim", [&] {
    const scalar_t* p = rows.data.data_ptr<scalar_t>();
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return rowLess(p + a * m, p + b * m, m); });
    UniqueParts parts = uniqueParts(p, m, order, return_inverse, return_counts, IntArrayRef({n}));
    const auto k = static_cast<int64_t>(parts.first.size());
    DimVector shape = self.sizes().vec();
    if (!shape.empty()) shape[static_cast<size_t>(d)] = k;
    Tensor values(detail::emptyCpu(shape, self.scalar_type()));
    const RowsOutput out(values, rest, self.scalar_type());
    scalar_t* v = out.data<scalar_t>();
    for (int64_t g = 0; g < k; ++g) std::copy(p + parts.first[static_cast<size_t>(g)] * m, p + (parts.first[static_cast<size_t>(g)] + 1) * m, v + g * m);
    out.finish();
    result = {values, parts.inverse, parts.counts};
  });
  return result;
}

}  // namespace opcore::native

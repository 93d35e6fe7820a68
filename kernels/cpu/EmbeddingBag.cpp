// Embedding bags on the CPU: _embedding_bag (sum, mean and max of bags of weight rows),
// _embedding_bag_dense_backward and _embedding_bag_per_sample_weights_backward, with their Meta
// kernels. See Note [Embedding bags].
#include <opcore/core/Empty.h>
#include <opcore/ops/_embedding_bag_dense_backward_native.h>
#include <opcore/ops/_embedding_bag_native.h>
#include <opcore/ops/_embedding_bag_per_sample_weights_backward_native.h>

#include "cpu/Loops.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

namespace opcore::native {

// Note [Embedding bags]
// Bag b of _embedding_bag holds the indices i with offsets[b] <= i < end(b), end(b) being
// offsets[b + 1], or for the last bag the number of indices (with include_last_offset, where
// offsets has one more element than there are bags, offsets[num_bags], and indices past it
// belong to no bag). Offsets must start at 0, not decrease and not pass the number of indices,
// and every index must name a row of weight: all checked before any row is read. The forward
// is threaded over bags: each bag's row of the output is written by one thread, adding (or
// comparing, in max mode) its rows in the order of its indices, in float for 16-bit weights
// (rounded once). The other outputs are PyTorch's: offset2bag[i] is the number of offsets at or
// before i, less one (the bag of index i; num_bags for indices past the last offset, -1 for all
// of them without offsets), left empty in sum mode where PyTorch takes its fast path (float32
// or float16 weights with unit column stride, no padding_idx, per_sample_weights of unit
// stride), since PyTorch's backward recomputes it there; bag_size counts each bag's indices
// other than padding_idx in mean and max modes and is zero in sum mode; max_indices is
// [num_bags, embedding_dim] in max mode (the row of each column's maximum: the first of equal
// ones, 0 in an empty bag) and a copy of bag_size otherwise. The backward kernels give each
// thread a range of the weight's columns (dense) or of the indices (per_sample_weights), so
// their results do not depend on the thread count.

namespace {

constexpr int64_t kModeSum = 0;
constexpr int64_t kModeMean = 1;
constexpr int64_t kModeMax = 2;

void checkIndexType(const Tensor& t, const char* name, int position, const char* op = "embedding_bag") {
  const ScalarType s = t.scalar_type();
  OPCORE_CHECK(s == kLong || s == kInt, "Expected tensor for argument #", position, " '", name,
               "' to have one of the following scalar types: Long, Int; but got ", s,
               " instead (while checking arguments for ", op, ")");
}

void checkFloatingType(const Tensor& t, const char* name, int position) {
  const ScalarType s = t.scalar_type();
  OPCORE_CHECK(s == kHalf || s == kBFloat16 || s == kFloat || s == kDouble, "Expected tensor for argument #",
               position, " '", name, "' to have one of the following scalar types: Half, BFloat16, Float, "
               "Double; but got ", s, " instead (while checking arguments for embedding_bag)");
}

void checkDim(const Tensor& t, const char* op, const char* name, int64_t dim) {
  OPCORE_CHECK(t.dim() == dim, op, ": expected '", name, "' to be ", dim, "-D, but got a tensor of ", t.dim(),
               " dimensions");
}

void checkMode(int64_t mode, const char* op) {
  OPCORE_CHECK(mode == kModeSum || mode == kModeMean || mode == kModeMax, op,
               ": mode must be 0 (sum), 1 (mean) or 2 (max), but got ", mode);
}

// The checks of _embedding_bag that need no values (the Meta kernel's too), PyTorch's where it
// has them; returns the number of bags.
int64_t checkEmbeddingBag(const Tensor& weight, const Tensor& indices, const Tensor& offsets, int64_t mode,
                          const std::optional<Tensor>& per_sample_weights, bool include_last_offset) {
  checkIndexType(indices, "indices", 1);
  checkIndexType(offsets, "offsets", 1);
  checkFloatingType(weight, "weight", 1);
  checkDim(weight, "embedding_bag", "weight", 2);
  checkDim(indices, "embedding_bag", "indices", 1);
  checkDim(offsets, "embedding_bag", "offsets", 1);
  checkMode(mode, "embedding_bag");
  if (per_sample_weights && per_sample_weights->defined()) {
    const Tensor& psw = *per_sample_weights;
    OPCORE_CHECK(mode == kModeSum, "embedding_bag: per_sample_weights only supported with mode='sum'");
    OPCORE_CHECK(psw.scalar_type() == weight.scalar_type(), "Expected tensor for argument #1 'weight' to have the "
                 "same type as tensor for argument #1 'per_sample_weights'; but type ", weight.scalar_type(),
                 " does not equal ", psw.scalar_type(), " (while checking arguments for embedding_bag)");
    OPCORE_CHECK(psw.dim() == 1, "Expected per_sample_weights.value().dim() == 1 to be true, but got false. "
                 "(per_sample_weights has ", psw.dim(), " dimensions)");
    OPCORE_CHECK(psw.numel() == indices.numel(), "Expected per_sample_weights.value().numel() == indices.numel() "
                 "to be true, but got false. (", psw.numel(), " per-sample weights for ", indices.numel(),
                 " indices)");
  }
  if (include_last_offset) {
    OPCORE_CHECK(offsets.size(0) >= 1, "include_last_offset: number of offset should be at least 1");
  }
  return offsets.size(0) - (include_last_offset ? 1 : 0);
}

// Whether PyTorch's CPU kernel takes its sum fast path, where offset2bag is left empty.
bool sumFastPath(const Tensor& weight, int64_t mode, const std::optional<Tensor>& per_sample_weights,
                 int64_t padding_idx) {
  const ScalarType t = weight.scalar_type();
  if (mode != kModeSum || padding_idx >= 0 || weight.stride(1) != 1) return false;
  if (per_sample_weights && per_sample_weights->defined() && per_sample_weights->stride(0) != 1) return false;
  return t == kFloat || t == kHalf;
}

// The index results are Int when indices and offsets both are, else Long (PyTorch promotes).
ScalarType indexResultType(const Tensor& indices, const Tensor& offsets) {
  return indices.scalar_type() == kInt && offsets.scalar_type() == kInt ? kInt : kLong;
}

std::vector<int64_t> readLongs(const Tensor& t) {
  const TensorBase longs = cpu::contiguousCopy(cpu::convertTo(t, kLong));
  const int64_t* p = longs.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + longs.numel());
}

void checkOffsets(const std::vector<int64_t>& off, int64_t num_indices) {
  if (off.empty()) return;
  OPCORE_CHECK(off[0] == 0, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
               "position 0. However, got ", off[0]);
  OPCORE_CHECK(off.back() <= num_indices, "offsets[-1] can not be greater than input's length ", num_indices,
               " but got offsets[-1] of ", off.back());
  for (size_t b = 1; b < off.size(); ++b) {
    OPCORE_CHECK(off[b] >= off[b - 1], "embedding_bag: offsets must not decrease, but offsets[", b, "] = ", off[b],
                 " is less than offsets[", b - 1, "] = ", off[b - 1]);
  }
}

void checkIndices(const std::vector<int64_t>& idx, int64_t num_weights, const char* op) {
  for (const int64_t i : idx) {
    OPCORE_CHECK(i >= 0 && i < num_weights, op, ": Expected idx >= 0 && idx < num_embeddings but found idx to be ",
                 i);
  }
}

Tensor toIndexType(TensorBase longs, ScalarType t) {
  return Tensor(t == kLong ? longs : cpu::convertTo(longs, t));
}

// out = (the sum of rows[k] (times scales[k]), k < count) / divisor, a block of columns at a
// time held in registers through all the rows: each row is read once, in index order, and the
// bag's rows stream in together.
template <typename T>
OPCORE_CPU_CLONES void sumRows(T* out, const T* const* rows, const opmath_t<T>* scales, int64_t count, int64_t dim,
                               opmath_t<T> divisor) {
  using M = opmath_t<T>;
  constexpr int64_t kBlock = 64;
  for (int64_t c0 = 0; c0 < dim; c0 += kBlock) {
    M acc[kBlock];
    if (dim - c0 >= kBlock) {
      for (int64_t j = 0; j < kBlock; ++j) acc[j] = M(0);
      for (int64_t k = 0; k < count; ++k) {
        const T* row = rows[k] + c0;
        if (scales != nullptr) {
          const M scale = scales[k];
          for (int64_t j = 0; j < kBlock; ++j) acc[j] += static_cast<M>(row[j]) * scale;
        } else {
          for (int64_t j = 0; j < kBlock; ++j) acc[j] += static_cast<M>(row[j]);
        }
      }
      for (int64_t j = 0; j < kBlock; ++j) out[c0 + j] = static_cast<T>(acc[j] / divisor);
    } else {
      const int64_t width = dim - c0;
      for (int64_t j = 0; j < width; ++j) acc[j] = M(0);
      for (int64_t k = 0; k < count; ++k) {
        const T* row = rows[k] + c0;
        const M scale = scales != nullptr ? scales[k] : M(1);
        for (int64_t j = 0; j < width; ++j) acc[j] += static_cast<M>(row[j]) * scale;
      }
      for (int64_t j = 0; j < width; ++j) out[c0 + j] = static_cast<T>(acc[j] / divisor);
    }
  }
}

template <typename T>
OPCORE_CPU_CLONES void maxRow(T* out, int64_t* where, const T* row, int64_t index, int64_t n) {
  for (int64_t c = 0; c < n; ++c) {
    if (static_cast<opmath_t<T>>(row[c]) > static_cast<opmath_t<T>>(out[c])) {
      out[c] = row[c];
      where[c] = index;
    }
  }
}

// The rows of a bag are scattered through a table larger than the caches: the rows of the next
// indices are asked for before a bag's rows are added, so that they arrive meanwhile.
constexpr int64_t kPrefetchAhead = 8;

inline void prefetchRow(const void* row, int64_t bytes) {
  const char* p = static_cast<const char*>(row);
  for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b, 0, 3);
}

// Bag b holds the indices from ends[b] to ends[b + 1] of the num_indices.
struct BagInputs {
  const int64_t* idx;
  int64_t num_indices;
  const int64_t* ends;
  int64_t padding_idx;
  int64_t mode;
};

// One bag's row of the output (sum or mean); returns its count of non-padding indices. `rows`
// and `scales` are the calling thread's lists.
template <typename T>
int64_t reduceBag(const BagInputs& in, int64_t b, const T* w, int64_t row_stride, const T* psw, int64_t dim,
                  std::vector<const T*>& rows, std::vector<opmath_t<T>>& scales, T* out) {
  using M = opmath_t<T>;
  const int64_t start = in.ends[b], end = in.ends[b + 1];
  rows.clear();
  scales.clear();
  for (int64_t i = start; i < end; ++i) {
    const int64_t r = in.idx[i];
    if (r == in.padding_idx) continue;
    rows.push_back(w + r * row_stride);
    if (psw != nullptr) scales.push_back(static_cast<M>(psw[i]));
  }
  // The next rows are on their way while these are added.
  for (int64_t i = end; i < std::min(end + kPrefetchAhead, in.num_indices); ++i) {
    prefetchRow(w + in.idx[i] * row_stride, dim * static_cast<int64_t>(sizeof(T)));
  }
  const int64_t count = static_cast<int64_t>(rows.size());
  const M divisor = in.mode == kModeMean && count > 0 ? static_cast<M>(count) : M(1);
  sumRows<T>(out, rows.data(), psw != nullptr ? scales.data() : nullptr, count, dim, divisor);
  return count;
}

// One bag's row of the output in max mode, and the rows of its maxima; returns its count.
template <typename T>
int64_t maxBag(const BagInputs& in, int64_t b, const T* w, int64_t row_stride, int64_t dim, T* out,
               int64_t* where) {
  const int64_t start = in.ends[b], end = in.ends[b + 1];
  int64_t count = 0;
  for (int64_t i = start; i < end; ++i) {
    const int64_t r = in.idx[i];
    if (r == in.padding_idx) continue;
    const T* row = w + r * row_stride;
    if (count++ == 0) {
      std::copy(row, row + dim, out);
      std::fill(where, where + dim, r);
    } else {
      maxRow<T>(out, where, row, r, dim);
    }
  }
  if (count == 0) {
    std::fill(out, out + dim, T(0));
    std::fill(where, where + dim, int64_t{0});
  }
  return count;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> _embedding_bag_cpu(const Tensor& weight_in, const Tensor& indices,
                                                              const Tensor& offsets, bool /*scale_grad_by_freq*/,
                                                              int64_t mode, bool /*sparse*/,
                                                              const std::optional<Tensor>& per_sample_weights,
                                                              bool include_last_offset, int64_t padding_idx) {
  cpu::checkCpu("_embedding_bag", {&weight_in, &indices, &offsets});
  const bool has_psw = per_sample_weights && per_sample_weights->defined();
  if (has_psw) cpu::checkCpu("_embedding_bag", {&*per_sample_weights});
  const int64_t num_bags = checkEmbeddingBag(weight_in, indices, offsets, mode, per_sample_weights,
                                             include_last_offset);
  const bool fast = sumFastPath(weight_in, mode, per_sample_weights, padding_idx);
  const ScalarType itype = indexResultType(indices, offsets);
  const std::vector<int64_t> idx = readLongs(indices), off = readLongs(offsets);
  const int64_t n = static_cast<int64_t>(idx.size()), dim = weight_in.size(1);
  checkOffsets(off, n);
  checkIndices(idx, weight_in.size(0), "embedding_bag");

  const ScalarType dtype = weight_in.scalar_type();
  // Rows of unit column stride, read in place (a weight of other strides is copied once).
  const TensorBase weight = weight_in.stride(1) == 1 || dim <= 1 ? TensorBase(weight_in)
                                                                 : cpu::contiguousCopy(weight_in);
  const int64_t row_stride = weight.stride(0);
  Tensor output(detail::emptyCpu({num_bags, dim}, dtype));
  TensorBase offset2bag = detail::emptyCpu({fast ? 0 : n}, kLong);
  TensorBase bag_size = detail::emptyCpu({num_bags}, kLong);
  TensorBase max_indices = detail::emptyCpu(mode == kModeMax ? IntArrayRef({num_bags, dim}) : IntArrayRef({num_bags}),
                                            kLong);
  int64_t* sizes = bag_size.data_ptr<int64_t>();
  if (!fast) {
    // Indices past the last bag (include_last_offset), or every index when there are no offsets.
    int64_t* bags = offset2bag.data_ptr<int64_t>();
    const int64_t covered = num_bags > 0 ? (include_last_offset ? off[num_bags] : n) : 0;
    for (int64_t i = covered; i < n; ++i) bags[i] = static_cast<int64_t>(off.size()) - 1;
    for (int64_t b = 0; b < num_bags; ++b) {
      const int64_t end = b + 1 < static_cast<int64_t>(off.size()) ? off[b + 1] : n;
      for (int64_t i = off[b]; i < end; ++i) bags[i] = b;
    }
  }
  // The bags' bounds: the offsets, and the number of indices closing the last bag unless the
  // last offset does (include_last_offset).
  std::vector<int64_t> ends(off);
  if (!include_last_offset) ends.push_back(n);
  const BagInputs in{idx.data(), n, ends.data(), padding_idx, mode};
  if (num_bags > 0 && dim > 0) {
    const TensorBase psw = has_psw ? cpu::contiguousCopy(*per_sample_weights) : TensorBase();
    const int64_t per_bag = std::max<int64_t>(1, n / num_bags) * dim;
    const int64_t grain = grainFor(per_bag);
    OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "_embedding_bag", [&] {
      using M = opmath_t<scalar_t>;
      const scalar_t* w = weight.data_ptr<scalar_t>();
      scalar_t* out = output.data_ptr<scalar_t>();
      const scalar_t* weights = has_psw ? psw.data_ptr<scalar_t>() : nullptr;
      int64_t* where = max_indices.data_ptr<int64_t>();
      parallel_for(0, num_bags, grain, [&](int64_t begin, int64_t end) {
        std::vector<const scalar_t*> rows;
        std::vector<M> scales;
        for (int64_t b = begin; b < end; ++b) {
          scalar_t* row = out + b * dim;
          if (mode == kModeMax) {
            sizes[b] = maxBag<scalar_t>(in, b, w, row_stride, dim, row, where + b * dim);
          } else {
            sizes[b] = reduceBag<scalar_t>(in, b, w, row_stride, weights, dim, rows, scales, row);
          }
        }
      });
    });
  } else {
    // No columns (or no bags): only the counts.
    for (int64_t b = 0; b < num_bags; ++b) {
      int64_t count = 0;
      for (int64_t i = ends[b]; i < ends[b + 1]; ++i) count += idx[i] != padding_idx;
      sizes[b] = count;
    }
  }
  if (mode == kModeSum) std::fill(sizes, sizes + num_bags, int64_t{0});
  if (mode != kModeMax) std::copy(sizes, sizes + num_bags, max_indices.data_ptr<int64_t>());
  return {output, toIndexType(offset2bag, itype), toIndexType(bag_size, itype), toIndexType(max_indices, itype)};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> _embedding_bag_meta(const Tensor& weight, const Tensor& indices,
                                                               const Tensor& offsets, bool /*scale_grad_by_freq*/,
                                                               int64_t mode, bool /*sparse*/,
                                                               const std::optional<Tensor>& per_sample_weights,
                                                               bool include_last_offset, int64_t padding_idx) {
  const int64_t num_bags = checkEmbeddingBag(weight, indices, offsets, mode, per_sample_weights, include_last_offset);
  const bool fast = sumFastPath(weight, mode, per_sample_weights, padding_idx);
  const ScalarType itype = indexResultType(indices, offsets);
  const int64_t dim = weight.size(1);
  const Device device = weight.device();
  return {Tensor(detail::empty({num_bags, dim}, weight.scalar_type(), device)),
          Tensor(detail::empty({fast ? 0 : indices.numel()}, itype, device)),
          Tensor(detail::empty({num_bags}, itype, device)),
          Tensor(detail::empty(mode == kModeMax ? IntArrayRef({num_bags, dim}) : IntArrayRef({num_bags}), itype,
                               device))};
}

namespace {

// _embedding_bag_dense_backward's checks, with the shapes named.
void checkDenseBackward(const Tensor& grad, const Tensor& indices, const Tensor& offset2bag, const Tensor& bag_size,
                        const Tensor& maximum_indices, int64_t num_weights, int64_t mode,
                        const std::optional<Tensor>& per_sample_weights) {
  const char* op = "_embedding_bag_dense_backward";
  checkFloatingType(grad, "grad", 1);
  checkDim(grad, op, "grad", 2);
  checkIndexType(indices, "indices", 2, op);
  checkDim(indices, op, "indices", 1);
  checkMode(mode, op);
  OPCORE_CHECK(num_weights >= 0, op, ": num_weights must be non-negative, got ", num_weights);
  const int64_t num_bags = grad.size(0);
  if (mode == kModeMax) {
    checkIndexType(maximum_indices, "maximum_indices", 5, op);
    OPCORE_CHECK(maximum_indices.dim() == 2 && maximum_indices.size(0) == num_bags &&
                     maximum_indices.size(1) == grad.size(1),
                 op, ": expected maximum_indices of grad's shape ", grad.sizes(), " in max mode, got ",
                 maximum_indices.sizes());
  } else {
    checkIndexType(offset2bag, "offset2bag", 3, op);
    OPCORE_CHECK(offset2bag.dim() == 1 && offset2bag.numel() == indices.numel(), op,
                 ": expected offset2bag of indices' shape ", indices.sizes(), ", got ", offset2bag.sizes());
  }
  if (mode != kModeSum) {
    checkIndexType(bag_size, "bag_size", 4, op);
    OPCORE_CHECK(bag_size.dim() == 1 && bag_size.numel() == num_bags, op, ": expected bag_size of shape [",
                 num_bags, "] (a size per row of grad), got ", bag_size.sizes());
  }
  if (per_sample_weights && per_sample_weights->defined()) {
    const Tensor& psw = *per_sample_weights;
    OPCORE_CHECK(mode == kModeSum, op, ": per_sample_weights only supported with mode='sum'");
    OPCORE_CHECK(psw.scalar_type() == grad.scalar_type(), op, ": expected per_sample_weights of grad's dtype ",
                 grad.scalar_type(), ", got ", psw.scalar_type());
    OPCORE_CHECK(psw.dim() == 1 && psw.numel() == indices.numel(), op,
                 ": expected per_sample_weights of indices' shape ", indices.sizes(), ", got ", psw.sizes());
  }
}

// Each element of rows' gradient `src` (one row per entry of `bags`) added into the weight row
// `rows[k]` of `result` with `scales[k]`, or (max mode) per column into maxima's rows. Threads
// own ranges of columns; each element adds in the order of the entries.
template <typename T>
void scatterRows(Tensor& result, const TensorBase& grad, int64_t num_weights, const std::vector<int64_t>& rows,
                 const std::vector<int64_t>& bags, const std::vector<opmath_t<T>>& scales, const int64_t* maxima) {
  using M = opmath_t<T>;
  const int64_t dim = grad.size(1), entries = static_cast<int64_t>(bags.size());
  const bool exact = std::is_same_v<M, T>;
  TensorBase sums = exact ? TensorBase(result) : detail::emptyCpu({num_weights, dim}, CppTypeToScalarType<M>::value);
  M* acc = sums.data_ptr<M>();
  const T* g = grad.data_ptr<T>();
  T* out = result.data_ptr<T>();
  const int64_t grain = std::max<int64_t>(16, (kGrainSize + entries - 1) / std::max<int64_t>(entries, 1));
  parallel_for(0, dim, grain, [&](int64_t begin, int64_t end) {
    const size_t width = static_cast<size_t>(end - begin);
    for (int64_t r = 0; r < num_weights; ++r) std::memset(acc + r * dim + begin, 0, width * sizeof(M));
    for (int64_t k = 0; k < entries; ++k) {
      const T* src = g + bags[k] * dim;
      if (maxima != nullptr) {
        const int64_t* where = maxima + bags[k] * dim;
        for (int64_t c = begin; c < end; ++c) acc[where[c] * dim + c] += static_cast<M>(src[c]);
      } else {
        M* dst = acc + rows[k] * dim;
        const M scale = scales[k];
        for (int64_t c = begin; c < end; ++c) dst[c] += static_cast<M>(src[c]) * scale;
      }
    }
    if constexpr (!exact) {
      for (int64_t r = 0; r < num_weights; ++r) {
        for (int64_t c = begin; c < end; ++c) out[r * dim + c] = static_cast<T>(acc[r * dim + c]);
      }
    }
  });
  (void)out;
}

}  // namespace

Tensor _embedding_bag_dense_backward_cpu(const Tensor& grad_in, const Tensor& indices, const Tensor& offset2bag,
                                         const Tensor& bag_size, const Tensor& maximum_indices, int64_t num_weights,
                                         bool scale_grad_by_freq, int64_t mode,
                                         const std::optional<Tensor>& per_sample_weights, int64_t padding_idx) {
  const char* op = "_embedding_bag_dense_backward";
  cpu::checkCpu(op, {&grad_in, &indices, &offset2bag, &bag_size, &maximum_indices});
  checkDenseBackward(grad_in, indices, offset2bag, bag_size, maximum_indices, num_weights, mode, per_sample_weights);
  const ScalarType dtype = grad_in.scalar_type();
  const int64_t num_bags = grad_in.size(0), dim = grad_in.size(1);
  Tensor result(detail::emptyCpu({num_weights, dim}, dtype));
  if (result.numel() == 0) return result;
  const TensorBase grad = cpu::contiguousCopy(grad_in);
  std::vector<int64_t> rows, bags;
  std::vector<int64_t> maxima;
  std::vector<double> scales;
  if (mode == kModeMax) {
    // The bags of non-zero size, each column's gradient going to the row of its maximum.
    const std::vector<int64_t> sizes = readLongs(bag_size);
    maxima = readLongs(maximum_indices);
    for (int64_t b = 0; b < num_bags; ++b) {
      if (sizes[b] <= 0) continue;
      bags.push_back(b);
      for (int64_t c = 0; c < dim; ++c) {
        const int64_t r = maxima[b * dim + c];
        OPCORE_CHECK(r >= 0 && r < num_weights, op, ": maximum_indices[", b, ", ", c, "] = ", r,
                     " is out of range for ", num_weights, " weights");
      }
    }
  } else {
    const std::vector<int64_t> idx = readLongs(indices), bag_of = readLongs(offset2bag);
    const std::vector<int64_t> sizes = mode == kModeMean ? readLongs(bag_size) : std::vector<int64_t>();
    checkIndices(idx, num_weights, op);
    std::vector<double> psw;
    if (per_sample_weights && per_sample_weights->defined()) {
      const TensorBase p = cpu::contiguousCopy(cpu::convertTo(*per_sample_weights, kDouble));
      psw.assign(p.data_ptr<double>(), p.data_ptr<double>() + p.numel());
    }
    std::vector<int64_t> counts;
    if (scale_grad_by_freq) {
      counts.assign(static_cast<size_t>(num_weights), 0);
      for (const int64_t r : idx) ++counts[static_cast<size_t>(r)];
    }
    // An index of no bag (offset2bag outside [0, num_bags): past the last offset) has none.
    for (size_t i = 0; i < idx.size(); ++i) {
      const int64_t r = idx[i], b = bag_of[i];
      if (r == padding_idx || b < 0 || b >= num_bags) continue;
      double scale = psw.empty() ? 1.0 : psw[i];
      if (mode == kModeMean) scale /= static_cast<double>(sizes[static_cast<size_t>(b)]);
      if (scale_grad_by_freq) scale /= static_cast<double>(counts[static_cast<size_t>(r)]);
      rows.push_back(r);
      bags.push_back(b);
      scales.push_back(scale);
    }
  }
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, op, [&] {
    using M = opmath_t<scalar_t>;
    const std::vector<M> typed(scales.begin(), scales.end());
    scatterRows<scalar_t>(result, grad, num_weights, rows, bags, typed, maxima.empty() ? nullptr : maxima.data());
  });
  return result;
}

Tensor _embedding_bag_dense_backward_meta(const Tensor& grad, const Tensor& indices, const Tensor& offset2bag,
                                          const Tensor& bag_size, const Tensor& maximum_indices, int64_t num_weights,
                                          bool /*scale_grad_by_freq*/, int64_t mode,
                                          const std::optional<Tensor>& per_sample_weights, int64_t /*padding_idx*/) {
  checkDenseBackward(grad, indices, offset2bag, bag_size, maximum_indices, num_weights, mode, per_sample_weights);
  return Tensor(detail::empty({num_weights, grad.size(1)}, grad.scalar_type(), grad.device()));
}

namespace {

void checkPerSampleWeightsBackward(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                   const Tensor& offsets, const Tensor& offset2bag, int64_t mode) {
  const char* op = "_embedding_bag_per_sample_weights_backward";
  OPCORE_CHECK(mode == kModeSum, "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  checkFloatingType(grad, "grad", 1);
  checkDim(grad, op, "grad", 2);
  checkDim(weight, op, "weight", 2);
  OPCORE_CHECK(weight.scalar_type() == grad.scalar_type(), op, ": expected weight of grad's dtype ",
               grad.scalar_type(), ", got ", weight.scalar_type());
  OPCORE_CHECK(weight.size(1) == grad.size(1), op, ": expected grad and weight to have the same number of columns, "
               "got ", grad.sizes(), " and ", weight.sizes());
  checkIndexType(indices, "indices", 3, op);
  checkDim(indices, op, "indices", 1);
  checkIndexType(offsets, "offsets", 4, op);
  checkDim(offsets, op, "offsets", 1);
  checkIndexType(offset2bag, "offset2bag", 5, op);
  OPCORE_CHECK(offset2bag.dim() == 1 && (offset2bag.numel() == indices.numel() || offset2bag.numel() == 0), op,
               ": expected offset2bag of indices' shape ", indices.sizes(), " (or empty), got ", offset2bag.sizes());
}

template <typename T>
OPCORE_CPU_CLONES opmath_t<T> dotRows(const T* a, const T* b, int64_t b_stride, int64_t n) {
  opmath_t<T> sum = 0;
  for (int64_t c = 0; c < n; ++c) sum += static_cast<opmath_t<T>>(a[c]) * static_cast<opmath_t<T>>(b[c * b_stride]);
  return sum;
}

}  // namespace

Tensor _embedding_bag_per_sample_weights_backward_cpu(const Tensor& grad_in, const Tensor& weight,
                                                      const Tensor& indices, const Tensor& offsets,
                                                      const Tensor& offset2bag, int64_t mode, int64_t padding_idx) {
  const char* op = "_embedding_bag_per_sample_weights_backward";
  cpu::checkCpu(op, {&grad_in, &weight, &indices, &offsets, &offset2bag});
  checkPerSampleWeightsBackward(grad_in, weight, indices, offsets, offset2bag, mode);
  const std::vector<int64_t> idx = readLongs(indices);
  const int64_t n = static_cast<int64_t>(idx.size()), num_bags = grad_in.size(0), dim = grad_in.size(1);
  checkIndices(idx, weight.size(0), op);
  std::vector<int64_t> bag_of;
  if (offset2bag.numel() == 0 && n != 0) {
    // Left empty by the forward's fast path: the number of offsets at or before each index, less one.
    const std::vector<int64_t> off = readLongs(offsets);
    std::vector<int64_t> starts(static_cast<size_t>(n) + 1, 0);
    for (const int64_t o : off) {
      OPCORE_CHECK(o >= 0 && o <= n, op, ": offset ", o, " is out of range for ", n, " indices");
      ++starts[static_cast<size_t>(o)];
    }
    bag_of.resize(static_cast<size_t>(n));
    int64_t seen = 0;
    for (int64_t i = 0; i < n; ++i) bag_of[i] = (seen += starts[i]) - 1;
  } else {
    bag_of = readLongs(offset2bag);
  }
  const ScalarType dtype = grad_in.scalar_type();
  Tensor result(detail::emptyCpu({n}, dtype));
  if (n == 0) return result;
  const TensorBase grad = cpu::contiguousCopy(grad_in);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, op, [&] {
    const scalar_t* g = grad.data_ptr<scalar_t>();
    const scalar_t* w = weight.data_ptr<scalar_t>();
    const int64_t s0 = weight.stride(0), s1 = weight.stride(1);
    scalar_t* out = result.data_ptr<scalar_t>();
    const int64_t grain = grainFor(dim);
    parallel_for(0, n, grain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t r = idx[i], b = bag_of[i];
        out[i] = r == padding_idx || b < 0 || b >= num_bags
                     ? scalar_t(0)
                     : static_cast<scalar_t>(dotRows<scalar_t>(g + b * dim, w + r * s0, s1, dim));
      }
    });
  });
  return result;
}

Tensor _embedding_bag_per_sample_weights_backward_meta(const Tensor& grad, const Tensor& weight,
                                                       const Tensor& indices, const Tensor& offsets,
                                                       const Tensor& offset2bag, int64_t mode,
                                                       int64_t /*padding_idx*/) {
  checkPerSampleWeightsBackward(grad, weight, indices, offsets, offset2bag, mode);
  return Tensor(detail::empty({indices.numel()}, grad.scalar_type(), grad.device()));
}

}  // namespace opcore::native

// Embedding bags on the CPU: _embedding_bag (sum, mean and max of bags of weight rows),
// _embedding_bag_dense_backward and _embedding_bag_per_sample_weights_backward, with their Meta
// kernels: the loops here, the checks and the bags in common/EmbeddingBag.cpp (Note [Embedding
// bags]). The forward is threaded over bags; the backward kernels give each thread a range of
// the weight's columns (dense) or of the indices (per_sample_weights), so their results do not
// depend on the thread count.
#include <opcore/core/Empty.h>
#include <opcore/ops/_embedding_bag_dense_backward_native.h>
#include <opcore/ops/_embedding_bag_native.h>
#include <opcore/ops/_embedding_bag_per_sample_weights_backward_native.h>

#include "common/EmbeddingBag.h"
#include "cpu/Loops.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

namespace opcore::native {

namespace {

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

// One bag's row of the output (sum or mean). `rows` and `scales` are the calling thread's lists.
template <typename T>
void reduceBag(const BagInputs& in, int64_t b, const T* w, int64_t row_stride, const T* psw, int64_t dim,
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
  const M divisor = in.mode == kEmbeddingBagMean && count > 0 ? static_cast<M>(count) : M(1);
  sumRows<T>(out, rows.data(), psw != nullptr ? scales.data() : nullptr, count, dim, divisor);
}

// One bag's row of the output in max mode, and the rows of its maxima.
template <typename T>
void maxBag(const BagInputs& in, int64_t b, const T* w, int64_t row_stride, int64_t dim, T* out, int64_t* where) {
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
  const EmbeddingBagPlan plan = planEmbeddingBag(weight_in, indices, offsets, mode, per_sample_weights,
                                                 include_last_offset, padding_idx);
  const int64_t num_bags = plan.num_bags, n = static_cast<int64_t>(plan.idx.size()), dim = weight_in.size(1);
  const ScalarType dtype = weight_in.scalar_type();
  // Rows of unit column stride, read in place (a weight of other strides is copied once).
  const TensorBase weight = weight_in.stride(1) == 1 || dim <= 1 ? TensorBase(weight_in)
                                                                 : cpu::contiguousCopy(weight_in);
  const int64_t row_stride = weight.stride(0);
  Tensor output(detail::emptyCpu({num_bags, dim}, dtype));
  Tensor maxima(detail::emptyCpu(mode == kEmbeddingBagMax ? IntArrayRef({num_bags, dim}) : IntArrayRef({0}), kLong));
  const BagInputs in{plan.idx.data(), n, plan.ends.data(), padding_idx, mode};
  if (num_bags > 0 && dim > 0) {
    const TensorBase psw = has_psw ? cpu::contiguousCopy(*per_sample_weights) : TensorBase();
    const int64_t per_bag = std::max<int64_t>(1, n / num_bags) * dim;
    const int64_t grain = grainFor(per_bag);
    OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "_embedding_bag", [&] {
      using M = opmath_t<scalar_t>;
      const scalar_t* w = weight.data_ptr<scalar_t>();
      scalar_t* out = output.data_ptr<scalar_t>();
      const scalar_t* weights = has_psw ? psw.data_ptr<scalar_t>() : nullptr;
      int64_t* where = maxima.data_ptr<int64_t>();
      parallel_for(0, num_bags, grain, [&](int64_t begin, int64_t end) {
        std::vector<const scalar_t*> rows;
        std::vector<M> scales;
        for (int64_t b = begin; b < end; ++b) {
          scalar_t* row = out + b * dim;
          if (mode == kEmbeddingBagMax) {
            maxBag<scalar_t>(in, b, w, row_stride, dim, row, where + b * dim);
          } else {
            reduceBag<scalar_t>(in, b, w, row_stride, weights, dim, rows, scales, row);
          }
        }
      });
    });
  }
  return embeddingBagResults(plan, mode, output, maxima);
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
          Tensor(detail::empty(mode == kEmbeddingBagMax ? IntArrayRef({num_bags, dim}) : IntArrayRef({num_bags}), itype,
                               device))};
}

namespace {

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
  const EmbeddingBagGradPlan plan = planDenseBackward(grad_in, indices, offset2bag, bag_size, maximum_indices,
                                                      num_weights, scale_grad_by_freq, mode, per_sample_weights,
                                                      padding_idx);
  Tensor result(detail::emptyCpu({num_weights, grad_in.size(1)}, grad_in.scalar_type()));
  if (result.numel() == 0) return result;
  const TensorBase grad = cpu::contiguousCopy(grad_in);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, grad_in.scalar_type(), op, [&] {
    using M = opmath_t<scalar_t>;
    const std::vector<M> typed(plan.scales.begin(), plan.scales.end());
    scatterRows<scalar_t>(result, grad, num_weights, plan.rows, plan.bags, typed,
                          plan.maxima.empty() ? nullptr : plan.maxima.data());
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
  const PerSampleWeightsPlan plan = planPerSampleWeightsBackward(grad_in, weight, indices, offsets, offset2bag, mode);
  const auto n = static_cast<int64_t>(plan.idx.size());
  const int64_t num_bags = grad_in.size(0), dim = grad_in.size(1);
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
        const int64_t r = plan.idx[i], b = plan.bag_of[i];
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

// CPU (and Meta) kernels of the normalization operators (issue #34): native_layer_norm,
// native_batch_norm, native_group_norm and their backward operators. Float, double, and Half /
// BFloat16 computed in float. See Note [Layer norm rows], Note [Batch norm channels] and Note
// [Group norm rows].
#include <opcore/ops/_native_batch_norm_legit_native.h>
#include <opcore/ops/native_batch_norm.h>
#include <opcore/ops/native_batch_norm_backward_native.h>
#include <opcore/ops/native_batch_norm_native.h>
#include <opcore/ops/native_group_norm_backward_native.h>
#include <opcore/ops/native_group_norm_native.h>
#include <opcore/ops/native_layer_norm_backward_native.h>
#include <opcore/ops/native_layer_norm_native.h>
#include <opcore/core/Empty.h>

#include "common/BatchNorm.h"
#include "common/LayerNorm.h"
#include "cpu/Loops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>
#include <vector>

namespace opcore::native {

// Note [Layer norm rows]
// The input is made contiguous and viewed as M rows of N elements (N the product of
// normalized_shape). A thread takes whole rows; each row (4 KiB for 1024 floats) stays in
// cache while it is read three times: its sum (the mean), the sum of its squared deviations
// from the mean (the biased variance; two passes over a row in cache cost little and are more
// accurate than one running update), and the normalized, scaled and shifted result. A Half or
// BFloat16 row is converted to a float buffer first and rounded once when stored; weight and
// bias are converted to the accumulation type once per call. Sums are kept in 64 bytes of
// lanes and combined at the end, so the result does not depend on the thread count.
// The backward takes the rows in a fixed number of blocks (chosen from M alone): each block
// writes its rows' input gradients and adds its rows' weight and bias gradients into a partial
// sum of its own; the partial sums are added in block order at the end.

namespace {

template <typename T>
constexpr bool kReduced = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <typename A>
constexpr int64_t kLanes = 64 / static_cast<int64_t>(sizeof(A));

template <typename A>
OPCORE_CPU_CLONES A rowSquaredDeviations(const A* x, int64_t n, A mean) {
  constexpr int64_t L = kLanes<A>;
  A lanes[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int64_t j = 0; j < L; ++j) {
      const A d = x[i + j] - mean;
      lanes[j] += d * d;
    }
  }
  A sum = 0;
  for (; i < n; ++i) sum += (x[i] - mean) * (x[i] - mean);
  for (int64_t j = 0; j < L; ++j) sum += lanes[j];
  return sum;
}

// y = (x - mean) * rstd * w + b, w and b (each may be null) of n elements.
template <typename A>
OPCORE_CPU_CLONES void normalizeRow(const A* x, A* y, int64_t n, A mean, A rstd, const A* w, const A* b) {
  if (w && b) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i] + b[i];
  } else if (w) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i];
  } else if (b) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd + b[i];
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd;
  }
}

// The two sums of a row's input gradient: sum(dy * w) and sum(dy * w * x) (w null: ones).
template <typename A>
OPCORE_CPU_CLONES void rowGradSums(const A* dy, const A* x, const A* w, int64_t n, A* sum_dy, A* sum_dyx) {
  constexpr int64_t L = kLanes<A>;
  A s1[L] = {}, s2[L] = {};
  int64_t i = 0;
  if (w) {
    for (; i + L <= n; i += L) {
      for (int64_t j = 0; j < L; ++j) {
        const A g = dy[i + j] * w[i + j];
        s1[j] += g;
        s2[j] += g * x[i + j];
      }
    }
  } else {
    for (; i + L <= n; i += L) {
      for (int64_t j = 0; j < L; ++j) {
        s1[j] += dy[i + j];
        s2[j] += dy[i + j] * x[i + j];
      }
    }
  }
  A a = 0, b = 0;
  for (; i < n; ++i) {
    const A g = w ? dy[i] * w[i] : dy[i];
    a += g;
    b += g * x[i];
  }
  for (int64_t j = 0; j < L; ++j) {
    a += s1[j];
    b += s2[j];
  }
  *sum_dy = a;
  *sum_dyx = b;
}

// dx = rstd * dy * w + c1 * x + c2.
template <typename A>
OPCORE_CPU_CLONES void inputGradRow(const A* dy, const A* x, const A* w, A* dx, int64_t n, A rstd, A c1, A c2) {
  if (w) {
    for (int64_t i = 0; i < n; ++i) dx[i] = rstd * dy[i] * w[i] + c1 * x[i] + c2;
  } else {
    for (int64_t i = 0; i < n; ++i) dx[i] = rstd * dy[i] + c1 * x[i] + c2;
  }
}

// dw += dy * (x - mean) * rstd, db += dy (either may be null).
template <typename A>
OPCORE_CPU_CLONES void paramGradRow(const A* dy, const A* x, A* dw, A* db, int64_t n, A mean, A rstd) {
  if (dw) {
    for (int64_t i = 0; i < n; ++i) dw[i] += dy[i] * (x[i] - mean) * rstd;
  }
  if (db) {
    for (int64_t i = 0; i < n; ++i) db[i] += dy[i];
  }
}

template <typename A, typename T>
const A* loadRow(const T* x, int64_t n, A* buf) {
  if constexpr (std::is_same_v<T, A>) {
    return x;
  } else {
    cpu::loops_detail::toFloat(x, buf, n);
    return buf;
  }
}

ScalarType accumulationType(ScalarType dtype) {
  return dtype == kHalf || dtype == kBFloat16 ? kFloat : dtype;
}

// weight or bias converted to the accumulation type, contiguous (undefined when absent).
TensorBase parameterIn(const std::optional<Tensor>& p, ScalarType acc) {
  if (!p || !p->defined()) return TensorBase();
  return cpu::contiguousCopy(cpu::convertTo(*p, acc));
}

template <typename A>
const A* dataOrNull(const TensorBase& t) {
  return t.defined() ? t.data_ptr<A>() : nullptr;
}

template <typename T>
void layerNormForward(const T* x, const TensorBase& weight, const TensorBase& bias, double eps, int64_t M,
                      int64_t N, T* y, T* mean_out, T* rstd_out) {
  using A = opmath_t<T>;
  const A* w = dataOrNull<A>(weight);
  const A* b = dataOrNull<A>(bias);
  const int64_t grain = grainFor(N);
  parallel_for(0, M, grain, [&](int64_t first, int64_t last) {
    std::vector<A> in_buf(kReduced<T> ? N : 0), out_buf(kReduced<T> ? N : 0);
    for (int64_t r = first; r < last; ++r) {
      const A* xr = loadRow<A>(x + r * N, N, in_buf.data());
      A mean = 0, rstd = std::numeric_limits<A>::quiet_NaN();
      if (N > 0) {
        mean = cpu::rowSum(xr, N) / static_cast<A>(N);
        const A var = rowSquaredDeviations(xr, N, mean) / static_cast<A>(N);
        rstd = A(1) / std::sqrt(var + static_cast<A>(eps));
      }
      if constexpr (kReduced<T>) {
        normalizeRow(xr, out_buf.data(), N, mean, rstd, w, b);
        cpu::loops_detail::fromFloat(out_buf.data(), y + r * N, N);
      } else {
        normalizeRow(xr, y + r * N, N, mean, rstd, w, b);
      }
      mean_out[r] = static_cast<T>(mean);
      rstd_out[r] = static_cast<T>(rstd);
    }
  });
}

// The backward's blocks of rows (Note [Layer norm rows]): a function of M alone.
constexpr int64_t kMaxBlocks = 64;

template <typename T>
void layerNormBackward(const T* dy, const T* x, const TensorBase& stats_mean, const TensorBase& stats_rstd,
                       const TensorBase& weight, int64_t M, int64_t N, T* dx, T* dw, T* db) {
  using A = opmath_t<T>;
  const A* w = dataOrNull<A>(weight);
  const A* means = stats_mean.data_ptr<A>();
  const A* rstds = stats_rstd.data_ptr<A>();
  const bool params = dw || db;
  const int64_t blocks = std::min<int64_t>(M, kMaxBlocks);
  const int64_t rows_per_block = blocks > 0 ? (M + blocks - 1) / blocks : 0;
  std::vector<A> partial_w(dw && blocks > 0 ? blocks * N : 0), partial_b(db && blocks > 0 ? blocks * N : 0);
  const int64_t grain = grainFor(rows_per_block * N);
  parallel_for(0, blocks, grain, [&](int64_t first, int64_t last) {
    std::vector<A> dy_buf(kReduced<T> ? N : 0), x_buf(kReduced<T> ? N : 0), dx_buf(kReduced<T> ? N : 0);
    for (int64_t blk = first; blk < last; ++blk) {
      A* pw = dw ? partial_w.data() + blk * N : nullptr;
      A* pb = db ? partial_b.data() + blk * N : nullptr;
      const int64_t r_end = std::min(M, (blk + 1) * rows_per_block);
      for (int64_t r = blk * rows_per_block; r < r_end; ++r) {
        const A* dyr = loadRow<A>(dy + r * N, N, dy_buf.data());
        const A* xr = loadRow<A>(x + r * N, N, x_buf.data());
        const A mean = means[r], rstd = rstds[r];
        if (dx) {
          A sum_dy = 0, sum_dyx = 0;
          rowGradSums(dyr, xr, w, N, &sum_dy, &sum_dyx);
          const A scale = A(1) / static_cast<A>(N);
          const A c1 = (sum_dy * mean - sum_dyx) * rstd * rstd * rstd * scale;
          const A c2 = -c1 * mean - sum_dy * rstd * scale;
          if constexpr (kReduced<T>) {
            inputGradRow(dyr, xr, w, dx_buf.data(), N, rstd, c1, c2);
            cpu::loops_detail::fromFloat(dx_buf.data(), dx + r * N, N);
          } else {
            inputGradRow(dyr, xr, w, dx + r * N, N, rstd, c1, c2);
          }
        }
        if (params) paramGradRow(dyr, xr, pw, pb, N, mean, rstd);
      }
    }
  });
  if (!params) return;
  // The partial sums, added in block order, column ranges in parallel.
  parallel_for(0, N, grainFor(blocks), [&](int64_t first, int64_t last) {
    for (int64_t j = first; j < last; ++j) {
      A sw = 0, sb = 0;
      for (int64_t blk = 0; blk < blocks; ++blk) {
        if (dw) sw += partial_w[blk * N + j];
        if (db) sb += partial_b[blk * N + j];
      }
      if (dw) dw[j] = static_cast<T>(sw);
      if (db) db[j] = static_cast<T>(sb);
    }
  });
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps) {
  const LayerNormShape shape = checkLayerNorm(input, normalized_shape, weight, bias);
  const ScalarType dtype = input.scalar_type();
  checkLayerNormDtype("LayerNormKernelImpl", dtype);
  Tensor out(detail::empty(input.sizes(), dtype, input.device()));
  Tensor mean(detail::empty(shape.stats_shape, dtype, input.device()));
  Tensor rstd(detail::empty(shape.stats_shape, dtype, input.device()));
  if (input.is_meta() || shape.M == 0) return {out, mean, rstd};
  cpu::checkCpu("native_layer_norm", {&input});
  if (weight && weight->defined()) cpu::checkCpu("native_layer_norm", {&*weight});
  if (bias && bias->defined()) cpu::checkCpu("native_layer_norm", {&*bias});
  const ScalarType acc = accumulationType(dtype);
  const TensorBase x = cpu::contiguousCopy(input);
  const TensorBase w = parameterIn(weight, acc), b = parameterIn(bias, acc);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "LayerNormKernelImpl", [&] {
    layerNormForward<scalar_t>(x.data_ptr<scalar_t>(), w, b, eps, shape.M, shape.N, out.data_ptr<scalar_t>(),
                               mean.data_ptr<scalar_t>(), rstd.data_ptr<scalar_t>());
  });
  return {out, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              IntArrayRef normalized_shape, const Tensor& mean,
                                                              const Tensor& rstd, const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& bias,
                                                              std::array<bool, 3> output_mask) {
  const LayerNormShape shape = checkLayerNormBackward(grad_out, input, normalized_shape, mean, rstd, weight, bias);
  const ScalarType dtype = input.scalar_type();
  const Device device = input.device();
  Tensor dx, dw, db;
  if (output_mask[0]) dx = Tensor(detail::empty(input.sizes(), dtype, device));
  if (output_mask[1]) dw = Tensor(detail::empty(normalized_shape, dtype, device));
  if (output_mask[2]) db = Tensor(detail::empty(normalized_shape, dtype, device));
  if (input.is_meta()) return {dx, dw, db};
  cpu::checkCpu("native_layer_norm_backward", {&grad_out, &input, &mean, &rstd});
  if (weight && weight->defined()) cpu::checkCpu("native_layer_norm_backward", {&*weight});
  const ScalarType acc = accumulationType(dtype);
  const TensorBase dy = cpu::contiguousCopy(cpu::convertTo(grad_out, dtype));
  const TensorBase x = cpu::contiguousCopy(input);
  const TensorBase m = cpu::contiguousCopy(cpu::convertTo(mean, acc));
  const TensorBase r = cpu::contiguousCopy(cpu::convertTo(rstd, acc));
  const TensorBase w = parameterIn(weight, acc);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "LayerNormBackwardKernelImpl", [&] {
    scalar_t* dwp = dw.defined() ? dw.data_ptr<scalar_t>() : nullptr;
    scalar_t* dbp = db.defined() ? db.data_ptr<scalar_t>() : nullptr;
    if (shape.M == 0) {  // no rows: the parameters' gradients are zero
      for (int64_t j = 0; j < shape.N; ++j) {
        if (dwp) dwp[j] = scalar_t(0);
        if (dbp) dbp[j] = scalar_t(0);
      }
      return;
    }
    layerNormBackward<scalar_t>(dy.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), m, r, w, shape.M, shape.N,
                                dx.defined() ? dx.data_ptr<scalar_t>() : nullptr, dwp, dbp);
  });
  return {dx, dw, db};
}

// --- batch norm (Note [Batch norm channels]) ---

// Note [Batch norm channels]
// The input [N, C, *] is made contiguous and viewed as N x C chunks of HW elements (HW the
// product of the sizes after C); a channel's elements are its N chunks. A thread takes whole
// channels (training and the backward: a channel's statistics need all of its chunks), and
// runs over a channel's chunks three times: the sum (the mean), the squared deviations from
// the mean (the biased variance), and y = x * scale + shift, scale = invstd * weight and
// shift = bias - mean * scale. A channel of 32 x 56 x 56 floats is 392 KiB, which stays in L2
// between the passes. Evaluation needs no statistics and takes the N x C chunks in any order.

namespace {

struct ChannelShape {
  int64_t N = 1, C = 1, HW = 1;
  int64_t count() const { return N * HW; }
};

ChannelShape channelShapeOf(const TensorBase& input) {
  ChannelShape s;
  s.N = input.size(0);
  s.C = input.dim() > 1 ? input.size(1) : 1;
  for (int64_t d = 2; d < input.dim(); ++d) s.HW *= input.size(d);
  return s;
}

template <typename A>
OPCORE_CPU_CLONES void affineRow(const A* x, A* y, int64_t n, A scale, A shift) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * scale + shift;
}

// sum(dy * (x - mean)) and sum(dy) of a chunk.
template <typename A>
OPCORE_CPU_CLONES void centeredDot(const A* dy, const A* x, int64_t n, A mean, A* dot_out, A* sum_out) {
  constexpr int64_t L = kLanes<A>;
  A s1[L] = {}, s2[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int64_t j = 0; j < L; ++j) {
      s1[j] += dy[i + j] * (x[i + j] - mean);
      s2[j] += dy[i + j];
    }
  }
  A dot = 0, sum = 0;
  for (; i < n; ++i) {
    dot += dy[i] * (x[i] - mean);
    sum += dy[i];
  }
  for (int64_t j = 0; j < L; ++j) {
    dot += s1[j];
    sum += s2[j];
  }
  *dot_out += dot;
  *sum_out += sum;
}

// dx = dy * a + x * b + c.
template <typename A>
OPCORE_CPU_CLONES void linearGradRow(const A* dy, const A* x, A* dx, int64_t n, A a, A b, A c) {
  for (int64_t i = 0; i < n; ++i) dx[i] = dy[i] * a + x[i] * b + c;
}

template <typename T, typename A>
void storeChunk(const A* values, T* out, int64_t n) {
  if constexpr (!std::is_same_v<T, A>) cpu::loops_detail::fromFloat(values, out, n);
}

// Training: the statistics of each channel, then the normalized output. `mean` and `var` (the
// biased variance) are written per channel in the accumulation type.
template <typename T>
void batchNormTrain(const T* x, const ChannelShape& s, const opmath_t<T>* w, const opmath_t<T>* b, double eps, T* y,
                    opmath_t<T>* mean_out, opmath_t<T>* var_out) {
  using A = opmath_t<T>;
  const int64_t HW = s.HW;
  const int64_t grain = grainFor(s.count());
  parallel_for(0, s.C, grain, [&](int64_t first, int64_t last) {
    std::vector<A> in_buf(kReduced<T> ? HW : 0), out_buf(kReduced<T> ? HW : 0);
    for (int64_t c = first; c < last; ++c) {
      A sum = 0;
      for (int64_t n = 0; n < s.N; ++n) sum += cpu::rowSum(loadRow<A>(x + (n * s.C + c) * HW, HW, in_buf.data()), HW);
      const A mean = sum / static_cast<A>(s.count());
      A sq = 0;
      for (int64_t n = 0; n < s.N; ++n) {
        sq += rowSquaredDeviations(loadRow<A>(x + (n * s.C + c) * HW, HW, in_buf.data()), HW, mean);
      }
      const A var = sq / static_cast<A>(s.count());
      const A invstd = A(1) / std::sqrt(var + static_cast<A>(eps));
      const A scale = invstd * (w ? w[c] : A(1));
      const A shift = (b ? b[c] : A(0)) - mean * scale;
      for (int64_t n = 0; n < s.N; ++n) {
        const int64_t off = (n * s.C + c) * HW;
        const A* xr = loadRow<A>(x + off, HW, in_buf.data());
        if constexpr (kReduced<T>) {
          affineRow(xr, out_buf.data(), HW, scale, shift);
          storeChunk(out_buf.data(), y + off, HW);
        } else {
          affineRow(xr, y + off, HW, scale, shift);
        }
      }
      mean_out[c] = mean;
      var_out[c] = var;
    }
  });
}

// Evaluation (or any per-channel affine map): y = x * scale[c] + shift[c], chunks in parallel.
template <typename T>
void channelAffine(const T* x, const ChannelShape& s, const opmath_t<T>* scale, const opmath_t<T>* shift, T* y) {
  using A = opmath_t<T>;
  const int64_t HW = s.HW;
  const int64_t grain = grainFor(HW);
  parallel_for(0, s.N * s.C, grain, [&](int64_t first, int64_t last) {
    std::vector<A> in_buf(kReduced<T> ? HW : 0), out_buf(kReduced<T> ? HW : 0);
    for (int64_t k = first; k < last; ++k) {
      const int64_t c = k % s.C;
      const A* xr = loadRow<A>(x + k * HW, HW, in_buf.data());
      if constexpr (kReduced<T>) {
        affineRow(xr, out_buf.data(), HW, scale[c], shift[c]);
        storeChunk(out_buf.data(), y + k * HW, HW);
      } else {
        affineRow(xr, y + k * HW, HW, scale[c], shift[c]);
      }
    }
  });
}

// The backward, per channel: from its mean and invstd (the saved ones in training, the
// running ones in evaluation). Training: dx = (dy - sum(dy) / n - (x - mean) * invstd^2 *
// sum(dy * (x - mean)) / n) * invstd * w; evaluation: dx = dy * invstd * w. Both:
// dw = sum(dy * (x - mean)) * invstd, db = sum(dy).
template <typename T>
void batchNormBackward(const T* dy, const T* x, const ChannelShape& s, const opmath_t<T>* w,
                       const opmath_t<T>* means, const opmath_t<T>* invstds, bool train, T* dx,
                       opmath_t<T>* dw, opmath_t<T>* db) {
  using A = opmath_t<T>;
  const int64_t HW = s.HW;
  const int64_t grain = grainFor(s.count());
  parallel_for(0, s.C, grain, [&](int64_t first, int64_t last) {
    std::vector<A> dy_buf(kReduced<T> ? HW : 0), x_buf(kReduced<T> ? HW : 0), out_buf(kReduced<T> ? HW : 0);
    for (int64_t c = first; c < last; ++c) {
      const A mean = means[c], invstd = invstds[c], wc = w ? w[c] : A(1);
      A dot = 0, sum = 0;
      if (train || dw || db) {
        for (int64_t n = 0; n < s.N; ++n) {
          const int64_t off = (n * s.C + c) * HW;
          centeredDot(loadRow<A>(dy + off, HW, dy_buf.data()), loadRow<A>(x + off, HW, x_buf.data()), HW, mean,
                      &dot, &sum);
        }
      }
      if (dx) {
        A a = invstd * wc, b = 0, k = 0;
        if (train) {
          const A inv_n = A(1) / static_cast<A>(s.count());
          const A proj = dot * invstd * invstd * inv_n;
          b = -proj * a;
          k = (mean * proj - sum * inv_n) * a;
        }
        for (int64_t n = 0; n < s.N; ++n) {
          const int64_t off = (n * s.C + c) * HW;
          const A* dyr = loadRow<A>(dy + off, HW, dy_buf.data());
          const A* xr = loadRow<A>(x + off, HW, x_buf.data());
          if constexpr (kReduced<T>) {
            linearGradRow(dyr, xr, out_buf.data(), HW, a, b, k);
            storeChunk(out_buf.data(), dx + off, HW);
          } else {
            linearGradRow(dyr, xr, dx + off, HW, a, b, k);
          }
        }
      }
      if (dw) dw[c] = dot * invstd;
      if (db) db[c] = sum;
    }
  });
}

}  // namespace

namespace {

TensorBase owned(const TensorBase& t) {
  return t.defined() ? cpu::ownedCopy(t) : t;
}

// A per-channel tensor as `channels` values of the accumulation type (nullptr when absent).
TensorBase channelValues(const std::optional<Tensor>& t, ScalarType acc) {
  if (!isDefined(t)) return TensorBase();
  return cpu::contiguousCopy(cpu::convertTo(*t, acc));
}

// Writes `values` (channels of type A) into the per-channel tensor `t`, converting.
void writeChannels(const Tensor& t, const TensorBase& values) {
  cpu::copyInto(t, values);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var, bool training,
                                                     double momentum, double eps) {
  const auto [out, save_mean, save_invstd] = batchNormResults(input, weight, bias, running_mean, running_var, training);
  if (input.is_meta()) return {out, save_mean, save_invstd};
  const int64_t channels = input.size(1);
  const ScalarType dtype = input.scalar_type();
  cpu::checkCpu("native_batch_norm", {&input});
  const ScalarType acc = accumulationType(dtype);
  const TensorBase x = cpu::contiguousCopy(input);
  const ChannelShape s = channelShapeOf(x);
  const TensorBase w = channelValues(weight, acc), b = channelValues(bias, acc);
  if (training) {
    const TensorBase mean = detail::emptyCpu({channels}, acc), var = detail::emptyCpu({channels}, acc);
    OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "batch_norm", [&] {
      using A = opmath_t<scalar_t>;
      if (s.count() == 0) {  // no elements: NaN statistics, as 0 / 0
        std::fill_n(mean.data_ptr<A>(), channels, std::numeric_limits<A>::quiet_NaN());
        std::fill_n(var.data_ptr<A>(), channels, std::numeric_limits<A>::quiet_NaN());
        return;
      }
      batchNormTrain<scalar_t>(x.data_ptr<scalar_t>(), s, dataOrNull<A>(w), dataOrNull<A>(b), eps,
                               out.data_ptr<scalar_t>(), mean.data_ptr<A>(), var.data_ptr<A>());
      A* invstd = var.data_ptr<A>();  // var is not needed once the running statistics are updated
      const A* m = mean.data_ptr<A>();
      if (isDefined(running_mean) || isDefined(running_var)) {
        const TensorBase rm = owned(channelValues(running_mean, acc)), rv = owned(channelValues(running_var, acc));
        const A count = static_cast<A>(s.count());
        const A unbiased = count > 1 ? count / (count - 1) : std::numeric_limits<A>::infinity();
        const A mom = static_cast<A>(momentum);
        if (rm.defined()) {
          A* p = rm.data_ptr<A>();
          for (int64_t c = 0; c < channels; ++c) p[c] = (A(1) - mom) * p[c] + mom * m[c];
          writeChannels(*running_mean, rm);
        }
        if (rv.defined()) {
          A* p = rv.data_ptr<A>();
          for (int64_t c = 0; c < channels; ++c) p[c] = (A(1) - mom) * p[c] + mom * invstd[c] * unbiased;
          writeChannels(*running_var, rv);
        }
      }
      for (int64_t c = 0; c < channels; ++c) invstd[c] = A(1) / std::sqrt(invstd[c] + static_cast<A>(eps));
    });
    writeChannels(save_mean, mean);
    writeChannels(save_invstd, var);
    return {out, save_mean, save_invstd};
  }
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "batch_norm", [&] {
    using A = opmath_t<scalar_t>;
    const TensorBase rm = channelValues(running_mean, acc), rv = channelValues(running_var, acc);
    std::vector<A> scale(static_cast<size_t>(channels)), shift(static_cast<size_t>(channels));
    const A* wp = dataOrNull<A>(w);
    const A* bp = dataOrNull<A>(b);
    for (int64_t c = 0; c < channels; ++c) {
      const A invstd = A(1) / std::sqrt(rv.data_ptr<A>()[c] + static_cast<A>(eps));
      scale[c] = invstd * (wp ? wp[c] : A(1));
      shift[c] = (bp ? bp[c] : A(0)) - rm.data_ptr<A>()[c] * scale[c];
    }
    if (x.numel() > 0) channelAffine<scalar_t>(x.data_ptr<scalar_t>(), s, scale.data(), shift.data(), out.data_ptr<scalar_t>());
  });
  return {out, save_mean, save_invstd};
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& running_mean,
                                                              const std::optional<Tensor>& running_var,
                                                              const std::optional<Tensor>& save_mean,
                                                              const std::optional<Tensor>& save_invstd, bool train,
                                                              double eps, std::array<bool, 3> output_mask) {
  const BatchNormGrads g = batchNormGrads(grad_out, input, weight, running_mean, running_var, save_mean,
                                          save_invstd, train, output_mask);
  const Tensor &dx = g.grad_input, &dw = g.grad_weight, &db = g.grad_bias;
  if (input.is_meta()) return {dx, dw, db};
  const int64_t channels = input.size(1);
  const ScalarType dtype = input.scalar_type();
  cpu::checkCpu("native_batch_norm_backward", {&grad_out, &input});
  const ScalarType acc = accumulationType(dtype);
  const TensorBase x = cpu::contiguousCopy(input);
  const TensorBase dy = cpu::contiguousCopy(cpu::convertTo(grad_out, dtype));
  const ChannelShape s = channelShapeOf(x);
  const TensorBase w = channelValues(weight, acc), means = channelValues(*g.mean, acc);
  TensorBase invstds = channelValues(*g.var, acc);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "batch_norm_backward", [&] {
    using A = opmath_t<scalar_t>;
    if (!train) {  // the running variance as 1 / sqrt(var + eps), in a copy of its own
      invstds = cpu::ownedCopy(invstds);
      A* p = invstds.data_ptr<A>();
      for (int64_t c = 0; c < channels; ++c) p[c] = A(1) / std::sqrt(p[c] + static_cast<A>(eps));
    }
    const TensorBase gw = detail::emptyCpu({channels}, acc), gb = detail::emptyCpu({channels}, acc);
    A* gwp = dw.defined() ? gw.data_ptr<A>() : nullptr;
    A* gbp = db.defined() ? gb.data_ptr<A>() : nullptr;
    if (s.count() == 0) {
      for (int64_t c = 0; c < channels; ++c) {
        if (gwp) gwp[c] = A(0);
        if (gbp) gbp[c] = A(0);
      }
    } else {
      batchNormBackward<scalar_t>(dy.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), s, dataOrNull<A>(w),
                                  means.data_ptr<A>(), invstds.data_ptr<A>(), train,
                                  dx.defined() ? dx.data_ptr<scalar_t>() : nullptr, gwp, gbp);
    }
    if (dw.defined()) writeChannels(dw, gw);
    if (db.defined()) writeChannels(db, gb);
  });
  return {dx, dw, db};
}

// --- group norm (Note [Group norm rows]) ---

// Note [Group norm rows]
// The input [N, C, HxW] is contiguous, so the C / group channels of one (sample, group) are one
// row of D = C / group * HxW elements: its statistics are a layer norm row's (Note [Layer norm
// rows]), and its result is HxW elements per channel, y = x * scale + shift with scale = rstd *
// weight[c], shift = bias[c] - mean * scale. A thread takes whole rows. The backward takes a
// row's per-channel sums (of dy and dy * x), computes its input gradient from them, and keeps
// them in [N, C] buffers, from which the weight's and bias's gradients are summed over the
// samples in order (so results do not depend on the thread count).

namespace {

struct GroupShape {
  int64_t N = 0, C = 0, HxW = 0, G = 1;
  int64_t channelsPerGroup() const { return C / G; }
  int64_t rowLength() const { return C / G * HxW; }
};

template <typename T>
void groupNormForward(const T* x, const GroupShape& s, const opmath_t<T>* w, const opmath_t<T>* b, double eps, T* y,
                      T* mean_out, T* rstd_out) {
  using A = opmath_t<T>;
  const int64_t D = s.rowLength(), cpg = s.channelsPerGroup(), HxW = s.HxW;
  const int64_t grain = grainFor(D);
  parallel_for(0, s.N * s.G, grain, [&](int64_t first, int64_t last) {
    std::vector<A> in_buf(kReduced<T> ? D : 0), out_buf(kReduced<T> ? HxW : 0);
    for (int64_t r = first; r < last; ++r) {
      const A* xr = loadRow<A>(x + r * D, D, in_buf.data());
      A mean = 0, rstd = std::numeric_limits<A>::quiet_NaN();
      if (D > 0) {
        mean = cpu::rowSum(xr, D) / static_cast<A>(D);
        rstd = A(1) / std::sqrt(rowSquaredDeviations(xr, D, mean) / static_cast<A>(D) + static_cast<A>(eps));
      }
      const int64_t g = r % s.G;
      for (int64_t k = 0; k < cpg; ++k) {
        const int64_t c = g * cpg + k;
        const A scale = rstd * (w ? w[c] : A(1));
        const A shift = (b ? b[c] : A(0)) - mean * scale;
        T* yr = y + r * D + k * HxW;
        if constexpr (kReduced<T>) {
          affineRow(xr + k * HxW, out_buf.data(), HxW, scale, shift);
          cpu::loops_detail::fromFloat(out_buf.data(), yr, HxW);
        } else {
          affineRow(xr + k * HxW, yr, HxW, scale, shift);
        }
      }
      mean_out[r] = static_cast<T>(mean);
      rstd_out[r] = static_cast<T>(rstd);
    }
  });
}

// ds[n, c] = sum of dy * x and db[n, c] = sum of dy over channel c of sample n; dx from them.
template <typename T>
void groupNormBackward(const T* dy, const T* x, const GroupShape& s, const opmath_t<T>* means,
                       const opmath_t<T>* rstds, const opmath_t<T>* w, T* dx, opmath_t<T>* ds, opmath_t<T>* db) {
  using A = opmath_t<T>;
  const int64_t D = s.rowLength(), cpg = s.channelsPerGroup(), HxW = s.HxW;
  const int64_t grain = grainFor(D);
  parallel_for(0, s.N * s.G, grain, [&](int64_t first, int64_t last) {
    std::vector<A> dy_buf(kReduced<T> ? D : 0), x_buf(kReduced<T> ? D : 0), out_buf(kReduced<T> ? HxW : 0);
    for (int64_t r = first; r < last; ++r) {
      const A* dyr = loadRow<A>(dy + r * D, D, dy_buf.data());
      const A* xr = loadRow<A>(x + r * D, D, x_buf.data());
      const int64_t n = r / s.G, g = r % s.G;
      A ds_g = 0, db_g = 0;
      for (int64_t k = 0; k < cpg; ++k) {
        const int64_t c = g * cpg + k;
        A dot = 0, sum = 0;
        centeredDot(dyr + k * HxW, xr + k * HxW, HxW, A(0), &dot, &sum);
        ds[n * s.C + c] = dot;
        db[n * s.C + c] = sum;
        const A wc = w ? w[c] : A(1);
        ds_g += dot * wc;
        db_g += sum * wc;
      }
      if (!dx) continue;
      const A mean = means[r], rstd = rstds[r];
      const A inv_d = A(1) / static_cast<A>(D);
      const A c2 = (db_g * mean - ds_g) * rstd * rstd * rstd * inv_d;
      const A c3 = -c2 * mean - db_g * rstd * inv_d;
      for (int64_t k = 0; k < cpg; ++k) {
        const int64_t c = g * cpg + k;
        const A c1 = rstd * (w ? w[c] : A(1));
        if constexpr (kReduced<T>) {
          linearGradRow(dyr + k * HxW, xr + k * HxW, out_buf.data(), HxW, c1, c2, c3);
          cpu::loops_detail::fromFloat(out_buf.data(), dx + r * D + k * HxW, HxW);
        } else {
          linearGradRow(dyr + k * HxW, xr + k * HxW, dx + r * D + k * HxW, HxW, c1, c2, c3);
        }
      }
    }
  });
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, int64_t N, int64_t C,
                                                     int64_t HxW, int64_t group, double eps) {
  const auto [out, mean, rstd] = groupNormResults(input, weight, bias, N, C, HxW, group);
  if (input.is_meta() || N * group == 0) return {out, mean, rstd};
  const ScalarType dtype = input.scalar_type();
  cpu::checkCpu("native_group_norm", {&input});
  const ScalarType acc = accumulationType(dtype);
  const TensorBase x = cpu::contiguousCopy(input);
  const TensorBase w = channelValues(weight, acc), b = channelValues(bias, acc);
  const GroupShape s{N, C, HxW, group};
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "GroupNormKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    groupNormForward<scalar_t>(x.data_ptr<scalar_t>(), s, dataOrNull<A>(w), dataOrNull<A>(b), eps,
                               out.data_ptr<scalar_t>(), mean.data_ptr<scalar_t>(), rstd.data_ptr<scalar_t>());
  });
  return {out, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              const Tensor& mean, const Tensor& rstd,
                                                              const std::optional<Tensor>& weight, int64_t N,
                                                              int64_t C, int64_t HxW, int64_t group,
                                                              std::array<bool, 3> output_mask) {
  const GroupNormGrads g = groupNormGrads(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask);
  const Tensor &dx = g.grad_input, &dw = g.grad_weight, &db = g.grad_bias;
  if (input.is_meta()) return {dx, dw, db};
  const ScalarType dtype = input.scalar_type();
  cpu::checkCpu("native_group_norm_backward", {&grad_out, &input, &mean, &rstd});
  const ScalarType acc = accumulationType(dtype);
  const TensorBase x = cpu::contiguousCopy(input);
  const TensorBase dy = cpu::contiguousCopy(cpu::convertTo(grad_out, dtype));
  const TensorBase m = cpu::contiguousCopy(cpu::convertTo(mean, acc));
  const TensorBase r = cpu::contiguousCopy(cpu::convertTo(rstd, acc));
  const TensorBase w = channelValues(weight, acc);
  const GroupShape s{N, C, HxW, group};
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "GroupNormBackwardKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    std::vector<A> ds(static_cast<size_t>(N * C)), dbs(static_cast<size_t>(N * C));
    if (N * group > 0) {
      groupNormBackward<scalar_t>(dy.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), s, m.data_ptr<A>(), r.data_ptr<A>(),
                                  dataOrNull<A>(w), dx.defined() ? dx.data_ptr<scalar_t>() : nullptr, ds.data(),
                                  dbs.data());
    }
    const A* mp = m.data_ptr<A>();
    const A* rp = r.data_ptr<A>();
    const int64_t cpg = C / group;
    for (int64_t c = 0; c < C; ++c) {  // the parameters' gradients, summed over the samples in order
      A sw = 0, sb = 0;
      for (int64_t n = 0; n < N; ++n) {
        const int64_t row = n * group + c / cpg;
        sw += (ds[n * C + c] - dbs[n * C + c] * mp[row]) * rp[row];
        sb += dbs[n * C + c];
      }
      if (dw.defined()) dw.data_ptr<scalar_t>()[c] = static_cast<scalar_t>(sw);
      if (db.defined()) db.data_ptr<scalar_t>()[c] = static_cast<scalar_t>(sb);
    }
  });
  return {dx, dw, db};
}

// --- PyTorch 2's batch norm schemas: _native_batch_norm_legit (running statistics as mutable
// arguments, or none: .no_stats) and _native_batch_norm_legit_no_training, on native_batch_norm.

std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit(const Tensor& input, const std::optional<Tensor>& weight,
                                                            const std::optional<Tensor>& bias, Tensor& running_mean,
                                                            Tensor& running_var, bool training, double momentum,
                                                            double eps) {
  return opcore::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
}

namespace {

// The out= forms' results: each value resized into its out= argument (of its dtype) and copied
// there (on the Meta device: only resized).
std::tuple<Tensor&, Tensor&, Tensor&> copyBatchNormResults(const char* name,
                                                           const std::tuple<Tensor, Tensor, Tensor>& values,
                                                           bool meta, Tensor& out, Tensor& save_mean,
                                                           Tensor& save_invstd) {
  const std::pair<Tensor*, const Tensor*> results[] = {
      {&out, &std::get<0>(values)}, {&save_mean, &std::get<1>(values)}, {&save_invstd, &std::get<2>(values)}};
  for (const auto& [target, value] : results) {
    OPCORE_CHECK(target->scalar_type() == value->scalar_type(), name, ": expected an out tensor of dtype ",
                 value->scalar_type(), ", but got ", target->scalar_type());
    detail::resizeOutput(*target, value->sizes());
    if (!meta) cpu::copyInto(*target, *value);
  }
  return {out, save_mean, save_invstd};
}

}  // namespace

std::tuple<Tensor&, Tensor&, Tensor&> _native_batch_norm_legit_out(const Tensor& input,
                                                                   const std::optional<Tensor>& weight,
                                                                   const std::optional<Tensor>& bias,
                                                                   Tensor& running_mean, Tensor& running_var,
                                                                   bool training, double momentum, double eps,
                                                                   Tensor& out, Tensor& save_mean,
                                                                   Tensor& save_invstd) {
  return copyBatchNormResults(
      "_native_batch_norm_legit_out",
      opcore::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps), input.is_meta(),
      out, save_mean, save_invstd);
}

std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_stats(const Tensor& input,
                                                                     const std::optional<Tensor>& weight,
                                                                     const std::optional<Tensor>& bias, bool training,
                                                                     double momentum, double eps) {
  return opcore::native_batch_norm(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps);
}

std::tuple<Tensor&, Tensor&, Tensor&> _native_batch_norm_legit_no_stats_out(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, bool training,
    double momentum, double eps, Tensor& out, Tensor& save_mean, Tensor& save_invstd) {
  return copyBatchNormResults(
      "_native_batch_norm_legit.no_stats_out",
      opcore::native_batch_norm(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps), input.is_meta(),
      out, save_mean, save_invstd);
}

}  // namespace opcore::native

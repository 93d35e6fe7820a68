// CPU (and Meta) kernels of the normalization operators (issue #34): native_layer_norm and its
// backward. Float, double, and Half / BFloat16 computed in float. See Note [Layer norm rows].
#include <opcore/ops/native_layer_norm_backward_native.h>
#include <opcore/ops/native_layer_norm_native.h>
#include <opcore/core/Empty.h>

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
OPCORE_CPU_CLONES A rowSum(const A* x, int64_t n) {
  constexpr int64_t L = kLanes<A>;
  A lanes[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int64_t j = 0; j < L; ++j) lanes[j] += x[i + j];
  }
  A sum = 0;
  for (; i < n; ++i) sum += x[i];
  for (int64_t j = 0; j < L; ++j) sum += lanes[j];
  return sum;
}

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

// --- checks and shapes shared by both directions and the Meta key ---

struct LayerNormShape {
  int64_t M = 1, N = 1;
  std::vector<int64_t> stats_shape;  // the input's leading sizes, then ones
};

std::string listText(IntArrayRef v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// PyTorch's checks (_check_layer_norm_inputs) and messages.
LayerNormShape checkLayerNorm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                              const std::optional<Tensor>& bias) {
  const int64_t normalized_ndim = static_cast<int64_t>(normalized_shape.size());
  OPCORE_CHECK(normalized_ndim >= 1, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
               "least one element, but got normalized_shape = ", normalized_shape);
  if (weight && weight->defined()) {
    OPCORE_CHECK(weight->sizes() == normalized_shape, "Expected weight to be of same shape as normalized_shape, but "
                 "got weight of shape ", weight->sizes(), " and normalized_shape = ", normalized_shape);
  }
  if (bias && bias->defined()) {
    OPCORE_CHECK(bias->sizes() == normalized_shape, "Expected bias to be of same shape as normalized_shape, but got "
                 "bias of shape ", bias->sizes(), " and normalized_shape = ", normalized_shape);
  }
  const IntArrayRef sizes = input.sizes();
  const int64_t ndim = input.dim();
  bool matches = ndim >= normalized_ndim;
  for (int64_t i = 0; matches && i < normalized_ndim; ++i) {
    matches = sizes[ndim - normalized_ndim + i] == normalized_shape[i];
  }
  if (!matches) {
    std::ostringstream expected;
    expected << "[*";
    for (const int64_t s : normalized_shape) expected << ", " << s;
    expected << "]";
    OPCORE_CHECK(false, "Given normalized_shape=", listText(normalized_shape), ", expected input with shape ",
                 expected.str(), ", but got input of size", sizes);
  }
  LayerNormShape shape;
  const int64_t axis = ndim - normalized_ndim;
  for (int64_t i = 0; i < ndim; ++i) {
    if (i < axis) {
      shape.M *= sizes[i];
      shape.stats_shape.push_back(sizes[i]);
    } else {
      shape.N *= sizes[i];
      shape.stats_shape.push_back(1);
    }
  }
  return shape;
}

void checkLayerNormDtype(const char* name, ScalarType dtype) {
  if (dtype != kFloat && dtype != kDouble && dtype != kBFloat16 && dtype != kHalf) {
    detail::throwNotImplementedForDtype(name, dtype);
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
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(N, 1));
  parallel_for(0, M, grain, [&](int64_t first, int64_t last) {
    std::vector<A> in_buf(kReduced<T> ? N : 0), out_buf(kReduced<T> ? N : 0);
    for (int64_t r = first; r < last; ++r) {
      const A* xr = loadRow<A>(x + r * N, N, in_buf.data());
      A mean = 0, rstd = std::numeric_limits<A>::quiet_NaN();
      if (N > 0) {
        mean = rowSum(xr, N) / static_cast<A>(N);
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
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(rows_per_block * N, 1));
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
  parallel_for(0, N, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(blocks, 1)), [&](int64_t first, int64_t last) {
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
  const LayerNormShape shape = checkLayerNorm(input, normalized_shape, weight, bias);
  const ScalarType dtype = input.scalar_type();
  checkLayerNormDtype("LayerNormBackwardKernelImpl", dtype);
  OPCORE_CHECK(grad_out.sizes() == input.sizes(), "native_layer_norm_backward: expected grad_out of size ",
               input.sizes(), ", but got ", grad_out.sizes());
  OPCORE_CHECK(mean.numel() == shape.M && rstd.numel() == shape.M, "native_layer_norm_backward: expected mean and "
               "rstd of ", shape.M, " elements, but got ", mean.numel(), " and ", rstd.numel());
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

}  // namespace opcore::native

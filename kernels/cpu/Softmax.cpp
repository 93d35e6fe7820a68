// CPU kernels of the softmax family (issue #34): the impls of the structured _softmax.out,
// _log_softmax.out and their backward operators. One pass structure for every dtype: float,
// double, and Half / BFloat16 computed in float. See Note [Softmax rows].
#include <opcore/ops/_log_softmax_backward_data_native.h>
#include <opcore/ops/_log_softmax_native.h>
#include <opcore/ops/_softmax_backward_data_native.h>
#include <opcore/ops/_softmax_native.h>
#include <opcore/core/Empty.h>

#include "common/pointwise/Softmax.h"
#include "cpu/Loops.h"
#include "cpu/VecMath.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace opcore::native {

// Note [Softmax rows]
// The input is made contiguous and viewed as [outer, len, inner], len the softmax dimension.
// - dim last (inner == 1): each row of len elements is contiguous. A thread takes whole rows
//   and runs over each in cache: its maximum, x - max into the output row, exp over the row
//   (vecMap: SLEEF's vector exp, Note [Vectorized math]), the sum, and the scaling. A Half or
//   BFloat16 row is converted to a float buffer first and rounded once when stored.
// - dim not last: the elements of one softmax are `inner` apart, and the `inner` softmaxes of
//   one outer index lie side by side. A thread takes a block of W neighbouring columns (W
//   elements of each of the len rows, a cache line or more, len * W elements about 2 MiB: see
//   kBlockBytes), copies it into a contiguous [len, W] buffer, and computes the W softmaxes
//   together: the loops over a row of the block vectorize across the columns, and exp runs
//   once over the whole buffer. Then the block is copied into the output.
// Maxima and sums are kept in lanes (16 floats, 8 doubles) and combined at the end: the order
// of the additions is fixed by the row's length, so results do not depend on the threads.
// The backward kernels have the same two layouts.

namespace {

enum class Op { Softmax, LogSoftmax };

template <typename T>
constexpr bool kReduced = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// The number of lanes a row's maximum or sum is kept in: 64 bytes of them.
template <typename A>
constexpr int64_t kLanes = 64 / static_cast<int64_t>(sizeof(A));

template <typename A>
OPCORE_CPU_CLONES A rowMax(const A* x, int64_t n) {
  constexpr int64_t L = kLanes<A>;
  A lanes[L];
  for (int64_t j = 0; j < L; ++j) lanes[j] = -std::numeric_limits<A>::infinity();
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int64_t j = 0; j < L; ++j) lanes[j] = softmax::maxOf(x[i + j], lanes[j]);
  }
  A best = -std::numeric_limits<A>::infinity();
  for (; i < n; ++i) best = softmax::maxOf(x[i], best);
  for (int64_t j = 0; j < L; ++j) best = softmax::maxOf(lanes[j], best);
  return best;
}

template <typename A>
OPCORE_CPU_CLONES A rowDot(const A* x, const A* y, int64_t n) {
  constexpr int64_t L = kLanes<A>;
  A lanes[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int64_t j = 0; j < L; ++j) lanes[j] += x[i + j] * y[i + j];
  }
  A sum = 0;
  for (; i < n; ++i) sum += x[i] * y[i];
  for (int64_t j = 0; j < L; ++j) sum += lanes[j];
  return sum;
}

template <typename A>
OPCORE_CPU_CLONES void shiftRow(const A* x, A* y, int64_t n, A m) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] - m;
}

template <typename A>
OPCORE_CPU_CLONES void scaleRow(A* y, int64_t n, A inv_sum) {
  for (int64_t i = 0; i < n; ++i) y[i] = softmax::scaled(y[i], inv_sum);
}

template <typename A>
OPCORE_CPU_CLONES void logScaleRow(A* y, int64_t n, A log_sum) {
  for (int64_t i = 0; i < n; ++i) y[i] = softmax::logScaled(y[i], log_sum);
}

template <typename A>
OPCORE_CPU_CLONES void softmaxGradRow(const A* g, const A* y, A* out, int64_t n, A dot) {
  for (int64_t i = 0; i < n; ++i) out[i] = softmax::softmaxGrad(g[i], y[i], dot);
}

template <typename A>
OPCORE_CPU_CLONES void logSoftmaxGradRow(const A* g, const A* e, A* out, int64_t n, A sum) {
  for (int64_t i = 0; i < n; ++i) out[i] = softmax::logSoftmaxGrad(g[i], e[i], sum);
}

// --- one block of columns: buf is [len, w], column j the elements buf[k * w + j] ---

template <typename A>
OPCORE_CPU_CLONES void colsMax(const A* buf, int64_t len, int64_t w, A* mx) {
  for (int64_t j = 0; j < w; ++j) mx[j] = -std::numeric_limits<A>::infinity();
  for (int64_t k = 0; k < len; ++k) {
    const A* row = buf + k * w;
    for (int64_t j = 0; j < w; ++j) mx[j] = softmax::maxOf(row[j], mx[j]);
  }
}

// sum[j] += the column sums of the first `rows` rows of buf.
template <typename A>
OPCORE_CPU_CLONES void colsAdd(const A* buf, int64_t rows, int64_t w, A* sum) {
  for (int64_t k = 0; k < rows; ++k) {
    const A* row = buf + k * w;
    for (int64_t j = 0; j < w; ++j) sum[j] += row[j];
  }
}

template <typename A>
OPCORE_CPU_CLONES void colsDot(const A* a, const A* b, int64_t len, int64_t w, A* dot) {
  for (int64_t j = 0; j < w; ++j) dot[j] = 0;
  for (int64_t k = 0; k < len; ++k) {
    for (int64_t j = 0; j < w; ++j) dot[j] += a[k * w + j] * b[k * w + j];
  }
}

template <typename A>
OPCORE_CPU_CLONES void colsShift(A* buf, int64_t len, int64_t w, const A* mx) {
  for (int64_t k = 0; k < len; ++k) {
    A* row = buf + k * w;
    for (int64_t j = 0; j < w; ++j) row[j] -= mx[j];
  }
}

template <typename A>
OPCORE_CPU_CLONES void colsScale(A* buf, int64_t len, int64_t w, const A* inv_sum) {
  for (int64_t k = 0; k < len; ++k) {
    A* row = buf + k * w;
    for (int64_t j = 0; j < w; ++j) row[j] = softmax::scaled(row[j], inv_sum[j]);
  }
}

template <typename A>
OPCORE_CPU_CLONES void colsLogScale(A* buf, int64_t len, int64_t w, const A* log_sum) {
  for (int64_t k = 0; k < len; ++k) {
    A* row = buf + k * w;
    for (int64_t j = 0; j < w; ++j) row[j] = softmax::logScaled(row[j], log_sum[j]);
  }
}

// g := softmax's gradient, y the softmax, dot[j] the column sums of g * y.
template <typename A>
OPCORE_CPU_CLONES void colsSoftmaxGrad(A* g, const A* y, int64_t len, int64_t w, const A* dot) {
  for (int64_t k = 0; k < len; ++k) {
    for (int64_t j = 0; j < w; ++j) g[k * w + j] = softmax::softmaxGrad(g[k * w + j], y[k * w + j], dot[j]);
  }
}

// g := log_softmax's gradient, e = exp(y), sum[j] the column sums of g.
template <typename A>
OPCORE_CPU_CLONES void colsLogSoftmaxGrad(A* g, const A* e, int64_t len, int64_t w, const A* sum) {
  for (int64_t k = 0; k < len; ++k) {
    for (int64_t j = 0; j < w; ++j) g[k * w + j] = softmax::logSoftmaxGrad(g[k * w + j], e[k * w + j], sum[j]);
  }
}

// --- loading and storing in the computing type A ---

// A row of n elements as A values: `x` itself, or converted into buf.
template <typename A, typename T>
const A* loadRow(const T* x, int64_t n, A* buf) {
  if constexpr (std::is_same_v<T, A>) {
    return x;
  } else {
    cpu::loops_detail::toFloat(x, buf, n);
    return buf;
  }
}

template <typename A, typename O>
void storeRow(const A* y, O* out, int64_t n) {
  if constexpr (std::is_same_v<O, A>) {
    if (y != out) std::memcpy(out, y, static_cast<size_t>(n) * sizeof(A));
  } else {
    cpu::loops_detail::fromFloat(y, out, n);
  }
}

// Column block [c0, c0 + w) of the [len, inner] matrix at x into buf ([len, w]), and back.
template <typename A, typename T>
void gatherBlock(const T* x, int64_t len, int64_t inner, int64_t w, A* buf) {
  for (int64_t k = 0; k < len; ++k) {
    const T* src = x + k * inner;
    if constexpr (std::is_same_v<T, A>) {
      std::memcpy(buf + k * w, src, static_cast<size_t>(w) * sizeof(A));
    } else {
      cpu::loops_detail::toFloat(src, buf + k * w, w);
    }
  }
}

template <typename A, typename O>
void scatterBlock(const A* buf, int64_t len, int64_t inner, int64_t w, O* y) {
  for (int64_t k = 0; k < len; ++k) storeRow(buf + k * w, y + k * inner, w);
}

struct Geometry {
  int64_t outer = 1, len = 1, inner = 1;
};

// A 0-dim tensor is one softmax of one element.
Geometry geometryOf(IntArrayRef sizes, int64_t dim) {
  Geometry g;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t d = static_cast<int64_t>(i);
    (d < dim ? g.outer : d == dim ? g.len : g.inner) *= sizes[i];
  }
  return g;
}

// The bytes of a block of columns. Each of its len rows usually lies in a page of its own (the
// rows are inner elements apart), so every pass over the block's rows costs len TLB misses:
// fewer, wider blocks pay fewer of them. Measured on softmax along dim 0 of 4096x4096 float32,
// 2 threads (bench/aten_cases/softmax.py): 7.6 GB/s with 256 KiB blocks (16 columns), 15.6 with
// 1 MiB, 18.8 with 2 MiB (128 columns), 17.6 with 4 MiB, 10.7 with 8 MiB (out of L3).
constexpr int64_t kBlockBytes = 2 * 1024 * 1024;

// The columns a block holds (Note [Softmax rows]): len * w elements of about kBlockBytes, whole
// cache lines, at most `inner`, and narrow enough that every thread gets a block.
int64_t blockWidth(const Geometry& g, int64_t elem_size) {
  const int64_t line = 64 / elem_size;
  int64_t w = (kBlockBytes / elem_size) / std::max<int64_t>(g.len, 1);
  if (w >= line) w = w / line * line;
  const int64_t threads = get_num_threads();
  if (g.outer < threads) {
    const int64_t per_outer = (threads + g.outer - 1) / g.outer;
    const int64_t narrow = (g.inner + per_outer - 1) / per_outer;
    w = std::min(w, std::max(line, (narrow + line - 1) / line * line));
  }
  return std::clamp<int64_t>(w, 1, g.inner);
}

template <Op kOp, typename T, typename O>
void forwardRows(const T* x, O* y, const Geometry& g) {
  using A = opmath_t<T>;
  const int64_t len = g.len;
  const int64_t grain = grainFor(len);
  parallel_for(0, g.outer, grain, [&](int64_t first, int64_t last) {
    std::vector<A> in_buf(kReduced<T> ? len : 0), out_buf(std::is_same_v<O, A> ? 0 : len),
        exp_buf(kOp == Op::LogSoftmax ? len : 0);
    for (int64_t r = first; r < last; ++r) {
      const A* xr = loadRow<A>(x + r * len, len, in_buf.data());
      A* yr = out_buf.empty() ? reinterpret_cast<A*>(y + r * len) : out_buf.data();
      const A m = rowMax(xr, len);
      shiftRow(xr, yr, len, m);
      if constexpr (kOp == Op::Softmax) {
        cpu::vecMap(cpu::VecFn::Exp, yr, yr, len);
        scaleRow(yr, len, A(1) / cpu::rowSum(yr, len));
      } else {
        cpu::vecMap(cpu::VecFn::Exp, yr, exp_buf.data(), len);
        logScaleRow(yr, len, static_cast<A>(std::log(cpu::rowSum(exp_buf.data(), len))));
      }
      storeRow(yr, y + r * len, len);
    }
  });
}

template <Op kOp, typename T, typename O>
void forwardColumns(const T* x, O* y, const Geometry& g) {
  using A = opmath_t<T>;
  const int64_t len = g.len, inner = g.inner;
  const int64_t width = blockWidth(g, sizeof(A));
  const int64_t blocks = (inner + width - 1) / width;
  const int64_t grain = grainFor(len * width);
  // log_softmax's exp goes to a second buffer, this many elements at a time
  const int64_t exp_rows = std::max<int64_t>(1, 4096 / width);
  parallel_for(0, g.outer * blocks, grain, [&](int64_t first, int64_t last) {
    std::vector<A> buf(len * width), mx(width), sum(width),
        exp_buf(kOp == Op::LogSoftmax ? std::min(len, exp_rows) * width : 0);
    for (int64_t t = first; t < last; ++t) {
      const int64_t o = t / blocks, c0 = (t % blocks) * width;
      const int64_t w = std::min(width, inner - c0);
      const int64_t base = o * len * inner + c0;
      gatherBlock(x + base, len, inner, w, buf.data());
      colsMax(buf.data(), len, w, mx.data());
      colsShift(buf.data(), len, w, mx.data());
      std::fill(sum.begin(), sum.end(), A(0));
      if constexpr (kOp == Op::Softmax) {
        cpu::vecMap(cpu::VecFn::Exp, buf.data(), buf.data(), len * w);
        colsAdd(buf.data(), len, w, sum.data());
        for (int64_t j = 0; j < w; ++j) sum[j] = A(1) / sum[j];
        colsScale(buf.data(), len, w, sum.data());
      } else {
        for (int64_t k = 0; k < len; k += exp_rows) {
          const int64_t rows = std::min(exp_rows, len - k);
          cpu::vecMap(cpu::VecFn::Exp, buf.data() + k * w, exp_buf.data(), rows * w);
          colsAdd(exp_buf.data(), rows, w, sum.data());
        }
        for (int64_t j = 0; j < w; ++j) sum[j] = static_cast<A>(std::log(sum[j]));
        colsLogScale(buf.data(), len, w, sum.data());
      }
      scatterBlock(buf.data(), len, inner, w, y + base);
    }
  });
}

template <Op kOp, typename T, typename O>
void backwardRows(const T* grad, const T* y, O* out, const Geometry& g) {
  using A = opmath_t<T>;
  const int64_t len = g.len;
  const int64_t grain = grainFor(len);
  parallel_for(0, g.outer, grain, [&](int64_t first, int64_t last) {
    std::vector<A> g_buf(kReduced<T> ? len : 0), y_buf(kReduced<T> ? len : 0), out_buf(len),
        exp_buf(kOp == Op::LogSoftmax ? len : 0);
    for (int64_t r = first; r < last; ++r) {
      const A* gr = loadRow<A>(grad + r * len, len, g_buf.data());
      const A* yr = loadRow<A>(y + r * len, len, y_buf.data());
      A* res = std::is_same_v<O, A> ? reinterpret_cast<A*>(out + r * len) : out_buf.data();
      if constexpr (kOp == Op::Softmax) {
        softmaxGradRow(gr, yr, res, len, rowDot(gr, yr, len));
      } else {
        cpu::vecMap(cpu::VecFn::Exp, yr, exp_buf.data(), len);
        logSoftmaxGradRow(gr, exp_buf.data(), res, len, cpu::rowSum(gr, len));
      }
      storeRow(res, out + r * len, len);
    }
  });
}

template <Op kOp, typename T, typename O>
void backwardColumns(const T* grad, const T* y, O* out, const Geometry& g) {
  using A = opmath_t<T>;
  const int64_t len = g.len, inner = g.inner;
  const int64_t width = std::max<int64_t>(1, blockWidth(g, sizeof(A)) / 2);  // two buffers
  const int64_t blocks = (inner + width - 1) / width;
  const int64_t grain = grainFor(len * width);
  parallel_for(0, g.outer * blocks, grain, [&](int64_t first, int64_t last) {
    std::vector<A> g_buf(len * width), y_buf(len * width), acc(width);
    for (int64_t t = first; t < last; ++t) {
      const int64_t o = t / blocks, c0 = (t % blocks) * width;
      const int64_t w = std::min(width, inner - c0);
      const int64_t base = o * len * inner + c0;
      gatherBlock(grad + base, len, inner, w, g_buf.data());
      gatherBlock(y + base, len, inner, w, y_buf.data());
      if constexpr (kOp == Op::Softmax) {
        colsDot(g_buf.data(), y_buf.data(), len, w, acc.data());
        colsSoftmaxGrad(g_buf.data(), y_buf.data(), len, w, acc.data());
      } else {
        std::fill(acc.begin(), acc.end(), A(0));
        colsAdd(g_buf.data(), len, w, acc.data());
        cpu::vecMap(cpu::VecFn::Exp, y_buf.data(), y_buf.data(), len * w);
        colsLogSoftmaxGrad(g_buf.data(), y_buf.data(), len, w, acc.data());
      }
      scatterBlock(g_buf.data(), len, inner, w, out + base);
    }
  });
}

// PyTorch's names of its kernels, which its dtype errors quote.
const char* kernelName(Op op, bool backward, bool last) {
  static const char* const names[2][2][2] = {
      {{"softmax_kernel_impl", "softmax_lastdim_kernel_impl"},
       {"softmax_backward_kernel_impl", "softmax_backward_lastdim_kernel_impl"}},
      {{"log_softmax_kernel_impl", "log_softmax_lastdim_kernel_impl"},
       {"log_softmax_backward_kernel_impl", "log_softmax_backward_lastdim_kernel_impl"}}};
  return names[op == Op::LogSoftmax][backward][last];
}

bool isLastDim(const TensorBase& t, int64_t dim) {
  return t.dim() == 0 || dim == t.dim() - 1;
}

// The tensor the kernel writes: out itself when contiguous (its dtype is the meta function's,
// exactly), else a contiguous temporary copied into out afterwards.
TensorBase resultFor(const TensorBase& out) {
  return out.is_contiguous() ? out : detail::emptyCpu(out.sizes(), out.scalar_type());
}

template <Op kOp>
void forwardInto(const char* name, const Tensor& self, int64_t dim, const Tensor& out) {
  cpu::checkCpu(name, {&self, &out});
  cpu::checkNoInternalOverlap(out);
  TensorBase in = cpu::contiguousCopy(self);
  if (cpu::sharesStorage(in, out)) in = cpu::ownedCopy(in);
  detail::resizeOutput(out, in.sizes());
  if (in.numel() == 0) return;  // any dtype, as PyTorch's (which returns before dispatching)
  const Geometry g = geometryOf(in.sizes(), dim);
  const TensorBase result = resultFor(out);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, in.scalar_type(), kernelName(kOp, false, isLastDim(in, dim)), [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    const auto run = [&](auto* y) {
      using O = std::remove_pointer_t<decltype(y)>;
      if (g.inner == 1) {
        forwardRows<kOp, scalar_t, O>(x, y, g);
      } else {
        forwardColumns<kOp, scalar_t, O>(x, y, g);
      }
    };
    if constexpr (kReduced<scalar_t>) {
      if (result.scalar_type() == ScalarType::Float) return run(result.data_ptr<float>());  // half_to_float
    }
    run(result.data_ptr<scalar_t>());
  });
  if (!result.is_same(out)) cpu::copyInto(out, result);
}

template <Op kOp>
void backwardInto(const char* name, const Tensor& grad, const Tensor& output, int64_t dim, const Tensor& grad_input) {
  cpu::checkCpu(name, {&grad, &output, &grad_input});
  cpu::checkNoInternalOverlap(grad_input);
  TensorBase g_in = cpu::contiguousCopy(grad), y_in = cpu::contiguousCopy(output);
  if (cpu::sharesStorage(g_in, grad_input)) g_in = cpu::ownedCopy(g_in);
  if (cpu::sharesStorage(y_in, grad_input)) y_in = cpu::ownedCopy(y_in);
  detail::resizeOutput(grad_input, g_in.sizes());
  if (g_in.numel() == 0) return;
  const Geometry g = geometryOf(g_in.sizes(), dim);
  const TensorBase result = resultFor(grad_input);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, g_in.scalar_type(), kernelName(kOp, true, isLastDim(g_in, dim)), [&] {
    const scalar_t* gp = g_in.data_ptr<scalar_t>();
    const scalar_t* yp = y_in.data_ptr<scalar_t>();
    const auto run = [&](auto* out) {
      using O = std::remove_pointer_t<decltype(out)>;
      if (g.inner == 1) {
        backwardRows<kOp, scalar_t, O>(gp, yp, out, g);
      } else {
        backwardColumns<kOp, scalar_t, O>(gp, yp, out, g);
      }
    };
    if constexpr (std::is_same_v<scalar_t, float>) {  // the gradient of a half_to_float softmax
      if (result.scalar_type() == ScalarType::Half) return run(result.data_ptr<Half>());
      if (result.scalar_type() == ScalarType::BFloat16) return run(result.data_ptr<BFloat16>());
    }
    run(result.data_ptr<scalar_t>());
  });
  if (!result.is_same(grad_input)) cpu::copyInto(grad_input, result);
}

}  // namespace

void softmax_cpu_out(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out) {
  (void)half_to_float;  // the meta function chose out's dtype
  forwardInto<Op::Softmax>("softmax", self, dim, out);
}

void log_softmax_cpu_out(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out) {
  (void)half_to_float;
  forwardInto<Op::LogSoftmax>("log_softmax", self, dim, out);
}

void softmax_backward_cpu_out(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype,
                              const Tensor& grad_input) {
  (void)input_dtype;  // the meta function chose grad_input's dtype
  backwardInto<Op::Softmax>("softmax_backward", grad_output, output, dim, grad_input);
}

void log_softmax_backward_cpu_out(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype, const Tensor& out) {
  (void)input_dtype;
  backwardInto<Op::LogSoftmax>("log_softmax_backward", grad_output, output, dim, out);
}

}  // namespace opcore::native

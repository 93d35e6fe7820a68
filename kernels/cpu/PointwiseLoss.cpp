// CPU kernels of the pointwise losses of issue #34: mse_loss, smooth_l1_loss, huber_loss and their
// backward operators (the impls of structured operators; their meta functions, with the checks,
// are in common/LossMeta.cpp). See Note [Pointwise loss reductions].
#include <opcore/core/Reduction.h>
#include <opcore/core/Empty.h>
#include <opcore/ops/binary_cross_entropy_backward_native.h>
#include <opcore/ops/binary_cross_entropy_native.h>
#include <opcore/ops/binary_cross_entropy_with_logits_native.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/huber_loss_backward_native.h>
#include <opcore/ops/huber_loss_native.h>
#include <opcore/ops/mse_loss_backward_native.h>
#include <opcore/ops/mse_loss_native.h>
#include <opcore/ops/smooth_l1_loss_backward_native.h>
#include <opcore/ops/smooth_l1_loss_native.h>

#include "common/LossChecks.h"
#include "common/pointwise/Loss.h"
#include "common/Shape.h"
#include "common/TypePromotion.h"
#include "cpu/Loops.h"
#include "cpu/VecMath.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <type_traits>
#include <vector>

// Note [Pointwise loss reductions]
// A loss reduced to its mean or sum is computed in one pass over self and target: no
// elementwise temporary is written and read back (PyTorch writes one, then reduces it), which
// halves the memory traffic of a large loss. The elements are summed in fixed chunks of
// kChunk, each a partial sum of its own (the chunks are spread over the threads), and the
// partial sums are added in order, so the result does not depend on the thread count. Inside a
// chunk, blocks of kBlock elements are summed in kLanes independent opmath accumulators (which
// the compiler turns into one vector register) and each block's sum is added in double.
// Operands that are not contiguous with the broadcast shape and the compute dtype are first
// copied into ones that are. Reduction None is an elementwise op (cpu::ElementwiseOp).
// binary_cross_entropy and binary_cross_entropy_with_logits, whose element functions are logs
// and exps, run in blocks of kBlock elements (runBlocks): each block's inputs (converted to
// opmath for BFloat16) go through SLEEF's vector functions (cpu/VecMath.h), and the block's
// losses are either stored or summed as above.

namespace opcore::native {

using cpu::ElementwiseOp;
namespace npw = pointwise;

namespace {

constexpr int64_t kChunk = int64_t{1} << 16;
constexpr int64_t kBlock = 512;
constexpr int kLanes = 8;

// The sum over n elements of f(x[i], y[i]), f taking and returning opmath_t<T>.
template <typename T, typename F>
OPCORE_CPU_CLONES double chunkSum(const T* x, const T* y, int64_t n, const F& f) {
  using M = opmath_t<T>;
  double total = 0;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    const T* xs = x + start;
    const T* ys = y + start;
    M acc[kLanes] = {};
    int64_t i = 0;
    for (; i + kLanes <= len; i += kLanes) {
      for (int k = 0; k < kLanes; ++k) acc[k] += f(static_cast<M>(xs[i + k]), static_cast<M>(ys[i + k]));
    }
    for (; i < len; ++i) acc[0] += f(static_cast<M>(xs[i]), static_cast<M>(ys[i]));
    M block = 0;
    for (int k = 0; k < kLanes; ++k) block += acc[k];
    total += static_cast<double>(block);
  }
  return total;
}

// `t` broadcast to `shape` as a contiguous tensor of `dtype`: t itself when it already is one.
TensorBase denseOperand(const Tensor& t, const std::vector<int64_t>& shape, ScalarType dtype) {
  if (t.scalar_type() == dtype && t.is_contiguous() && t.sizes().vec() == shape) return t;
  TensorBase dense = detail::emptyCpu(shape, dtype);
  cpu::copyInto(dense, t);
  return dense;
}

// out (0-dim) = the mean or sum over the broadcast elements of f(self, target).
template <typename T, typename F>
void reduceLoss(const Tensor& self, const Tensor& target, int64_t reduction, ScalarType dtype, const Tensor& out,
                const F& f) {
  const std::vector<int64_t> shape = broadcastShapes(self.sizes(), target.sizes());
  const TensorBase x = denseOperand(self, shape, dtype);
  const TensorBase y = denseOperand(target, shape, dtype);
  const int64_t n = x.numel();
  const T* xp = x.data_ptr<T>();
  const T* yp = y.data_ptr<T>();
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<double> partial(static_cast<size_t>(chunks));
  parallel_for(0, chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const int64_t first = c * kChunk;
      partial[static_cast<size_t>(c)] = chunkSum(xp + first, yp + first, std::min(kChunk, n - first), f);
    }
  });
  double total = 0;
  for (const double p : partial) total += p;
  out.fill_(Scalar(reduction == Reduction::Mean ? total / static_cast<double>(n) : total));
}

// The forward kernel: elementwise for None, else reduceLoss.
template <typename T, typename F>
void runLoss(const char* name, const Tensor& self, const Tensor& target, int64_t reduction, const Tensor& out,
             const F& f) {
  const ScalarType dtype = resultType(self, target);
  if (reduction == Reduction::None) {
    ElementwiseOp op(name, out, dtype, {{self, dtype}, {target, dtype}});
    op.run<T, T, T>(f);
  } else {
    reduceLoss<T>(self, target, reduction, dtype, out, f);
  }
}

// The backward kernel: grad_input = f(grad_output, self, target), broadcast.
template <typename T, typename F>
void runLossBackward(const char* name, const Tensor& grad_output, const Tensor& self, const Tensor& target,
                     const Tensor& grad_input, const F& f) {
  const ScalarType dtype = promoteTypes(grad_output.scalar_type(), resultType(self, target));
  ElementwiseOp op(name, grad_input, dtype, {{grad_output, dtype}, {self, dtype}, {target, dtype}});
  op.run<T, T, T, T>(f);
}

// What Mean multiplies a gradient by: 1 / the number of elements the mean was taken over, the
// broadcast of self and target (PyTorch's divides by self.numel(), the same: its Python
// functions broadcast self and target before calling the operator).
double meanScale(const Tensor& grad_input, int64_t reduction) {
  return reduction == Reduction::Mean ? 1.0 / static_cast<double>(grad_input.numel()) : 1.0;
}

ScalarType lossDtype(const Tensor& self, const Tensor& target) { return resultType(self, target); }

ScalarType lossBackwardDtype(const Tensor& grad_output, const Tensor& self, const Tensor& target) {
  return promoteTypes(grad_output.scalar_type(), resultType(self, target));
}

}  // namespace

// Float, double and BFloat16 (PyTorch's CPU backward kernels of mse_loss and smooth_l1_loss).
#define OPCORE_LOSS_FLOATING_AND_BFLOAT16(TYPE, NAME, ...)                                   \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)        \
                                         OPCORE_DISPATCH_CASE(ScalarType::BFloat16, __VA_ARGS__))

// ---- mse_loss ------------------------------------------------------------------------------------

void mse_loss_out_cpu(const Tensor& self, const Tensor& target, int64_t reduction, const Tensor& out) {
  cpu::checkCpu("mse_loss", {&self, &target, &out});
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, lossDtype(self, target), "mse_cpu", [&] {
    using M = opmath_t<scalar_t>;
    runLoss<scalar_t>("mse_loss", self, target, reduction, out, [](M x, M y) { return npw::mseOf(x, y); });
  });
}

void mse_loss_backward_out_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                               int64_t reduction, const Tensor& grad_input) {
  cpu::checkCpu("mse_loss_backward", {&grad_output, &self, &target, &grad_input});
  const double scale = meanScale(grad_input, reduction);
  OPCORE_LOSS_FLOATING_AND_BFLOAT16(lossBackwardDtype(grad_output, self, target), "mse_backward_cpu_out", [&] {
    using M = opmath_t<scalar_t>;
    const M norm = static_cast<M>(scale);
    runLossBackward<scalar_t>("mse_loss_backward", grad_output, self, target, grad_input,
                              [norm](M g, M x, M y) { return npw::mseBackwardOf(g, x, y, norm); });
  });
}

// ---- smooth_l1_loss --------------------------------------------------------------------------------

void smooth_l1_loss_out_cpu(const Tensor& self, const Tensor& target, int64_t reduction, double beta,
                            const Tensor& out) {
  cpu::checkCpu("smooth_l1_loss", {&self, &target, &out});
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, lossDtype(self, target), "smooth_l1_cpu", [&] {
    using M = opmath_t<scalar_t>;
    const M b = static_cast<M>(beta);
    runLoss<scalar_t>("smooth_l1_loss", self, target, reduction, out, [b](M x, M y) { return npw::smoothL1Of(x, y, b); });
  });
}

void smooth_l1_loss_backward_out_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                     int64_t reduction, double beta, const Tensor& grad_input) {
  cpu::checkCpu("smooth_l1_loss_backward", {&grad_output, &self, &target, &grad_input});
  const double scale = meanScale(grad_input, reduction);
  OPCORE_LOSS_FLOATING_AND_BFLOAT16(lossBackwardDtype(grad_output, self, target), "smooth_l1_backward_cpu_out",
                                    [&] {
    using M = opmath_t<scalar_t>;
    const M norm = static_cast<M>(scale), b = static_cast<M>(beta);
    runLossBackward<scalar_t>("smooth_l1_loss_backward", grad_output, self, target, grad_input,
                              [norm, b](M g, M x, M y) { return npw::smoothL1BackwardOf(g, x, y, norm, b); });
  });
}

// ---- huber_loss ----------------------------------------------------------------------------------

void huber_loss_out_cpu(const Tensor& self, const Tensor& target, int64_t reduction, double delta,
                        const Tensor& out) {
  cpu::checkCpu("huber_loss", {&self, &target, &out});
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, lossDtype(self, target), "huber_cpu", [&] {
    using M = opmath_t<scalar_t>;
    const M d = static_cast<M>(delta);
    runLoss<scalar_t>("huber_loss", self, target, reduction, out, [d](M x, M y) { return npw::huberOf(x, y, d); });
  });
}

void huber_loss_backward_out_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                 int64_t reduction, double delta, const Tensor& grad_input) {
  cpu::checkCpu("huber_loss_backward", {&grad_output, &self, &target, &grad_input});
  const double scale = meanScale(grad_input, reduction);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, lossBackwardDtype(grad_output, self, target),
                                      "huber_backward_cpu_out", [&] {
    using M = opmath_t<scalar_t>;
    const M norm = static_cast<M>(scale), d = static_cast<M>(delta);
    runLossBackward<scalar_t>("huber_loss_backward", grad_output, self, target, grad_input,
                              [norm, d](M g, M x, M y) { return npw::huberBackwardOf(g, x, y, norm, d); });
  });
}

// ---- binary_cross_entropy and binary_cross_entropy_with_logits -------------------------------------

namespace {

// The sum of v[0, len) in kLanes accumulators, added in double.
template <typename M>
OPCORE_CPU_CLONES double blockSum(const M* v, int64_t len) {
  M acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= len; i += kLanes) {
    for (int k = 0; k < kLanes; ++k) acc[k] += v[i + k];
  }
  for (; i < len; ++i) acc[0] += v[i];
  M total = 0;
  for (int k = 0; k < kLanes; ++k) total += acc[k];
  return static_cast<double>(total);
}

// Runs block(in, vals, len) over the n elements of N contiguous inputs of type T (in[k]: len
// opmath values of input k), storing vals into `out` (reduction None; out has the inputs'
// shape) or summing them into it (Mean, Sum); Note [Pointwise loss reductions].
template <typename T, size_t N, typename Block>
void runBlocks(const std::array<TensorBase, N>& inputs, int64_t reduction, const Tensor& out, const Block& block) {
  using M = opmath_t<T>;
  const int64_t n = inputs[0].numel();
  std::array<const T*, N> data;
  for (size_t k = 0; k < N; ++k) data[k] = inputs[k].template data_ptr<T>();
  const auto compute = [&](int64_t start, int64_t len, M* vals) {
    std::array<const M*, N> in;
    if constexpr (std::is_same_v<T, M>) {
      for (size_t k = 0; k < N; ++k) in[k] = data[k] + start;
      block(in, vals, len);
    } else {
      M buffers[N][kBlock];
      for (size_t k = 0; k < N; ++k) {
        for (int64_t i = 0; i < len; ++i) buffers[k][i] = static_cast<M>(data[k][start + i]);
        in[k] = buffers[k];
      }
      block(in, vals, len);
    }
  };
  if (reduction == Reduction::None) {
    const ScalarType dtype = CppTypeToScalarType<T>::value;
    const bool direct = out.is_contiguous() && out.scalar_type() == dtype;
    const TensorBase dst = direct ? TensorBase(out) : detail::emptyCpu(out.sizes(), dtype);
    T* o = dst.data_ptr<T>();
    parallel_for(0, n, kGrainSize, [&](int64_t begin, int64_t end) {
      M vals[kBlock];
      for (int64_t start = begin; start < end; start += kBlock) {
        const int64_t len = std::min(kBlock, end - start);
        compute(start, len, vals);
        for (int64_t i = 0; i < len; ++i) o[start + i] = static_cast<T>(vals[i]);
      }
    });
    if (!direct) cpu::copyInto(out, dst);
    return;
  }
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<double> partial(static_cast<size_t>(chunks));
  parallel_for(0, chunks, 1, [&](int64_t begin, int64_t end) {
    M vals[kBlock];
    for (int64_t c = begin; c < end; ++c) {
      double sum = 0;
      const int64_t last = std::min(n, (c + 1) * kChunk);
      for (int64_t start = c * kChunk; start < last; start += kBlock) {
        const int64_t len = std::min(kBlock, last - start);
        compute(start, len, vals);
        sum += blockSum(vals, len);
      }
      partial[static_cast<size_t>(c)] = sum;
    }
  });
  double total = 0;
  for (const double p : partial) total += p;
  out.fill_(Scalar(reduction == Reduction::Mean ? total / static_cast<double>(n) : total));
}

// binary_cross_entropy's inputs must be probabilities (NaN is not one): checked before any
// output is written, with PyTorch's message.
template <typename T>
void checkProbabilities(const TensorBase& x) {
  const T* p = x.data_ptr<T>();
  std::atomic<bool> bad{false};
  parallel_for(0, x.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
    bool local = false;
    for (int64_t i = begin; i < end; ++i) {
      const auto v = static_cast<opmath_t<T>>(p[i]);
      local |= !(v >= 0 && v <= 1);
    }
    if (local) bad.store(true, std::memory_order_relaxed);
  });
  OPCORE_CHECK(!bad.load(), "all elements of input should be between 0 and 1");
}

bool defined(const std::optional<Tensor>& t) { return t && t->defined(); }

// -(y * max(log(x), -100) + (1 - y) * max(log(1 - x), -100)), times w.
template <typename M, bool kWeighted, size_t N>
void bceBlock(const std::array<const M*, N>& in, M* vals, int64_t len) {
  M log_x[kBlock], log_1mx[kBlock];
  for (int64_t i = 0; i < len; ++i) log_1mx[i] = -in[0][i];
  cpu::vecMap(cpu::VecFn::Log, in[0], log_x, len);
  cpu::vecMap(cpu::VecFn::Log1p, log_1mx, log_1mx, len);
  for (int64_t i = 0; i < len; ++i) {
    const M y = in[1][i];
    const M loss = (y - M(1)) * std::max(log_1mx[i], M(-100)) - y * std::max(log_x[i], M(-100));
    if constexpr (kWeighted) {
      vals[i] = loss * in[2][i];
    } else {
      vals[i] = loss;
    }
  }
}

// (1 - y) * x + lw * (log1p(exp(-|x|)) + max(-x, 0)) with lw = 1 + (pos_weight - 1) * y (1
// without pos_weight: input kPos), times w (input kWeight); -1 for an input not given.
template <typename M, int kWeight, int kPos, size_t N>
void bceLogitsBlock(const std::array<const M*, N>& in, M* vals, int64_t len) {
  M sp[kBlock] = {};  // GCC cannot see that vecMap reads only the len elements written below
  const M* x = in[0];
  const M* y = in[1];
  for (int64_t i = 0; i < len; ++i) sp[i] = -std::abs(x[i]);
  cpu::vecMap(cpu::VecFn::Exp, sp, sp, len);
  cpu::vecMap(cpu::VecFn::Log1p, sp, sp, len);
  for (int64_t i = 0; i < len; ++i) {
    const M softplus = sp[i] + std::max(-x[i], M(0));
    M lw = M(1);
    if constexpr (kPos >= 0) lw = M(1) + (in[kPos][i] - M(1)) * y[i];
    M loss = (M(1) - y[i]) * x[i] + lw * softplus;
    if constexpr (kWeight >= 0) loss *= in[kWeight][i];
    vals[i] = loss;
  }
}

}  // namespace

void binary_cross_entropy_out_cpu(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                  int64_t reduction, const Tensor& out) {
  cpu::checkCpu("binary_cross_entropy", {&self, &target, &out});
  const ScalarType dtype = lossDtype(self, target);
  OPCORE_DISPATCH_FLOATING_TYPES(dtype, "binary_cross_entropy", [&] {
    using M = opmath_t<scalar_t>;
    const std::vector<int64_t> shape = broadcastShapes(self.sizes(), target.sizes());
    const TensorBase x = denseOperand(self, shape, dtype);
    checkProbabilities<scalar_t>(x);
    const TensorBase y = denseOperand(target, shape, dtype);
    if (defined(weight)) {
      const TensorBase w = denseOperand(*weight, shape, dtype);
      runBlocks<scalar_t, 3>({x, y, w}, reduction, out,
                             [](const std::array<const M*, 3>& in, M* v, int64_t n) { bceBlock<M, true>(in, v, n); });
    } else {
      runBlocks<scalar_t, 2>({x, y}, reduction, out,
                             [](const std::array<const M*, 2>& in, M* v, int64_t n) { bceBlock<M, false>(in, v, n); });
    }
  });
}

void binary_cross_entropy_backward_out_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                           const std::optional<Tensor>& weight, int64_t reduction,
                                           const Tensor& grad_input) {
  cpu::checkCpu("binary_cross_entropy_backward", {&grad_output, &self, &target, &grad_input});
  const double scale = meanScale(grad_input, reduction);
  const ScalarType dtype = lossBackwardDtype(grad_output, self, target);
  OPCORE_DISPATCH_FLOATING_TYPES(dtype, "binary_cross_entropy_backward", [&] {
    using M = opmath_t<scalar_t>;
    const M norm = static_cast<M>(scale);
    // times the weight afterwards
    const auto grad = [norm](M g, M x, M y) { return npw::binaryCrossEntropyBackwardOf(g, x, y, norm); };
    if (defined(weight)) {
      const std::vector<int64_t> shape = grad_input.sizes().vec();
      const TensorBase w = denseOperand(*weight, shape, dtype);
      ElementwiseOp op("binary_cross_entropy_backward", grad_input, dtype,
                       {{grad_output, dtype}, {self, dtype}, {target, dtype}});
      op.run<scalar_t, scalar_t, scalar_t, scalar_t>(grad);
      grad_input.mul_(Tensor(w));
    } else {
      runLossBackward<scalar_t>("binary_cross_entropy_backward", grad_output, self, target, grad_input, grad);
    }
  });
}

Tensor binary_cross_entropy_with_logits_cpu(const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight,
                                            const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const TensorSpec spec = meta::binaryCrossEntropyWithLogitsSpec(self, target, weight, pos_weight, reduction);
  cpu::checkCpu("binary_cross_entropy_with_logits", {&self, &target});
  const Tensor out = detail::emptyCpu(spec.sizes, spec.dtype);
  const ScalarType dtype = spec.dtype;
  const std::vector<int64_t> shape = broadcastShapes(self.sizes(), target.sizes());
  OPCORE_LOSS_FLOATING_AND_BFLOAT16(dtype, "binary_cross_entropy_with_logits", [&] {
    using M = opmath_t<scalar_t>;
    const TensorBase x = denseOperand(self, shape, dtype), y = denseOperand(target, shape, dtype);
    const bool w = defined(weight), pw = defined(pos_weight);
    if (w && pw) {
      runBlocks<scalar_t, 4>({x, y, denseOperand(*weight, shape, dtype), denseOperand(*pos_weight, shape, dtype)},
                             reduction, out, [](const std::array<const M*, 4>& in, M* v, int64_t n) {
                               bceLogitsBlock<M, 2, 3>(in, v, n);
                             });
    } else if (w || pw) {
      const TensorBase extra = denseOperand(w ? *weight : *pos_weight, shape, dtype);
      if (w) {
        runBlocks<scalar_t, 3>({x, y, extra}, reduction, out, [](const std::array<const M*, 3>& in, M* v, int64_t n) {
          bceLogitsBlock<M, 2, -1>(in, v, n);
        });
      } else {
        runBlocks<scalar_t, 3>({x, y, extra}, reduction, out, [](const std::array<const M*, 3>& in, M* v, int64_t n) {
          bceLogitsBlock<M, -1, 2>(in, v, n);
        });
      }
    } else {
      runBlocks<scalar_t, 2>({x, y}, reduction, out, [](const std::array<const M*, 2>& in, M* v, int64_t n) {
        bceLogitsBlock<M, -1, -1>(in, v, n);
      });
    }
  });
  return out;
}

}  // namespace opcore::native

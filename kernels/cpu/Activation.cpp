// CPU kernels of the activation operators of issue #34: sigmoid_backward, tanh_backward,
// gelu, gelu_backward, silu and silu_backward (the impls of structured operators: their meta
// functions, kernels/common/ActivationMeta.cpp, have made the checks and prepared the output).
// The element functions are kernels/common/pointwise/Activation.h's; float and double rows of
// gelu, silu and their backward go through SLEEF's erf, exp and tanh (cpu/VecMath.h) in blocks,
// BFloat16 ones the same in float, complex ones through the scalar functions. The dtypes are
// PyTorch 1.13's CPU ones, and so are the names its dtype errors give.
#include <opcore/ops/gelu_backward_native.h>
#include <opcore/ops/gelu_native.h>
#include <opcore/ops/sigmoid_backward_native.h>
#include <opcore/ops/silu_backward_native.h>
#include <opcore/ops/silu_native.h>
#include <opcore/ops/tanh_backward_native.h>

#include "common/TypePromotion.h"
#include "common/pointwise/Activation.h"
#include "cpu/Loops.h"
#include "cpu/VecMath.h"

#include <algorithm>
#include <type_traits>

namespace opcore::native {

using cpu::ElementwiseOp;
namespace pw = pointwise;

namespace {

// Rows are processed in blocks of this many elements, whose temporaries stay in L1.
constexpr int64_t kBlock = 256;

// out[i] = combine(in[i], v[i]) where v = fn(prepare(in)) through SLEEF's vector `fn`, block
// by block (in may be out: each element is read before it is written).
template <typename M, typename Prepare, typename Combine>
void vecUnaryRow(const M* in, M* out, int64_t n, cpu::VecFn fn, const Prepare& prepare, const Combine& combine) {
  M v[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    const M* x = in + start;
    for (int64_t i = 0; i < len; ++i) v[i] = prepare(x[i]);
    cpu::vecMap(fn, v, v, len);
    M* o = out + start;
    for (int64_t i = 0; i < len; ++i) o[i] = combine(x[i], v[i]);
  }
}

// The same for two inputs (grad, x): v = fn(prepare(x)), out = combine(grad, x, v).
template <typename M, typename Prepare, typename Combine>
void vecBinaryRow(const M* grad, const M* in, M* out, int64_t n, cpu::VecFn fn, const Prepare& prepare,
                  const Combine& combine) {
  M v[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    const M* x = in + start;
    const M* g = grad + start;
    for (int64_t i = 0; i < len; ++i) v[i] = prepare(x[i]);
    cpu::vecMap(fn, v, v, len);
    M* o = out + start;
    for (int64_t i = 0; i < len; ++i) o[i] = combine(g[i], x[i], v[i]);
  }
}

bool isTanh(std::string_view approximate) { return approximate == "tanh"; }

// silu and its backward: real rows through SLEEF's exp, complex elements through the scalar
// functions.
template <typename T>
void runSilu(ElementwiseOp& op) {
  using M = opmath_t<T>;
  if constexpr (std::is_floating_point_v<M>) {
    op.runRows<T>([](const M* in, M* o, int64_t n) {
      vecUnaryRow(in, o, n, cpu::VecFn::Exp, [](M x) { return -x; }, [](M x, M e) { return x / (M(1) + e); });
    });
  } else {
    op.run<T, T>([](M x) { return pw::siluOf(x); });
  }
}

template <typename T>
void runSiluBackward(ElementwiseOp& op) {
  using M = opmath_t<T>;
  if constexpr (std::is_floating_point_v<M>) {
    op.runBinaryRows<T>([](const M* g, const M* in, M* o, int64_t n) {
      vecBinaryRow(g, in, o, n, cpu::VecFn::Exp, [](M x) { return -x; }, [](M dy, M x, M e) {
        const M s = M(1) / (M(1) + e);
        return dy * s * (M(1) + x * (M(1) - s));
      });
    });
  } else {
    op.run<T, T, T>([](M g, M x) { return pw::siluBackwardOf(g, x); });
  }
}

}  // namespace

#define OPCORE_ACTIVATION_FLOATING_AND_COMPLEX_AND_BFLOAT16(TYPE, NAME, ...)                                \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)                       \
                                         OPCORE_DISPATCH_CASE_COMPLEX_TYPES(__VA_ARGS__)                    \
                                             OPCORE_DISPATCH_CASE(ScalarType::BFloat16, __VA_ARGS__))
#define OPCORE_ACTIVATION_FLOATING_AND_BFLOAT16(TYPE, NAME, ...)                                           \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)                       \
                                         OPCORE_DISPATCH_CASE(ScalarType::BFloat16, __VA_ARGS__))

// ---- sigmoid and tanh backward: floating and complex (sigmoid's Half too, tanh's not) ----------

void sigmoid_backward_out(const Tensor& grad_output, const Tensor& output, const Tensor& grad_input) {
  const ScalarType dtype = resultType(grad_output, output);
  ElementwiseOp op("sigmoid_backward", grad_input, dtype, {{grad_output, dtype}, {output, dtype}});
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, "sigmoid_backward_cpu", [&] {
    using M = opmath_t<scalar_t>;
    op.run<scalar_t, scalar_t, scalar_t>([](M g, M y) { return pw::sigmoidBackwardOf(g, y); });
  });
}

void tanh_backward_out(const Tensor& grad_output, const Tensor& output, const Tensor& grad_input) {
  const ScalarType dtype = resultType(grad_output, output);
  ElementwiseOp op("tanh_backward", grad_input, dtype, {{grad_output, dtype}, {output, dtype}});
  OPCORE_ACTIVATION_FLOATING_AND_COMPLEX_AND_BFLOAT16(dtype, "tanh_backward_cpu", [&] {
    using M = opmath_t<scalar_t>;
    op.run<scalar_t, scalar_t, scalar_t>([](M g, M y) { return pw::tanhBackwardOf(g, y); });
  });
}

// ---- gelu: float, double, BFloat16 -----------------------------------------------------------

void gelu_out(const Tensor& self, std::string_view approximate, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  const bool tanh = isTanh(approximate);
  ElementwiseOp op("gelu", out, dtype, {{self, dtype}});
  OPCORE_ACTIVATION_FLOATING_AND_BFLOAT16(dtype, "GeluKernelImpl", [&] {
    using M = opmath_t<scalar_t>;
    using C = pw::GeluConstants<M>;
    if (tanh) {
      op.runRows<scalar_t>([](const M* in, M* o, int64_t n) {
        vecUnaryRow(in, o, n, cpu::VecFn::Tanh, [](M x) { return C::kBeta * (x + C::kKappa * x * x * x); },
                    [](M x, M t) { return M(0.5) * x * (M(1) + t); });
      });
    } else {
      op.runRows<scalar_t>([](const M* in, M* o, int64_t n) {
        vecUnaryRow(in, o, n, cpu::VecFn::Erf, [](M x) { return x * C::kAlpha; },
                    [](M x, M e) { return x * M(0.5) * (M(1) + e); });
      });
    }
  });
}

void gelu_backward_out(const Tensor& grad_output, const Tensor& self, std::string_view approximate,
                       const Tensor& grad_input) {
  const ScalarType dtype = resultType(grad_output, self);
  const bool tanh = isTanh(approximate);
  ElementwiseOp op("gelu_backward", grad_input, dtype, {{grad_output, dtype}, {self, dtype}});
  OPCORE_ACTIVATION_FLOATING_AND_BFLOAT16(dtype, "GeluBackwardKernelImpl", [&] {
    using M = opmath_t<scalar_t>;
    using C = pw::GeluConstants<M>;
    if (tanh) {
      op.runBinaryRows<scalar_t>([](const M* g, const M* in, M* o, int64_t n) {
        vecBinaryRow(g, in, o, n, cpu::VecFn::Tanh, [](M x) { return C::kBeta * (x + C::kKappa * x * x * x); },
                     [](M dy, M x, M t) {
                       const M right_derivative =
                           M(0.5) * x * (M(1) - t * t) * (C::kBeta * (M(1) + M(3) * C::kKappa * x * x));
                       return dy * (M(0.5) * (M(1) + t) + right_derivative);
                     });
      });
    } else {
      // two vector functions per element: erf for the cdf, exp for the pdf
      op.runBinaryRows<scalar_t>([](const M* g, const M* in, M* o, int64_t n) {
        M e[kBlock], p[kBlock];
        for (int64_t start = 0; start < n; start += kBlock) {
          const int64_t len = std::min(kBlock, n - start);
          const M* x = in + start;
          for (int64_t i = 0; i < len; ++i) {
            e[i] = x[i] * C::kAlpha;
            p[i] = M(-0.5) * x[i] * x[i];
          }
          cpu::vecMap(cpu::VecFn::Erf, e, e, len);
          cpu::vecMap(cpu::VecFn::Exp, p, p, len);
          const M* dy = g + start;
          M* out = o + start;
          for (int64_t i = 0; i < len; ++i) {
            out[i] = dy[i] * (M(0.5) * (M(1) + e[i]) + x[i] * C::kPdf * p[i]);
          }
        }
      });
    }
  });
}

// ---- silu: floating (not Half) and complex ------------------------------------------------------

void silu_out(const Tensor& self, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("silu", out, dtype, {{self, dtype}});
  OPCORE_ACTIVATION_FLOATING_AND_COMPLEX_AND_BFLOAT16(dtype, "silu_cpu", [&] { runSilu<scalar_t>(op); });
}

void silu_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor& grad_input) {
  const ScalarType dtype = resultType(grad_output, self);
  ElementwiseOp op("silu_backward", grad_input, dtype, {{grad_output, dtype}, {self, dtype}});
  OPCORE_ACTIVATION_FLOATING_AND_COMPLEX_AND_BFLOAT16(dtype, "silu_backward_cpu",
                                                      [&] { runSiluBackward<scalar_t>(op); });
}

#undef OPCORE_ACTIVATION_FLOATING_AND_COMPLEX_AND_BFLOAT16
#undef OPCORE_ACTIVATION_FLOATING_AND_BFLOAT16

}  // namespace opcore::native

// CPU kernels of the activation operators of issue #34: sigmoid_backward, tanh_backward,
// gelu, gelu_backward, silu and silu_backward (the impls of structured operators: their meta
// functions, kernels/common/ActivationMeta.cpp, have made the checks and prepared the output).
// The element functions are kernels/common/pointwise/Activation.h's; float and double rows of
// gelu, silu and their backward go through SLEEF's erf, exp and tanh (cpu/VecMath.h) in blocks,
// BFloat16 ones the same in float, complex ones through the scalar functions. The dtypes are
// PyTorch 1.13's CPU ones, and so are the names its dtype errors give.
#include <opcore/ops/elu_backward_native.h>
#include <opcore/ops/elu_native.h>
#include <opcore/ops/gelu_backward_native.h>
#include <opcore/ops/gelu_native.h>
#include <opcore/ops/hardtanh_backward_native.h>
#include <opcore/ops/hardtanh_native.h>
#include <opcore/ops/leaky_relu_backward_native.h>
#include <opcore/ops/leaky_relu_native.h>
#include <opcore/ops/sigmoid_backward_native.h>
#include <opcore/ops/silu_backward_native.h>
#include <opcore/ops/silu_native.h>
#include <opcore/ops/tanh_backward_native.h>

#include "common/TypePromotion.h"
#include "common/pointwise/Activation.h"
#include "cpu/Loops.h"
#include "cpu/VecMath.h"

#include <algorithm>
#include <cmath>
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

// ---- leaky_relu and elu: float, double, BFloat16 ----------------------------------------------

void leaky_relu_out(const Tensor& self, const Scalar& negative_slope, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("leaky_relu", out, dtype, {{self, dtype}});
  OPCORE_ACTIVATION_FLOATING_AND_BFLOAT16(dtype, "leaky_relu_cpu", [&] {
    using M = opmath_t<scalar_t>;
    const M slope = negative_slope.to<M>();
    op.run<scalar_t, scalar_t>([slope](M x) { return pw::leakyReluOf(x, slope); });
  });
}

void leaky_relu_backward_out(const Tensor& grad_output, const Tensor& self, const Scalar& negative_slope,
                             bool self_is_result, const Tensor& grad_input) {
  const ScalarType dtype = resultType(grad_output, self);
  ElementwiseOp op("leaky_relu_backward", grad_input, dtype, {{grad_output, dtype}, {self, dtype}});
  OPCORE_ACTIVATION_FLOATING_AND_BFLOAT16(dtype, "leaky_relu_backward_cpu", [&] {
    using M = opmath_t<scalar_t>;
    const M slope = negative_slope.to<M>();
    op.run<scalar_t, scalar_t, scalar_t>([slope](M g, M x) { return pw::leakyReluBackwardOf(g, x, slope); });
  });
}

void elu_out(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
             const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("elu", out, dtype, {{self, dtype}});
  OPCORE_ACTIVATION_FLOATING_AND_BFLOAT16(dtype, "elu_cpu", [&] {
    using M = opmath_t<scalar_t>;
    const M negcoef = alpha.to<M>() * scale.to<M>(), poscoef = scale.to<M>(), negiptcoef = input_scale.to<M>();
    op.runRows<scalar_t>([=](const M* in, M* o, int64_t n) {
      vecUnaryRow(in, o, n, cpu::VecFn::Expm1, [negiptcoef](M x) { return x * negiptcoef; },
                  [negcoef, poscoef](M x, M e) { return x <= M(0) ? e * negcoef : x * poscoef; });
    });
  });
}

void elu_backward_out(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                      bool is_result, const Tensor& self_or_result, const Tensor& grad_input) {
  const ScalarType dtype = resultType(grad_output, self_or_result);
  ElementwiseOp op("elu_backward", grad_input, dtype, {{grad_output, dtype}, {self_or_result, dtype}});
  OPCORE_ACTIVATION_FLOATING_AND_BFLOAT16(dtype, "elu_backward_cpu", [&] {
    using M = opmath_t<scalar_t>;
    const M negcoef = alpha.to<M>() * scale.to<M>(), poscoef = scale.to<M>(), negiptcoef = input_scale.to<M>();
    op.run<scalar_t, scalar_t, scalar_t>([=](M g, M b) {
      return pw::eluBackwardOf(g, b, negcoef, poscoef, negiptcoef, is_result);
    });
  });
}

// ---- hardtanh (not structured, as PyTorch's): all real types but Half, as its clamp ----------

// PyTorch's checks of hardtanh's operands (the Meta kernels run them too).
void checkHardtanhLimits(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  OPCORE_CHECK(self.scalar_type() != ScalarType::Bool, "Bool inputs not supported for hardtanh");
  if (isIntegralType(self.scalar_type(), /*include_bool=*/false)) {
    OPCORE_CHECK(self.scalar_type() != ScalarType::Byte || (min_val.toLong() >= 0 && max_val.toLong() >= 0),
                 "cannot do hardtanh on an unsigned type with negative limits");
  }
}

namespace {

template <typename T>
void runHardtanh(ElementwiseOp& op, const Scalar& min_val, const Scalar& max_val) {
  using M = opmath_t<T>;
  M lo, hi;
  if constexpr (std::is_integral_v<M>) {
    lo = static_cast<M>(min_val.toLong());
    hi = static_cast<M>(max_val.toLong());
  } else {
    lo = min_val.to<M>();
    hi = max_val.to<M>();
  }
  op.run<T, T>([lo, hi](M x) { return pw::hardtanhOf(x, lo, hi); });
}

// out = clamp(self, min_val, max_val) in self's dtype; integral tensors take the limits as
// integers (PyTorch's "legacy behavior of boundaries not causing type promotion").
Tensor hardtanhInto(const Tensor& self, const Scalar& min_val, const Scalar& max_val, const TensorBase& out,
                     const char* name) {
  checkHardtanhLimits(self, min_val, max_val);
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op(name, out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_SWITCH(
      dtype, "clamp_scalar_cpu",
      OPCORE_DISPATCH_CASE_ALL_TYPES([&] { runHardtanh<scalar_t>(op, min_val, max_val); })
          OPCORE_DISPATCH_CASE(ScalarType::BFloat16, [&] { runHardtanh<scalar_t>(op, min_val, max_val); }));
  return op.output();
}

}  // namespace

Tensor hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  return hardtanhInto(self, min_val, max_val, TensorBase(), "hardtanh");
}

Tensor& hardtanh_out(const Tensor& self, const Scalar& min_val, const Scalar& max_val, Tensor& out) {
  hardtanhInto(self, min_val, max_val, out, "hardtanh");
  return out;
}

Tensor& hardtanh_(Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  hardtanhInto(self, min_val, max_val, self, "hardtanh_");
  return self;
}

Tensor& hardtanh_backward_out(const Tensor& grad_output, const Tensor& self, const Scalar& min_val,
                              const Scalar& max_val, Tensor& grad_input) {
  const ScalarType dtype = resultType(grad_output, self);
  ElementwiseOp op("hardtanh_backward", grad_input, dtype, {{grad_output, dtype}, {self, dtype}});
  OPCORE_DISPATCH_FLOATING_TYPES(dtype, "hardshrink_backward_cpu", [&] {
    using M = opmath_t<scalar_t>;
    const M lo = min_val.to<M>(), hi = max_val.to<M>();
    op.run<scalar_t, scalar_t, scalar_t>([lo, hi](M g, M x) { return pw::hardtanhBackwardOf(g, x, lo, hi); });
  });
  return grad_input;
}

Tensor hardtanh_backward(const Tensor& grad_output, const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  const ScalarType dtype = resultType(grad_output, self);
  ElementwiseOp op("hardtanh_backward", TensorBase(), dtype, {{grad_output, dtype}, {self, dtype}});
  OPCORE_DISPATCH_FLOATING_TYPES(dtype, "hardshrink_backward_cpu", [&] {
    using M = opmath_t<scalar_t>;
    const M lo = min_val.to<M>(), hi = max_val.to<M>();
    op.run<scalar_t, scalar_t, scalar_t>([lo, hi](M g, M x) { return pw::hardtanhBackwardOf(g, x, lo, hi); });
  });
  return op.output();
}

#undef OPCORE_ACTIVATION_FLOATING_AND_COMPLEX_AND_BFLOAT16
#undef OPCORE_ACTIVATION_FLOATING_AND_BFLOAT16

}  // namespace opcore::native

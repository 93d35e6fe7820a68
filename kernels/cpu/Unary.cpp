// CPU unary pointwise kernels: neg_out, the float functions exp/log/sqrt/sigmoid/tanh (integral
// and bool inputs compute in the default float dtype), and relu / relu_.
#include <opcore/ops/exp.h>
#include <opcore/ops/exp_native.h>
#include <opcore/ops/log.h>
#include <opcore/ops/log_native.h>
#include <opcore/ops/neg.h>
#include <opcore/ops/neg_native.h>
#include <opcore/ops/relu.h>
#include <opcore/ops/relu_native.h>
#include <opcore/ops/sigmoid.h>
#include <opcore/ops/sigmoid_native.h>
#include <opcore/ops/sqrt.h>
#include <opcore/ops/sqrt_native.h>
#include <opcore/ops/tanh.h>
#include <opcore/ops/tanh_native.h>

#include "common/TypePromotion.h"
#include "cpu/Loops.h"

#include <cmath>

namespace opcore::native {

using cpu::ElementwiseOp;

namespace {

// out = fn(self) in self's floating dtype (or the default float dtype).
template <typename Fn>
Tensor& floatUnaryOut(const char* name, const Tensor& self, Tensor& out, const Fn& fn) {
  const ScalarType dtype = toFloatingType(self.scalarType());
  ElementwiseOp op(name, out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_FLOATING_TYPES(dtype, name, [&] {
    op.run<scalar_t, scalar_t>([&fn](scalar_t x) -> scalar_t { return fn(x); });
  });
  return out;
}

// max(x, 0) that keeps NaN, like PyTorch's relu (clamp_min).
template <typename T>
OPCORE_ALWAYS_INLINE T reluOf(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return (x > T(0) || std::isnan(x)) ? x : T(0);
  } else {
    return x > T(0) ? x : T(0);
  }
}

void runRelu(ElementwiseOp& op, ScalarType dtype) {
  OPCORE_DISPATCH_NUMERIC_TYPES(dtype, "relu", [&] {
    op.run<scalar_t, scalar_t>([](scalar_t x) { return reluOf(x); });
  });
}

}  // namespace

Tensor& neg_out(const Tensor& self, Tensor& out) {
  OPCORE_CHECK(self.scalarType() != ScalarType::Bool,
               "neg: negation is not defined on bool tensors (to invert a mask, use logical not)");
  const ScalarType dtype = self.scalarType();
  ElementwiseOp op("neg", out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_NUMERIC_TYPES(dtype, "neg", [&] {
    op.run<scalar_t, scalar_t>([](scalar_t x) { return static_cast<scalar_t>(-x); });
  });
  return out;
}

Tensor& exp_out(const Tensor& self, Tensor& out) {
  return floatUnaryOut("exp", self, out, [](auto x) { return std::exp(x); });
}

Tensor& log_out(const Tensor& self, Tensor& out) {
  return floatUnaryOut("log", self, out, [](auto x) { return std::log(x); });
}

Tensor& sqrt_out(const Tensor& self, Tensor& out) {
  return floatUnaryOut("sqrt", self, out, [](auto x) { return std::sqrt(x); });
}

Tensor& sigmoid_out(const Tensor& self, Tensor& out) {
  return floatUnaryOut("sigmoid", self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / (T(1) + std::exp(-x));
  });
}

Tensor& tanh_out(const Tensor& self, Tensor& out) {
  return floatUnaryOut("tanh", self, out, [](auto x) { return std::tanh(x); });
}

Tensor relu(const Tensor& self) {
  const ScalarType dtype = self.scalarType();
  ElementwiseOp op("relu", TensorBase(), dtype, {{self, dtype}});
  runRelu(op, dtype);
  return op.output();
}

Tensor& relu_(Tensor& self) {
  const ScalarType dtype = self.scalarType();
  ElementwiseOp op("relu_", self, dtype, {{self, dtype}});
  runRelu(op, dtype);
  return self;
}

}  // namespace opcore::native

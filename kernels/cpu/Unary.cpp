// CPU unary pointwise kernels: neg_out, the float functions exp/log/sqrt/sigmoid/tanh (integral
// and bool inputs compute in the default float dtype; exp, log, sqrt, tanh and float sigmoid
// vectorized by cpu/VecMath.h), and relu / relu_.
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
#include "cpu/VecMath.h"

#include <cmath>

namespace opcore::native {

using cpu::ElementwiseOp;

namespace {

// out = fn(self) in self's floating dtype (or the default float dtype).
template <typename Fn>
void floatUnaryOut(const char* name, const Tensor& self, const Tensor& out, const Fn& fn) {
  const ScalarType dtype = toFloatingType(self.scalar_type());
  ElementwiseOp op(name, out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_FLOATING_TYPES(dtype, name, [&] {
    op.run<scalar_t, scalar_t>([&fn](scalar_t x) -> scalar_t { return fn(x); });
  });
}

// out = fn(self) in self's floating dtype (or the default float dtype), vectorized.
void vecUnaryOut(const char* name, const Tensor& self, const Tensor& out, cpu::VecFn fn) {
  const ScalarType dtype = toFloatingType(self.scalar_type());
  ElementwiseOp op(name, out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_FLOATING_TYPES(dtype, name, [&] {
    op.runRows<scalar_t>([fn](const scalar_t* in, scalar_t* o, int64_t n) { cpu::vecMap(fn, in, o, n); });
  });
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

// The impl kernels of structured operators: meta::neg, meta::exp, ... (common/PointwiseMeta.cpp)
// have made the checks and prepared `out`.
void neg_out(const Tensor& self, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("neg", out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_NUMERIC_TYPES(dtype, "neg", [&] {
    op.run<scalar_t, scalar_t>([](scalar_t x) { return static_cast<scalar_t>(-x); });
  });
}

void exp_out(const Tensor& self, const Tensor& out) {
  vecUnaryOut("exp", self, out, cpu::VecFn::Exp);
}

void log_out(const Tensor& self, const Tensor& out) {
  vecUnaryOut("log", self, out, cpu::VecFn::Log);
}

void sqrt_out(const Tensor& self, const Tensor& out) {
  vecUnaryOut("sqrt", self, out, cpu::VecFn::Sqrt);
}

// float: vectorized in double precision; double: the scalar formula (Note [Vectorized math]).
void sigmoid_out(const Tensor& self, const Tensor& out) {
  if (toFloatingType(self.scalar_type()) == ScalarType::Float) {
    vecUnaryOut("sigmoid", self, out, cpu::VecFn::Sigmoid);
    return;
  }
  floatUnaryOut("sigmoid", self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / (T(1) + std::exp(-x));
  });
}

void tanh_out(const Tensor& self, const Tensor& out) {
  vecUnaryOut("tanh", self, out, cpu::VecFn::Tanh);
}

Tensor relu(const Tensor& self) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("relu", TensorBase(), dtype, {{self, dtype}});
  runRelu(op, dtype);
  return op.output();
}

Tensor& relu_(Tensor& self) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("relu_", self, dtype, {{self, dtype}});
  runRelu(op, dtype);
  return self;
}

}  // namespace opcore::native

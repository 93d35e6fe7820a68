// CPU unary pointwise kernels: neg_out, the float functions exp/log/sqrt/sigmoid/tanh (integral
// and bool inputs compute in the default float dtype; real ones vectorized by cpu/VecMath.h,
// Half and BFloat16 through float, except double sigmoid; complex ones by std::complex), and
// relu / relu_.
#include <opcore/ops/abs_native.h>
#include <opcore/ops/angle_native.h>
#include <opcore/ops/conj_physical_native.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/exp_native.h>
#include <opcore/ops/log.h>
#include <opcore/ops/log_native.h>
#include <opcore/ops/neg.h>
#include <opcore/ops/neg_native.h>
#include <opcore/ops/relu.h>
#include <opcore/ops/relu_native.h>
#include <opcore/ops/sign_native.h>
#include <opcore/ops/sigmoid.h>
#include <opcore/ops/sigmoid_native.h>
#include <opcore/ops/sqrt.h>
#include <opcore/ops/sqrt_native.h>
#include <opcore/ops/tanh.h>
#include <opcore/ops/tanh_native.h>

#include "common/TypePromotion.h"
#include "common/pointwise/Unary.h"
#include "cpu/Loops.h"
#include "cpu/VecMath.h"

#include <cmath>

namespace opcore::native {

using cpu::ElementwiseOp;

namespace {

// out = fn(self) in self's floating or complex dtype (or the default float dtype): real
// dtypes through the vectorized `vec` (Half and BFloat16 in float), complex ones through
// `scalar` (also used for double when vec is float-only).
template <typename T, typename Scalar>
void runFloatUnary(ElementwiseOp& op, cpu::VecFn vec, const Scalar& scalar, bool vec_float_only) {
  using M = opmath_t<T>;
  if constexpr (std::is_floating_point_v<M>) {
    if (!(vec_float_only && std::is_same_v<M, double>)) {
      op.runRows<T>([vec](const M* in, M* o, int64_t n) { cpu::vecMap(vec, in, o, n); });
      return;
    }
  }
  op.run<T, T>([&scalar](M x) -> M { return scalar(x); });
}

template <typename Scalar>
void floatUnaryOut(const char* name, const Tensor& self, const Tensor& out, cpu::VecFn vec,
                   const Scalar& scalar, bool vec_float_only = false) {
  const ScalarType dtype = toFloatingType(self.scalar_type());
  ElementwiseOp op(name, out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] {
    runFloatUnary<scalar_t>(op, vec, scalar, vec_float_only);
  });
}

using opcore::pointwise::absOf;
using opcore::pointwise::reluOf;

using opcore::pointwise::angleOf;
using opcore::pointwise::conjOf;

// out = f(self) where out has self's real dtype (complex64 -> float32; real dtypes stay).
template <typename T, typename F>
void runComplexToReal(ElementwiseOp& op, const F& f) {
  if constexpr (is_complex_v<T>) {
    op.run<typename T::value_type, T>([&f](T z) { return f(z); });
  } else {
    op.run<T, T>([&f](opmath_t<T> x) { return f(x); });
  }
}

void runRelu(ElementwiseOp& op, ScalarType dtype) {
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, "relu", [&] {
    op.run<scalar_t, scalar_t>([](opmath_t<scalar_t> x) { return reluOf(x); });
  });
}

}  // namespace

// The impl kernels of structured operators: meta::neg, meta::exp, ... (common/PointwiseMeta.cpp)
// have made the checks and prepared `out`.
void neg_out(const Tensor& self, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("neg", out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, dtype, "neg", [&] {
    using M = opmath_t<scalar_t>;
    op.run<scalar_t, scalar_t>([](M x) { return opcore::pointwise::negOf(x); });
  });
}

void exp_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut("exp", self, out, cpu::VecFn::Exp, [](auto x) {
    using std::exp;  // real x; complex x finds opcore::exp by ADL
    return exp(x);
  });
}

void log_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut("log", self, out, cpu::VecFn::Log, [](auto x) {
    using std::log;  // real x; complex x finds opcore::log by ADL
    return log(x);
  });
}

void sqrt_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut("sqrt", self, out, cpu::VecFn::Sqrt, [](auto x) {
    using std::sqrt;  // real x; complex x finds opcore::sqrt by ADL
    return sqrt(x);
  });
}

// float (and Half, BFloat16): vectorized in double precision; double and complex: the scalar
// formula (Note [Vectorized math]).
void sigmoid_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut(
      "sigmoid", self, out, cpu::VecFn::Sigmoid,
      [](auto x) {
        using T = decltype(x);
        using std::exp;
        return T(1) / (T(1) + exp(-x));
      },
      /*vec_float_only=*/true);
}

void tanh_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut("tanh", self, out, cpu::VecFn::Tanh, [](auto x) {
    using std::tanh;  // real x; complex x finds opcore::tanh by ADL
    return tanh(x);
  });
}

// The impls of abs, sign, angle and conj_physical (meta functions in
// common/PointwiseMeta.cpp): abs and angle of a complex tensor write its real dtype.
void abs_out(const Tensor& self, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("abs", out, toRealValueType(dtype), {{self, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, dtype, "abs", [&] {
    runComplexToReal<scalar_t>(op, [](auto x) { return absOf(x); });
  });
}

void sign_out(const Tensor& self, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("sign", out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, dtype, "sign", [&] {
    using M = opmath_t<scalar_t>;
    op.run<scalar_t, scalar_t>([](M x) { return opcore::pointwise::sgnOf(x); });
  });
}

void angle_out(const Tensor& self, const Tensor& out) {
  const ScalarType dtype = toFloatingType(self.scalar_type());
  ElementwiseOp op("angle", out, toRealValueType(dtype), {{self, dtype}});
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, "angle", [&] {
    runComplexToReal<scalar_t>(op, [](auto x) { return angleOf(x); });
  });
}

void conj_physical_out(const Tensor& self, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("conj_physical", out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_EVERY_TYPE(dtype, "conj_physical", [&] {
    op.run<scalar_t, scalar_t>([](auto x) { return conjOf(x); });
  });
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

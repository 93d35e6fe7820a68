// CPU kernels of the unary pointwise operators of issue #33: the trigonometric, hyperbolic,
// exponential and logarithmic functions (real dtypes vectorized by cpu/VecMath.h, Half and
// BFloat16 through float, complex ones by the scalar formula), the rounding functions, sgn,
// frac, erfinv, bitwise_not, logical_not, isnan, isinf and nan_to_num. The element functions
// are kernels/common/pointwise/Unary.h's (Note [Unary element functions]).
#include <opcore/ops/acos_native.h>
#include <opcore/ops/acosh_native.h>
#include <opcore/ops/asin_native.h>
#include <opcore/ops/asinh_native.h>
#include <opcore/ops/atan_native.h>
#include <opcore/ops/atanh_native.h>
#include <opcore/ops/bitwise_not_native.h>
#include <opcore/ops/ceil_native.h>
#include <opcore/ops/cos_native.h>
#include <opcore/ops/cosh_native.h>
#include <opcore/ops/erf_native.h>
#include <opcore/ops/erfinv_native.h>
#include <opcore/ops/exp2_native.h>
#include <opcore/ops/expm1_native.h>
#include <opcore/ops/floor_native.h>
#include <opcore/ops/frac_native.h>
#include <opcore/ops/isinf_native.h>
#include <opcore/ops/isnan_native.h>
#include <opcore/ops/log10_native.h>
#include <opcore/ops/log1p_native.h>
#include <opcore/ops/log2_native.h>
#include <opcore/ops/logical_not_native.h>
#include <opcore/ops/nan_to_num_native.h>
#include <opcore/ops/reciprocal_native.h>
#include <opcore/ops/round_native.h>
#include <opcore/ops/rsqrt_native.h>
#include <opcore/ops/sgn_native.h>
#include <opcore/ops/sin_native.h>
#include <opcore/ops/sinh_native.h>
#include <opcore/ops/tan_native.h>
#include <opcore/ops/trunc_native.h>

#include "common/TypePromotion.h"
#include "common/pointwise/Unary.h"
#include "cpu/Loops.h"
#include "cpu/VecMath.h"

#include <algorithm>
#include <limits>

namespace opcore::native {

using cpu::ElementwiseOp;
namespace pw = pointwise;

namespace {

// How a floating-point function reaches its elements: SLEEF's vector function for the real
// dtypes (`vec`), or the scalar function of Unary.h for every element.
enum class Complex { Yes, No };

// out = f(self) in self's floating or complex dtype (the default float dtype for integral and
// bool inputs): real dtypes through `row(in, out, n)` over contiguous float or double rows
// (Half and BFloat16 gathered as float; a vectorized function), complex ones through `scalar`.
// Complex::No refuses complex dtypes with PyTorch's message.
template <Complex kComplex, typename Row, typename Scalar>
void floatUnaryOut(const char* name, const Tensor& self, const Tensor& out, const Row& row, const Scalar& scalar) {
  const ScalarType dtype = toFloatingType(self.scalar_type());
  ElementwiseOp op(name, out, dtype, {{self, dtype}});
  auto body = [&]<typename T>() {
    using M = opmath_t<T>;
    if constexpr (std::is_floating_point_v<M>) {
      op.runRows<T>([&row](const M* in, M* o, int64_t n) { row(in, o, n); });
    } else {
      op.run<T, T>([&scalar](M x) -> M { return scalar(x); });
    }
  };
  if constexpr (kComplex == Complex::Yes) {
    OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, name,
                                                    [&] { body.template operator()<scalar_t>(); });
  } else {
    OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] { body.template operator()<scalar_t>(); });
  }
}

// The row function of a SLEEF vector function.
auto vecRow(cpu::VecFn fn) {
  return [fn](const auto* in, auto* out, int64_t n) { cpu::vecMap(fn, in, out, n); };
}

// Note [Bounded SLEEF functions]
// Some of SLEEF's functions keep their 1-ulp bound only on part of the range and give inf
// beyond it: asinh and acosh above about 1.8e19 in float and 1.3e154 in double (where the
// result is a finite 44 or 355), log1p above 1e38 and 1e307, sinh and cosh above 88.7 in float
// (sinh(89.4f) is 3.4e38, finite) and 709 in double. A block of 64 elements holding one at or
// above `bound` (below SLEEF's, to stay clear of it) is computed by the scalar std:: function
// instead, float ones in double precision and rounded once (glibc's sinhf is 2 ulp off near
// its overflow); other blocks, NaN included, stay vectorized.
template <typename Scalar>
auto boundedVecRow(cpu::VecFn fn, float float_bound, double double_bound, const Scalar& scalar) {
  return [fn, float_bound, double_bound, scalar](const auto* in, auto* out, int64_t n) {
    using M = std::remove_cv_t<std::remove_pointer_t<decltype(out)>>;
    using Wide = double;  // the scalar path's precision, for float and double
    const M bound = std::is_same_v<M, float> ? static_cast<M>(float_bound) : static_cast<M>(double_bound);
    constexpr int64_t kBlock = 64;
    for (int64_t start = 0; start < n; start += kBlock) {
      const int64_t len = std::min(kBlock, n - start);
      int beyond = 0;
      for (int64_t i = start; i < start + len; ++i) beyond |= static_cast<int>(std::fabs(in[i]) >= bound);
      if (beyond == 0) {
        cpu::vecMap(fn, in + start, out + start, len);
      } else {
        for (int64_t i = start; i < start + len; ++i) out[i] = static_cast<M>(scalar(static_cast<Wide>(in[i])));
      }
    }
  };
}

}  // namespace

// ---- float functions with a SLEEF vector variant -----------------------------------------------

void sin_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut<Complex::Yes>("sin", self, out, vecRow(cpu::VecFn::Sin), [](auto x) { return pw::sinOf(x); });
}

void cos_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut<Complex::Yes>("cos", self, out, vecRow(cpu::VecFn::Cos), [](auto x) { return pw::cosOf(x); });
}

void tan_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut<Complex::Yes>("tan", self, out, vecRow(cpu::VecFn::Tan), [](auto x) { return pw::tanOf(x); });
}

void asin_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut<Complex::Yes>("asin", self, out, vecRow(cpu::VecFn::Asin), [](auto x) { return pw::asinOf(x); });
}

void acos_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut<Complex::Yes>("acos", self, out, vecRow(cpu::VecFn::Acos), [](auto x) { return pw::acosOf(x); });
}

void atan_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut<Complex::Yes>("atan", self, out, vecRow(cpu::VecFn::Atan), [](auto x) { return pw::atanOf(x); });
}



void atanh_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut<Complex::Yes>("atanh", self, out, vecRow(cpu::VecFn::Atanh), [](auto x) { return pw::atanhOf(x); });
}

void log10_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut<Complex::Yes>("log10", self, out, vecRow(cpu::VecFn::Log10), [](auto x) { return pw::log10Of(x); });
}

void log2_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut<Complex::Yes>("log2", self, out, vecRow(cpu::VecFn::Log2), [](auto x) { return pw::log2Of(x); });
}

void expm1_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut<Complex::No>("expm1", self, out, vecRow(cpu::VecFn::Expm1), [](auto x) { return pw::expm1Of(x); });
}

void exp2_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut<Complex::No>("exp2", self, out, vecRow(cpu::VecFn::Exp2), [](auto x) { return pw::exp2Of(x); });
}

void erf_out(const Tensor& self, const Tensor& out) {
  floatUnaryOut<Complex::No>("erf", self, out, vecRow(cpu::VecFn::Erf), [](auto x) { return pw::erfOf(x); });
}

// See Note [Bounded SLEEF functions].

void asinh_out(const Tensor& self, const Tensor& out) {
  const auto scalar = [](auto x) { return pw::asinhOf(x); };
  floatUnaryOut<Complex::Yes>("asinh", self, out, boundedVecRow(cpu::VecFn::Asinh, 4e18f, 3e153, scalar), scalar);
}

void acosh_out(const Tensor& self, const Tensor& out) {
  const auto scalar = [](auto x) { return pw::acoshOf(x); };
  floatUnaryOut<Complex::Yes>("acosh", self, out, boundedVecRow(cpu::VecFn::Acosh, 4e18f, 3e153, scalar), scalar);
}

void sinh_out(const Tensor& self, const Tensor& out) {
  const auto scalar = [](auto x) { return pw::sinhOf(x); };
  floatUnaryOut<Complex::Yes>("sinh", self, out, boundedVecRow(cpu::VecFn::Sinh, 88.0f, 709.0, scalar), scalar);
}

void cosh_out(const Tensor& self, const Tensor& out) {
  const auto scalar = [](auto x) { return pw::coshOf(x); };
  floatUnaryOut<Complex::Yes>("cosh", self, out, boundedVecRow(cpu::VecFn::Cosh, 88.0f, 709.0, scalar), scalar);
}

void log1p_out(const Tensor& self, const Tensor& out) {
  const auto scalar = [](auto x) { return pw::log1pOf(x); };
  floatUnaryOut<Complex::No>("log1p", self, out, boundedVecRow(cpu::VecFn::Log1p, 2e37f, 2e306, scalar), scalar);
}

// ---- float functions computed elementwise ------------------------------------------------------

void erfinv_out(const Tensor& self, const Tensor& out) {
  const ScalarType dtype = toFloatingType(self.scalar_type());
  ElementwiseOp op("erfinv", out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "erfinv", [&] {
    op.run<scalar_t, scalar_t>([](opmath_t<scalar_t> x) { return pw::erfinvOf(x); });
  });
}

void reciprocal_out(const Tensor& self, const Tensor& out) {
  const ScalarType dtype = toFloatingType(self.scalar_type());
  ElementwiseOp op("reciprocal", out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, "reciprocal", [&] {
    op.run<scalar_t, scalar_t>([](opmath_t<scalar_t> x) { return pw::reciprocalOf(x); });
  });
}

// 1 / sqrt(x): the real dtypes take the square root's instructions (vecMap's Sqrt, exactly
// rounded), then divide, the two roundings of PyTorch's 1 / std::sqrt(x).
void rsqrt_out(const Tensor& self, const Tensor& out) {
  const auto row = [](const auto* in, auto* o, int64_t n) {
    using M = std::remove_cv_t<std::remove_pointer_t<decltype(o)>>;
    cpu::vecMap(cpu::VecFn::Sqrt, in, o, n);
    for (int64_t i = 0; i < n; ++i) o[i] = M(1) / o[i];
  };
  floatUnaryOut<Complex::Yes>("rsqrt", self, out, row, [](auto x) { return pw::rsqrtOf(x); });
}

// ---- functions that keep self's dtype ----------------------------------------------------------

// ceil, floor, trunc, round: integers are their own (copied), bool is refused as PyTorch's
// kernels refuse it; complex dtypes are refused by the meta functions (round's by dispatch).
namespace {

template <typename F>
void roundingUnaryOut(const char* name, const Tensor& self, const Tensor& out, const F& f) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op(name, out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] { op.run<scalar_t, scalar_t>(f); });
}

}  // namespace

void ceil_out(const Tensor& self, const Tensor& out) {
  roundingUnaryOut("ceil", self, out, [](auto x) { return pw::ceilOf(x); });
}

void floor_out(const Tensor& self, const Tensor& out) {
  roundingUnaryOut("floor", self, out, [](auto x) { return pw::floorOf(x); });
}

void trunc_out(const Tensor& self, const Tensor& out) {
  roundingUnaryOut("trunc", self, out, [](auto x) { return pw::truncOf(x); });
}

void round_out(const Tensor& self, const Tensor& out) {
  roundingUnaryOut("round", self, out, [](auto x) { return pw::roundOf(x); });
}

void round_decimals_out(const Tensor& self, int64_t decimals, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("round", out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "round", [&] {
    op.run<scalar_t, scalar_t>(pw::RoundDecimals<opmath_t<scalar_t>>(decimals));
  });
}

void frac_out(const Tensor& self, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("frac", out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "frac", [&] {
    op.run<scalar_t, scalar_t>([](opmath_t<scalar_t> x) { return pw::fracOf(x); });
  });
}

void sgn_out(const Tensor& self, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("sgn", out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(kHalf, kBFloat16, kBool, dtype, "sgn", [&] {
    op.run<scalar_t, scalar_t>([](opmath_t<scalar_t> x) { return pw::sgnOf(x); });
  });
}

void bitwise_not_out(const Tensor& self, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("bitwise_not", out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_INTEGRAL_TYPES_AND(kBool, dtype, "bitwise_not", [&] {
    op.run<scalar_t, scalar_t>([](scalar_t x) { return pw::bitwiseNotOf(x); });
  });
}

// ---- predicates: a bool result -----------------------------------------------------------------

// The result is bool; out= may have any dtype, which gets 1 and 0 (as PyTorch's logical_not).
Tensor& logical_not_out(const Tensor& self, Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("logical_not", out, kBool, {{self, dtype}});
  OPCORE_DISPATCH_EVERY_TYPE(dtype, "logical_not", [&] {
    op.run<bool, scalar_t>([](opmath_t<scalar_t> x) { return pw::logicalNotOf(x); });
  });
  return out;
}

Tensor isnan(const Tensor& self) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("isnan", TensorBase(), kBool, {{self, dtype}});
  OPCORE_DISPATCH_EVERY_TYPE(dtype, "isnan", [&] {
    op.run<bool, scalar_t>([](opmath_t<scalar_t> x) { return pw::isnanOf(x); });
  });
  return op.output();
}

Tensor isinf(const Tensor& self) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("isinf", TensorBase(), kBool, {{self, dtype}});
  OPCORE_DISPATCH_EVERY_TYPE(dtype, "isinf", [&] {
    op.run<bool, scalar_t>([](opmath_t<scalar_t> x) { return pw::isinfOf(x); });
  });
  return op.output();
}

// ---- nan_to_num --------------------------------------------------------------------------------

// Replacements default to 0 and the dtype's largest and lowest finite values; a given value is
// converted to the dtype (1e300 becomes inf in float32, as in PyTorch). Integer and bool
// tensors have nothing to replace: copied.
Tensor& nan_to_num_out(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf, Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  OPCORE_CHECK(out.scalar_type() == dtype, "nan_to_num: dtype of out: ", out.scalar_type(),
               " should be same as input: ", dtype);
  ElementwiseOp op("nan_to_num", out, dtype, {{self, dtype}});
  if (isIntegralType(dtype, /*include_bool=*/true)) {
    OPCORE_DISPATCH_INTEGRAL_TYPES_AND(kBool, dtype, "nan_to_num", [&] {
      op.run<scalar_t, scalar_t>([](scalar_t x) { return x; });
    });
    return out;
  }
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "nan_to_num", [&] {
    using M = opmath_t<scalar_t>;
    // The replacements are values of scalar_t (a Half's largest is 65504), computed in M.
    const auto in_dtype = [](double v) { return static_cast<M>(static_cast<scalar_t>(v)); };
    const pw::NanToNum<M> f{in_dtype(nan.value_or(0.0)),
                            posinf ? in_dtype(*posinf) : static_cast<M>(std::numeric_limits<scalar_t>::max()),
                            neginf ? in_dtype(*neginf) : static_cast<M>(std::numeric_limits<scalar_t>::lowest())};
    op.run<scalar_t, scalar_t>(f);
  });
  return out;
}

}  // namespace opcore::native

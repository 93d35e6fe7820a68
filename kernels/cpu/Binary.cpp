// CPU binary arithmetic: add_out / sub_out (with alpha), mul_out, div_out (true division) and
// div_out_mode (rounding_mode None, "trunc" or "floor").
#include <opcore/ops/add.h>
#include <opcore/ops/add_native.h>
#include <opcore/ops/div.h>
#include <opcore/ops/div_native.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/mul_native.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/sub_native.h>

#include "common/TypePromotion.h"
#include "common/pointwise/Binary.h"
#include "cpu/Loops.h"
#include "cpu/ScalarConvert.h"
#include "common/Wrapping.h"

#include <cmath>
#include <string>
#include <type_traits>

namespace opcore::native {

using cpu::ElementwiseOp;

namespace {

// self + sign * alpha * other for one dtype (a template, so that `if constexpr` discards),
// computed in opmath_t<T> (Note [Reduced precision] in cpu/Loops.h). Integer results wrap,
// as PyTorch's (uint8 200 + 100 == 44; Note [Wrapping integer arithmetic] in common/Wrapping.h).
template <typename T, int kSign>
void runAddSub(ElementwiseOp& op, const Scalar& alpha) {
  using M = opmath_t<T>;
  if constexpr (std::is_same_v<T, bool>) {
    // Only add reaches here (sub rejects bool): logical or.
    const bool a = alpha.toBool();
    op.run<T, T, T>([a](T x, T y) { return x || (a && y); });
  } else {
    const M a = static_cast<M>(cpu::checkedConvert<T>(alpha));
    const M signed_a = kSign > 0 ? a : wrappingSub(M(0), a);
    if (signed_a == M(1)) {
      op.run<T, T, T>([](M x, M y) { return wrappingAdd(x, y); });
    } else {
      op.run<T, T, T>([signed_a](M x, M y) { return wrappingAdd(x, wrappingMul(signed_a, y)); });
    }
  }
}

template <int kSign>
void addSubOut(const char* name, const Tensor& self, const Tensor& other, const Scalar& alpha,
               const Tensor& out) {
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op(name, out, dtype, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(kHalf, kBFloat16, kBool, dtype, name,
                                             [&] { runAddSub<scalar_t, kSign>(op, alpha); });
}

template <typename T>
void runMul(ElementwiseOp& op) {
  using M = opmath_t<T>;
  if constexpr (std::is_same_v<T, bool>) {
    op.run<T, T, T>([](T x, T y) { return x && y; });
  } else {
    op.run<T, T, T>([](M x, M y) { return wrappingMul(x, y); });
  }
}

// The rounding divisions: common/pointwise/Binary.h (shared with floor_divide).
using pointwise::floorDivFloat;
using pointwise::floorDivInt;
using pointwise::truncDivInt;

template <typename T>
void runRounding(ElementwiseOp& op, bool floor) {
  using M = opmath_t<T>;
  if constexpr (std::is_integral_v<T>) {
    bool by_zero = false;
    if (floor) {
      op.run<T, T, T>([&by_zero](T a, T b) { return floorDivInt(a, b, &by_zero); });
    } else {
      op.run<T, T, T>([&by_zero](T a, T b) { return truncDivInt(a, b, &by_zero); });
    }
    OPCORE_CHECK(!by_zero, "ZeroDivisionError");
  } else if (floor) {
    op.run<T, T, T>([](M a, M b) { return floorDivFloat(a, b); });
  } else {
    op.run<T, T, T>([](M a, M b) { return std::trunc(a / b); });
  }
}

}  // namespace

// The impl kernels of structured operators: meta::add (common/PointwiseMeta.cpp) has made
// the checks and prepared `out`.
void add_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  addSubOut<1>("add", self, other, alpha, out);
}

void sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  addSubOut<-1>("sub", self, other, alpha, out);
}

void mul_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op("mul", out, dtype, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(kHalf, kBFloat16, kBool, dtype, "mul", [&] { runMul<scalar_t>(op); });
}

void div_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType dtype = toFloatingType(resultType(self, other));
  ElementwiseOp op("div", out, dtype, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, "div", [&] {
    using M = opmath_t<scalar_t>;
    op.run<scalar_t, scalar_t, scalar_t>([](M x, M y) { return x / y; });
  });
}

// meta::div has checked the rounding mode.
void div_out_mode(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode,
                  const Tensor& out) {
  if (!rounding_mode) {
    div_out(self, other, out);
    return;
  }
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op("div", out, dtype, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, "div", [&] { runRounding<scalar_t>(op, *rounding_mode == "floor"); });
}

}  // namespace opcore::native

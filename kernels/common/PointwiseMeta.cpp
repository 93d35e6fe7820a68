// The meta functions of the structured pointwise operators (Note [Structured kernels] in
// gen/api/structured.py): the checks, result shape, dtype and device of add, sub, mul, div,
// neg, the floating-point unary functions and the comparisons eq, ne, lt, le, gt, ge. Every
// backend runs them before its impl kernel, and the Meta backend runs only them.
#include <opcore/ops/abs_native.h>
#include <opcore/ops/add_native.h>
#include <opcore/ops/angle_native.h>
#include <opcore/ops/conj_physical_native.h>
#include <opcore/ops/div_native.h>
#include <opcore/ops/eq_native.h>
#include <opcore/ops/exp_native.h>
#include <opcore/ops/ge_native.h>
#include <opcore/ops/gt_native.h>
#include <opcore/ops/le_native.h>
#include <opcore/ops/log_native.h>
#include <opcore/ops/lt_native.h>
#include <opcore/ops/mul_native.h>
#include <opcore/ops/ne_native.h>
#include <opcore/ops/neg_native.h>
#include <opcore/ops/sign_native.h>
#include <opcore/ops/sigmoid_native.h>
#include <opcore/ops/sqrt_native.h>
#include <opcore/ops/sub_native.h>
#include <opcore/ops/tanh_native.h>

#include "common/Shape.h"
#include "common/TypePromotion.h"

namespace opcore::meta {

using native::broadcastShapes;
using native::resultType;
using native::toFloatingType;

namespace {

// The device of an elementwise result: the operands' common device. A 0-dim CPU tensor may
// join tensors of another device (as a wrapped scalar does); any other mix is an error.
Device commonDevice(const char* name, const Tensor& self, const Tensor& other) {
  const bool self_scalar = self.dim() == 0 && self.is_cpu(), other_scalar = other.dim() == 0 && other.is_cpu();
  if (self.device() == other.device() || other_scalar) return self.device();
  OPCORE_CHECK(self_scalar, name, ": expected all tensors to be on the same device, but found at least two "
               "devices, ", self.device(), " and ", other.device());
  return other.device();
}

TensorSpec binary(const char* name, const Tensor& self, const Tensor& other, ScalarType dtype) {
  return {broadcastShapes(self.sizes(), other.sizes()), dtype, commonDevice(name, self, other)};
}

TensorSpec unary(const Tensor& self, ScalarType dtype) {
  return {std::vector<int64_t>(self.sizes().begin(), self.sizes().end()), dtype, self.device()};
}

}  // namespace

add_out add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  const ScalarType dtype = resultType(self, other);
  native::checkAlpha(dtype, alpha);
  return {binary("add", self, other, dtype)};
}

sub_out sub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  native::checkSubOperands(self, other);
  const ScalarType dtype = resultType(self, other);
  native::checkAlpha(dtype, alpha);
  return {binary("sub", self, other, dtype)};
}

mul_out mul(const Tensor& self, const Tensor& other) {
  return {binary("mul", self, other, resultType(self, other))};
}

// True division: integral and bool operands give the default float dtype.
div_out div(const Tensor& self, const Tensor& other) {
  return {binary("div", self, other, toFloatingType(resultType(self, other)))};
}

// With a rounding mode ("trunc" or "floor"), the operands' result type, real and not bool;
// without one, true division.
div_out_mode div(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return {binary("div", self, other, toFloatingType(resultType(self, other)))};
  OPCORE_CHECK(*rounding_mode == "floor" || *rounding_mode == "trunc",
               "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
               std::string(*rounding_mode), "'");
  return {binary("div", self, other, native::roundingDivisionType("div", self, other))};
}

neg_out neg(const Tensor& self) {
  OPCORE_CHECK(self.scalar_type() != ScalarType::Bool,
               "neg: negation is not defined on bool tensors (to invert a mask, use logical not)");
  return {unary(self, self.scalar_type())};
}

// exp, log, ...: self's floating dtype, or the default float dtype for integral and bool.
exp_out exp(const Tensor& self) { return {unary(self, toFloatingType(self.scalar_type()))}; }
log_out log(const Tensor& self) { return {unary(self, toFloatingType(self.scalar_type()))}; }
sqrt_out sqrt(const Tensor& self) { return {unary(self, toFloatingType(self.scalar_type()))}; }
sigmoid_out sigmoid(const Tensor& self) { return {unary(self, toFloatingType(self.scalar_type()))}; }
tanh_out tanh(const Tensor& self) { return {unary(self, toFloatingType(self.scalar_type()))}; }

// The complex-number functions: abs and angle of a complex tensor are real (complex64 ->
// float32); angle of an integral one is in the default float dtype.
abs_out abs(const Tensor& self) {
  if (self.scalar_type() == kBool) opcore::detail::throwNotImplementedForDtype("abs", kBool);
  return {unary(self, toRealValueType(self.scalar_type()))};
}
sign_out sign(const Tensor& self) {
  OPCORE_CHECK(!isComplexType(self.scalar_type()),
               "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.");
  return {unary(self, self.scalar_type())};
}
angle_out angle(const Tensor& self) {
  return {unary(self, toRealValueType(toFloatingType(self.scalar_type())))};
}
conj_physical_out conj_physical(const Tensor& self) { return {unary(self, self.scalar_type())}; }

// Comparisons: the operands are compared in their promoted dtype and the result is Bool. Any
// out= dtype will do (it gets 1 and 0), and in-place self keeps its dtype, as in PyTorch.
eq_Tensor_out eq(const Tensor& self, const Tensor& other) { return {binary("eq", self, other, ScalarType::Bool)}; }
eq_Scalar_out eq(const Tensor& self, const Scalar&) { return {unary(self, ScalarType::Bool)}; }
ne_Tensor_out ne(const Tensor& self, const Tensor& other) { return {binary("ne", self, other, ScalarType::Bool)}; }
ne_Scalar_out ne(const Tensor& self, const Scalar&) { return {unary(self, ScalarType::Bool)}; }
lt_Tensor_out lt(const Tensor& self, const Tensor& other) { return {binary("lt", self, other, ScalarType::Bool)}; }
lt_Scalar_out lt(const Tensor& self, const Scalar&) { return {unary(self, ScalarType::Bool)}; }
le_Tensor_out le(const Tensor& self, const Tensor& other) { return {binary("le", self, other, ScalarType::Bool)}; }
le_Scalar_out le(const Tensor& self, const Scalar&) { return {unary(self, ScalarType::Bool)}; }
gt_Tensor_out gt(const Tensor& self, const Tensor& other) { return {binary("gt", self, other, ScalarType::Bool)}; }
gt_Scalar_out gt(const Tensor& self, const Scalar&) { return {unary(self, ScalarType::Bool)}; }
ge_Tensor_out ge(const Tensor& self, const Tensor& other) { return {binary("ge", self, other, ScalarType::Bool)}; }
ge_Scalar_out ge(const Tensor& self, const Scalar&) { return {unary(self, ScalarType::Bool)}; }

}  // namespace opcore::meta

// PyTorch's result-type rules (see TypePromotion.h).
#include "common/TypePromotion.h"

#include <opcore/core/Error.h>
#include <opcore/ops/full.h>

namespace opcore::native {

// Note [Result type]
// Operands fall into three priority classes: tensors with dimensions,
// zero-dimensional tensors, and Scalars ("wrapped numbers"). Within a class, dtypes promote
// normally. Across classes, a lower-priority class only matters when its category
// (bool < integral < floating < complex) is higher: int32 tensor + 2 is Int, int32 tensor +
// int64 zero-dim tensor is Int, int32 tensor + 2.5 is Float (a float Scalar counts as the
// default float dtype, a complex one as the default complex dtype), float32 tensor + float64
// zero-dim tensor is Float, but int32 tensor + float64 zero-dim tensor is Double, float64
// tensor + 1j is ComplexDouble (a complex lower class keeps the higher's float width), as in
// PyTorch.

namespace {

std::optional<ScalarType> promoteOptional(std::optional<ScalarType> a, ScalarType b) {
  return a ? promoteTypes(*a, b) : b;
}

// Combines the result of a higher-priority class with that of a lower one.
std::optional<ScalarType> combineCategories(std::optional<ScalarType> higher,
                                            std::optional<ScalarType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (isComplexType(*higher)) return higher;
  if (isComplexType(*lower)) return isFloatingType(*higher) ? toComplexType(*higher) : *lower;
  if (isFloatingType(*higher)) return higher;
  if (*higher == ScalarType::Bool || isFloatingType(*lower)) return promoteTypes(*higher, *lower);
  return higher;
}

}  // namespace

void ResultTypeState::add(const TensorBase& t) {
  if (t.dim() == 0) {
    zero_dim_result_ = promoteOptional(zero_dim_result_, t.scalar_type());
  } else {
    dim_result_ = promoteOptional(dim_result_, t.scalar_type());
  }
}

void ResultTypeState::add(const Scalar& s) {
  const ScalarType t = s.isFloatingPoint() ? kDefaultFloat : (s.isComplex() ? kDefaultComplex : s.type());
  wrapped_result_ = promoteOptional(wrapped_result_, t);
}

ScalarType ResultTypeState::result() const {
  const auto r = combineCategories(dim_result_, combineCategories(zero_dim_result_, wrapped_result_));
  OPCORE_INTERNAL_ASSERT(r.has_value(), "result type of no operands");
  return *r;
}

ScalarType resultType(const TensorBase& a, const TensorBase& b) {
  ResultTypeState state;
  state.add(a);
  state.add(b);
  return state.result();
}

ScalarType roundingDivisionType(const char* name, const TensorBase& self, const TensorBase& other) {
  const ScalarType dtype = resultType(self, other);
  if (dtype == ScalarType::Bool || isComplexType(dtype)) detail::throwNotImplementedForDtype(name, dtype);
  return dtype;
}

ScalarType resultType(const TensorBase& a, const Scalar& b) {
  ResultTypeState state;
  state.add(a);
  state.add(b);
  return state.result();
}

void checkCanCast(ScalarType result, ScalarType out) {
  OPCORE_CHECK(canCast(result, out), "result type ", result,
               " can't be cast to the desired output type ", out);
}

void checkAlpha(ScalarType dtype, const Scalar& alpha) {
  OPCORE_CHECK(!(alpha.isBoolean() && dtype != ScalarType::Bool),
               "Boolean alpha only supported for Boolean results.");
  OPCORE_CHECK(isComplexType(dtype) || !alpha.isComplex(),
               "For non-complex input tensors, argument alpha must not be a complex number.");
  OPCORE_CHECK(isFloatingType(dtype) || isComplexType(dtype) || alpha.isIntegral(true),
               "For integral input tensors, argument alpha must not be a floating point number.");
}

void checkSubOperands(const TensorBase& self, const TensorBase& other) {
  const bool a = self.scalar_type() == ScalarType::Bool, b = other.scalar_type() == ScalarType::Bool;
  OPCORE_CHECK(!(a && b),
               "sub: both operands are bool tensors; subtraction is not defined on bool "
               "(for a logical difference, use xor)");
  OPCORE_CHECK(!(a || b),
               "sub: one operand is a bool tensor; subtraction is not defined on bool "
               "(to invert a mask, use logical not)");
}

// Note [Scalar operands]
// PyTorch treats a Scalar argument as a "wrapped number" that promotes with the lowest priority
// (see Note [Result type]). The Scalar overloads (add.Scalar, where.ScalarOther, bitwise_and.Scalar,
// ...) compute the result dtype with that rule, wrap the value as a zero-dim tensor *of the result
// dtype* and call the Tensor overload. A zero-dim operand of the result dtype cannot change the
// kernel's own promotion, so both agree. The value is converted to the result dtype as a tensor's
// elements are, so that, as in PyTorch, an integer too large for the result wraps
// (uint8 1 + 1000 == 233) rather than being refused by full()'s overflow check.
Tensor wrappedNumber(const Scalar& value, ScalarType dtype, Device device) {
  const Scalar cast = OPCORE_DISPATCH_EVERY_TYPE(dtype, "wrapped number", [&] { return Scalar(value.to<scalar_t>()); });
  return opcore::full({}, cast, TensorOptions(dtype).device(device));
}

Tensor wrapBeside(const TensorBase& self, const Scalar& value) {
  return wrappedNumber(value, resultType(self, value), self.device());
}

}  // namespace opcore::native

// Composite overloads of where and div that take numbers (issue #33): where.ScalarSelf,
// ScalarOther and Scalar, and div.Scalar_mode. Each wraps the number as a zero-dim tensor of the
// result dtype (Note [Scalar operands] in TypePromotion.cpp). Apart from BinaryScalar.cpp so that a
// selective build keeping where or div does not keep the operators that file calls.
#include <opcore/ops/div.h>
#include <opcore/ops/div_native.h>
#include <opcore/ops/where.h>
#include <opcore/ops/where_native.h>

#include "common/TypePromotion.h"

namespace opcore::native {

// where with numbers (CompositeImplicitAutograd, as PyTorch's): a number beside a tensor takes
// the dtype they promote to; two numbers promote as Python numbers (int and float: the
// default float dtype).
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  const ScalarType dtype = resultType(other, self);
  return opcore::where(condition, wrappedNumber(self, dtype, other.device()), other.to(dtype));
}
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  const ScalarType dtype = resultType(self, other);
  return opcore::where(condition, self.to(dtype), wrappedNumber(other, dtype, self.device()));
}
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  ResultTypeState state;
  state.add(self);
  state.add(other);
  const ScalarType dtype = state.result();
  return opcore::where(condition, wrappedNumber(self, dtype, condition.device()),
                       wrappedNumber(other, dtype, condition.device()));
}

// div.Scalar_mode: rounding_mode None is true division (div.Scalar).
Tensor div(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return opcore::div(self, other);
  return opcore::div(self, wrappedNumber(other, resultType(self, other), self.device()), rounding_mode);
}
Tensor& div_(Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  const Tensor result = native::div(self, other, rounding_mode);
  checkCanCast(result.scalar_type(), self.scalar_type());
  return self.copy_(result);
}

}  // namespace opcore::native

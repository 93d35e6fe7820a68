// PyTorch's result-type rules for operators with several inputs, shared by kernels and
// composites. See Note [Result type] in TypePromotion.cpp.
//   resultType(int_tensor, Scalar(2.5)) == ScalarType::Float
#pragma once

#include <opcore/core/Scalar.h>
#include <opcore/core/ScalarType.h>
#include <opcore/core/TensorBase.h>
#include <opcore/core/TensorFwd.h>

#include <optional>

namespace opcore::native {

// Accumulates operands, then answers the dtype an operator on all of them computes in.
class ResultTypeState {
 public:
  void add(const TensorBase& t);
  // A Scalar argument (a "wrapped number"): a float counts as the default float dtype.
  void add(const Scalar& s);
  ScalarType result() const;

 private:
  std::optional<ScalarType> dim_result_;      // tensors with at least one dimension
  std::optional<ScalarType> zero_dim_result_; // zero-dimensional tensors
  std::optional<ScalarType> wrapped_result_;  // Scalars
};

ScalarType resultType(const TensorBase& a, const TensorBase& b);
ScalarType resultType(const TensorBase& a, const Scalar& b);

// A Scalar operand as the zero-dim tensor of `dtype` on `device` that the Tensor overload takes
// (Note [Scalar operands] in TypePromotion.cpp); wrapBeside(self, value) wraps it in the dtype
// it promotes to beside `self`, on self's device.
Tensor wrappedNumber(const Scalar& value, ScalarType dtype, Device device);
Tensor wrapBeside(const TensorBase& self, const Scalar& value);

// Throws "result type Float can't be cast to the desired output type Long" unless canCast.
void checkCanCast(ScalarType result, ScalarType out);

// The dtype of float-valued functions (exp, true division, mean): integral and bool
// inputs compute in the default float dtype; floating and complex ones in their own.
inline ScalarType toFloatingType(ScalarType t) {
  return isFloatingType(t) || isComplexType(t) ? t : kDefaultFloat;
}

// The argument checks of add/sub, shared by every backend: alpha must fit the result dtype,
// and sub rejects bool operands.
void checkAlpha(ScalarType dtype, const Scalar& alpha);
void checkSubOperands(const TensorBase& self, const TensorBase& other);

// The dtype of a rounding division (floor_divide, div's "trunc" and "floor" modes): the result
// type, which must be real and not bool (their kernels' set); `name` is the operator's.
ScalarType roundingDivisionType(const char* name, const TensorBase& self, const TensorBase& other);

}  // namespace opcore::native

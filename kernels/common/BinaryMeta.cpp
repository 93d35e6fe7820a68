// The meta functions of the structured binary and ternary pointwise operators of issue #33
// (Note [Structured kernels] in gen/api/structured.py): atan2, the bitwise operators and
// shifts, fmod, remainder, maximum, minimum, pow, clamp (and clamp_min / clamp_max), lerp,
// addcmul, addcdiv, hypot, copysign. Each checks its inputs and gives the result's shape (the
// operands broadcast), dtype (PyTorch's promotion) and device; the Meta backend runs only them.
#include <opcore/ops/addcdiv_native.h>
#include <opcore/ops/addcmul_native.h>
#include <opcore/ops/atan2_native.h>
#include <opcore/ops/bitwise_and_native.h>
#include <opcore/ops/bitwise_left_shift_native.h>
#include <opcore/ops/bitwise_or_native.h>
#include <opcore/ops/bitwise_right_shift_native.h>
#include <opcore/ops/bitwise_xor_native.h>
#include <opcore/ops/clamp_max_native.h>
#include <opcore/ops/clamp_min_native.h>
#include <opcore/ops/clamp_native.h>
#include <opcore/ops/copysign_native.h>
#include <opcore/ops/fmod_native.h>
#include <opcore/ops/hypot_native.h>
#include <opcore/ops/lerp_native.h>
#include <opcore/ops/maximum_native.h>
#include <opcore/ops/minimum_native.h>
#include <opcore/ops/pow_native.h>
#include <opcore/ops/remainder_native.h>

#include "common/Shape.h"
#include "common/TypePromotion.h"

#include <initializer_list>

namespace opcore::meta {

using native::broadcastShapes;
using native::DimVector;
using native::ResultTypeState;
using native::resultType;
using native::toFloatingType;

namespace {

// The operands' common device: a 0-dim CPU tensor may join tensors of another device (as a
// wrapped number does); any other mix is an error (as commonDevice in PointwiseMeta.cpp).
Device commonDevice(const char* name, std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    if (!(t->dim() == 0 && t->is_cpu())) {
      first = t;
      break;
    }
  }
  if (first == nullptr) return (*tensors.begin())->device();
  for (const Tensor* t : tensors) {
    OPCORE_CHECK(t->device() == first->device() || (t->dim() == 0 && t->is_cpu()), name,
                 ": expected all tensors to be on the same device, but found at least two devices, ",
                 first->device(), " and ", t->device());
  }
  return first->device();
}

TensorSpec binary(const char* name, const Tensor& self, const Tensor& other, ScalarType dtype) {
  return {broadcastShapes(self.sizes(), other.sizes()), dtype, commonDevice(name, {&self, &other})};
}

TensorSpec ternary(const char* name, const Tensor& a, const Tensor& b, const Tensor& c, ScalarType dtype) {
  const DimVector ab = broadcastShapes(a.sizes(), b.sizes());
  return {broadcastShapes(ab, c.sizes()), dtype, commonDevice(name, {&a, &b, &c})};
}

TensorSpec unary(const Tensor& self, ScalarType dtype) {
  return {std::vector<int64_t>(self.sizes().begin(), self.sizes().end()), dtype, self.device()};
}

ScalarType promote(std::initializer_list<const Tensor*> tensors, std::initializer_list<const Scalar*> scalars) {
  ResultTypeState state;
  for (const Tensor* t : tensors) state.add(*t);
  for (const Scalar* s : scalars) state.add(*s);
  return state.result();
}

void checkNotComplex(const char* message, std::initializer_list<ScalarType> dtypes) {
  for (ScalarType t : dtypes) OPCORE_CHECK(!isComplexType(t), message);
}

}  // namespace

atan2_out atan2(const Tensor& self, const Tensor& other) {
  return {binary("atan2", self, other, toFloatingType(resultType(self, other)))};
}
hypot_out hypot(const Tensor& self, const Tensor& other) {
  return {binary("hypot", self, other, resultType(self, other))};
}
copysign_out copysign(const Tensor& self, const Tensor& other) {
  return {binary("copysign", self, other, toFloatingType(resultType(self, other)))};
}

bitwise_and_Tensor_out bitwise_and(const Tensor& self, const Tensor& other) {
  return {binary("bitwise_and", self, other, resultType(self, other))};
}
bitwise_or_Tensor_out bitwise_or(const Tensor& self, const Tensor& other) {
  return {binary("bitwise_or", self, other, resultType(self, other))};
}
bitwise_xor_Tensor_out bitwise_xor(const Tensor& self, const Tensor& other) {
  return {binary("bitwise_xor", self, other, resultType(self, other))};
}
bitwise_left_shift_Tensor_out bitwise_left_shift(const Tensor& self, const Tensor& other) {
  return {binary("bitwise_left_shift", self, other, resultType(self, other))};
}
bitwise_right_shift_Tensor_out bitwise_right_shift(const Tensor& self, const Tensor& other) {
  return {binary("bitwise_right_shift", self, other, resultType(self, other))};
}

fmod_Tensor_out fmod(const Tensor& self, const Tensor& other) {
  return {binary("fmod", self, other, resultType(self, other))};
}
remainder_Tensor_out remainder(const Tensor& self, const Tensor& other) {
  return {binary("remainder", self, other, resultType(self, other))};
}

maximum_out maximum(const Tensor& self, const Tensor& other) {
  checkNotComplex("maximum not implemented for complex tensors.", {self.scalar_type(), other.scalar_type()});
  return {binary("maximum", self, other, resultType(self, other))};
}
minimum_out minimum(const Tensor& self, const Tensor& other) {
  checkNotComplex("minimum not implemented for complex tensors.", {self.scalar_type(), other.scalar_type()});
  return {binary("minimum", self, other, resultType(self, other))};
}

pow_Tensor_Tensor_out pow(const Tensor& self, const Tensor& exponent) {
  return {binary("pow", self, exponent, resultType(self, exponent))};
}
// See Note [Integer powers] in common/pointwise/Binary.h.
pow_Tensor_Scalar_out pow(const Tensor& self, const Scalar& exponent) {
  OPCORE_CHECK(!(isIntegralType(self.scalar_type(), /*include_bool=*/true) && exponent.isIntegral(true) &&
                 exponent.toLong() < 0),
               "Integers to negative integer powers are not allowed.");
  return {unary(self, resultType(self, exponent))};
}
pow_Scalar_out pow(const Scalar& self, const Tensor& exponent) {
  return {unary(exponent, resultType(exponent, self))};
}

// clamp: the bounds promote with self; complex is refused (PyTorch's message).
clamp_out clamp(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  OPCORE_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  checkNotComplex("clamp is not supported for complex types", {self.scalar_type()});
  ResultTypeState state;
  state.add(self);
  if (min) state.add(*min);
  if (max) state.add(*max);
  const ScalarType dtype = state.result();
  checkNotComplex("clamp is not supported for complex types", {dtype});
  return {unary(self, dtype)};
}
clamp_Tensor_out clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  const bool has_min = min && min->defined(), has_max = max && max->defined();
  OPCORE_CHECK(has_min || has_max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  ResultTypeState state;
  state.add(self);
  DimVector shape(self.sizes().begin(), self.sizes().end());
  if (has_min) {
    state.add(*min);
    shape = broadcastShapes(shape, min->sizes());
  }
  if (has_max) {
    state.add(*max);
    shape = broadcastShapes(shape, max->sizes());
  }
  const ScalarType dtype = state.result();
  checkNotComplex("clamp is not supported for complex types", {dtype});
  const Tensor& other = has_min ? *min : *max;
  Device device = commonDevice("clamp", {&self, &other});
  if (has_min && has_max) device = commonDevice("clamp", {&self, &*min, &*max});
  return {{std::vector<int64_t>(shape.begin(), shape.end()), dtype, device}};
}
clamp_min_out clamp_min(const Tensor& self, const Scalar& min) {
  const ScalarType dtype = resultType(self, min);
  checkNotComplex("clamp is not supported for complex types", {dtype});
  return {unary(self, dtype)};
}
clamp_min_Tensor_out clamp_min(const Tensor& self, const Tensor& min) {
  const ScalarType dtype = resultType(self, min);
  checkNotComplex("clamp is not supported for complex types", {dtype});
  return {binary("clamp_min", self, min, dtype)};
}
clamp_max_out clamp_max(const Tensor& self, const Scalar& max) {
  const ScalarType dtype = resultType(self, max);
  checkNotComplex("clamp is not supported for complex types", {dtype});
  return {unary(self, dtype)};
}
clamp_max_Tensor_out clamp_max(const Tensor& self, const Tensor& max) {
  const ScalarType dtype = resultType(self, max);
  checkNotComplex("clamp is not supported for complex types", {dtype});
  return {binary("clamp_max", self, max, dtype)};
}

// lerp: no promotion; end and weight must have self's dtype (PyTorch's messages).
lerp_Scalar_out lerp(const Tensor& self, const Tensor& end, const Scalar&) {
  OPCORE_CHECK(self.scalar_type() == end.scalar_type(), "expected dtype ", self.scalar_type(),
               " for `end` but got dtype ", end.scalar_type());
  return {binary("lerp", self, end, self.scalar_type())};
}
lerp_Tensor_out lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  OPCORE_CHECK(self.scalar_type() == end.scalar_type(), "expected dtype ", self.scalar_type(),
               " for `end` but got dtype ", end.scalar_type());
  OPCORE_CHECK(self.scalar_type() == weight.scalar_type(), "expected dtype ", self.scalar_type(),
               " for `weight` but got dtype ", weight.scalar_type());
  return {ternary("lerp", self, end, weight, self.scalar_type())};
}

addcmul_out addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar&) {
  return {ternary("addcmul", self, tensor1, tensor2, promote({&self, &tensor1, &tensor2}, {}))};
}
addcdiv_out addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar&) {
  OPCORE_CHECK(!(isIntegralType(tensor1.scalar_type(), true) && isIntegralType(tensor2.scalar_type(), true)),
               "Integer division with addcdiv is no longer supported, and in a future  ",
               "release addcdiv will perform a true division of tensor1 and tensor2. ",
               "The historic addcdiv behavior can be implemented as ",
               "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) ",
               "for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. ",
               "The future addcdiv behavior is just the latter implementation: ",
               "(input + value * tensor1 / tensor2), for all dtypes.");
  return {ternary("addcdiv", self, tensor1, tensor2, promote({&self, &tensor1, &tensor2}, {}))};
}

}  // namespace opcore::meta

// Composite overloads of the binary pointwise operators of issue #33: rsub, the Scalar, Scalar_out
// and Scalar_Tensor forms of the bitwise operators, shifts, fmod, remainder, copysign and
// floor_divide, and the functional and in-place logical_and / or / xor. (where and div with
// numbers: ScalarOperands.cpp.) Each wraps the number as a zero-dim tensor of the result dtype
// and calls the Tensor overload (Note [Scalar operands] in TypePromotion.cpp).
#include <opcore/ops/bitwise_and.h>
#include <opcore/ops/bitwise_and_native.h>
#include <opcore/ops/bitwise_left_shift.h>
#include <opcore/ops/bitwise_left_shift_native.h>
#include <opcore/ops/bitwise_or.h>
#include <opcore/ops/bitwise_or_native.h>
#include <opcore/ops/bitwise_right_shift.h>
#include <opcore/ops/bitwise_right_shift_native.h>
#include <opcore/ops/bitwise_xor.h>
#include <opcore/ops/bitwise_xor_native.h>
#include <opcore/ops/copysign.h>
#include <opcore/ops/copysign_native.h>
#include <opcore/ops/floor_divide.h>
#include <opcore/ops/floor_divide_native.h>
#include <opcore/ops/fmod.h>
#include <opcore/ops/fmod_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/logical_and.h>
#include <opcore/ops/logical_and_native.h>
#include <opcore/ops/logical_or.h>
#include <opcore/ops/logical_or_native.h>
#include <opcore/ops/logical_xor.h>
#include <opcore/ops/logical_xor_native.h>
#include <opcore/ops/remainder.h>
#include <opcore/ops/remainder_native.h>
#include <opcore/ops/rsub_native.h>
#include <opcore/ops/sub.h>

#include "common/Shape.h"
#include "common/TypePromotion.h"

namespace opcore::native {

// rsub: sub with the operands swapped (its gradient comes from sub's).
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) { return opcore::sub(other, self, alpha); }
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return opcore::sub(wrapBeside(self, other), self, alpha);
}

// The Scalar forms of the binary operators whose Tensor form is structured: functional, in-place
// (method) and out=, and with the number first (Scalar_Tensor).

Tensor bitwise_and(const Tensor& self, const Scalar& other) { return opcore::bitwise_and(self, wrapBeside(self, other)); }
Tensor& bitwise_and_(Tensor& self, const Scalar& other) { return self.bitwise_and_(wrapBeside(self, other)); }
Tensor& bitwise_and_out(const Tensor& self, const Scalar& other, Tensor& out) {
  return opcore::bitwise_and_out(out, self, wrapBeside(self, other));
}
Tensor bitwise_and(const Scalar& self, const Tensor& other) { return opcore::bitwise_and(wrapBeside(other, self), other); }

Tensor bitwise_or(const Tensor& self, const Scalar& other) { return opcore::bitwise_or(self, wrapBeside(self, other)); }
Tensor& bitwise_or_(Tensor& self, const Scalar& other) { return self.bitwise_or_(wrapBeside(self, other)); }
Tensor& bitwise_or_out(const Tensor& self, const Scalar& other, Tensor& out) {
  return opcore::bitwise_or_out(out, self, wrapBeside(self, other));
}
Tensor bitwise_or(const Scalar& self, const Tensor& other) { return opcore::bitwise_or(wrapBeside(other, self), other); }

Tensor bitwise_xor(const Tensor& self, const Scalar& other) { return opcore::bitwise_xor(self, wrapBeside(self, other)); }
Tensor& bitwise_xor_(Tensor& self, const Scalar& other) { return self.bitwise_xor_(wrapBeside(self, other)); }
Tensor& bitwise_xor_out(const Tensor& self, const Scalar& other, Tensor& out) {
  return opcore::bitwise_xor_out(out, self, wrapBeside(self, other));
}
Tensor bitwise_xor(const Scalar& self, const Tensor& other) { return opcore::bitwise_xor(wrapBeside(other, self), other); }

Tensor bitwise_left_shift(const Tensor& self, const Scalar& other) { return opcore::bitwise_left_shift(self, wrapBeside(self, other)); }
Tensor& bitwise_left_shift_(Tensor& self, const Scalar& other) { return self.bitwise_left_shift_(wrapBeside(self, other)); }
Tensor& bitwise_left_shift_out(const Tensor& self, const Scalar& other, Tensor& out) {
  return opcore::bitwise_left_shift_out(out, self, wrapBeside(self, other));
}
Tensor bitwise_left_shift(const Scalar& self, const Tensor& other) { return opcore::bitwise_left_shift(wrapBeside(other, self), other); }

Tensor bitwise_right_shift(const Tensor& self, const Scalar& other) { return opcore::bitwise_right_shift(self, wrapBeside(self, other)); }
Tensor& bitwise_right_shift_(Tensor& self, const Scalar& other) { return self.bitwise_right_shift_(wrapBeside(self, other)); }
Tensor& bitwise_right_shift_out(const Tensor& self, const Scalar& other, Tensor& out) {
  return opcore::bitwise_right_shift_out(out, self, wrapBeside(self, other));
}
Tensor bitwise_right_shift(const Scalar& self, const Tensor& other) { return opcore::bitwise_right_shift(wrapBeside(other, self), other); }

Tensor fmod(const Tensor& self, const Scalar& other) { return opcore::fmod(self, wrapBeside(self, other)); }
Tensor& fmod_(Tensor& self, const Scalar& other) { return self.fmod_(wrapBeside(self, other)); }
Tensor& fmod_out(const Tensor& self, const Scalar& other, Tensor& out) {
  return opcore::fmod_out(out, self, wrapBeside(self, other));
}

Tensor remainder(const Tensor& self, const Scalar& other) { return opcore::remainder(self, wrapBeside(self, other)); }
Tensor& remainder_(Tensor& self, const Scalar& other) { return self.remainder_(wrapBeside(self, other)); }
Tensor& remainder_out(const Tensor& self, const Scalar& other, Tensor& out) {
  return opcore::remainder_out(out, self, wrapBeside(self, other));
}
Tensor remainder(const Scalar& self, const Tensor& other) { return opcore::remainder(wrapBeside(other, self), other); }

Tensor copysign(const Tensor& self, const Scalar& other) { return opcore::copysign(self, wrapBeside(self, other)); }
Tensor& copysign_(Tensor& self, const Scalar& other) { return self.copysign_(wrapBeside(self, other)); }
Tensor& copysign_out(const Tensor& self, const Scalar& other, Tensor& out) {
  return opcore::copysign_out(out, self, wrapBeside(self, other));
}

// CompositeImplicitAutograd: autograd differentiates through floor_divide.
Tensor floor_divide(const Tensor& self, const Scalar& other) { return opcore::floor_divide(self, wrapBeside(self, other)); }
Tensor& floor_divide_(Tensor& self, const Scalar& other) { return self.floor_divide_(wrapBeside(self, other)); }

// logical_and / or / xor: a new Bool tensor, or in place into self (which must have the
// broadcast shape; it keeps its dtype and gets 1 and 0). The out= kernels are per backend.
namespace {
void checkInplaceShape(const Tensor& self, const Tensor& other) {
  const DimVector shape = broadcastShapes(self.sizes(), other.sizes());
  OPCORE_CHECK(IntArrayRef(shape) == self.sizes(), "output with shape ", self.sizes(),
               " doesn't match the broadcast shape ", IntArrayRef(shape));
}
}  // namespace

Tensor logical_and(const Tensor& self, const Tensor& other) {
  Tensor result = opcore::empty({0}, ScalarType::Bool, std::nullopt, self.device());
  return opcore::logical_and_out(result, self, other);
}
Tensor& logical_and_(Tensor& self, const Tensor& other) {
  checkInplaceShape(self, other);
  return opcore::logical_and_out(self, self, other);
}

Tensor logical_or(const Tensor& self, const Tensor& other) {
  Tensor result = opcore::empty({0}, ScalarType::Bool, std::nullopt, self.device());
  return opcore::logical_or_out(result, self, other);
}
Tensor& logical_or_(Tensor& self, const Tensor& other) {
  checkInplaceShape(self, other);
  return opcore::logical_or_out(self, self, other);
}

Tensor logical_xor(const Tensor& self, const Tensor& other) {
  Tensor result = opcore::empty({0}, ScalarType::Bool, std::nullopt, self.device());
  return opcore::logical_xor_out(result, self, other);
}
Tensor& logical_xor_(Tensor& self, const Tensor& other) {
  checkInplaceShape(self, other);
  return opcore::logical_xor_out(self, self, other);
}

}  // namespace opcore::native

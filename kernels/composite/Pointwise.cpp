// Composite pointwise operators: the functional and in-place forms of add/sub/mul/div (Tensor
// and Scalar overloads) and of the unary functions, each written once in terms of the
// operator's out= kernel, so a backend only implements <op>.out.
#include <opcore/ops/add.h>
#include <opcore/ops/add_native.h>
#include <opcore/ops/div.h>
#include <opcore/ops/div_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/exp_native.h>
#include <opcore/ops/full.h>
#include <opcore/ops/log.h>
#include <opcore/ops/log_native.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/mul_native.h>
#include <opcore/ops/neg.h>
#include <opcore/ops/neg_native.h>
#include <opcore/ops/sigmoid.h>
#include <opcore/ops/sigmoid_native.h>
#include <opcore/ops/sqrt.h>
#include <opcore/ops/sqrt_native.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/sub_native.h>
#include <opcore/ops/tanh.h>
#include <opcore/ops/tanh_native.h>

#include "common/Shape.h"
#include "common/TypePromotion.h"

namespace opcore::native {

// Note [Scalar operands]
// PyTorch treats a Scalar argument as a "wrapped number" that
// promotes with the lowest priority (see Note [Result type]). The Scalar overloads compute
// the result dtype with that rule, wrap the value as a zero-dim tensor *of the result dtype*
// and call the Tensor out= kernel. A zero-dim operand of the result dtype cannot change the
// kernel's own promotion, so both agree.

namespace {

Tensor emptyForBinary(const Tensor& self, const Tensor& other, ScalarType dtype) {
  return opcore::empty(broadcastShapes(self.sizes(), other.sizes()), dtype, self.device());
}

Tensor wrapScalar(const Tensor& self, const Scalar& value) {
  return opcore::full({}, value, resultType(self, value), self.device());
}

// An in-place op writes self, so the broadcast shape must be self's own.
void checkInplaceShape(const Tensor& self, const Tensor& other) {
  const DimVector shape = broadcastShapes(self.sizes(), other.sizes());
  OPCORE_CHECK(IntArrayRef(shape) == self.sizes(), "output with shape ", self.sizes(),
               " doesn't match the broadcast shape ", IntArrayRef(shape));
}

Tensor emptyLike(const Tensor& self, ScalarType dtype) {
  return opcore::empty(self.sizes(), dtype, self.device());
}

}  // namespace

// ---- add / sub ------------------------------------------------------------------------------

Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  Tensor out = emptyForBinary(self, other, resultType(self, other));
  return opcore::add_outf(self, other, alpha, out);
}
Tensor& add_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  checkInplaceShape(self, other);
  return opcore::add_outf(self, other, alpha, self);
}
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return native::add(self, wrapScalar(self, other), alpha);
}
Tensor& add_(Tensor& self, const Scalar& other, const Scalar& alpha) {
  return native::add_(self, wrapScalar(self, other), alpha);
}

Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  Tensor out = emptyForBinary(self, other, resultType(self, other));
  return opcore::sub_outf(self, other, alpha, out);
}
Tensor& sub_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  checkInplaceShape(self, other);
  return opcore::sub_outf(self, other, alpha, self);
}
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return native::sub(self, wrapScalar(self, other), alpha);
}
Tensor& sub_(Tensor& self, const Scalar& other, const Scalar& alpha) {
  return native::sub_(self, wrapScalar(self, other), alpha);
}

// ---- mul / div ------------------------------------------------------------------------------

Tensor mul(const Tensor& self, const Tensor& other) {
  Tensor out = emptyForBinary(self, other, resultType(self, other));
  return opcore::mul_outf(self, other, out);
}
Tensor& mul_(Tensor& self, const Tensor& other) {
  checkInplaceShape(self, other);
  return opcore::mul_outf(self, other, self);
}
Tensor mul(const Tensor& self, const Scalar& other) { return native::mul(self, wrapScalar(self, other)); }
Tensor& mul_(Tensor& self, const Scalar& other) { return native::mul_(self, wrapScalar(self, other)); }

// True division: integral and bool operands give the default float dtype.
Tensor div(const Tensor& self, const Tensor& other) {
  Tensor out = emptyForBinary(self, other, toFloatingType(resultType(self, other)));
  return opcore::div_outf(self, other, out);
}
Tensor& div_(Tensor& self, const Tensor& other) {
  checkInplaceShape(self, other);
  return opcore::div_outf(self, other, self);
}
Tensor div(const Tensor& self, const Scalar& other) { return native::div(self, wrapScalar(self, other)); }
Tensor& div_(Tensor& self, const Scalar& other) { return native::div_(self, wrapScalar(self, other)); }

// ---- unary ----------------------------------------------------------------------------------

Tensor neg(const Tensor& self) {
  Tensor out = emptyLike(self, self.scalarType());
  return opcore::neg_outf(self, out);
}
Tensor exp(const Tensor& self) {
  Tensor out = emptyLike(self, toFloatingType(self.scalarType()));
  return opcore::exp_outf(self, out);
}
Tensor log(const Tensor& self) {
  Tensor out = emptyLike(self, toFloatingType(self.scalarType()));
  return opcore::log_outf(self, out);
}
Tensor sqrt(const Tensor& self) {
  Tensor out = emptyLike(self, toFloatingType(self.scalarType()));
  return opcore::sqrt_outf(self, out);
}
Tensor sigmoid(const Tensor& self) {
  Tensor out = emptyLike(self, toFloatingType(self.scalarType()));
  return opcore::sigmoid_outf(self, out);
}
Tensor tanh(const Tensor& self) {
  Tensor out = emptyLike(self, toFloatingType(self.scalarType()));
  return opcore::tanh_outf(self, out);
}

}  // namespace opcore::native

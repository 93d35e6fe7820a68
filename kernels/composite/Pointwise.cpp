// Composite pointwise operators: the Scalar overloads of add/sub/mul/div, functional and
// in-place, each written in terms of the Tensor overload. The Tensor overloads themselves are
// structured (their functional and in-place forms are generated from <op>.out; Note
// [Structured kernels] in gen/api/structured.py).
#include <opcore/ops/add.h>
#include <opcore/ops/add_native.h>
#include <opcore/ops/div.h>
#include <opcore/ops/div_native.h>
#include <opcore/ops/full.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/mul_native.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/sub_native.h>

#include "common/TypePromotion.h"

namespace opcore::native {

// Note [Scalar operands]
// PyTorch treats a Scalar argument as a "wrapped number" that
// promotes with the lowest priority (see Note [Result type]). The Scalar overloads compute
// the result dtype with that rule, wrap the value as a zero-dim tensor *of the result dtype*
// and call the Tensor overload. A zero-dim operand of the result dtype cannot change the
// kernel's own promotion, so both agree. The value is converted to the result dtype as a
// tensor's elements are (castTo), so that, as in PyTorch, an integer too large for the result
// wraps (uint8 1 + 1000 == 233) rather than being refused by full()'s overflow check.

namespace {

Scalar castTo(const Scalar& value, ScalarType dtype) {
  return OPCORE_DISPATCH_EVERY_TYPE(dtype, "wrapped number", [&] { return Scalar(value.to<scalar_t>()); });
}

Tensor wrapScalar(const Tensor& self, const Scalar& value) {
  const ScalarType dtype = resultType(self, value);
  return opcore::full({}, castTo(value, dtype), self.options().dtype(dtype));
}

}  // namespace

Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return opcore::add(self, wrapScalar(self, other), alpha);
}
Tensor& add_(Tensor& self, const Scalar& other, const Scalar& alpha) {
  return self.add_(wrapScalar(self, other), alpha);
}

Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return opcore::sub(self, wrapScalar(self, other), alpha);
}
Tensor& sub_(Tensor& self, const Scalar& other, const Scalar& alpha) {
  return self.sub_(wrapScalar(self, other), alpha);
}

Tensor mul(const Tensor& self, const Scalar& other) { return opcore::mul(self, wrapScalar(self, other)); }
Tensor& mul_(Tensor& self, const Scalar& other) { return self.mul_(wrapScalar(self, other)); }

Tensor div(const Tensor& self, const Scalar& other) { return opcore::div(self, wrapScalar(self, other)); }
Tensor& div_(Tensor& self, const Scalar& other) { return self.div_(wrapScalar(self, other)); }

}  // namespace opcore::native

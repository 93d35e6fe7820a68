// Composite pointwise operators: the Scalar overloads of add/sub/mul/div, functional and
// in-place, each written in terms of the Tensor overload with the number wrapped as a zero-dim
// tensor (Note [Scalar operands] in common/TypePromotion.cpp). The Tensor overloads themselves are
// structured (their functional and in-place forms are generated from <op>.out; Note
// [Structured kernels] in gen/api/structured.py).
#include <opcore/ops/add.h>
#include <opcore/ops/add_native.h>
#include <opcore/ops/div.h>
#include <opcore/ops/div_native.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/mul_native.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/sub_native.h>

#include "common/TypePromotion.h"

namespace opcore::native {

Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return opcore::add(self, wrapBeside(self, other), alpha);
}
Tensor& add_(Tensor& self, const Scalar& other, const Scalar& alpha) {
  return self.add_(wrapBeside(self, other), alpha);
}

Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return opcore::sub(self, wrapBeside(self, other), alpha);
}
Tensor& sub_(Tensor& self, const Scalar& other, const Scalar& alpha) {
  return self.sub_(wrapBeside(self, other), alpha);
}

Tensor mul(const Tensor& self, const Scalar& other) { return opcore::mul(self, wrapBeside(self, other)); }
Tensor& mul_(Tensor& self, const Scalar& other) { return self.mul_(wrapBeside(self, other)); }

Tensor div(const Tensor& self, const Scalar& other) { return opcore::div(self, wrapBeside(self, other)); }
Tensor& div_(Tensor& self, const Scalar& other) { return self.div_(wrapBeside(self, other)); }

}  // namespace opcore::native

// Meta backend kernels: tensors with sizes, strides and dtype but no data, for shape and
// dtype inference. Each out= kernel makes the checks its CPU kernel makes about shapes and
// dtypes, then sizes `out`; it reads and writes no data. Views come from View.cpp, shared
// with the other backends; functional forms (add, mm, ...) are composites over these.
#include <opcore/ops/add_native.h>
#include <opcore/ops/div_native.h>
#include <opcore/ops/empty_native.h>
#include <opcore/ops/exp_native.h>
#include <opcore/ops/log_native.h>
#include <opcore/ops/mm_native.h>
#include <opcore/ops/mul_native.h>
#include <opcore/ops/neg_native.h>
#include <opcore/ops/sigmoid_native.h>
#include <opcore/ops/sqrt_native.h>
#include <opcore/ops/sub_native.h>
#include <opcore/ops/tanh_native.h>
#include <opcore/core/Empty.h>

#include "common/Shape.h"
#include "common/TypePromotion.h"

namespace opcore::native {

namespace {

void checkMeta(const char* name, std::initializer_list<const TensorBase*> tensors) {
  for (const TensorBase* t : tensors) {
    OPCORE_CHECK(t->isMeta(), name, ": expected all tensors on the meta device, but one is on ", t->device());
  }
}

// `out` resized to the broadcast shape of the inputs, after checking `result` fits its dtype.
Tensor& elementwiseOutMeta(const char* name, const Tensor& self, const Tensor* other, ScalarType result,
                           Tensor& out) {
  checkMeta(name, {&self, other ? other : &self, &out});
  checkCanCast(result, out.scalarType());
  detail::resizeOutput(out, other ? IntArrayRef(broadcastShapes(self.sizes(), other->sizes())) : self.sizes());
  return out;
}

Tensor& floatingUnaryOutMeta(const char* name, const Tensor& self, Tensor& out) {
  return elementwiseOutMeta(name, self, nullptr, toFloatingType(self.scalarType()), out);
}

}  // namespace

Tensor empty_meta(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  OPCORE_CHECK(!device || device->isMeta(), "empty_meta: asked for a tensor on ", *device);
  return detail::empty(size, dtype.value_or(kDefaultFloat), Device(DeviceType::Meta));
}

Tensor& add_out_meta(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  const ScalarType dtype = resultType(self, other);
  checkAlpha(dtype, alpha);
  return elementwiseOutMeta("add", self, &other, dtype, out);
}

Tensor& sub_out_meta(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  checkSubOperands(self, other);
  const ScalarType dtype = resultType(self, other);
  checkAlpha(dtype, alpha);
  return elementwiseOutMeta("sub", self, &other, dtype, out);
}

Tensor& mul_out_meta(const Tensor& self, const Tensor& other, Tensor& out) {
  return elementwiseOutMeta("mul", self, &other, resultType(self, other), out);
}

Tensor& div_out_meta(const Tensor& self, const Tensor& other, Tensor& out) {
  return elementwiseOutMeta("div", self, &other, toFloatingType(resultType(self, other)), out);
}

Tensor& neg_out_meta(const Tensor& self, Tensor& out) {
  OPCORE_CHECK(self.scalarType() != ScalarType::Bool,
               "neg: negation is not defined on bool tensors (to invert a mask, use logical not)");
  return elementwiseOutMeta("neg", self, nullptr, self.scalarType(), out);
}

Tensor& exp_out_meta(const Tensor& self, Tensor& out) { return floatingUnaryOutMeta("exp", self, out); }
Tensor& log_out_meta(const Tensor& self, Tensor& out) { return floatingUnaryOutMeta("log", self, out); }
Tensor& sqrt_out_meta(const Tensor& self, Tensor& out) { return floatingUnaryOutMeta("sqrt", self, out); }
Tensor& sigmoid_out_meta(const Tensor& self, Tensor& out) { return floatingUnaryOutMeta("sigmoid", self, out); }
Tensor& tanh_out_meta(const Tensor& self, Tensor& out) { return floatingUnaryOutMeta("tanh", self, out); }

Tensor& mm_out_meta(const Tensor& self, const Tensor& mat2, Tensor& out) {
  checkMeta("mm", {&self, &mat2, &out});
  OPCORE_CHECK(self.dim() == 2, "self must be a matrix");
  OPCORE_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  OPCORE_CHECK(self.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (", self.size(0), "x",
               self.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  OPCORE_CHECK(self.scalarType() == mat2.scalarType(), "expected mat1 and mat2 to have the same dtype, but got: ",
               self.scalarType(), " != ", mat2.scalarType());
  OPCORE_CHECK(self.scalarType() != ScalarType::Bool, "mm: not implemented for dtype Bool");
  OPCORE_CHECK(out.scalarType() == self.scalarType(), "Expected out tensor to have dtype ", self.scalarType(),
               ", but got ", out.scalarType(), " instead");
  detail::resizeOutput(out, {self.size(0), mat2.size(1)});
  return out;
}

}  // namespace opcore::native

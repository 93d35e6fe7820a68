// Meta backend kernels of the operators that are not structured: tensors with sizes, strides
// and dtype but no data, for shape and dtype inference. Structured operators (add, exp, ...)
// need none: their meta functions (common/*Meta.cpp) serve the Meta key too (Note
// [Structured kernels] in gen/api/structured.py). Views come from View.cpp, shared with the
// other backends.
#include <opcore/ops/arange_native.h>
#include <opcore/ops/copy_native.h>
#include <opcore/ops/div_native.h>
#include <opcore/ops/empty_native.h>
#include <opcore/ops/eye_native.h>
#include <opcore/ops/fill_native.h>
#include <opcore/ops/floor_divide_native.h>
#include <opcore/ops/linspace_native.h>
#include <opcore/ops/logical_and_native.h>
#include <opcore/ops/logical_or_native.h>
#include <opcore/ops/logical_xor_native.h>
#include <opcore/ops/relu_native.h>
#include <opcore/ops/resize_native.h>
#include <opcore/ops/take_native.h>
#include <opcore/ops/where_native.h>
#include <opcore/core/Empty.h>

#include "common/Shape.h"
#include "common/TypePromotion.h"

#include <initializer_list>
#include <string>

namespace opcore::native {

namespace {

const Device kMetaDevice(DeviceType::Meta);

// The shape the operands of an elementwise operator broadcast to.
DimVector broadcastAll(std::initializer_list<const Tensor*> operands) {
  DimVector shape;
  for (const Tensor* t : operands) shape = broadcastShapes(shape, t->sizes());
  return shape;
}

// An elementwise operator's out= tensor: a result of `dtype` must cast to it; it takes the
// operands' broadcast shape.
Tensor& elementwiseOut(std::initializer_list<const Tensor*> operands, ScalarType dtype, Tensor& out) {
  checkCanCast(dtype, out.scalar_type());
  detail::resizeOutput(out, broadcastAll(operands));
  return out;
}

// An in-place elementwise operator: self already has the broadcast shape and holds the result.
Tensor& elementwiseInPlace(Tensor& self, std::initializer_list<const Tensor*> operands, ScalarType dtype) {
  const DimVector shape = broadcastAll(operands);
  OPCORE_CHECK(IntArrayRef(shape) == self.sizes(), "output with shape ", self.sizes(),
               " doesn't match the broadcast shape ", IntArrayRef(shape));
  checkCanCast(dtype, self.scalar_type());
  return self;
}

}  // namespace

Tensor empty_meta(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  OPCORE_CHECK(!device || device->is_meta(), "empty_meta: asked for a tensor on ", *device);
  detail::checkStridedLayout("empty", layout);
  return detail::empty(size, dtype.value_or(kDefaultFloat), Device(DeviceType::Meta),
                       memory_format.value_or(MemoryFormat::Contiguous), pin_memory.value_or(false));
}

Tensor& resize_meta_(Tensor& self, IntArrayRef size, std::optional<MemoryFormat> memory_format) {
  checkResizable(self, size, memory_format);
  detail::resizeKeepingData(self, size, memory_format.value_or(MemoryFormat::Contiguous), nullptr);
  return self;
}


// --- Meta kernels of the unstructured operators (the checks and shapes of their CPU kernels) ---

Tensor& copy_meta_(Tensor& self, const Tensor& src, bool /*non_blocking*/) {
  const DimVector shape = broadcastShapes(self.sizes(), src.sizes());
  OPCORE_CHECK(IntArrayRef(shape) == self.sizes(), "output with shape ", self.sizes(),
               " doesn't match the broadcast shape ", IntArrayRef(shape));
  return self;
}

Tensor& fill_meta_(Tensor& self, const Scalar& /*value*/) { return self; }

Tensor relu_meta(const Tensor& self) { return detail::empty(self.sizes(), self.scalar_type(), kMetaDevice); }
Tensor& relu_meta_(Tensor& self) { return self; }

Tensor& logical_and_out_meta(const Tensor& self, const Tensor& other, Tensor& out) {
  return elementwiseOut({&self, &other}, ScalarType::Bool, out);
}
Tensor& logical_or_out_meta(const Tensor& self, const Tensor& other, Tensor& out) {
  return elementwiseOut({&self, &other}, ScalarType::Bool, out);
}
Tensor& logical_xor_out_meta(const Tensor& self, const Tensor& other, Tensor& out) {
  return elementwiseOut({&self, &other}, ScalarType::Bool, out);
}

Tensor floor_divide_meta(const Tensor& self, const Tensor& other) {
  return detail::empty(broadcastAll({&self, &other}), roundingDivisionType("floor_divide", self, other), kMetaDevice);
}
Tensor& floor_divide_out_meta(const Tensor& self, const Tensor& other, Tensor& out) {
  return elementwiseOut({&self, &other}, roundingDivisionType("floor_divide", self, other), out);
}
Tensor& floor_divide_meta_(Tensor& self, const Tensor& other) {
  return elementwiseInPlace(self, {&self, &other}, roundingDivisionType("floor_divide", self, other));
}


namespace {

ScalarType whereType(const Tensor& condition, const Tensor& self, const Tensor& other) {
  OPCORE_CHECK(condition.scalar_type() == ScalarType::Bool,
               "where expected condition to be a boolean tensor, but got a tensor with dtype ",
               condition.scalar_type());
  return resultType(self, other);
}

}  // namespace

Tensor where_meta(const Tensor& condition, const Tensor& self, const Tensor& other) {
  const ScalarType dtype = whereType(condition, self, other);
  return detail::empty(broadcastAll({&condition, &self, &other}), dtype, kMetaDevice);
}
Tensor& where_self_out_meta(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  return elementwiseOut({&condition, &self, &other}, whereType(condition, self, other), out);
}

Tensor& arange_out_meta(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  detail::resizeOutput(out, {arangeLength(start, end, step)});
  return out;
}

Tensor& linspace_out_meta(const Scalar& /*start*/, const Scalar& /*end*/, int64_t steps, Tensor& out) {
  OPCORE_CHECK(steps >= 0, "number of steps must be non-negative");
  detail::resizeOutput(out, {steps});
  return out;
}

Tensor& eye_out_meta(int64_t n, int64_t m, Tensor& out) {
  OPCORE_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  OPCORE_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  detail::resizeOutput(out, {n, m});
  return out;
}
Tensor& eye_out_meta(int64_t n, Tensor& out) { return eye_out_meta(n, n, out); }

Tensor& take_out_meta(const Tensor& self, const Tensor& index, Tensor& out) {
  OPCORE_CHECK(index.scalar_type() == ScalarType::Long, "take(): Expected a long tensor for index, but got ",
               toString(index.scalar_type()));
  OPCORE_CHECK(out.scalar_type() == self.scalar_type(), "take(): self and out expected to have the same dtype, but got ",
               "self.dtype = ", toString(self.scalar_type()), " and out.dtype = ", toString(out.scalar_type()));
  detail::resizeOutput(out, index.sizes());
  return out;
}

}  // namespace opcore::native

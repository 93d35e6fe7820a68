// CPU comparison and selection kernels: the impls of the structured eq / ne / lt / le / gt /
// ge against a tensor or a Scalar (Bool results, compared in the promoted dtype) and
// where(condition, self, other).
#include <opcore/ops/eq_native.h>
#include <opcore/ops/ge_native.h>
#include <opcore/ops/gt_native.h>
#include <opcore/ops/le_native.h>
#include <opcore/ops/lt_native.h>
#include <opcore/ops/ne_native.h>
#include <opcore/ops/where_native.h>

#include "common/TypePromotion.h"
#include "cpu/Loops.h"

#include <functional>

namespace opcore::native {

using cpu::ElementwiseOp;

namespace {

// out = Cmp(self, other) in the promoted dtype; ElementwiseOp converts the Bool values when out
// (or in-place self) has another dtype.
template <template <typename> class Cmp>
void compareTensors(const char* name, const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op(name, out, ScalarType::Bool, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_ALL_TYPES(dtype, name, [&] {
    op.run<bool, scalar_t, scalar_t>([](scalar_t a, scalar_t b) { return Cmp<scalar_t>()(a, b); });
  });
}

// The Scalar is converted once to the promoted dtype and captured by the loop.
template <template <typename> class Cmp>
void compareScalar(const char* name, const Tensor& self, const Scalar& other, const Tensor& out) {
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op(name, out, ScalarType::Bool, {{self, dtype}});
  OPCORE_DISPATCH_ALL_TYPES(dtype, name, [&] {
    const scalar_t v = other.to<scalar_t>();
    op.run<bool, scalar_t>([v](scalar_t a) { return Cmp<scalar_t>()(a, v); });
  });
}

}  // namespace

// The impl kernels of the structured comparisons: meta::eq, meta::ne, meta::lt, meta::le,
// meta::gt, meta::ge (common/PointwiseMeta.cpp) have made the checks and prepared `out`.
void eq_Tensor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  compareTensors<std::equal_to>("eq", self, other, out);
}
void eq_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out) {
  compareScalar<std::equal_to>("eq", self, other, out);
}
void ne_Tensor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  compareTensors<std::not_equal_to>("ne", self, other, out);
}
void ne_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out) {
  compareScalar<std::not_equal_to>("ne", self, other, out);
}
void lt_Tensor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  compareTensors<std::less>("lt", self, other, out);
}
void lt_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out) {
  compareScalar<std::less>("lt", self, other, out);
}
void le_Tensor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  compareTensors<std::less_equal>("le", self, other, out);
}
void le_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out) {
  compareScalar<std::less_equal>("le", self, other, out);
}
void gt_Tensor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  compareTensors<std::greater>("gt", self, other, out);
}
void gt_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out) {
  compareScalar<std::greater>("gt", self, other, out);
}
void ge_Tensor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  compareTensors<std::greater_equal>("ge", self, other, out);
}
void ge_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out) {
  compareScalar<std::greater_equal>("ge", self, other, out);
}

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  OPCORE_CHECK(condition.scalar_type() == ScalarType::Bool,
               "where expected condition to be a boolean tensor, but got a tensor with dtype ",
               condition.scalar_type());
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op("where", TensorBase(), dtype,
                   {{condition, ScalarType::Bool}, {self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_ALL_TYPES(dtype, "where", [&] {
    op.run<scalar_t, bool, scalar_t, scalar_t>(
        [](bool c, scalar_t a, scalar_t b) { return c ? a : b; });
  });
  return op.output();
}

}  // namespace opcore::native

// CPU comparison and selection kernels: eq / lt / gt against a tensor or a Scalar (Bool
// results, compared in the promoted dtype) and where(condition, self, other).
#include <opcore/ops/eq.h>
#include <opcore/ops/eq_native.h>
#include <opcore/ops/gt.h>
#include <opcore/ops/gt_native.h>
#include <opcore/ops/lt.h>
#include <opcore/ops/lt_native.h>
#include <opcore/ops/where.h>
#include <opcore/ops/where_native.h>

#include "common/TypePromotion.h"
#include "cpu/Loops.h"

#include <functional>

namespace opcore::native {

using cpu::ElementwiseOp;

namespace {

template <template <typename> class Cmp>
Tensor compareTensors(const char* name, const Tensor& self, const Tensor& other) {
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op(name, TensorBase(), ScalarType::Bool, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_ALL_TYPES(dtype, name, [&] {
    op.run<bool, scalar_t, scalar_t>([](scalar_t a, scalar_t b) { return Cmp<scalar_t>()(a, b); });
  });
  return op.output();
}

// The Scalar is converted once to the promoted dtype and captured by the loop.
template <template <typename> class Cmp>
Tensor compareScalar(const char* name, const Tensor& self, const Scalar& other) {
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op(name, TensorBase(), ScalarType::Bool, {{self, dtype}});
  OPCORE_DISPATCH_ALL_TYPES(dtype, name, [&] {
    const scalar_t v = other.to<scalar_t>();
    op.run<bool, scalar_t>([v](scalar_t a) { return Cmp<scalar_t>()(a, v); });
  });
  return op.output();
}

}  // namespace

Tensor eq(const Tensor& self, const Tensor& other) { return compareTensors<std::equal_to>("eq", self, other); }
Tensor eq(const Tensor& self, const Scalar& other) { return compareScalar<std::equal_to>("eq", self, other); }
Tensor lt(const Tensor& self, const Tensor& other) { return compareTensors<std::less>("lt", self, other); }
Tensor lt(const Tensor& self, const Scalar& other) { return compareScalar<std::less>("lt", self, other); }
Tensor gt(const Tensor& self, const Tensor& other) { return compareTensors<std::greater>("gt", self, other); }
Tensor gt(const Tensor& self, const Scalar& other) { return compareScalar<std::greater>("gt", self, other); }

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  OPCORE_CHECK(condition.scalarType() == ScalarType::Bool,
               "where expected condition to be a boolean tensor, but got a tensor with dtype ",
               condition.scalarType());
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

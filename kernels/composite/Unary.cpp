// Composite unary pointwise operators of issue #33, written with other operators as PyTorch's
// are: the functional and in-place forms of logical_not and nan_to_num over their out= kernels,
// isfinite (CompositeImplicitAutograd), and abs_ over abs.out.
#include <opcore/ops/abs.h>
#include <opcore/ops/abs_native.h>
#include <opcore/ops/empty_like.h>
#include <opcore/ops/eq.h>
#include <opcore/ops/isfinite_native.h>
#include <opcore/ops/isnan.h>
#include <opcore/ops/logical_not.h>
#include <opcore/ops/logical_not_native.h>
#include <opcore/ops/nan_to_num.h>
#include <opcore/ops/nan_to_num_native.h>
#include <opcore/ops/sub.h>

namespace opcore::native {

Tensor logical_not(const Tensor& self) {
  Tensor out = opcore::empty_like(self, ScalarType::Bool, std::nullopt, std::nullopt);
  return opcore::logical_not_out(out, self);
}

// self keeps its dtype: it gets 1 and 0 (true and false).
Tensor& logical_not_(Tensor& self) { return opcore::logical_not_out(self, self); }

Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  Tensor out = opcore::empty_like(self);
  return opcore::nan_to_num_out(out, self, nan, posinf, neginf);
}

Tensor& nan_to_num_(Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf) {
  return opcore::nan_to_num_out(self, self, nan, posinf, neginf);
}

// x - x is 0 exactly when x is finite (NaN and +-inf give NaN; for complex x, both parts);
// integer and bool elements are always finite.
Tensor isfinite(const Tensor& self) {
  if (isIntegralType(self.scalar_type(), /*include_bool=*/true)) return opcore::logical_not(opcore::isnan(self));
  return opcore::sub(self, self).eq(0);
}

// PyTorch's abs_: a complex tensor cannot hold its (real) magnitudes in place.
Tensor& abs_(Tensor& self) {
  OPCORE_CHECK(!isComplexType(self.scalar_type()), "In-place abs is not supported for complex tensors.");
  return opcore::abs_out(self, self);
}

}  // namespace opcore::native

// The meta functions of the structured reductions (Note [Structured kernels] in
// gen/api/structured.py): sum over dimensions and max along one, shared by every backend's
// wrapper and all that the Meta backend runs.
#include <opcore/ops/max_native.h>
#include <opcore/ops/sum_native.h>

#include "common/Shape.h"

namespace opcore::meta {

// Integral and bool inputs sum to Long unless a dtype is given.
sum_IntList_out sum(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  const ScalarType in = self.scalar_type();
  const ScalarType out_dtype = dtype.value_or(isIntegralType(in, true) ? ScalarType::Long : in);
  const std::vector<bool> mask = native::reductionMask(dim, self.dim());
  return {{native::reducedShape(self.sizes(), mask, keepdim), out_dtype, self.device()}};
}

// Values in self's dtype and Long indices, both of the reduced shape; out= tensors must have
// exactly those dtypes (the impl writes them directly). Hands the wrapped `dim` to the impl
// (`precomputed: dim -> int dim`). A 0-dim self reduces along its one implicit dimension.
max_dim_max max(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = self.wrapDim(dim);
  OPCORE_CHECK(self.dim() == 0 || self.size(d) > 0, "max(): Expected reduction dim ", d,
               " to have non-zero size.");
  std::vector<bool> mask(static_cast<size_t>(self.dim()), false);
  if (self.dim() > 0) mask[static_cast<size_t>(d)] = true;
  std::vector<int64_t> shape = native::reducedShape(self.sizes(), mask, keepdim);
  return {TensorSpec{shape, self.scalar_type(), self.device(), /*exact_dtype=*/true},
          TensorSpec{shape, ScalarType::Long, self.device(), /*exact_dtype=*/true}, d};
}

}  // namespace opcore::meta

// Composite reductions: sum of all elements (through the structured sum.dim_IntList; its meta
// function is in common/ReductionMeta.cpp) and mean (sum divided by the number of reduced
// elements; floating and complex dtypes only, as in PyTorch).
#include <opcore/ops/div.h>
#include <opcore/ops/mean.h>
#include <opcore/ops/mean_native.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/sum_native.h>

#include "common/Shape.h"

namespace opcore::native {

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  return opcore::sum(self, std::nullopt, false, dtype);
}

Tensor mean(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  const ScalarType out_dtype = dtype.value_or(self.scalar_type());
  const auto floatingOrComplex = [](ScalarType t) { return isFloatingType(t) || isComplexType(t); };
  if (dtype) {
    OPCORE_CHECK(floatingOrComplex(*dtype), "mean(): could not infer output dtype. Optional dtype must "
                 "be either a floating point or complex dtype. Got: ", *dtype);
  } else {
    OPCORE_CHECK(floatingOrComplex(self.scalar_type()), "mean(): could not infer output dtype. Input "
                 "dtype must be either a floating point or complex dtype. Got: ", self.scalar_type());
  }
  const std::vector<bool> mask = reductionMask(dim, self.dim());
  int64_t count = 1;
  for (size_t i = 0; i < mask.size(); ++i) count *= mask[i] ? self.sizes()[i] : 1;
  // Half and BFloat16: the sum and the division in float, rounded once at the end.
  const ScalarType compute = isReducedFloatingType(out_dtype) ? kFloat : out_dtype;
  const Tensor total = opcore::sum(self, dim, keepdim, compute);
  return opcore::div(total, Scalar(count)).to(out_dtype);  // 0 / 0 gives nan for an empty reduction
}

Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) {
  return native::mean(self, std::nullopt, false, dtype);
}

}  // namespace opcore::native

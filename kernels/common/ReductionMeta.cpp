// The meta functions of the structured reductions and scans (Note [Structured kernels] in
// gen/api/structured.py): sum, amax/amin, any/all, prod over dimensions, max/min, argmax/argmin
// along one, cumsum/cumprod; shared by every backend's wrapper and all that the Meta backend runs.
#include <opcore/ops/all_native.h>
#include <opcore/ops/amax_native.h>
#include <opcore/ops/amin_native.h>
#include <opcore/ops/any_native.h>
#include <opcore/ops/argmax_native.h>
#include <opcore/ops/argmin_native.h>
#include <opcore/ops/cumprod_native.h>
#include <opcore/ops/cumsum_native.h>
#include <opcore/ops/max_native.h>
#include <opcore/ops/linalg_vector_norm_native.h>
#include <opcore/ops/min_native.h>
#include <opcore/ops/norm_native.h>
#include <opcore/ops/prod_native.h>
#include <opcore/ops/sort_native.h>
#include <opcore/ops/topk_native.h>
#include <opcore/ops/sum_native.h>

#include "common/Shape.h"

#include <limits>

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

// --- Core ATen part 1 (issue #33): reductions, scans and sorting ---------------------------------

namespace {

// PyTorch's zero_numel_check_dims: an empty input must name the dimensions it reduces, and
// each must be non-empty (IndexError, as PyTorch's).
void checkEmptyReduction(const Tensor& self, IntArrayRef dims, const char* fn) {
  if (self.numel() != 0) return;
  OPCORE_CHECK_INDEX(!dims.empty(), fn, ": Expected reduction dim to be specified for input.numel() == 0. "
                     "Specify the reduction dim with the 'dim' argument.");
  for (int64_t d : dims) {
    const int64_t w = self.wrapDim(d);
    OPCORE_CHECK_INDEX(self.size(w) != 0, fn, ": Expected reduction dim ", w, " to have non-zero size.");
  }
}

std::vector<bool> oneDimMask(const Tensor& self, int64_t wrapped) {
  std::vector<bool> mask(static_cast<size_t>(self.dim()), false);
  if (self.dim() > 0) mask[static_cast<size_t>(wrapped)] = true;
  return mask;
}

TensorSpec extremeSpec(const Tensor& self, IntArrayRef dim, bool keepdim, const char* fn) {
  checkEmptyReduction(self, dim, fn);
  const std::vector<bool> mask = native::reductionMask(dim, self.dim());
  return {native::reducedShape(self.sizes(), mask, keepdim), self.scalar_type(), self.device(), /*exact_dtype=*/true};
}

TensorSpec argSpec(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const char* fn) {
  if (dim) {
    const int64_t d = self.wrapDim(*dim);
    checkEmptyReduction(self, IntArrayRef(&d, 1), fn);
    return {native::reducedShape(self.sizes(), oneDimMask(self, d), keepdim), ScalarType::Long, self.device(), true};
  }
  OPCORE_CHECK_INDEX(self.numel() != 0, fn, ": Expected reduction dim to be specified for input.numel() == 0.");
  std::vector<int64_t> shape(keepdim ? static_cast<size_t>(self.dim()) : 0, 1);
  return {shape, ScalarType::Long, self.device(), true};
}

// any and all give uint8 for uint8 inputs, Bool for every other dtype (as PyTorch).
ScalarType anyAllDtype(const Tensor& self) {
  return self.scalar_type() == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
}

// Integral and bool inputs sum and multiply in Long unless a dtype is given.
ScalarType accumulatingDtype(const Tensor& self, std::optional<ScalarType> dtype) {
  return dtype.value_or(isIntegralType(self.scalar_type(), true) ? ScalarType::Long : self.scalar_type());
}

}  // namespace

amax_out amax(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return {extremeSpec(self, dim, keepdim, "amax()")};
}

amin_out amin(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return {extremeSpec(self, dim, keepdim, "amin()")};
}

argmax_out argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return {argSpec(self, dim, keepdim, "argmax()")};
}

argmin_out argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return {argSpec(self, dim, keepdim, "argmin()")};
}

// As max.dim's meta function, for the minimum.
min_dim_min min(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = self.wrapDim(dim);
  checkEmptyReduction(self, IntArrayRef(&d, 1), "min()");
  std::vector<int64_t> shape = native::reducedShape(self.sizes(), oneDimMask(self, d), keepdim);
  return {TensorSpec{shape, self.scalar_type(), self.device(), /*exact_dtype=*/true},
          TensorSpec{shape, ScalarType::Long, self.device(), /*exact_dtype=*/true}, d};
}

any_out any(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = self.wrapDim(dim);
  return {{native::reducedShape(self.sizes(), oneDimMask(self, d), keepdim), anyAllDtype(self), self.device()}, d};
}

any_dims_out any(const Tensor& self, OptionalIntArrayRef dim, bool keepdim) {
  const std::vector<bool> mask = native::reductionMask(dim, self.dim());
  return {{native::reducedShape(self.sizes(), mask, keepdim), anyAllDtype(self), self.device()}};
}

any_all_out any(const Tensor& self) {
  return {{std::vector<int64_t>{}, anyAllDtype(self), self.device()}};
}

all_out all(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = self.wrapDim(dim);
  return {{native::reducedShape(self.sizes(), oneDimMask(self, d), keepdim), anyAllDtype(self), self.device()}, d};
}

all_dims_out all(const Tensor& self, OptionalIntArrayRef dim, bool keepdim) {
  const std::vector<bool> mask = native::reductionMask(dim, self.dim());
  return {{native::reducedShape(self.sizes(), mask, keepdim), anyAllDtype(self), self.device()}};
}

all_all_out all(const Tensor& self) {
  return {{std::vector<int64_t>{}, anyAllDtype(self), self.device()}};
}

prod_int_out prod(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  const int64_t d = self.wrapDim(dim);
  return {{native::reducedShape(self.sizes(), oneDimMask(self, d), keepdim), accumulatingDtype(self, dtype),
           self.device()}, d};
}

// The running sums and products keep self's shape; a 0-dim self scans its one element.
cumsum_out cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const int64_t d = self.wrapDim(dim);
  return {{self.sizes().vec(), accumulatingDtype(self, dtype), self.device()}, d};
}

cumprod_out cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const int64_t d = self.wrapDim(dim);
  return {{self.sizes().vec(), accumulatingDtype(self, dtype), self.device()}, d};
}

// sort: values in self's dtype and Long indices, both of self's shape.
sort_values_stable sort(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  (void)stable;
  (void)descending;
  (void)self.wrapDim(dim);
  return {TensorSpec{self.sizes().vec(), self.scalar_type(), self.device(), /*exact_dtype=*/true},
          TensorSpec{self.sizes().vec(), ScalarType::Long, self.device(), /*exact_dtype=*/true}};
}

// topk: self's shape with `k` along dim; hands the wrapped dim to the impl.
topk_values topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)largest;
  (void)sorted;
  const int64_t d = self.wrapDim(dim);
  OPCORE_CHECK(k >= 0 && k <= (self.dim() > 0 ? self.size(d) : 1), "selected index k out of range");
  std::vector<int64_t> shape = self.sizes().vec();
  if (!shape.empty()) shape[static_cast<size_t>(d)] = k;
  return {TensorSpec{shape, self.scalar_type(), self.device(), /*exact_dtype=*/true},
          TensorSpec{shape, ScalarType::Long, self.device(), /*exact_dtype=*/true}, d};
}

namespace {

// linalg_vector_norm's checks (PyTorch's words) and result: real, of the reduced shape.
TensorSpec normSpec(const Tensor& self, double ord, OptionalIntArrayRef dim, bool keepdim,
                    std::optional<ScalarType> dtype) {
  const ScalarType in = self.scalar_type();
  OPCORE_CHECK(isFloatingType(in) || isComplexType(in),
               "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ", in);
  if (dtype) {
    OPCORE_CHECK(isFloatingType(*dtype) || isComplexType(*dtype),
                 "linalg.vector_norm: dtype should be floating point or complex. Got ", *dtype);
  }
  if (self.numel() == 0 && (ord < 0 || ord == std::numeric_limits<double>::infinity())) {
    OPCORE_CHECK(dim.has_value() && !(*dim).empty(), "linalg.vector_norm cannot compute the ", ord,
                 " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d : *dim) {
      OPCORE_CHECK(self.size(d) != 0, "linalg.vector_norm cannot compute the ", ord, " norm on the dimension ", d,
                   " because this dimension is empty and the operation does not have an identity");
    }
  }
  const std::vector<bool> mask = native::reductionMask(dim, self.dim());
  return {native::reducedShape(self.sizes(), mask, keepdim), toRealValueType(dtype.value_or(in)), self.device()};
}

}  // namespace

linalg_vector_norm_out linalg_vector_norm(const Tensor& self, const Scalar& ord, OptionalIntArrayRef dim, bool keepdim,
                                          std::optional<ScalarType> dtype) {
  return {normSpec(self, ord.toDouble(), dim, keepdim, dtype)};
}

norm_out norm(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  OPCORE_CHECK(isFloatingType(self.scalar_type()) || isComplexType(self.scalar_type()),
               "norm(): input dtype should be either floating point or complex. Got ", self.scalar_type(), " instead.");
  return {normSpec(self, p ? p->toDouble() : 2.0, dim, keepdim, std::nullopt)};
}

norm_dtype_out norm(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim,
                    ScalarType dtype) {
  OPCORE_CHECK(isFloatingType(self.scalar_type()) || isComplexType(self.scalar_type()),
               "norm(): input dtype should be either floating point or complex. Got ", self.scalar_type(), " instead.");
  return {normSpec(self, p ? p->toDouble() : 2.0, dim, keepdim, dtype)};
}

}  // namespace opcore::meta

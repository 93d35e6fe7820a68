// The device-independent part of the p-norm distances: PyTorch's checks, the results' shapes,
// the empty cases and cdist's matrix-product path, around a device's loops (common/Distance.h).
#include "common/Distance.h"

#include <opcore/ops/empty.h>
#include <opcore/ops/zeros.h>

#include "common/Shape.h"
#include "common/pointwise/Distance.h"

#include <string_view>

namespace opcore::native {
namespace {

using distance::pairsOf;

// The broadcast batch of x1 [*B1, R1, M] and x2 [*B2, R2, M].
DimVector batchOf(const Tensor& x1, const Tensor& x2) {
  return broadcastShapes(x1.sizes().slice(0, static_cast<size_t>(x1.dim() - 2)),
                         x2.sizes().slice(0, static_cast<size_t>(x2.dim() - 2)));
}

DimVector withRows(const DimVector& batch, int64_t r, int64_t c) {
  DimVector shape = batch;
  shape.push_back(r);
  shape.push_back(c);
  return shape;
}

int64_t product(const DimVector& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

// The loops take float and double, as PyTorch's CPU kernels.
void checkKernelDtype(const char* name, ScalarType dtype) {
  if (dtype != kFloat && dtype != kDouble) detail::throwNotImplementedForDtype(name, dtype);
}

// PyTorch's checks, with its messages; whether the matrix product computes the result.
bool checkCdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  OPCORE_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  OPCORE_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  OPCORE_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
               " X2: ", x2.size(-1));
  OPCORE_CHECK(isFloatingType(x1.scalar_type()), "cdist only supports floating-point dtypes, X1 got: ",
               x1.scalar_type());
  OPCORE_CHECK(isFloatingType(x2.scalar_type()), "cdist only supports floating-point dtypes, X2 got: ",
               x2.scalar_type());
  OPCORE_CHECK(p >= 0, "cdist only supports non-negative p values");
  OPCORE_CHECK(x1.device() == x2.device(), "X1 and X2 must have the same device type. X1: ", x1.device(), " X2: ",
               x2.device());
  const int64_t mode = compute_mode.value_or(0);
  OPCORE_CHECK(mode >= 0 && mode <= 2, "possible modes: 0, 1, 2, but was: ", mode);
  OPCORE_CHECK(x1.scalar_type() == x2.scalar_type(), "expected scalar type ", x1.scalar_type(), " but found ",
               x2.scalar_type());
  return cdistUsesProduct(p, mode, x1.size(-2), x2.size(-2));
}

void checkCdistBackward(const Tensor& grad, const Tensor& x1, const Tensor& x2, const Tensor& cdist,
                        const DimVector& batch) {
  OPCORE_CHECK(x1.dim() >= 2 && x2.dim() >= 2 && x1.size(-1) == x2.size(-1),
               "_cdist_backward: expected x1 [*, R1, M] and x2 [*, R2, M], got ", x1.sizes(), " and ", x2.sizes());
  const DimVector shape = withRows(batch, x1.size(-2), x2.size(-2));
  OPCORE_CHECK(grad.sizes() == IntArrayRef(shape) && cdist.sizes() == IntArrayRef(shape),
               "_cdist_backward: expected grad and cdist of shape ", IntArrayRef(shape), ", got ", grad.sizes(),
               " and ", cdist.sizes());
  const ScalarType dtype = x1.scalar_type();
  for (const Tensor* t : {&grad, &x2, &cdist}) {
    OPCORE_CHECK(t->scalar_type() == dtype, "expected scalar type ", dtype, " but found ", t->scalar_type());
  }
  checkKernelDtype("cdist_backward", dtype);
}

void checkPdist(const char* name, const Tensor& self, double p) {
  OPCORE_CHECK(self.dim() == 2, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  OPCORE_CHECK(isFloatingType(self.scalar_type()), "pdist only supports floating-point dtypes");
  OPCORE_CHECK(p >= 0, "pdist only supports non-negative p values");
  OPCORE_CHECK(self.is_contiguous(), name, std::string_view(name) == "_pdist_forward" ? " requires contiguous input"
                                                                                : " requires self to be contiguous");
  checkKernelDtype("pdist", self.scalar_type());
}

void checkPdistBackward(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  checkPdist("_pdist_backward", self, p);
  OPCORE_CHECK(pdist.is_contiguous(), "_pdist_backward requires pdist to be contiguous");
  const int64_t pairs = pairsOf(self.size(0));
  OPCORE_CHECK(grad.dim() == 1 && grad.size(0) == pairs && pdist.dim() == 1 && pdist.size(0) == pairs,
               "_pdist_backward: expected grad and pdist of shape [", pairs, "], got ", grad.sizes(), " and ",
               pdist.sizes());
  for (const Tensor* t : {&grad, &pdist}) {
    OPCORE_CHECK(t->scalar_type() == self.scalar_type(), "expected scalar type ", self.scalar_type(),
                 " but found ", t->scalar_type());
  }
}

}  // namespace

Tensor cdistForward(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode,
                    CdistKernel kernel) {
  const bool product_path = checkCdist(x1, x2, p, compute_mode);
  const DimVector batch = batchOf(x1, x2);
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2), m = x1.size(-1), b = product(batch);
  const DimVector shape = withRows(batch, r1, r2);
  if (kernel == nullptr) {  // Meta
    if (!product_path) checkKernelDtype("cdist", x1.scalar_type());
    return opcore::empty(shape, x1.options());
  }
  if (r1 == 0 || r2 == 0 || b == 0) return opcore::empty(shape, x1.options());
  if (m == 0) return opcore::zeros(shape, x1.options());
  if (product_path) return euclideanDistanceByProduct(x1, x2);
  checkKernelDtype("cdist", x1.scalar_type());
  Tensor result = opcore::empty(shape, x1.options());
  kernel(x1.expand(withRows(batch, r1, m)).contiguous().view({b, r1, m}),
         x2.expand(withRows(batch, r2, m)).contiguous().view({b, r2, m}), result.view({b, r1, r2}), p);
  return result;
}

Tensor cdistBackward(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p, const Tensor& cdist,
                     CdistBackwardKernel kernel) {
  const DimVector batch = batchOf(x1, x2);
  checkCdistBackward(grad, x1, x2, cdist, batch);
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2), m = x1.size(-1), b = product(batch);
  const bool empty = r1 == 0 || r2 == 0 || m == 0 || b == 0;
  const DimVector shape1 = withRows(batch, r1, m);
  if (kernel == nullptr) return opcore::empty(empty ? x1.sizes() : IntArrayRef(shape1), x1.options());  // Meta
  if (empty) return opcore::zeros(x1.sizes(), x1.options());
  Tensor result = opcore::empty(shape1, x1.options());
  kernel(grad.contiguous().view({b, r1, r2}), x1.expand(shape1).contiguous().view({b, r1, m}),
         x2.expand(withRows(batch, r2, m)).contiguous().view({b, r2, m}), cdist.contiguous().view({b, r1, r2}),
         result.view({b, r1, m}), p);
  return result;
}

Tensor pdistForward(const Tensor& self, double p, PdistKernel kernel) {
  checkPdist("_pdist_forward", self, p);
  const int64_t n = self.size(0), m = self.size(1), pairs = pairsOf(n);
  if (kernel == nullptr) return opcore::empty({pairs}, self.options());  // Meta
  if (m == 0 || pairs == 0) return opcore::zeros({pairs}, self.options());
  Tensor result = opcore::empty({pairs}, self.options());
  kernel(self, result, p);
  return result;
}

Tensor pdistBackward(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist,
                     PdistBackwardKernel kernel) {
  checkPdistBackward(grad, self, p, pdist);
  if (kernel == nullptr) return opcore::empty(self.sizes(), self.options());  // Meta
  if (self.size(1) == 0 || self.size(0) <= 1) return opcore::zeros(self.sizes(), self.options());
  Tensor result = opcore::empty(self.sizes(), self.options());
  kernel(grad.contiguous(), self, pdist, result, p);
  return result;
}

}  // namespace opcore::native

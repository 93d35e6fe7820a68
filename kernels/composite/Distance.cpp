// Distances written with other operators: cdist (_cdist_forward, or for p = 2 with many rows
// the matrix product of euclideanDistanceByProduct, which autograd differentiates through its
// operators as PyTorch's _euclidean_dist) and pdist (_pdist_forward of a contiguous input).
#include <opcore/core/ScalarType.h>
#include <opcore/ops/_cdist_forward.h>
#include <opcore/ops/_pdist_forward.h>
#include <opcore/ops/cat.h>
#include <opcore/ops/cdist_native.h>
#include <opcore/ops/clamp_min.h>
#include <opcore/ops/matmul.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/full_like.h>
#include <opcore/ops/pdist_native.h>
#include <opcore/ops/pow.h>
#include <opcore/ops/sqrt.h>
#include <opcore/ops/sum.h>

#include "common/Distance.h"

namespace opcore::native {

Tensor euclideanDistanceByProduct(const Tensor& x1, const Tensor& x2) {
  const Tensor n1 = opcore::sum(opcore::pow(x1, Scalar(2)), IntArrayRef{-1}, /*keepdim=*/true);
  const Tensor n2 = opcore::sum(opcore::pow(x2, Scalar(2)), IntArrayRef{-1}, /*keepdim=*/true);
  const Tensor a = opcore::cat({opcore::mul(x1, Scalar(-2)), n1, opcore::full_like(n1, 1)}, -1);
  const Tensor b = opcore::cat({x2, opcore::full_like(n2, 1), n2}, -1);
  return opcore::sqrt(opcore::clamp_min(opcore::matmul(a, b.transpose(-2, -1)), 1e-30));
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  OPCORE_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  OPCORE_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  OPCORE_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
               " X2: ", x2.size(-1));
  // An empty operand goes to _cdist_forward, whose result is connected to both inputs.
  if (x1.numel() == 0 || x2.numel() == 0) return opcore::_cdist_forward(x1, x2, p, compute_mode);
  if (!cdistUsesProduct(p, compute_mode.value_or(0), x1.size(-2), x2.size(-2))) {
    return opcore::_cdist_forward(x1, x2, p, compute_mode);
  }
  OPCORE_CHECK(isFloatingType(x1.scalar_type()), "cdist only supports floating-point dtypes, X1 got: ",
               x1.scalar_type());
  OPCORE_CHECK(isFloatingType(x2.scalar_type()), "cdist only supports floating-point dtypes, X2 got: ",
               x2.scalar_type());
  OPCORE_CHECK(x1.scalar_type() == x2.scalar_type(), "expected scalar type ", x1.scalar_type(), " but found ",
               x2.scalar_type());
  return euclideanDistanceByProduct(x1, x2);
}

Tensor pdist(const Tensor& self, double p) {
  OPCORE_CHECK(self.dim() == 2, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  OPCORE_CHECK(isFloatingType(self.scalar_type()), "pdist only supports floating-point dtypes");
  OPCORE_CHECK(p >= 0, "pdist only supports non-negative p values");
  return opcore::_pdist_forward(self.contiguous(), p);
}

}  // namespace opcore::native

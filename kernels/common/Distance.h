// cdist's choice of the matrix product for p = 2, shared by the composite cdist
// (kernels/composite/Distance.cpp) and the CPU _cdist_forward (kernels/cpu/Distance.cpp).
#pragma once

#include <opcore/Tensor.h>

#include <cstdint>

namespace opcore::native {

// PyTorch's rule: p = 2 and compute_mode 1 ('use_mm_for_euclid_dist'), or 0 / None
// ('use_mm_for_euclid_dist_if_necessary') with more than 25 rows on either side.
inline bool cdistUsesProduct(double p, int64_t mode, int64_t r1, int64_t r2) {
  return p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)));
}

// The Euclidean distances between the rows of x1 [*B1, R1, M] and x2 [*B2, R2, M] (batches
// broadcast; M > 0) as sqrt(clamp_min(|a|^2 - 2 a.b + |b|^2, 1e-30)), the middle term and the
// norms in one batched matrix product: [-2 a, |a|^2, 1] . [b, 1, |b|^2]. Written with
// differentiable operators, so autograd differentiates it.
Tensor euclideanDistanceByProduct(const Tensor& x1, const Tensor& x2);

}  // namespace opcore::native

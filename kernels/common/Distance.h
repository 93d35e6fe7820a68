// The p-norm distances' device-independent part, shared by the CPU, CUDA and Meta kernels of
// _cdist_forward, _cdist_backward, _pdist_forward and _pdist_backward (kernels/common/
// Distance.cpp): PyTorch's checks and messages, the results' shapes and empty cases, and
// cdist's choice of the matrix product for p = 2 (which the composite cdist,
// kernels/composite/Distance.cpp, shares). A device supplies its loops over contiguous
// tensors; the Meta kernels pass none (nullptr) and get the result's shape.
//   Tensor _pdist_forward_cpu(const Tensor& self, double p) { return pdistForward(self, p, pdistLoops); }
#pragma once

#include <opcore/Tensor.h>

#include <cstdint>
#include <optional>

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

// A device's loops, each over contiguous float or double tensors of one dtype, into `out`
// (allocated, contiguous): the distances [b, r1, r2] between the rows of x1 [b, r1, m] and
// x2 [b, r2, m] (m > 0); the gradient [b, r1, m] with respect to x1 from grad and the
// distances [b, r1, r2]; the distances [n (n - 1) / 2] between the pairs of rows i < j of
// x [n, m] (m > 0, n > 1), in row-major order; the gradient [n, m] with respect to x from
// grad and those distances.
using CdistKernel = void (*)(const Tensor& x1, const Tensor& x2, const Tensor& out, double p);
using CdistBackwardKernel = void (*)(const Tensor& grad, const Tensor& x1, const Tensor& x2, const Tensor& cdist,
                                     const Tensor& out, double p);
using PdistKernel = void (*)(const Tensor& x, const Tensor& out, double p);
using PdistBackwardKernel = void (*)(const Tensor& grad, const Tensor& x, const Tensor& pdist, const Tensor& out,
                                     double p);

Tensor cdistForward(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode,
                    CdistKernel kernel);
Tensor cdistBackward(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p, const Tensor& cdist,
                     CdistBackwardKernel kernel);
Tensor pdistForward(const Tensor& self, double p, PdistKernel kernel);
Tensor pdistBackward(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist,
                     PdistBackwardKernel kernel);

}  // namespace opcore::native

// The CUDA kernels of _cdist_forward, _cdist_backward, _pdist_forward and _pdist_backward: the
// checks, shapes and empty cases are the CPU's (common/Distance.cpp), the loops
// CudaDistanceKernels.cu's.
#include "CudaOperands.h"

#include "common/Distance.h"

#include <opcore/ops/_cdist_backward_native.h>
#include <opcore/ops/_cdist_forward_native.h>
#include <opcore/ops/_pdist_backward_native.h>
#include <opcore/ops/_pdist_forward_native.h>

namespace opcore::native {
namespace {

const char* read(const Tensor& t) { return static_cast<const char*>(t.data_ptr()); }
char* written(const Tensor& t) { return static_cast<char*>(t.data_ptr()); }

void cdistLoops(const Tensor& x1, const Tensor& x2, const Tensor& out, double p) {
  const cuda::DistanceProblem d{x1.size(0), x1.size(1), x2.size(1), x1.size(2), p};
  cuda::launchCdist(x1.scalar_type(), d, read(x1), read(x2), written(out));
}

void cdistBackwardLoops(const Tensor& grad, const Tensor& x1, const Tensor& x2, const Tensor& cdist,
                        const Tensor& out, double p) {
  const cuda::DistanceProblem d{x1.size(0), x1.size(1), x2.size(1), x1.size(2), p};
  cuda::launchCdistBackward(x1.scalar_type(), d, read(grad), read(x1), read(x2), read(cdist), written(out));
}

void pdistLoops(const Tensor& x, const Tensor& out, double p) {
  const cuda::DistanceProblem d{1, x.size(0), 0, x.size(1), p};
  cuda::launchPdist(x.scalar_type(), d, read(x), written(out));
}

void pdistBackwardLoops(const Tensor& grad, const Tensor& x, const Tensor& pdist, const Tensor& out, double p) {
  const cuda::DistanceProblem d{1, x.size(0), 0, x.size(1), p};
  cuda::launchPdistBackward(x.scalar_type(), d, read(grad), read(x), read(pdist), written(out));
}

}  // namespace

Tensor _cdist_forward_cuda(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  return cdistForward(x1, x2, p, compute_mode, cdistLoops);
}

Tensor _cdist_backward_cuda(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p, const Tensor& cdist) {
  return cdistBackward(grad, x1, x2, p, cdist, cdistBackwardLoops);
}

Tensor _pdist_forward_cuda(const Tensor& self, double p) { return pdistForward(self, p, pdistLoops); }

Tensor _pdist_backward_cuda(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  return pdistBackward(grad, self, p, pdist, pdistBackwardLoops);
}

}  // namespace opcore::native

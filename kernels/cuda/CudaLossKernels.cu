// The CUDA nll_loss, forward and backward (CudaLaunch.h's NllLossProblem): the forward's sums
// in double in one block (a loss reads one element per row: the batch is the work), the
// backward a thread per row.
#include "CudaLoops.cuh"

#include <opcore/core/Reduction.h>

namespace opcore::cuda {
namespace {

constexpr int kLossThreads = 256;

__device__ bool validTarget(const NllLossProblem& p, int64_t c) {
  return c != p.ignore_index && c >= 0 && c < p.classes;
}

template <typename T>
__device__ double weightOf(const NllLossProblem& p, int64_t c) {
  return p.weight ? static_cast<double>(static_cast<opmath_t<T>>(reinterpret_cast<const T*>(p.weight)[c])) : 1.0;
}

template <typename T>
__global__ void nllLossKernel(NllLossProblem p, T* out, T* total_weight) {
  const T* x = reinterpret_cast<const T*>(p.x);
  double sum = 0, weights = 0;
  for (int64_t i = threadIdx.x; i < p.batch; i += kLossThreads) {
    const int64_t c = p.target[i];
    const bool valid = validTarget(p, c);
    if (p.per_element) {
      out[i] = valid ? static_cast<T>(static_cast<opmath_t<T>>(
                           -weightOf<T>(p, c) * static_cast<double>(static_cast<opmath_t<T>>(x[i * p.classes + c]))))
                     : T(0);
      continue;
    }
    if (!valid) continue;
    const double w = weightOf<T>(p, c);
    sum -= w * static_cast<double>(static_cast<opmath_t<T>>(x[i * p.classes + c]));
    weights += w;
  }
  if (p.per_element) {
    if (threadIdx.x == 0) *total_weight = T(0);
    return;
  }
  __shared__ double sums[kLossThreads], totals[kLossThreads];
  sums[threadIdx.x] = sum;
  totals[threadIdx.x] = weights;
  __syncthreads();
  for (int width = kLossThreads / 2; width > 0; width /= 2) {
    if (static_cast<int>(threadIdx.x) < width) {
      sums[threadIdx.x] += sums[threadIdx.x + width];
      totals[threadIdx.x] += totals[threadIdx.x + width];
    }
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  const double r = p.reduction == Reduction::Mean ? sums[0] / totals[0] : sums[0];
  *out = static_cast<T>(static_cast<opmath_t<T>>(r));
  *total_weight = static_cast<T>(static_cast<opmath_t<T>>(totals[0]));
}

template <typename T>
__global__ void nllLossBackwardKernel(NllLossProblem p, const T* grad, const T* total_weight, T* grad_input) {
  const double total = static_cast<double>(static_cast<opmath_t<T>>(*total_weight));
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.batch; i += step) {
    const int64_t c = p.target[i];
    if (!validTarget(p, c)) continue;
    double g = static_cast<double>(static_cast<opmath_t<T>>(grad[p.per_element ? i : 0]));
    if (p.reduction == Reduction::Mean) g /= total;
    grad_input[i * p.classes + c] = static_cast<T>(static_cast<opmath_t<T>>(-weightOf<T>(p, c) * g));
  }
}

}  // namespace

void launchNllLoss(ScalarType dtype, const NllLossProblem& p, char* out, char* total_weight) {
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "nll_loss_forward", [&] {
    nllLossKernel<scalar_t><<<1, kLossThreads, 0, currentStream()>>>(p, reinterpret_cast<scalar_t*>(out),
                                                                     reinterpret_cast<scalar_t*>(total_weight));
  });
  checkLaunch("nll_loss_forward");
}

void launchNllLossBackward(ScalarType dtype, const NllLossProblem& p, const char* grad, const char* total_weight,
                           char* grad_input) {
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "nll_loss_backward", [&] {
    if (p.batch == 0) return;
    nllLossBackwardKernel<scalar_t><<<blocksFor(p.batch), kThreads, 0, currentStream()>>>(
        p, reinterpret_cast<const scalar_t*>(grad), reinterpret_cast<const scalar_t*>(total_weight),
        reinterpret_cast<scalar_t*>(grad_input));
  });
  checkLaunch("nll_loss_backward");
}

}  // namespace opcore::cuda

// The CUDA layer_norm, forward and backward, with the CPU kernel's formulas (Note [Layer norm
// rows] in kernels/cpu/Normalization.cpp): a block per row for the forward and the input's
// gradient (the row's mean, then its squared deviations: two passes, as the CPU's), and 32 x 8
// thread blocks summing the weight's and bias's gradients down the rows.
#include "CudaLoops.cuh"

#include <cmath>

namespace opcore::cuda {
namespace {

constexpr int kRowThreads = 256;

// Every thread of the block gets the block's sum.
template <typename A>
__device__ A blockSum(A v) {
  __shared__ A warp_sums[kRowThreads / 32];
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  __syncthreads();
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = warp_sums[0];
  for (int w = 1; w < kRowThreads / 32; ++w) v += warp_sums[w];
  return v;
}

template <typename T>
__global__ void layerNormKernel(LayerNormProblem p, double eps, T* y, T* mean_out, T* rstd_out) {
  using A = opmath_t<T>;
  const T* x = reinterpret_cast<const T*>(p.x);
  const A* w = static_cast<const A*>(p.weight);
  const A* b = static_cast<const A*>(p.bias);
  for (int64_t r = blockIdx.x; r < p.M; r += gridDim.x) {
    const T* xr = x + r * p.N;
    A mean = 0, rstd = NAN;
    if (p.N > 0) {
      A s = 0;
      for (int64_t j = threadIdx.x; j < p.N; j += kRowThreads) s += static_cast<A>(xr[j]);
      mean = blockSum(s) / static_cast<A>(p.N);
      A d2 = 0;
      for (int64_t j = threadIdx.x; j < p.N; j += kRowThreads) {
        const A d = static_cast<A>(xr[j]) - mean;
        d2 += d * d;
      }
      rstd = A(1) / std::sqrt(blockSum(d2) / static_cast<A>(p.N) + static_cast<A>(eps));
    }
    for (int64_t j = threadIdx.x; j < p.N; j += kRowThreads) {
      A v = (static_cast<A>(xr[j]) - mean) * rstd;
      if (w) v *= w[j];
      if (b) v += b[j];
      y[r * p.N + j] = static_cast<T>(v);
    }
    if (threadIdx.x == 0) {
      mean_out[r] = static_cast<T>(mean);
      rstd_out[r] = static_cast<T>(rstd);
    }
  }
}

// dx = rstd * dy * w + c1 * x + c2, from the row's sums of dy * w and dy * w * x.
template <typename T>
__global__ void layerNormInputGradKernel(LayerNormProblem p, const T* dy, const opmath_t<T>* means,
                                         const opmath_t<T>* rstds, T* dx) {
  using A = opmath_t<T>;
  const T* x = reinterpret_cast<const T*>(p.x);
  const A* w = static_cast<const A*>(p.weight);
  for (int64_t r = blockIdx.x; r < p.M; r += gridDim.x) {
    const T* xr = x + r * p.N;
    const T* dyr = dy + r * p.N;
    A s1 = 0, s2 = 0;
    for (int64_t j = threadIdx.x; j < p.N; j += kRowThreads) {
      const A g = w ? static_cast<A>(dyr[j]) * w[j] : static_cast<A>(dyr[j]);
      s1 += g;
      s2 += g * static_cast<A>(xr[j]);
    }
    const A sum_dy = blockSum(s1), sum_dyx = blockSum(s2);
    const A mean = means[r], rstd = rstds[r];
    const A scale = A(1) / static_cast<A>(p.N);
    const A c1 = (sum_dy * mean - sum_dyx) * rstd * rstd * rstd * scale;
    const A c2 = -c1 * mean - sum_dy * rstd * scale;
    for (int64_t j = threadIdx.x; j < p.N; j += kRowThreads) {
      const A g = w ? static_cast<A>(dyr[j]) * w[j] : static_cast<A>(dyr[j]);
      dx[r * p.N + j] = static_cast<T>(rstd * g + c1 * static_cast<A>(xr[j]) + c2);
    }
  }
}

// dw[j] = sum over rows of dy * (x - mean) * rstd, db[j] = sum of dy: x of the block picks the
// column, y strides the rows, the 8 partial sums are added in order.
template <typename T>
__global__ void layerNormParamGradKernel(LayerNormProblem p, const T* dy, const opmath_t<T>* means,
                                         const opmath_t<T>* rstds, T* dw, T* db) {
  using A = opmath_t<T>;
  __shared__ A sw[8][33], sb[8][33];
  const T* x = reinterpret_cast<const T*>(p.x);
  const int64_t j = static_cast<int64_t>(blockIdx.x) * 32 + threadIdx.x;
  A aw = 0, ab = 0;
  if (j < p.N) {
    for (int64_t r = threadIdx.y; r < p.M; r += 8) {
      const A g = static_cast<A>(dy[r * p.N + j]);
      aw += g * (static_cast<A>(x[r * p.N + j]) - means[r]) * rstds[r];
      ab += g;
    }
  }
  sw[threadIdx.y][threadIdx.x] = aw;
  sb[threadIdx.y][threadIdx.x] = ab;
  __syncthreads();
  if (threadIdx.y != 0 || j >= p.N) return;
  for (int k = 1; k < 8; ++k) {
    aw += sw[k][threadIdx.x];
    ab += sb[k][threadIdx.x];
  }
  if (dw) dw[j] = static_cast<T>(aw);
  if (db) db[j] = static_cast<T>(ab);
}

unsigned rowBlocks(int64_t rows) { return static_cast<unsigned>(std::clamp<int64_t>(rows, 1, kMaxBlocks)); }

}  // namespace

void launchLayerNorm(ScalarType dtype, const LayerNormProblem& p, double eps, char* y, char* mean, char* rstd) {
  if (p.M == 0) return;
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "LayerNormKernelImpl", [&] {
    layerNormKernel<scalar_t><<<rowBlocks(p.M), kRowThreads, 0, currentStream()>>>(
        p, eps, reinterpret_cast<scalar_t*>(y), reinterpret_cast<scalar_t*>(mean), reinterpret_cast<scalar_t*>(rstd));
  });
  checkLaunch("native_layer_norm");
}

void launchLayerNormBackward(ScalarType dtype, const LayerNormProblem& p, const char* dy, const void* mean,
                             const void* rstd, char* dx, char* dw, char* db) {
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "LayerNormBackwardKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    const auto* g = reinterpret_cast<const scalar_t*>(dy);
    const auto* m = static_cast<const A*>(mean);
    const auto* r = static_cast<const A*>(rstd);
    if (dx && p.M > 0) {
      layerNormInputGradKernel<scalar_t><<<rowBlocks(p.M), kRowThreads, 0, currentStream()>>>(
          p, g, m, r, reinterpret_cast<scalar_t*>(dx));
    }
    if ((dw || db) && p.N > 0) {
      layerNormParamGradKernel<scalar_t><<<static_cast<unsigned>(ceilDiv(p.N, 32)), dim3(32, 8), 0, currentStream()>>>(
          p, g, m, r, reinterpret_cast<scalar_t*>(dw), reinterpret_cast<scalar_t*>(db));
    }
  });
  checkLaunch("native_layer_norm_backward");
}

}  // namespace opcore::cuda

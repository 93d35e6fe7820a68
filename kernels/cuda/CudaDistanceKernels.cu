// The CUDA kernels of the p-norm distances (CudaLaunch.h's launchCdist, launchCdistBackward,
// launchPdist, launchPdistBackward): a thread per result element, on the CPU kernels'
// arithmetic (common/pointwise/Distance.h). Each sums in its own order, so no atomics and no
// dependence on the launch; the sums' order is not the CPU's (which keeps partial sums).
#include "CudaLoops.cuh"

#include <common/pointwise/Distance.h>

#include <cmath>

namespace opcore::cuda {
namespace {

using native::distance::Norm;
namespace distance = native::distance;

template <Norm N, typename T>
__device__ T rowDistance(const T* a, const T* b, int64_t m, T p) {
  T total = T(0);
  for (int64_t c = 0; c < m; ++c) total = distance::combineTerms<N>(total, distance::distanceTerm<N>(a[c] - b[c], p));
  return distance::finishDistance<N>(total, p);
}

// Distance k of [batch, r1, r2]: rows (s, i) of x1 and (s, j) of x2.
template <Norm N, typename T>
__global__ void cdistKernel(DistanceProblem d, const T* x1, const T* x2, T* out) {
  const int64_t total = d.batch * d.r1 * d.r2;
  const auto p = static_cast<T>(d.p);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += step) {
    const int64_t j = k % d.r2, i = (k / d.r2) % d.r1, s = k / (d.r1 * d.r2);
    out[k] = rowDistance<N>(x1 + (s * d.r1 + i) * d.m, x2 + (s * d.r2 + j) * d.m, d.m, p);
  }
}

// Element (s, i, c) of the gradient with respect to x1: the sum over x2's rows j in their order.
template <Norm N, typename T>
__global__ void cdistBackwardKernel(DistanceProblem d, const T* grad, const T* x1, const T* x2, const T* dist,
                                    T* out) {
  const int64_t total = d.batch * d.r1 * d.m;
  const auto p = static_cast<T>(d.p);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t c = e % d.m, row = e / d.m, s = row / d.r1;
    const T a = x1[e];
    T sum = T(0);
    for (int64_t j = 0; j < d.r2; ++j) {
      const T dj = dist[row * d.r2 + j];
      if (distance::gradientVanishes<N>(dj)) continue;
      const T scale = distance::gradientScale<N>(grad[row * d.r2 + j], dj, p);
      sum += distance::gradientTerm<N>(a - x2[(s * d.r2 + j) * d.m + c], scale, dj, p);
    }
    out[e] = sum;
  }
}

// The pair (i, j), i < j, of row-major index k among the pairs of n rows: i from the inverse of
// pairIndex in double, corrected by whole steps where rounding put it one off.
__device__ void pairOf(int64_t k, int64_t n, int64_t* i, int64_t* j) {
  const double nd = static_cast<double>(n);
  auto r = static_cast<int64_t>(nd - 0.5 - std::sqrt((nd - 0.5) * (nd - 0.5) - 2.0 * static_cast<double>(k)));
  r = r < 0 ? 0 : r > n - 2 ? n - 2 : r;
  while (r > 0 && distance::pairIndex(r, r + 1, n) > k) --r;
  while (r < n - 2 && distance::pairIndex(r + 1, r + 2, n) <= k) ++r;
  *i = r;
  *j = k - distance::pairIndex(r, r + 1, n) + r + 1;
}

template <Norm N, typename T>
__global__ void pdistKernel(DistanceProblem d, const T* x, T* out) {
  const int64_t n = d.r1, total = distance::pairsOf(n);
  const auto p = static_cast<T>(d.p);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += step) {
    int64_t i, j;
    pairOf(k, n, &i, &j);
    out[k] = rowDistance<N>(x + i * d.m, x + j * d.m, d.m, p);
  }
}

// Element (i, c) of the gradient: the sum over the other rows j of pair (i, j)'s term, which is
// odd in x_i - x_j (so a pair adds to its second row the negation of what it adds to its first,
// as the CPU kernel's).
template <Norm N, typename T>
__global__ void pdistBackwardKernel(DistanceProblem d, const T* grad, const T* x, const T* dist, T* out) {
  const int64_t n = d.r1, total = n * d.m;
  const auto p = static_cast<T>(d.p);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t c = e % d.m, i = e / d.m;
    const T a = x[e];
    T sum = T(0);
    for (int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const int64_t k = i < j ? distance::pairIndex(i, j, n) : distance::pairIndex(j, i, n);
      if (distance::gradientVanishes<N>(dist[k])) continue;
      const T scale = distance::gradientScale<N>(grad[k], dist[k], p);
      sum += distance::gradientTerm<N>(a - x[j * d.m + c], scale, dist[k], p);
    }
    out[e] = sum;
  }
}

}  // namespace

void launchCdist(ScalarType dtype, const DistanceProblem& d, const char* x1, const char* x2, char* out) {
  OPCORE_DISPATCH_FLOATING_TYPES(dtype, "cdist", [&] {
    distance::withNorm(d.p, [&](auto norm) {
      cdistKernel<decltype(norm)::value><<<blocksFor(d.batch * d.r1 * d.r2), kThreads, 0, currentStream()>>>(
          d, reinterpret_cast<const scalar_t*>(x1), reinterpret_cast<const scalar_t*>(x2),
          reinterpret_cast<scalar_t*>(out));
    });
    checkLaunch("_cdist_forward");
  });
}

void launchCdistBackward(ScalarType dtype, const DistanceProblem& d, const char* grad, const char* x1,
                         const char* x2, const char* cdist, char* out) {
  OPCORE_DISPATCH_FLOATING_TYPES(dtype, "cdist_backward", [&] {
    distance::withNorm(d.p, [&](auto norm) {
      cdistBackwardKernel<decltype(norm)::value><<<blocksFor(d.batch * d.r1 * d.m), kThreads, 0, currentStream()>>>(
          d, reinterpret_cast<const scalar_t*>(grad), reinterpret_cast<const scalar_t*>(x1),
          reinterpret_cast<const scalar_t*>(x2), reinterpret_cast<const scalar_t*>(cdist),
          reinterpret_cast<scalar_t*>(out));
    });
    checkLaunch("_cdist_backward");
  });
}

void launchPdist(ScalarType dtype, const DistanceProblem& d, const char* x, char* out) {
  OPCORE_DISPATCH_FLOATING_TYPES(dtype, "pdist", [&] {
    distance::withNorm(d.p, [&](auto norm) {
      pdistKernel<decltype(norm)::value><<<blocksFor(distance::pairsOf(d.r1)), kThreads, 0, currentStream()>>>(
          d, reinterpret_cast<const scalar_t*>(x), reinterpret_cast<scalar_t*>(out));
    });
    checkLaunch("_pdist_forward");
  });
}

void launchPdistBackward(ScalarType dtype, const DistanceProblem& d, const char* grad, const char* x,
                         const char* pdist, char* out) {
  OPCORE_DISPATCH_FLOATING_TYPES(dtype, "pdist_backward", [&] {
    distance::withNorm(d.p, [&](auto norm) {
      pdistBackwardKernel<decltype(norm)::value><<<blocksFor(d.r1 * d.m), kThreads, 0, currentStream()>>>(
          d, reinterpret_cast<const scalar_t*>(grad), reinterpret_cast<const scalar_t*>(x),
          reinterpret_cast<const scalar_t*>(pdist), reinterpret_cast<scalar_t*>(out));
    });
    checkLaunch("_pdist_backward");
  });
}

}  // namespace opcore::cuda

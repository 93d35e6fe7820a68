// The CUDA kernels of max and average pooling (CudaLaunch.h's launchMaxPool, launchAvgPool,
// launchAvgPoolBackward).
#include "CudaLoops.cuh"

#include <common/Wrapping.h>
#include <common/pointwise/Pooling.h>

namespace opcore::cuda {
namespace {

// A thread per output element: the CPU kernel's window (maxPoolPlane in
// kernels/cpu/Pooling.cpp) and its rule for the maximum.
template <typename T>
__global__ void maxPoolKernel(PoolWindow w, const T* in, T* out, int64_t* indices) {
  using M = opmath_t<T>;
  const int64_t out_plane = w.out_depth * w.out_height * w.out_width;
  const int64_t plane = w.depth * w.height * w.width, slice = w.height * w.width;
  const int64_t total = w.planes * out_plane;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t c = e / out_plane, o = e % out_plane;
    const int64_t ow = o % w.out_width, oh = (o / w.out_width) % w.out_height, od = o / (w.out_width * w.out_height);
    int64_t d0 = od * w.sd - w.pd, h0 = oh * w.sh - w.ph, w0 = ow * w.sw - w.pw;
    const int64_t d1 = min(d0 + (w.kd - 1) * w.dd + 1, w.depth);
    const int64_t h1 = min(h0 + (w.kh - 1) * w.dh + 1, w.height);
    const int64_t w1 = min(w0 + (w.kw - 1) * w.dw + 1, w.width);
    while (d0 < 0) d0 += w.dd;
    while (h0 < 0) h0 += w.dh;
    while (w0 < 0) w0 += w.dw;
    const T* x = in + c * plane;
    M best = -INFINITY;
    int64_t index = d0 * slice + h0 * w.width + w0;  // the first element's, when every one is -inf
    for (int64_t d = d0; d < d1; d += w.dd) {
      for (int64_t h = h0; h < h1; h += w.dh) {
        for (int64_t col = w0; col < w1; col += w.dw) {
          const int64_t i = d * slice + h * w.width + col;
          const M v = static_cast<M>(x[i]);
          if (v > best || v != v) {  // a NaN replaces the maximum too (so the last NaN wins)
            best = v;
            index = i;
          }
        }
      }
    }
    out[e] = static_cast<T>(best);
    indices[e] = index;
  }
}

// Output e's window and what its sum is divided by: avg_pool's divisor, or the adaptive
// window's extents, divided by in turn (as the CPU kernel, bit for bit in float32).
struct AvgCell {
  native::AvgWindow win;
  int64_t plane_index;
};

__device__ inline AvgCell avgCell(const AvgPoolProblem& p, int64_t e) {
  const PoolWindow& w = p.w;
  const int64_t out_plane = w.out_depth * w.out_height * w.out_width;
  const int64_t c = e / out_plane, o = e % out_plane;
  const int64_t ow = o % w.out_width, oh = (o / w.out_width) % w.out_height, od = o / (w.out_width * w.out_height);
  if (!p.adaptive) return {native::avgWindow(w, od, oh, ow, p.count_include_pad, p.divisor_override), c};
  native::AvgWindow win;
  win.d0 = native::adaptiveStart(od, w.out_depth, w.depth), win.d1 = native::adaptiveEnd(od, w.out_depth, w.depth);
  win.h0 = native::adaptiveStart(oh, w.out_height, w.height), win.h1 = native::adaptiveEnd(oh, w.out_height, w.height);
  win.w0 = native::adaptiveStart(ow, w.out_width, w.width), win.w1 = native::adaptiveEnd(ow, w.out_width, w.width);
  win.divisor = 1;
  return {win, c};
}

template <typename M>
__device__ inline M averaged(const AvgPoolProblem& p, const native::AvgWindow& win, M sum) {
  if (p.adaptive) {
    return sum / static_cast<M>(win.d1 - win.d0) / static_cast<M>(win.h1 - win.h0) / static_cast<M>(win.w1 - win.w0);
  }
  return win.divisor == 0 ? M(0) : sum / static_cast<M>(win.divisor);
}

// A thread per output element: the sum of its window (integers wrap), averaged.
template <typename T>
__global__ void avgPoolKernel(AvgPoolProblem p, const T* in, T* out) {
  using M = opmath_t<T>;
  const PoolWindow& w = p.w;
  const int64_t slice = w.height * w.width, plane = w.depth * slice;
  const int64_t total = w.planes * w.out_depth * w.out_height * w.out_width;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const AvgCell cell = avgCell(p, e);
    const native::AvgWindow& win = cell.win;
    const T* x = in + cell.plane_index * plane;
    M sum = M(0);
    for (int64_t d = win.d0; d < win.d1; ++d) {
      for (int64_t h = win.h0; h < win.h1; ++h) {
        for (int64_t col = win.w0; col < win.w1; ++col) sum = native::wrappingAdd(sum, static_cast<M>(x[d * slice + h * w.width + col]));
      }
    }
    out[e] = static_cast<T>(averaged(p, win, sum));
  }
}

// A thread per output element: its gradient's share added to each element of its window.
template <typename T>
__global__ void avgPoolBackwardKernel(AvgPoolProblem p, const T* grad_output, opmath_t<T>* sums) {
  using M = opmath_t<T>;
  const PoolWindow& w = p.w;
  const int64_t slice = w.height * w.width, plane = w.depth * slice;
  const int64_t total = w.planes * w.out_depth * w.out_height * w.out_width;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const AvgCell cell = avgCell(p, e);
    const native::AvgWindow& win = cell.win;
    if (!p.adaptive && win.divisor == 0) continue;
    const M share = averaged(p, win, static_cast<M>(grad_output[e]));
    M* g = sums + cell.plane_index * plane;
    for (int64_t d = win.d0; d < win.d1; ++d) {
      for (int64_t h = win.h0; h < win.h1; ++h) {
        for (int64_t col = win.w0; col < win.w1; ++col) {
          M* at = g + d * slice + h * w.width + col;
          if constexpr (std::is_same_v<M, int64_t>) {  // wraps, as the CPU's sum
            atomicAdd(reinterpret_cast<unsigned long long*>(at), static_cast<unsigned long long>(share));
          } else {
            atomicAdd(at, share);
          }
        }
      }
    }
  }
}

// avg_pool takes int64 too (as PyTorch's); the adaptive pools take floating dtypes only.
#define OPCORE_DISPATCH_AVG_POOL(p, dtype, name, ...)                                              \
  if (p.adaptive) {                                                                                \
    OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, name, __VA_ARGS__);               \
  } else {                                                                                         \
    OPCORE_DISPATCH_SWITCH(dtype, name, OPCORE_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)           \
                                            OPCORE_DISPATCH_CASE(kHalf, __VA_ARGS__)               \
                                                OPCORE_DISPATCH_CASE(kBFloat16, __VA_ARGS__)       \
                                                    OPCORE_DISPATCH_CASE(kLong, __VA_ARGS__));     \
  }

int64_t outputsOf(const PoolWindow& w) { return w.planes * w.out_depth * w.out_height * w.out_width; }

}  // namespace

void launchAvgPool(ScalarType dtype, const char* name, const AvgPoolProblem& p, const char* in, char* out) {
  OPCORE_DISPATCH_AVG_POOL(p, dtype, name, [&] {
    if (outputsOf(p.w) == 0) return;
    avgPoolKernel<scalar_t><<<blocksFor(outputsOf(p.w)), kThreads, 0, currentStream()>>>(
        p, reinterpret_cast<const scalar_t*>(in), reinterpret_cast<scalar_t*>(out));
    checkLaunch(name);
  })
}

void launchAvgPoolBackward(ScalarType dtype, const char* name, const AvgPoolProblem& p, const char* grad_output,
                           void* sums) {
  OPCORE_DISPATCH_AVG_POOL(p, dtype, name, [&] {
    if (outputsOf(p.w) == 0) return;
    avgPoolBackwardKernel<scalar_t><<<blocksFor(outputsOf(p.w)), kThreads, 0, currentStream()>>>(
        p, reinterpret_cast<const scalar_t*>(grad_output), static_cast<opmath_t<scalar_t>*>(sums));
    checkLaunch(name);
  })
}

#undef OPCORE_DISPATCH_AVG_POOL

void launchMaxPool(ScalarType dtype, const char* name, const PoolWindow& w, const char* in, char* out,
                   int64_t* indices) {
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] {
    const int64_t total = w.planes * w.out_depth * w.out_height * w.out_width;
    if (total == 0) return;
    maxPoolKernel<scalar_t><<<blocksFor(total), kThreads, 0, currentStream()>>>(
        w, reinterpret_cast<const scalar_t*>(in), reinterpret_cast<scalar_t*>(out), indices);
    checkLaunch(name);
  });
}

}  // namespace opcore::cuda

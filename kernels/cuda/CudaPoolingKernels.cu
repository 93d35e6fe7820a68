// The CUDA kernel of max pooling (CudaLaunch.h's launchMaxPool).
#include "CudaLoops.cuh"

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

}  // namespace

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

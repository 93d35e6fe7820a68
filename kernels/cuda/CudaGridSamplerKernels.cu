// The CUDA kernels of grid_sampler_2d and its backward (CudaLaunch.h's launchGridSampler,
// launchGridSamplerBackward): a thread per output point, which finds the input elements it
// reads once (common/pointwise/GridSampler.h's gridTaps, the CPU kernels' arithmetic) and reads
// them in every channel. The backward adds each point's share of the input gradient atomically
// (in float for 16-bit dtypes, in the GPU's order) and writes the point's grid gradient.
#include "CudaLoops.cuh"

#include <common/pointwise/GridSampler.h>

namespace opcore::cuda {
namespace {

using native::GridShape;
using native::GridTap;

// Point `at` of the grid: its taps (returns their number) and d(input coordinate) / d(grid
// coordinate) in x and y.
template <typename M, typename T>
__device__ int pointTaps(const GridShape& s, const T* grid, int64_t at, GridTap<M> taps[16], M* mult_x, M* mult_y) {
  return native::gridTaps<M>(static_cast<M>(grid[at * 2]), static_cast<M>(grid[at * 2 + 1]), s.height, s.width, s.mode,
                             s.padding, s.align_corners, taps, mult_x, mult_y);
}

template <typename T>
__global__ void gridSamplerKernel(GridShape s, const T* input, const T* grid, T* out) {
  using M = opmath_t<T>;
  const int64_t plane = s.height * s.width, out_plane = s.out_height * s.out_width;
  const int64_t total = s.batch * out_plane;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t at = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; at < total; at += step) {
    const int64_t n = at / out_plane, point = at % out_plane;
    GridTap<M> taps[16];
    M mult_x, mult_y;
    const int count = pointTaps(s, grid, at, taps, &mult_x, &mult_y);
    const T* image = input + n * s.channels * plane;
    T* y = out + n * s.channels * out_plane + point;
    for (int64_t c = 0; c < s.channels; ++c) {
      y[c * out_plane] = static_cast<T>(native::sampleTaps(image + c * plane, taps, count));
    }
  }
}

// input_sums: null when the input's gradient is not wanted.
template <typename T>
__global__ void gridSamplerBackwardKernel(GridShape s, const T* grad_output, const T* input, const T* grid,
                                          opmath_t<T>* input_sums, T* grad_grid) {
  using M = opmath_t<T>;
  const int64_t plane = s.height * s.width, out_plane = s.out_height * s.out_width, image = s.channels * plane;
  const bool nearest = s.mode == native::GridInterpolation::kNearest;
  const int64_t total = s.batch * out_plane;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t at = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; at < total; at += step) {
    const int64_t n = at / out_plane, point = at % out_plane;
    GridTap<M> taps[16];
    M mult_x, mult_y;
    const int count = pointTaps(s, grid, at, taps, &mult_x, &mult_y);
    M gx, gy;
    M* sums = input_sums == nullptr ? nullptr : input_sums + n * image;
    native::pointBackward(
        input + n * image, s.channels, plane, taps, count, nearest, input_sums != nullptr,
        [&](int64_t c) { return static_cast<M>(grad_output[(n * s.channels + c) * out_plane + point]); },
        [&](int64_t i, M share) { atomicAdd(sums + i, share); }, &gx, &gy);
    grad_grid[at * 2] = static_cast<T>(gx * mult_x);
    grad_grid[at * 2 + 1] = static_cast<T>(gy * mult_y);
  }
}

}  // namespace

void launchGridSampler(ScalarType dtype, const GridShape& s, const char* input, const char* grid, char* out) {
  const int64_t points = s.batch * s.out_height * s.out_width;
  if (points == 0) return;
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "grid_sampler_2d_cuda", [&] {
    gridSamplerKernel<scalar_t><<<blocksFor(points), kThreads, 0, currentStream()>>>(
        s, reinterpret_cast<const scalar_t*>(input), reinterpret_cast<const scalar_t*>(grid),
        reinterpret_cast<scalar_t*>(out));
    checkLaunch("grid_sampler_2d");
  });
}

void launchGridSamplerBackward(ScalarType dtype, const GridShape& s, const char* grad_output, const char* input,
                               const char* grid, void* input_sums, char* grad_grid) {
  const int64_t points = s.batch * s.out_height * s.out_width;
  if (points == 0) return;
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "grid_sampler_2d_backward_cuda", [&] {
    gridSamplerBackwardKernel<scalar_t><<<blocksFor(points), kThreads, 0, currentStream()>>>(
        s, reinterpret_cast<const scalar_t*>(grad_output), reinterpret_cast<const scalar_t*>(input),
        reinterpret_cast<const scalar_t*>(grid), static_cast<opmath_t<scalar_t>*>(input_sums),
        reinterpret_cast<scalar_t*>(grad_grid));
    checkLaunch("grid_sampler_2d_backward");
  });
}

}  // namespace opcore::cuda

// The arithmetic of one point grid_sampler_2d samples, written once for every device
// (OPCORE_HOST_DEVICE, nvcc-clean: Note [nvcc-clean pointwise headers] in Binary.h; the CPU
// kernels in kernels/cpu/GridSampler.cpp, the CUDA ones in kernels/cuda/
// CudaGridSamplerKernels.cu): where a grid coordinate lands in the input, under each padding
// mode, and the weights of the bilinear and bicubic interpolations with their derivatives.
//   M gx_mult;
//   const M ix = gridSourceIndex(x, width, GridPadding::kBorder, align_corners, &gx_mult);
#pragma once

#include <opcore/core/Macros.h>

#include <cmath>
#include <cstdint>

namespace opcore::native {

// grid_sampler's integer modes, PyTorch's numbering (F.grid_sample's strings map onto them)
enum class GridInterpolation : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum class GridPadding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

// A sampling's sizes and modes: input [batch, channels, height, width], grid and output
// [batch, out_height, out_width] points (common/GridSampler.h's gridShape checks them).
struct GridShape {
  int64_t batch, channels, height, width, out_height, out_width;
  GridInterpolation mode;
  GridPadding padding;
  bool align_corners;
};

// A grid coordinate (-1: the first pixel's edge, or its centre with align_corners; 1: the last's)
// as an input coordinate along a dimension of `size`; *grad = d(result) / d(coord).
template <typename M>
OPCORE_HOST_DEVICE M gridUnnormalize(M coord, int64_t size, bool align_corners, M* grad) {
  if (align_corners) {
    *grad = static_cast<M>(size - 1) / 2;
    return (coord + 1) * *grad;
  }
  *grad = static_cast<M>(size) / 2;
  return ((coord + 1) * static_cast<M>(size) - 1) / 2;
}

// x clamped to [0, size - 1]; *grad = 1 inside, 0 where clamped.
template <typename M>
OPCORE_HOST_DEVICE M gridClip(M x, int64_t size, M* grad) {
  const M limit = static_cast<M>(size - 1);
  if (x <= 0) {
    *grad = 0;
    return 0;
  }
  if (x >= limit) {
    *grad = 0;
    return limit;
  }
  *grad = 1;
  return x;
}

// x reflected back and forth into [low, high] (given doubled, so that the half-pixel bounds of
// align_corners=False are integers); *grad = +-1 by the number of reflections.
template <typename M>
OPCORE_HOST_DEVICE M gridReflect(M x, int64_t twice_low, int64_t twice_high, M* grad) {
  if (twice_low == twice_high) {
    *grad = 0;
    return 0;
  }
  const M low = static_cast<M>(twice_low) / 2, span = static_cast<M>(twice_high - twice_low) / 2;
  M sign = 1;
  x -= low;
  if (x < 0) {
    sign = -1;
    x = -x;
  }
  const M extra = std::fmod(x, span);
  // (in floating point: x may be too large for an integer, or infinite, which gives NaN)
  const bool even = std::fmod(std::floor(x / span), static_cast<M>(2)) == 0;
  *grad = even ? sign : -sign;
  return even ? extra + low : span - extra + low;
}

// The padding mode applied to an input coordinate (not applied for kZeros: reads outside are 0).
template <typename M>
OPCORE_HOST_DEVICE M gridPad(M x, int64_t size, GridPadding padding, bool align_corners, M* grad) {
  *grad = 1;
  if (padding == GridPadding::kBorder) return gridClip(x, size, grad);
  if (padding == GridPadding::kReflection) {
    M reflect_grad, clip_grad;
    x = align_corners ? gridReflect(x, 0, 2 * (size - 1), &reflect_grad) : gridReflect(x, -1, 2 * size - 1, &reflect_grad);
    x = gridClip(x, size, &clip_grad);
    *grad = reflect_grad * clip_grad;
  }
  return x;
}

// A coordinate an index can hold: beyond +-2^30 clamped (still outside the input, on its side),
// NaN far outside, where every padding mode reads 0 (PyTorch's CUDA kernel reads 0 there too;
// its CPU kernel gives NaN or an edge element, by mode).
template <typename M>
OPCORE_HOST_DEVICE M gridIndexable(M x) {
  constexpr M kLimit = static_cast<M>(1 << 30);
  if (std::isnan(x)) return static_cast<M>(-100);
  return x < -kLimit ? -kLimit : x > kLimit ? kLimit : x;
}

// The input coordinate the bilinear and nearest modes read for grid coordinate `coord`.
template <typename M>
OPCORE_HOST_DEVICE M gridSourceIndex(M coord, int64_t size, GridPadding padding, bool align_corners, M* grad) {
  M unnormalize_grad, pad_grad;
  const M x = gridPad(gridUnnormalize(coord, size, align_corners, &unnormalize_grad), size, padding, align_corners,
                      &pad_grad);
  *grad = unnormalize_grad * pad_grad;
  return gridIndexable(x);
}

// Keys' cubic convolution weights (a = -0.75, as PyTorch's) of the four taps at offsets -1, 0, 1
// and 2 from floor(x), for t = x - floor(x), and their derivatives with respect to t.
template <typename M>
OPCORE_HOST_DEVICE void cubicWeights(M t, M w[4], M dw[4]) {
  constexpr M a = static_cast<M>(-0.75);
  auto near = [](M d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };        // |d| <= 1
  auto far = [](M d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };  // 1 < |d| < 2
  auto dnear = [](M d) { return (3 * (a + 2) * d - 2 * (a + 3)) * d; };
  auto dfar = [](M d) { return (3 * a * d - 10 * a) * d + 8 * a; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
  dw[0] = dfar(t + 1);
  dw[1] = dnear(t);
  dw[2] = -dnear(1 - t);
  dw[3] = -dfar(2 - t);
}

// One input element an output point reads: its offset in a [H, W] plane, its weight, and the
// weight's derivatives with respect to the point's input coordinates (x, y).
template <typename M>
struct GridTap {
  int64_t offset;
  M weight, dx, dy;
};

// The input elements grid point (gx, gy) reads in a [height, width] plane, those outside left out
// (they read 0): 1 (nearest), 4 (bilinear) or 16 (bicubic) at most. Returns their number;
// *mult_x, *mult_y = d(input coordinate) / d(grid coordinate), which the taps' dx, dy are
// multiplied by for the gradient with respect to the grid.
template <typename M>
OPCORE_HOST_DEVICE int gridTaps(M gx, M gy, int64_t height, int64_t width, GridInterpolation mode,
                                GridPadding padding, bool align_corners, GridTap<M> taps[16], M* mult_x, M* mult_y) {
  int n = 0;
  auto add = [&](int64_t x, int64_t y, M weight, M dx, M dy) {
    if (x >= 0 && x < width && y >= 0 && y < height) taps[n++] = GridTap<M>{y * width + x, weight, dx, dy};
  };
  if (mode == GridInterpolation::kBicubic) {
    // the taps around the unpadded coordinate, each tap's position padded on its own (a NaN
    // point reads nothing, as in the other modes)
    const M ix = gridIndexable(gridUnnormalize(gx, width, align_corners, mult_x));
    const M iy = gridIndexable(gridUnnormalize(gy, height, align_corners, mult_y));
    if (std::isnan(gx) || std::isnan(gy)) return 0;
    const M x0 = std::floor(ix), y0 = std::floor(iy);
    M wx[4], dwx[4], wy[4], dwy[4];
    cubicWeights(ix - x0, wx, dwx);
    cubicWeights(iy - y0, wy, dwy);
    for (int j = 0; j < 4; ++j) {
      M unused;
      const auto y = static_cast<int64_t>(gridIndexable(gridPad(y0 - 1 + j, height, padding, align_corners, &unused)));
      for (int i = 0; i < 4; ++i) {
        const auto x = static_cast<int64_t>(gridIndexable(gridPad(x0 - 1 + i, width, padding, align_corners, &unused)));
        add(x, y, wx[i] * wy[j], dwx[i] * wy[j], wx[i] * dwy[j]);
      }
    }
    return n;
  }
  const M ix = gridSourceIndex(gx, width, padding, align_corners, mult_x);
  const M iy = gridSourceIndex(gy, height, padding, align_corners, mult_y);
  if (mode == GridInterpolation::kNearest) {
    add(static_cast<int64_t>(std::nearbyint(ix)), static_cast<int64_t>(std::nearbyint(iy)), 1, 0, 0);
    return n;
  }
  const M x0 = std::floor(ix), y0 = std::floor(iy), tx = ix - x0, ty = iy - y0;
  const auto x = static_cast<int64_t>(x0), y = static_cast<int64_t>(y0);
  add(x, y, (1 - tx) * (1 - ty), -(1 - ty), -(1 - tx));
  add(x + 1, y, tx * (1 - ty), 1 - ty, -tx);
  add(x, y + 1, (1 - tx) * ty, -ty, 1 - tx);
  add(x + 1, y + 1, tx * ty, ty, tx);
  return n;
}

// One channel's value at a point: its taps' weighted sum, in M.
template <typename M, typename T>
OPCORE_HOST_DEVICE M sampleTaps(const T* channel, const GridTap<M>* taps, int count) {
  M sum = 0;
  for (int k = 0; k < count; ++k) sum += static_cast<M>(channel[taps[k].offset]) * taps[k].weight;
  return sum;
}

// One point's backward through an image of `channels` planes of `plane` elements: with
// want_input, its share of each channel's gradient grad_of(c) goes to add(c * plane + tap
// offset, share); *gx and *gy are the sums of grad * value * d(weight) / dx and / dy, the grid's
// gradient before the mult_x, mult_y factors (none in nearest mode, even where the input is
// not finite).
template <typename M, typename T, typename GradOf, typename Add>
OPCORE_HOST_DEVICE void pointBackward(const T* image, int64_t channels, int64_t plane, const GridTap<M>* taps,
                                      int count, bool nearest, bool want_input, const GradOf& grad_of, const Add& add,
                                      M* gx, M* gy) {
  *gx = 0;
  *gy = 0;
  for (int64_t c = 0; c < channels; ++c) {
    const M grad = grad_of(c);
    const T* channel = image + c * plane;
    for (int k = 0; k < count; ++k) {
      if (want_input) add(c * plane + taps[k].offset, grad * taps[k].weight);
      if (nearest) continue;
      const M value = static_cast<M>(channel[taps[k].offset]);
      *gx += grad * value * taps[k].dx;
      *gy += grad * value * taps[k].dy;
    }
  }
}

}  // namespace opcore::native

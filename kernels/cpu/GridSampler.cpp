// CPU kernels of grid_sampler_2d and its backward (checks and Meta kernels in
// common/GridSamplerMeta.cpp). Each output point finds the input elements it reads once
// (common/pointwise/GridSampler.h's gridTaps, the arithmetic the other devices share) and
// reads them in every channel. The forward shares the output rows (N * H_out) among the threads; the backward
// shares the batch, each thread adding into its own images' gradient in a fixed order
// (deterministic on any number of threads). 16-bit types are computed in float, their input
// gradient summed in float and rounded once.
#include <opcore/core/Empty.h>
#include <opcore/ops/grid_sampler_2d_backward_native.h>
#include <opcore/ops/grid_sampler_2d_native.h>

#include "common/GridSampler.h"
#include "cpu/Loops.h"

#include <type_traits>
#include <vector>

namespace opcore::native {

Tensor grid_sampler_2d_cpu(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                           bool align_corners) {
  cpu::checkCpu("grid_sampler_2d", {&input, &grid});
  const GridShape s = gridShape(input, grid, interpolation_mode, padding_mode, align_corners);
  const TensorBase x = cpu::contiguousCopy(input);
  const TensorBase g = cpu::contiguousCopy(grid);
  Tensor out(detail::empty({s.batch, s.channels, s.out_height, s.out_width}, input.scalar_type(), input.device()));
  const int64_t plane = s.height * s.width, out_plane = s.out_height * s.out_width;
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, input.scalar_type(), "grid_sampler_2d_cpu", [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* in = x.data_ptr<scalar_t>();
    const scalar_t* points = g.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    const int64_t grain = grainFor(s.out_width * s.channels);
    parallel_for(0, s.batch * s.out_height, grain, [&](int64_t begin, int64_t end) {
      GridTap<M> taps[16];
      for (int64_t row = begin; row < end; ++row) {
        const int64_t n = row / s.out_height, h = row % s.out_height;
        const scalar_t* image = in + n * s.channels * plane;
        scalar_t* y = o + n * s.channels * out_plane + h * s.out_width;
        for (int64_t w = 0; w < s.out_width; ++w) {
          const scalar_t* p = points + (row * s.out_width + w) * 2;
          M mult_x, mult_y;
          const int count = gridTaps<M>(p[0], p[1], s.height, s.width, s.mode, s.padding, s.align_corners, taps,
                                        &mult_x, &mult_y);
          for (int64_t c = 0; c < s.channels; ++c) {
            y[c * out_plane + w] = static_cast<scalar_t>(sampleTaps(image + c * plane, taps, count));
          }
        }
      }
    });
  });
  return out;
}

std::tuple<Tensor, Tensor> grid_sampler_2d_backward_cpu(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& grid, int64_t interpolation_mode,
                                                        int64_t padding_mode, bool align_corners,
                                                        std::array<bool, 2> output_mask) {
  cpu::checkCpu("grid_sampler_2d_backward", {&grad_output, &input, &grid});
  const GridShape s = gridShape(input, grid, interpolation_mode, padding_mode, align_corners);
  checkGridSampler2dGradOutput(grad_output, input, grid);
  const TensorBase go = cpu::contiguousCopy(grad_output);
  const TensorBase x = cpu::contiguousCopy(input);
  const TensorBase g = cpu::contiguousCopy(grid);
  const bool want_input = output_mask[0];
  const bool nearest = s.mode == GridInterpolation::kNearest;
  Tensor grad_input, grad_grid(detail::empty(grid.sizes(), grid.scalar_type(), grid.device()));
  if (want_input) grad_input = Tensor(detail::empty(input.sizes(), input.scalar_type(), input.device()));
  const int64_t plane = s.height * s.width, out_plane = s.out_height * s.out_width, image = s.channels * plane;
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, input.scalar_type(), "grid_sampler_2d_backward_cpu", [&] {
    using M = opmath_t<scalar_t>;
    constexpr bool kDirect = std::is_same_v<M, scalar_t>;  // sums in the result itself
    const scalar_t* gout = go.data_ptr<scalar_t>();
    const scalar_t* in = x.data_ptr<scalar_t>();
    const scalar_t* points = g.data_ptr<scalar_t>();
    scalar_t* gi = want_input ? grad_input.data_ptr<scalar_t>() : nullptr;
    scalar_t* gg = grad_grid.data_ptr<scalar_t>();
    const int64_t grain = grainFor(out_plane * s.channels);
    parallel_for(0, s.batch, grain, [&](int64_t begin, int64_t end) {
      GridTap<M> taps[16];
      std::vector<M> buffer(want_input && !kDirect ? static_cast<size_t>(image) : 0);
      for (int64_t n = begin; n < end; ++n) {
        M* sums = !want_input ? nullptr : kDirect ? reinterpret_cast<M*>(gi + n * image) : buffer.data();
        if (sums != nullptr) std::fill(sums, sums + image, M(0));
        for (int64_t point = 0; point < out_plane; ++point) {
          const int64_t at = n * out_plane + point;
          const scalar_t* p = points + at * 2;
          M mult_x, mult_y;
          const int count = gridTaps<M>(p[0], p[1], s.height, s.width, s.mode, s.padding, s.align_corners, taps,
                                        &mult_x, &mult_y);
          M gx, gy;
          pointBackward(
              in + n * image, s.channels, plane, taps, count, nearest, sums != nullptr,
              [&](int64_t c) { return static_cast<M>(gout[(n * s.channels + c) * out_plane + point]); },
              [&](int64_t i, M share) { sums[i] += share; }, &gx, &gy);
          gg[at * 2] = static_cast<scalar_t>(gx * mult_x);
          gg[at * 2 + 1] = static_cast<scalar_t>(gy * mult_y);
        }
        if constexpr (!kDirect) {
          if (sums != nullptr) {
            for (int64_t i = 0; i < image; ++i) gi[n * image + i] = static_cast<scalar_t>(sums[i]);
          }
        }
      }
    });
  });
  return {grad_input, grad_grid};
}

}  // namespace opcore::native

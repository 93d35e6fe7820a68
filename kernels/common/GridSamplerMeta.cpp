// grid_sampler_2d's checks, with PyTorch's messages, and its Meta kernels (the CPU kernels are in
// kernels/cpu/GridSampler.cpp, the CUDA ones in kernels/cuda/CudaGridSampler.cpp).
#include <opcore/core/Empty.h>
#include <opcore/ops/grid_sampler_2d_backward_native.h>
#include <opcore/ops/grid_sampler_2d_native.h>

#include "common/GridSampler.h"

namespace opcore::native {

void checkGridSampler2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode) {
  OPCORE_CHECK(input.device() == grid.device(), "grid_sampler(): expected input and grid to be on same device, but "
               "input is on ", input.device(), " and grid is on ", grid.device());
  OPCORE_CHECK(input.dim() == 0 || grid.dim() == 0 || input.size(0) == grid.size(0), "grid_sampler(): expected grid "
               "and input to have same batch size, but got input with sizes ", input.sizes(), " and grid with sizes ",
               grid.sizes());
  OPCORE_CHECK(input.dim() == 4 && grid.dim() == 4, "grid_sampler(): expected 4D input and grid with same number of "
               "dimensions, but got input with sizes ", input.sizes(), " and grid with sizes ", grid.sizes());
  OPCORE_CHECK(grid.size(3) == 2, "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with "
               "sizes ", grid.sizes());
  for (int64_t d = 2; d < 4; ++d) {
    OPCORE_CHECK(input.size(d) > 0, "grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                 "has sizes ", input.sizes(), " with dimension ", d, " being empty");
  }
  OPCORE_CHECK(input.scalar_type() == grid.scalar_type(), "grid_sampler(): expected input and grid to have same "
               "dtype, but input has ", input.scalar_type(), " and grid has ", grid.scalar_type());
  const ScalarType t = input.scalar_type();
  if (t != kFloat && t != kDouble && t != kBFloat16 && t != kHalf) {
    detail::throwNotImplementedForDtype("grid_sampler_2d_cpu", t);
  }
  OPCORE_CHECK(interpolation_mode >= 0 && interpolation_mode <= 2, "grid_sampler(): expected interpolation_mode to "
               "be 0 (bilinear), 1 (nearest) or 2 (bicubic), but got ", interpolation_mode);
  OPCORE_CHECK(padding_mode >= 0 && padding_mode <= 2, "grid_sampler(): expected padding_mode to be 0 (zeros), 1 "
               "(border) or 2 (reflection), but got ", padding_mode);
}

GridShape gridShape(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                    bool align_corners) {
  checkGridSampler2d(input, grid, interpolation_mode, padding_mode);
  return {input.size(0), input.size(1), input.size(2), input.size(3), grid.size(1), grid.size(2),
          static_cast<GridInterpolation>(interpolation_mode), static_cast<GridPadding>(padding_mode), align_corners};
}

Tensor grid_sampler_2d_meta(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                            bool /*align_corners*/) {
  checkGridSampler2d(input, grid, interpolation_mode, padding_mode);
  return detail::empty({input.size(0), input.size(1), grid.size(1), grid.size(2)}, input.scalar_type(),
                       input.device());
}

void checkGridSampler2dGradOutput(const Tensor& grad_output, const Tensor& input, const Tensor& grid) {
  const std::vector<int64_t> expected = {input.size(0), input.size(1), grid.size(1), grid.size(2)};
  OPCORE_CHECK(grad_output.sizes() == IntArrayRef(expected), "grid_sampler_2d_backward(): expected grad_output of "
               "size ", IntArrayRef(expected), ", but got ", grad_output.sizes());
  OPCORE_CHECK(grad_output.scalar_type() == input.scalar_type() && grad_output.device() == input.device(),
               "grid_sampler_2d_backward(): expected grad_output of input's dtype and device (", input.scalar_type(),
               ", ", input.device(), "), but got ", grad_output.scalar_type(), ", ", grad_output.device());
}

std::tuple<Tensor, Tensor> grid_sampler_2d_backward_meta(const Tensor& grad_output, const Tensor& input,
                                                         const Tensor& grid, int64_t interpolation_mode,
                                                         int64_t padding_mode, bool /*align_corners*/,
                                                         std::array<bool, 2> output_mask) {
  checkGridSampler2d(input, grid, interpolation_mode, padding_mode);
  checkGridSampler2dGradOutput(grad_output, input, grid);
  Tensor grad_input;
  if (output_mask[0]) grad_input = Tensor(detail::empty(input.sizes(), input.scalar_type(), input.device()));
  return {grad_input, Tensor(detail::empty(grid.sizes(), grid.scalar_type(), grid.device()))};
}

}  // namespace opcore::native

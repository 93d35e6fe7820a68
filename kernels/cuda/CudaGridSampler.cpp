// The CUDA kernels of grid_sampler_2d and its backward: the CPU's checks and shapes
// (common/GridSamplerMeta.cpp), the loops in CudaGridSamplerKernels.cu.
#include "CudaOperands.h"

#include "common/GridSampler.h"

#include <opcore/ops/empty.h>
#include <opcore/ops/grid_sampler_2d_backward_native.h>
#include <opcore/ops/grid_sampler_2d_native.h>
#include <opcore/ops/zeros.h>

namespace opcore::native {

Tensor grid_sampler_2d_cuda(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                            bool align_corners) {
  const GridShape s = gridShape(input, grid, interpolation_mode, padding_mode, align_corners);
  const Tensor x = input.contiguous(), g = grid.contiguous();
  Tensor out = opcore::empty({s.batch, s.channels, s.out_height, s.out_width}, input.options());
  cuda::launchGridSampler(input.scalar_type(), s, static_cast<const char*>(x.data_ptr()),
                          static_cast<const char*>(g.data_ptr()), static_cast<char*>(out.data_ptr()));
  return out;
}

std::tuple<Tensor, Tensor> grid_sampler_2d_backward_cuda(const Tensor& grad_output, const Tensor& input,
                                                         const Tensor& grid, int64_t interpolation_mode,
                                                         int64_t padding_mode, bool align_corners,
                                                         std::array<bool, 2> output_mask) {
  const GridShape s = gridShape(input, grid, interpolation_mode, padding_mode, align_corners);
  checkGridSampler2dGradOutput(grad_output, input, grid);
  const Tensor go = grad_output.contiguous(), x = input.contiguous(), g = grid.contiguous();
  Tensor sums, grad_grid = opcore::empty(grid.sizes(), grid.options());
  if (output_mask[0]) sums = opcore::zeros(input.sizes(), input.options().dtype(cuda::opmathType(input.scalar_type())));
  cuda::launchGridSamplerBackward(input.scalar_type(), s, static_cast<const char*>(go.data_ptr()),
                                  static_cast<const char*>(x.data_ptr()), static_cast<const char*>(g.data_ptr()),
                                  output_mask[0] ? sums.data_ptr() : nullptr, static_cast<char*>(grad_grid.data_ptr()));
  Tensor grad_input;
  if (output_mask[0]) grad_input = sums.to(input.scalar_type());
  return {grad_input, grad_grid};
}

}  // namespace opcore::native

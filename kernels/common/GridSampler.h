// grid_sampler_2d's checks (kernels/common/GridSamplerMeta.cpp, shared by the Meta, CPU and
// CUDA kernels); the arithmetic of one sampled point is in common/pointwise/GridSampler.h.
//   const GridShape s = gridShape(input, grid, interpolation_mode, padding_mode, align_corners);
#pragma once

#include <opcore/Tensor.h>

#include "common/pointwise/GridSampler.h"

namespace opcore::native {

// input [N, C, H, W] and grid [N, H_out, W_out, 2] of one floating dtype and device, non-empty
// spatial sizes, known modes; PyTorch's messages.
void checkGridSampler2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode);

// The backward's grad_output: the forward's output size, input's dtype and device.
void checkGridSampler2dGradOutput(const Tensor& grad_output, const Tensor& input, const Tensor& grid);

// The checks, then the sizes and modes of the sampling.
GridShape gridShape(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                    bool align_corners);

}  // namespace opcore::native

// The checks and the shape of layer_norm shared by its CPU, Meta and CUDA kernels
// (kernels/cpu/Normalization.cpp, kernels/cuda/CudaNormalization.cpp): the input viewed as M rows
// of N normalized elements (Note [Layer norm rows]), with PyTorch's messages.
//   const LayerNormShape shape = checkLayerNorm(input, normalized_shape, weight, bias);
#pragma once

#include <opcore/Tensor.h>

#include <optional>
#include <vector>

namespace opcore::native {

struct LayerNormShape {
  int64_t M = 1, N = 1;
  std::vector<int64_t> stats_shape;  // the input's leading sizes, then ones
};

// PyTorch's checks (_check_layer_norm_inputs) and messages.
LayerNormShape checkLayerNorm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                              const std::optional<Tensor>& bias);

// Float, double, Half and BFloat16; others raise NotImplementedError naming `name`.
void checkLayerNormDtype(const char* name, ScalarType dtype);

// The backward's checks: the forward's, then grad_out of input's shape, and mean and rstd of
// M elements.
LayerNormShape checkLayerNormBackward(const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape,
                                      const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight,
                                      const std::optional<Tensor>& bias);

}  // namespace opcore::native

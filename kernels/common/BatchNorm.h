// native_batch_norm's and native_batch_norm_backward's checks and results, shared by their CPU,
// CUDA and Meta kernels (kernels/cpu/Normalization.cpp, kernels/cuda/CudaNormalization.cpp),
// with PyTorch's messages. Each returns the results, allocated on the input's device, for the
// kernel to fill.
//   BatchNormResults r = batchNormResults(input, weight, bias, running_mean, running_var, training);
#pragma once

#include <opcore/Tensor.h>

#include <array>
#include <optional>

namespace opcore::native {

inline bool isDefined(const std::optional<Tensor>& t) { return t && t->defined(); }

// Float, double, BFloat16 and Half, else PyTorch's NotImplementedError naming `name`.
void checkBatchNormDtype(const char* name, ScalarType dtype);

// The forward's results: out (the input's dtype and shape), save_mean and save_invstd (C
// values when training, none in evaluation; the running statistics' float for a 16-bit input
// with float statistics, PyTorch's mixed-type path, else the input's dtype).
struct BatchNormResults {
  Tensor out, save_mean, save_invstd;
};
BatchNormResults batchNormResults(const Tensor& input, const std::optional<Tensor>& weight,
                                  const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                                  const std::optional<Tensor>& running_var, bool training);

// The backward's results as output_mask asks (grad_input of the input's dtype, grad_weight and
// grad_bias of the weight's), after the checks; `mean` and `var` are the statistics the
// gradient uses: save_mean and save_invstd when training, else the running ones.
struct BatchNormGrads {
  Tensor grad_input, grad_weight, grad_bias;
  const Tensor* mean = nullptr;
  const Tensor* var = nullptr;
};
BatchNormGrads batchNormGrads(const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
                              const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                              const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd,
                              bool train, std::array<bool, 3> output_mask);

}  // namespace opcore::native

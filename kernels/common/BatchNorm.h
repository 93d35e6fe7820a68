// The checks and results of native_batch_norm, native_group_norm and their backward operators,
// shared by their CPU, CUDA and Meta kernels (kernels/cpu/Normalization.cpp,
// kernels/cuda/CudaNormalization.cpp), with PyTorch's messages. Each returns the results,
// allocated on the input's device, for the kernel to fill.
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

// native_group_norm's results (out, mean and rstd of [N, group], the input's dtype) after the
// checks: channels divisible by the groups, N * C * HxW elements, weight and bias of C.
struct GroupNormResults {
  Tensor out, mean, rstd;
};
GroupNormResults groupNormResults(const Tensor& input, const std::optional<Tensor>& weight,
                                  const std::optional<Tensor>& bias, int64_t N, int64_t C, int64_t HxW,
                                  int64_t group);

// native_group_norm_backward's results as output_mask asks (the input's dtype), after the checks.
struct GroupNormGrads {
  Tensor grad_input, grad_weight, grad_bias;
};
GroupNormGrads groupNormGrads(const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& rstd,
                              const std::optional<Tensor>& weight, int64_t N, int64_t C, int64_t HxW, int64_t group,
                              std::array<bool, 3> output_mask);

}  // namespace opcore::native

// See BatchNorm.h.
#include "common/BatchNorm.h"

#include <opcore/core/Empty.h>

namespace opcore::native {
namespace {

// PyTorch's checks of a per-channel argument (weight, bias, running statistics).
void checkChannelArgument(const char* what, const std::optional<Tensor>& t, int64_t channels) {
  if (isDefined(t)) {
    OPCORE_CHECK(t->numel() == channels, what, " should contain ", channels, " elements not ", t->numel());
  }
}

void checkBatchNormInput(const Tensor& input) {
  OPCORE_CHECK(input.dim() >= 2, "batch_norm: expected an input of 2 or more dimensions [N, C, ...], but got ",
               input.dim(), " dimension(s)");
}

ScalarType statsDtype(const Tensor& input, const std::optional<Tensor>& running_mean) {
  const ScalarType dtype = input.scalar_type();
  if ((dtype == kHalf || dtype == kBFloat16) && isDefined(running_mean) && running_mean->scalar_type() == kFloat) {
    return kFloat;
  }
  return dtype;
}

void checkGroupNorm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                    int64_t N, int64_t C, int64_t HxW, int64_t group) {
  OPCORE_CHECK(group > 0 && C % group == 0, "Expected number of channels in input to be divisible by num_groups, but "
               "got input of shape ", input.sizes(), " and num_groups=", group);
  OPCORE_CHECK(input.numel() == N * C * HxW, "Expected the input to have ", N * C * HxW, " elements, but got ",
               input.numel());
  OPCORE_CHECK(!isDefined(weight) || (weight->dim() == 1 && weight->numel() == C), "Expected weight to be a vector of "
               "size equal to the number of channels in input, but got weight of shape ", weight ? weight->sizes() :
               IntArrayRef(), " and input of shape ", input.sizes());
  OPCORE_CHECK(!isDefined(bias) || (bias->dim() == 1 && bias->numel() == C), "Expected bias to be a vector of size "
               "equal to the number of channels in input, but got bias of shape ", bias ? bias->sizes() :
               IntArrayRef(), " and input of shape ", input.sizes());
}

}  // namespace

void checkBatchNormDtype(const char* name, ScalarType dtype) {
  if (dtype != kFloat && dtype != kDouble && dtype != kBFloat16 && dtype != kHalf) {
    detail::throwNotImplementedForDtype(name, dtype);
  }
}

BatchNormResults batchNormResults(const Tensor& input, const std::optional<Tensor>& weight,
                                  const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                                  const std::optional<Tensor>& running_var, bool training) {
  checkBatchNormInput(input);
  const int64_t channels = input.size(1);
  checkChannelArgument("weight", weight, channels);
  checkChannelArgument("bias", bias, channels);
  checkChannelArgument("running_mean", running_mean, channels);
  checkChannelArgument("running_var", running_var, channels);
  OPCORE_CHECK(training || isDefined(running_mean), "running_mean must be defined in evaluation mode");
  OPCORE_CHECK(training || isDefined(running_var), "running_var must be defined in evaluation mode");
  const ScalarType dtype = input.scalar_type();
  checkBatchNormDtype("batch_norm", dtype);
  const ScalarType sdtype = statsDtype(input, running_mean);
  return {Tensor(detail::empty(input.sizes(), dtype, input.device())),
          Tensor(detail::empty({training ? channels : 0}, sdtype, input.device())),
          Tensor(detail::empty({training ? channels : 0}, sdtype, input.device()))};
}

BatchNormGrads batchNormGrads(const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
                              const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                              const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd,
                              bool train, std::array<bool, 3> output_mask) {
  checkBatchNormInput(input);
  OPCORE_CHECK(grad_out.sizes() == input.sizes(), "native_batch_norm_backward: expected grad_out of size ",
               input.sizes(), ", but got ", grad_out.sizes());
  const int64_t channels = input.size(1);
  checkChannelArgument("weight", weight, channels);
  const std::optional<Tensor>& mean_in = train ? save_mean : running_mean;
  const std::optional<Tensor>& var_in = train ? save_invstd : running_var;
  OPCORE_CHECK(isDefined(mean_in) && isDefined(var_in), train ? "native_batch_norm_backward: save_mean and save_invstd "
               "must be defined in training mode" : "running_mean must be defined in evaluation mode");
  checkChannelArgument(train ? "save_mean" : "running_mean", mean_in, channels);
  checkChannelArgument(train ? "save_invstd" : "running_var", var_in, channels);
  const ScalarType dtype = input.scalar_type();
  checkBatchNormDtype("batch_norm_backward", dtype);
  const ScalarType pdtype = isDefined(weight) ? weight->scalar_type() : dtype;
  const Device device = input.device();
  BatchNormGrads g;
  if (output_mask[0]) g.grad_input = Tensor(detail::empty(input.sizes(), dtype, device));
  if (output_mask[1]) g.grad_weight = Tensor(detail::empty({channels}, pdtype, device));
  if (output_mask[2]) g.grad_bias = Tensor(detail::empty({channels}, pdtype, device));
  g.mean = &*mean_in;
  g.var = &*var_in;
  return g;
}

GroupNormResults groupNormResults(const Tensor& input, const std::optional<Tensor>& weight,
                                  const std::optional<Tensor>& bias, int64_t N, int64_t C, int64_t HxW,
                                  int64_t group) {
  checkGroupNorm(input, weight, bias, N, C, HxW, group);
  const ScalarType dtype = input.scalar_type();
  checkBatchNormDtype("GroupNormKernelImpl", dtype);
  return {Tensor(detail::empty(input.sizes(), dtype, input.device())),
          Tensor(detail::empty({N, group}, dtype, input.device())),
          Tensor(detail::empty({N, group}, dtype, input.device()))};
}

GroupNormGrads groupNormGrads(const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& rstd,
                              const std::optional<Tensor>& weight, int64_t N, int64_t C, int64_t HxW, int64_t group,
                              std::array<bool, 3> output_mask) {
  checkGroupNorm(input, weight, std::nullopt, N, C, HxW, group);
  OPCORE_CHECK(grad_out.sizes() == input.sizes(), "native_group_norm_backward: expected grad_out of size ",
               input.sizes(), ", but got ", grad_out.sizes());
  OPCORE_CHECK(mean.numel() == N * group && rstd.numel() == N * group, "native_group_norm_backward: expected mean and "
               "rstd of ", N * group, " elements, but got ", mean.numel(), " and ", rstd.numel());
  const ScalarType dtype = input.scalar_type();
  checkBatchNormDtype("GroupNormBackwardKernelImpl", dtype);
  const Device device = input.device();
  GroupNormGrads g;
  if (output_mask[0]) g.grad_input = Tensor(detail::empty(input.sizes(), dtype, device));
  if (output_mask[1]) g.grad_weight = Tensor(detail::empty({C}, dtype, device));
  if (output_mask[2]) g.grad_bias = Tensor(detail::empty({C}, dtype, device));
  return g;
}

}  // namespace opcore::native

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

}  // namespace opcore::native

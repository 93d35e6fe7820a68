// Normalization written with other operators (issue #34): layer_norm, batch_norm and
// group_norm, the first outputs of native_layer_norm, native_batch_norm and native_group_norm
// (CompositeImplicitAutograd: autograd differentiates those), and
// _native_batch_norm_legit_no_training (CompositeExplicitAutograd).
#include <opcore/ops/_native_batch_norm_legit_no_training_native.h>
#include <opcore/ops/batch_norm_native.h>
#include <opcore/ops/group_norm_native.h>
#include <opcore/ops/layer_norm_native.h>
#include <opcore/ops/native_batch_norm.h>
#include <opcore/ops/native_group_norm.h>
#include <opcore/ops/native_layer_norm.h>

namespace opcore::native {

// cudnn_enable is PyTorch's switch for its CUDA path; nothing here reads it.
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool /*cudnn_enable*/) {
  return std::get<0>(opcore::native_layer_norm(input, normalized_shape, weight, bias, eps));
}

// PyTorch's composite checks each per-channel argument's size (_batch_norm_impl_index);
// native_batch_norm checks the same. cudnn_enabled is PyTorch's switch for its CUDA path.
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool /*cudnn_enabled*/) {
  return std::get<0>(opcore::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps));
}

// PyTorch's group_norm: the checks of the channels and parameters, then native_group_norm of
// the input seen as [N, C, HxW].
Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool /*cudnn_enabled*/) {
  OPCORE_CHECK(input.dim() >= 2, "Expected at least 2 dimensions for input tensor but received ", input.dim());
  const int64_t n = input.size(0), c = input.size(1);
  OPCORE_CHECK(num_groups > 0 && c % num_groups == 0, "Expected number of channels in input to be divisible by "
               "num_groups, but got input of shape ", input.sizes(), " and num_groups=", num_groups);
  OPCORE_CHECK(!weight || !weight->defined() || (weight->dim() == 1 && weight->numel() == c), "Expected weight to be a "
               "vector of size equal to the number of channels in input, but got weight of shape ",
               weight && weight->defined() ? weight->sizes() : IntArrayRef(), " and input of shape ", input.sizes());
  OPCORE_CHECK(!bias || !bias->defined() || (bias->dim() == 1 && bias->numel() == c), "Expected bias to be a vector "
               "of size equal to the number of channels in input, but got bias of shape ",
               bias && bias->defined() ? bias->sizes() : IntArrayRef(), " and input of shape ", input.sizes());
  int64_t hxw = 1;
  for (int64_t d = 2; d < input.dim(); ++d) hxw *= input.size(d);
  return std::get<0>(opcore::native_group_norm(input.contiguous(), weight, bias, n, c, hxw, num_groups, eps));
}

// Evaluation with running statistics, which it does not write (PyTorch 2's schema).
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_training(const Tensor& input,
                                                                        const std::optional<Tensor>& weight,
                                                                        const std::optional<Tensor>& bias,
                                                                        const Tensor& running_mean,
                                                                        const Tensor& running_var, double momentum,
                                                                        double eps) {
  return opcore::native_batch_norm(input, weight, bias, running_mean, running_var, false, momentum, eps);
}

}  // namespace opcore::native

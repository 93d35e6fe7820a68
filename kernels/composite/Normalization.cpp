// Normalization written with other operators (issue #34): layer_norm and batch_norm, the first
// outputs of native_layer_norm and native_batch_norm (CompositeImplicitAutograd: autograd
// differentiates those).
#include <opcore/ops/batch_norm_native.h>
#include <opcore/ops/layer_norm_native.h>
#include <opcore/ops/native_batch_norm.h>
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

}  // namespace opcore::native

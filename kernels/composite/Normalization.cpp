// Normalization written with other operators (issue #34): layer_norm, the first output of
// native_layer_norm (CompositeImplicitAutograd: autograd differentiates native_layer_norm).
#include <opcore/ops/layer_norm_native.h>
#include <opcore/ops/native_layer_norm.h>

namespace opcore::native {

// cudnn_enable is PyTorch's switch for its CUDA path; nothing here reads it.
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool /*cudnn_enable*/) {
  return std::get<0>(opcore::native_layer_norm(input, normalized_shape, weight, bias, eps));
}

}  // namespace opcore::native

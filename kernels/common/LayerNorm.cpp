// See LayerNorm.h.
#include "common/LayerNorm.h"

#include <sstream>
#include <string>

namespace opcore::native {

namespace {

std::string listText(IntArrayRef v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

LayerNormShape checkLayerNorm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                              const std::optional<Tensor>& bias) {
  const int64_t normalized_ndim = static_cast<int64_t>(normalized_shape.size());
  OPCORE_CHECK(normalized_ndim >= 1, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
               "least one element, but got normalized_shape = ", normalized_shape);
  if (weight && weight->defined()) {
    OPCORE_CHECK(weight->sizes() == normalized_shape, "Expected weight to be of same shape as normalized_shape, but "
                 "got weight of shape ", weight->sizes(), " and normalized_shape = ", normalized_shape);
  }
  if (bias && bias->defined()) {
    OPCORE_CHECK(bias->sizes() == normalized_shape, "Expected bias to be of same shape as normalized_shape, but got "
                 "bias of shape ", bias->sizes(), " and normalized_shape = ", normalized_shape);
  }
  const IntArrayRef sizes = input.sizes();
  const int64_t ndim = input.dim();
  bool matches = ndim >= normalized_ndim;
  for (int64_t i = 0; matches && i < normalized_ndim; ++i) {
    matches = sizes[ndim - normalized_ndim + i] == normalized_shape[i];
  }
  if (!matches) {
    std::ostringstream expected;
    expected << "[*";
    for (const int64_t s : normalized_shape) expected << ", " << s;
    expected << "]";
    OPCORE_CHECK(false, "Given normalized_shape=", listText(normalized_shape), ", expected input with shape ",
                 expected.str(), ", but got input of size", sizes);
  }
  LayerNormShape shape;
  const int64_t axis = ndim - normalized_ndim;
  for (int64_t i = 0; i < ndim; ++i) {
    if (i < axis) {
      shape.M *= sizes[i];
      shape.stats_shape.push_back(sizes[i]);
    } else {
      shape.N *= sizes[i];
      shape.stats_shape.push_back(1);
    }
  }
  return shape;
}

void checkLayerNormDtype(const char* name, ScalarType dtype) {
  if (dtype != kFloat && dtype != kDouble && dtype != kBFloat16 && dtype != kHalf) {
    detail::throwNotImplementedForDtype(name, dtype);
  }
}

LayerNormShape checkLayerNormBackward(const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape,
                                      const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight,
                                      const std::optional<Tensor>& bias) {
  const LayerNormShape shape = checkLayerNorm(input, normalized_shape, weight, bias);
  checkLayerNormDtype("LayerNormBackwardKernelImpl", input.scalar_type());
  OPCORE_CHECK(grad_out.sizes() == input.sizes(), "native_layer_norm_backward: expected grad_out of size ",
               input.sizes(), ", but got ", grad_out.sizes());
  OPCORE_CHECK(mean.numel() == shape.M && rstd.numel() == shape.M, "native_layer_norm_backward: expected mean and "
               "rstd of ", shape.M, " elements, but got ", mean.numel(), " and ", rstd.numel());
  return shape;
}

}  // namespace opcore::native

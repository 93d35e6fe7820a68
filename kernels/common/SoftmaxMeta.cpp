// The meta functions of the structured softmax family (issue #34): _softmax, _log_softmax and
// their backward operators. Shared by every backend's wrapper and all that the Meta backend
// runs; the dtype checks of the kernels (float, double, Half, BFloat16) are the CPU impl's, as
// PyTorch's are its kernels'.
#include <opcore/ops/_log_softmax_backward_data_native.h>
#include <opcore/ops/_log_softmax_native.h>
#include <opcore/ops/_softmax_backward_data_native.h>
#include <opcore/ops/_softmax_native.h>

namespace opcore::meta {

namespace {

// The result of a forward softmax: self's shape, in self's dtype, or float with half_to_float
// (a Half or BFloat16 self only: PyTorch's CUDA rule, which opcore's CPU kernel follows; torch
// 1.13's CPU kernel refuses half_to_float altogether). out= must have exactly that dtype.
TensorSpec forwardSpec(const Tensor& self, bool half_to_float) {
  ScalarType dtype = self.scalar_type();
  if (half_to_float) {
    OPCORE_CHECK(dtype == ScalarType::Half || dtype == ScalarType::BFloat16,
                 "conversion is supported for Half and BFloat16 type only");
    dtype = ScalarType::Float;
  }
  return {self.sizes().vec(), dtype, self.device(), /*exact_dtype=*/true};
}

// The result of a backward: grad_output's shape; input_dtype when grad_output is float and
// input_dtype Half or BFloat16 (the gradient of a half_to_float softmax), else grad_output's
// dtype, as PyTorch's meta function. grad_output and output must agree in shape and dtype.
TensorSpec backwardSpec(const char* name, const Tensor& grad, const Tensor& output, ScalarType input_dtype) {
  OPCORE_CHECK(grad.sizes() == output.sizes(), "Expected tensor for argument #1 'grad' to have same size as tensor ",
               "for argument #2 'output'; but ", grad.sizes(), " does not equal ",
               output.sizes(), " (while checking arguments for ", name, ")");
  OPCORE_CHECK(grad.scalar_type() == output.scalar_type(), "expected scalar type ", grad.scalar_type(),
               " but found ", output.scalar_type());
  OPCORE_CHECK(grad.device() == output.device(), "Expected all tensors to be on the same device, but found at least ",
               "two devices, ", grad.device(), " and ", output.device(), "!");
  ScalarType dtype = grad.scalar_type();
  if (dtype == ScalarType::Float && (input_dtype == ScalarType::Half || input_dtype == ScalarType::BFloat16)) {
    dtype = input_dtype;
  }
  return {grad.sizes().vec(), dtype, grad.device(), /*exact_dtype=*/true};
}

}  // namespace

// A 0-dim self has one implicit dimension: dim 0 or -1 (PyTorch's maybe_wrap_dim).
_softmax_out _softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  const int64_t d = self.wrapDim(dim);
  return {forwardSpec(self, half_to_float), d};
}

_log_softmax_out _log_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  const int64_t d = self.wrapDim(dim);
  return {forwardSpec(self, half_to_float), d};
}

_softmax_backward_data_out _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                                  ScalarType input_dtype) {
  const int64_t d = grad_output.wrapDim(dim);
  return {backwardSpec("softmax_backward", grad_output, output, input_dtype), d};
}

_log_softmax_backward_data_out _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output,
                                                          int64_t dim, ScalarType input_dtype) {
  const int64_t d = grad_output.wrapDim(dim);
  return {backwardSpec("log_softmax_backward", grad_output, output, input_dtype), d};
}

}  // namespace opcore::meta

// The meta functions of the structured activation operators of issue #34 (Note [Structured
// kernels] in gen/api/structured.py): the result's shape, dtype and device, and PyTorch's
// checks. The forward functions keep self's dtype; the backward ones take the result type of
// grad_output and their other tensor, broadcast together, as PyTorch's TensorIterator ops do.
#include <opcore/core/Empty.h>
#include <opcore/ops/elu_backward_native.h>
#include <opcore/ops/elu_native.h>
#include <opcore/ops/gelu_backward_native.h>
#include <opcore/ops/gelu_native.h>
#include <opcore/ops/hardtanh_backward_native.h>
#include <opcore/ops/hardtanh_native.h>
#include <opcore/ops/leaky_relu_backward_native.h>
#include <opcore/ops/leaky_relu_native.h>
#include <opcore/ops/sigmoid_backward_native.h>
#include <opcore/ops/silu_backward_native.h>
#include <opcore/ops/silu_native.h>
#include <opcore/ops/tanh_backward_native.h>

#include "common/Shape.h"
#include "common/TypePromotion.h"

#include <string>

namespace opcore::meta {

using native::broadcastShapes;
using native::resultType;

namespace {

TensorSpec unary(const Tensor& self) {
  return {std::vector<int64_t>(self.sizes().begin(), self.sizes().end()), self.scalar_type(), self.device()};
}

// grad_output op other, broadcast, in their result type; a 0-dim CPU tensor may join another
// device, as a wrapped scalar does.
TensorSpec backward(const char* name, const Tensor& grad_output, const Tensor& other) {
  Device device = grad_output.device();
  if (grad_output.device() != other.device()) {
    const bool grad_scalar = grad_output.dim() == 0 && grad_output.is_cpu();
    const bool other_scalar = other.dim() == 0 && other.is_cpu();
    OPCORE_CHECK(grad_scalar || other_scalar, name, ": expected all tensors to be on the same device, but found "
                 "at least two devices, ", grad_output.device(), " and ", other.device());
    if (grad_scalar) device = other.device();
  }
  return {broadcastShapes(grad_output.sizes(), other.sizes()), resultType(grad_output, other), device};
}

void checkApproximate(std::string_view approximate) {
  OPCORE_CHECK(approximate == "none" || approximate == "tanh", "approximate argument must be either none or tanh.");
}

}  // namespace

sigmoid_backward_grad_input sigmoid_backward(const Tensor& grad_output, const Tensor& output) {
  return {backward("sigmoid_backward", grad_output, output)};
}

tanh_backward_grad_input tanh_backward(const Tensor& grad_output, const Tensor& output) {
  return {backward("tanh_backward", grad_output, output)};
}

gelu_out gelu(const Tensor& self, std::string_view approximate) {
  checkApproximate(approximate);
  return {unary(self)};
}

gelu_backward_grad_input gelu_backward(const Tensor& grad_output, const Tensor& self, std::string_view approximate) {
  checkApproximate(approximate);
  return {backward("gelu_backward", grad_output, self)};
}

silu_out silu(const Tensor& self) { return {unary(self)}; }

silu_backward_grad_input silu_backward(const Tensor& grad_output, const Tensor& self) {
  return {backward("silu_backward", grad_output, self)};
}

leaky_relu_out leaky_relu(const Tensor& self, const Scalar& negative_slope) { return {unary(self)}; }

leaky_relu_backward_grad_input leaky_relu_backward(const Tensor& grad_output, const Tensor& self,
                                                   const Scalar& negative_slope, bool self_is_result) {
  OPCORE_CHECK(!self_is_result || negative_slope.toDouble() >= 0.0,
               "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
               "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
               "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
               "in-place leakRelu backward calculation with negative slope");
  return {backward("leaky_relu_backward", grad_output, self)};
}

elu_out elu(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  return {unary(self)};
}

elu_backward_grad_input elu_backward(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                                     const Scalar& input_scale, bool is_result, const Tensor& self_or_result) {
  OPCORE_CHECK(!is_result || alpha.toDouble() >= 0.0,
               "In-place elu backward calculation is triggered with a negative slope which is not supported. "
               "This is caused by calling in-place forward function with a negative slope, please call "
               "out-of-place version instead.");
  return {backward("elu_backward", grad_output, self_or_result)};
}

}  // namespace opcore::meta

// hardtanh and hardtanh_backward are not structured (as PyTorch's): their Meta kernels.
namespace opcore::native {

namespace {
const Device kMeta(DeviceType::Meta);
}  // namespace

void checkHardtanhLimits(const Tensor& self, const Scalar& min_val, const Scalar& max_val);

Tensor hardtanh_meta(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  checkHardtanhLimits(self, min_val, max_val);
  return detail::empty(self.sizes(), self.scalar_type(), kMeta);
}

Tensor& hardtanh_out_meta(const Tensor& self, const Scalar& min_val, const Scalar& max_val, Tensor& out) {
  checkHardtanhLimits(self, min_val, max_val);
  detail::resizeOutput(out, self.sizes());
  return out;
}

Tensor& hardtanh_meta_(Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  checkHardtanhLimits(self, min_val, max_val);
  return self;
}

Tensor hardtanh_backward_meta(const Tensor& grad_output, const Tensor& self, const Scalar& min_val,
                              const Scalar& max_val) {
  return detail::empty(broadcastShapes(grad_output.sizes(), self.sizes()), resultType(grad_output, self), kMeta);
}

Tensor& hardtanh_backward_out_meta(const Tensor& grad_output, const Tensor& self, const Scalar& min_val,
                                   const Scalar& max_val, Tensor& grad_input) {
  detail::resizeOutput(grad_input, broadcastShapes(grad_output.sizes(), self.sizes()));
  return grad_input;
}

}  // namespace opcore::native

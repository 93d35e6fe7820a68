// The meta functions of the structured activation operators of issue #34 (Note [Structured
// kernels] in gen/api/structured.py): the result's shape, dtype and device, and PyTorch's
// checks. The forward functions keep self's dtype; the backward ones take the result type of
// grad_output and their other tensor, broadcast together, as PyTorch's TensorIterator ops do.
#include <opcore/ops/gelu_backward_native.h>
#include <opcore/ops/gelu_native.h>
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

}  // namespace opcore::meta

// The meta functions of the structured 2-d upsamplings (Note [Structured kernels] in
// gen/api/structured.py) and the checks they share with the CPU kernels (common/Upsample.h),
// with PyTorch's messages.
#include <opcore/ops/upsample_bilinear2d_backward_native.h>
#include <opcore/ops/upsample_bilinear2d_native.h>
#include <opcore/ops/upsample_nearest2d_backward_native.h>
#include <opcore/ops/upsample_nearest2d_native.h>

#include "common/Upsample.h"

namespace opcore::native {

Upsample2d checkUpsample2d(IntArrayRef input_size, IntArrayRef output_size) {
  OPCORE_CHECK(output_size.size() == 2, "It is expected output_size equals to 2, but got size ", output_size.size());
  OPCORE_CHECK(input_size.size() == 4, "It is expected input_size equals to 4, but got size ", input_size.size());
  Upsample2d u{input_size[0] * input_size[1], input_size[2], input_size[3], output_size[0], output_size[1],
               {input_size[0], input_size[1], output_size[0], output_size[1]}};
  OPCORE_CHECK(u.height > 0 && u.width > 0 && u.out_height > 0 && u.out_width > 0,
               "Input and output sizes should be greater than 0, but got input (H: ", u.height, ", W: ", u.width,
               ") output (H: ", u.out_height, ", W: ", u.out_width, ")");
  return u;
}

void checkUpsampleGradOutput(const Upsample2d& u, const Tensor& grad_output) {
  OPCORE_CHECK(grad_output.dim() == 4, "Expected grad_output to be a tensor of dimension 4 but got: dimension ",
               grad_output.dim());
  for (int64_t i = 0; i < 4; ++i) {
    OPCORE_CHECK(grad_output.size(i) == u.output_sizes[static_cast<size_t>(i)], "Expected grad_output to have the "
                 "same shape as output; output.size(", i, ") = ", u.output_sizes[static_cast<size_t>(i)],
                 " but got grad_output.size(", i, ") = ", grad_output.size(i));
  }
}

}  // namespace opcore::native

namespace opcore::meta {

namespace {

TensorSpec upsampled(const char* name, const Tensor& input, IntArrayRef output_size, bool bytes) {
  const native::Upsample2d u = native::checkUpsample2d(input.sizes(), output_size);
  int64_t rest = 1;
  for (int64_t d = 1; d < input.dim(); ++d) rest *= input.size(d);
  OPCORE_CHECK(input.numel() != 0 || rest != 0, "Non-empty 4D data tensor expected but got a tensor with sizes ",
               input.sizes());
  const ScalarType t = input.scalar_type();
  if (t != kFloat && t != kDouble && t != kBFloat16 && t != kHalf && !(bytes && t == kByte)) {
    detail::throwNotImplementedForDtype(name, t);
  }
  return TensorSpec{u.output_sizes, t, input.device(), /*exact_dtype=*/true};
}

TensorSpec upsampledGrad(const char* name, const Tensor& grad_output, IntArrayRef output_size,
                         IntArrayRef input_size) {
  const native::Upsample2d u = native::checkUpsample2d(input_size, output_size);
  native::checkUpsampleGradOutput(u, grad_output);
  const ScalarType t = grad_output.scalar_type();
  if (t != kFloat && t != kDouble && t != kBFloat16 && t != kHalf) detail::throwNotImplementedForDtype(name, t);
  return TensorSpec{input_size.vec(), t, grad_output.device(), /*exact_dtype=*/true};
}

}  // namespace

upsample_nearest2d_out upsample_nearest2d(const Tensor& self, IntArrayRef output_size, std::optional<double>,
                                          std::optional<double>) {
  return {upsampled("upsample_nearest2d", self, output_size, /*bytes=*/true)};
}

upsample_bilinear2d_out upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool, std::optional<double>,
                                            std::optional<double>) {
  return {upsampled("upsample_bilinear2d", self, output_size, /*bytes=*/false)};
}

upsample_nearest2d_backward_grad_input upsample_nearest2d_backward(const Tensor& grad_output, IntArrayRef output_size,
                                                                   IntArrayRef input_size, std::optional<double>,
                                                                   std::optional<double>) {
  return {upsampledGrad("upsample_nearest2d_backward", grad_output, output_size, input_size)};
}

upsample_bilinear2d_backward_grad_input upsample_bilinear2d_backward(const Tensor& grad_output,
                                                                     IntArrayRef output_size, IntArrayRef input_size,
                                                                     bool, std::optional<double>,
                                                                     std::optional<double>) {
  return {upsampledGrad("upsample_bilinear2d_backward", grad_output, output_size, input_size)};
}

}  // namespace opcore::meta

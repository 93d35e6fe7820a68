// Average pooling (issue #34): the checks of avg_pool2d and _adaptive_avg_pool2d and their
// backward operators (common/Pooling.h), shared by the meta functions of the structured ones
// (here, Note [Structured kernels] in gen/api/structured.py) and the kernels
// (kernels/cpu/AvgPooling.cpp), with PyTorch's messages.
#include <opcore/ops/avg_pool2d_backward_native.h>
#include <opcore/ops/avg_pool2d_native.h>
#include <opcore/ops/avg_pool3d_backward_native.h>
#include <opcore/ops/avg_pool3d_native.h>

#include "common/Pooling.h"

namespace opcore::native {

Pool2d checkAvgPool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      bool ceil_mode, std::optional<int64_t> divisor_override) {
  const auto [kh, kw] = pair2d("avg_pool2d", kernel_size,
                               "kernel_size must either be a single int, or a tuple of two ints", std::nullopt);
  const auto [sh, sw] = pair2d("avg_pool2d", stride,
                               "stride must either be omitted, a single int, or a tuple of two ints",
                               std::pair{kh, kw});
  const auto [ph, pw] = pair2d("avg_pool2d", padding,
                               "padding must either be a single int, or a tuple of two ints", std::nullopt);
  OPCORE_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  OPCORE_CHECK(sh != 0 && sw != 0, "stride should not be zero");
  OPCORE_CHECK(kh > 0 && kw > 0, "kernel size should be greater than zero, but got kH: ", kh, " kW: ", kw);
  OPCORE_CHECK(sh > 0 && sw > 0, "stride should be greater than zero, but got dH: ", sh, " dW: ", sw);
  OPCORE_CHECK(ph <= kh / 2 && pw <= kw / 2, "pad should be at most half of kernel size, but got pad=",
               ph > kh / 2 ? ph : pw, " and kernel_size=", ph > kh / 2 ? kh : kw);
  const int64_t dims = self.dim();
  OPCORE_CHECK((dims == 3 || dims == 4) && self.size(-1) != 0 && self.size(-2) != 0 && self.size(-3) != 0,
               "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:",
               self.sizes());
  const ScalarType t = self.scalar_type();
  if (t != kFloat && t != kDouble && t != kBFloat16 && t != kHalf && t != kLong) {
    detail::throwNotImplementedForDtype("avg_pool2d", t);
  }
  return pooled(self, Pool2d{kh, kw, sh, sw, ph, pw, 1, 1, 0, 0, 0, 0, 0, {}}, ceil_mode);
}

void checkAvgPool2dGradOutput(const Tensor& grad_output, const Tensor& self, const Pool2d& p) {
  const IntArrayRef expected(p.output_sizes);
  OPCORE_CHECK(grad_output.sizes() == expected, "avg_pool2d_backward: expected grad_output of size ",
               expected, " (the pooling's output), got ", grad_output.sizes());
  OPCORE_CHECK(grad_output.scalar_type() == self.scalar_type(), "expected dtype ", self.scalar_type(),
               " for `gradOutput` but got dtype ", grad_output.scalar_type());
}

std::vector<int64_t> checkAdaptiveAvgPool2d(const Tensor& self, IntArrayRef output_size) {
  OPCORE_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  OPCORE_CHECK(output_size[0] >= 0 && output_size[1] >= 0, "adaptive_avg_pool2d: elements of output_size must be "
               "greater than or equal to 0 but received {", output_size[0], ", ", output_size[1], "}");
  const int64_t dims = self.dim();
  OPCORE_CHECK(dims == 3 || dims == 4, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ",
               self.sizes());
  for (const int64_t d : {dims - 2, dims - 1}) {
    OPCORE_CHECK(self.size(d) > 0, "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                 "dimensions, but input has sizes ", self.sizes(), " with dimension ", d, " being empty");
  }
  const ScalarType t = self.scalar_type();
  if (t != kFloat && t != kDouble && t != kBFloat16 && t != kHalf) {
    detail::throwNotImplementedForDtype("adaptive_avg_pool2d", t);
  }
  std::vector<int64_t> sizes = self.sizes().vec();
  sizes[static_cast<size_t>(dims - 2)] = output_size[0];
  sizes[static_cast<size_t>(dims - 1)] = output_size[1];
  return sizes;
}

void checkAdaptiveAvgPool2dBackward(const Tensor& grad_output, const Tensor& self) {
  const int64_t dims = grad_output.dim();
  OPCORE_CHECK(dims == 3 || dims == 4, "adaptive_avg_pool2d_backward(): Expected 3D or 4D tensor, but got ",
               grad_output.sizes());
  for (const int64_t d : {dims - 2, dims - 1}) {
    OPCORE_CHECK(grad_output.size(d) > 0, "adaptive_avg_pool2d_backward(): Expected grad_output to have non-zero "
                 "size for non-batch dimensions, but grad_output has sizes ", grad_output.sizes(),
                 " with dimension ", d, " being empty");
  }
  // Not checked by torch 1.13 (which then reads out of bounds): the planes must be self's.
  OPCORE_CHECK(self.dim() == dims && grad_output.sizes().slice(0, dims - 2) == self.sizes().slice(0, dims - 2),
               "adaptive_avg_pool2d_backward(): expected grad_output of sizes ", grad_output.sizes(),
               " to match self's ", self.sizes(), " but in the last two dimensions");
  checkAdaptiveAvgPool2d(self, {grad_output.size(-2), grad_output.size(-1)});
  OPCORE_CHECK(grad_output.scalar_type() == self.scalar_type(), "expected dtype ", self.scalar_type(),
               " for `grad_output` but got dtype ", grad_output.scalar_type());
}

// ---- 3-d pooling (issue #34) ----------------------------------------------------------------

Pool2d checkAvgPool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      bool ceil_mode, std::optional<int64_t> divisor_override) {
  const auto [kd, kh, kw] = triple3d("avg_pool3d", kernel_size,
                                     "kernel_size must be a single int, or a tuple of three ints", std::nullopt);
  const auto [sd, sh, sw] = triple3d("avg_pool3d", stride,
                                     "stride must be omitted, a single int, or a tuple of three ints",
                                     std::array<int64_t, 3>{kd, kh, kw});
  const auto [pd, ph, pw] = triple3d("avg_pool3d", padding,
                                     "padding must be a single int, or a tuple of three ints", std::nullopt);
  const int64_t dims = self.dim();
  OPCORE_CHECK(dims == 4 || dims == 5, "non-empty 4D or 5D (batch mode) tensor expected for input");
  OPCORE_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  checkPool3dWindow({kd, kh, kw}, {sd, sh, sw}, {pd, ph, pw});
  for (int64_t d = dims == 5 ? 1 : 0; d < dims; ++d) {
    OPCORE_CHECK(self.size(d) > 0, "avg_pool3d(): Expected input's non-batch dimensions to have positive length, "
                 "but input has a shape of ", self.sizes(), " and non-batch dimension ", self.size(d),
                 " has length zero!");
  }
  const int64_t depth = self.size(-3), height = self.size(-2), width = self.size(-1);
  OPCORE_CHECK(depth >= kd && height >= kh && width >= kw, "input image (T: ", depth, " H: ", height, " W: ", width,
               ") smaller than kernel size (kT: ", kd, " kH: ", kh, " kW: ", kw, ")");
  const ScalarType t = self.scalar_type();
  if (t != kFloat && t != kDouble && t != kBFloat16 && t != kHalf && t != kLong) {
    detail::throwNotImplementedForDtype("avg_pool3d", t);
  }
  Pool2d kernel{kh, kw, sh, sw, ph, pw, 1, 1, 0, 0, 0, 0, 0, {}};
  kernel.kd = kd;
  kernel.sd = sd;
  kernel.pd = pd;
  return pooled3d(self, kernel, ceil_mode);
}

void checkAvgPool3dGradOutput(const Tensor& grad_output, const Tensor& self, const Pool2d& p) {
  const IntArrayRef expected(p.output_sizes);
  OPCORE_CHECK(grad_output.sizes() == expected, "avg_pool3d_backward: expected grad_output of size ",
               expected, " (the pooling's output), got ", grad_output.sizes());
  OPCORE_CHECK(grad_output.scalar_type() == self.scalar_type(), "expected scalar type ", self.scalar_type(),
               " but found ", grad_output.scalar_type());
}

std::vector<int64_t> checkAdaptiveAvgPool3d(const Tensor& self, IntArrayRef output_size) {
  OPCORE_CHECK(output_size.size() == 3, "adaptive_avg_pool3d: output_size must be 3");
  OPCORE_CHECK(output_size[0] >= 0 && output_size[1] >= 0 && output_size[2] >= 0,
               "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but received {",
               output_size[0], ", ", output_size[1], ", ", output_size[2], "}");
  const int64_t dims = self.dim();
  OPCORE_CHECK(dims == 4 || dims == 5, "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got ", self.sizes());
  for (int64_t d = 1; d < dims; ++d) {
    OPCORE_CHECK(self.size(d) > 0, "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                 "dimensions, but input has sizes ", self.sizes(), " with dimension ", d, " being empty");
  }
  const ScalarType t = self.scalar_type();
  if (t != kFloat && t != kDouble && t != kBFloat16 && t != kHalf) {
    detail::throwNotImplementedForDtype("adaptive_avg_pool3d", t);
  }
  std::vector<int64_t> sizes = self.sizes().vec();
  for (size_t i = 0; i < 3; ++i) sizes[static_cast<size_t>(dims - 3) + i] = output_size[i];
  return sizes;
}

void checkAdaptiveAvgPool3dBackward(const Tensor& grad_output, const Tensor& self) {
  const int64_t dims = grad_output.dim();
  OPCORE_CHECK(dims == 4 || dims == 5, "adaptive_avg_pool3d_backward(): Expected 4D or 5D tensor, but got ",
               grad_output.sizes());
  for (const int64_t d : {dims - 3, dims - 2, dims - 1}) {
    OPCORE_CHECK(grad_output.size(d) > 0, "adaptive_avg_pool3d_backward(): Expected grad_output to have non-zero "
                 "size for non-batch dimensions, but grad_output has sizes ", grad_output.sizes(),
                 " with dimension ", d, " being empty");
  }
  // Not checked by torch 1.13 (which then reads out of bounds): the planes must be self's.
  OPCORE_CHECK(self.dim() == dims && grad_output.sizes().slice(0, dims - 3) == self.sizes().slice(0, dims - 3),
               "adaptive_avg_pool3d_backward(): expected grad_output of sizes ", grad_output.sizes(),
               " to match self's ", self.sizes(), " but in the last three dimensions");
  checkAdaptiveAvgPool3d(self, {grad_output.size(-3), grad_output.size(-2), grad_output.size(-1)});
  OPCORE_CHECK(grad_output.scalar_type() == self.scalar_type(), "expected scalar type ", self.scalar_type(),
               " but found ", grad_output.scalar_type());
}

}  // namespace opcore::native

namespace opcore::meta {

avg_pool2d_out avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                          bool ceil_mode, bool /*count_include_pad*/, std::optional<int64_t> divisor_override) {
  const native::Pool2d p = native::checkAvgPool2d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  return {TensorSpec{p.output_sizes, self.scalar_type(), self.device(), /*exact_dtype=*/true}};
}

avg_pool2d_backward_grad_input avg_pool2d_backward(const Tensor& grad_output, const Tensor& self,
                                                   IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                                   bool ceil_mode, bool /*count_include_pad*/,
                                                   std::optional<int64_t> divisor_override) {
  const native::Pool2d p = native::checkAvgPool2d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  native::checkAvgPool2dGradOutput(grad_output, self, p);
  return {TensorSpec{self.sizes().vec(), self.scalar_type(), self.device(), /*exact_dtype=*/true}};
}

// ---- 3-d pooling (issue #34) ----------------------------------------------------------------

avg_pool3d_out avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                          bool ceil_mode, bool /*count_include_pad*/, std::optional<int64_t> divisor_override) {
  const native::Pool2d p = native::checkAvgPool3d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  return {TensorSpec{p.output_sizes, self.scalar_type(), self.device(), /*exact_dtype=*/true}};
}

avg_pool3d_backward_grad_input avg_pool3d_backward(const Tensor& grad_output, const Tensor& self,
                                                   IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                                   bool ceil_mode, bool /*count_include_pad*/,
                                                   std::optional<int64_t> divisor_override) {
  const native::Pool2d p = native::checkAvgPool3d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  native::checkAvgPool3dGradOutput(grad_output, self, p);
  return {TensorSpec{self.sizes().vec(), self.scalar_type(), self.device(), /*exact_dtype=*/true}};
}

}  // namespace opcore::meta

// The meta functions of the structured pooling operators (Note [Structured kernels] in
// gen/api/structured.py) and the checks they share with the kernels (common/Pooling.h), with
// PyTorch's messages.
#include <opcore/ops/max_pool2d_with_indices_backward_native.h>
#include <opcore/ops/max_pool2d_with_indices_native.h>
#include <opcore/ops/max_pool3d_with_indices_backward_native.h>
#include <opcore/ops/max_pool3d_with_indices_native.h>

#include "common/Pooling.h"

namespace opcore::native {

namespace {

// PyTorch's pooling_output_shape: ceil_mode rounds up, but a last window may not start in the
// right padding.
int64_t pooledSize(int64_t size, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  const int64_t span = size + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= size + pad) --out;
  return out;
}

}  // namespace

std::pair<int64_t, int64_t> pair2d(const char* op, IntArrayRef values, const char* what,
                                   std::optional<std::pair<int64_t, int64_t>> empty_is) {
  if (values.empty() && empty_is) return *empty_is;
  OPCORE_CHECK(values.size() == 1 || values.size() == 2, op, ": ", what);
  return {values[0], values.size() == 1 ? values[0] : values[1]};
}

Pool2d pooled(const Tensor& self, const Pool2d& kernel, bool ceil_mode) {
  Pool2d p = kernel;
  const int64_t dims = self.dim();
  p.height = self.size(dims - 2);
  p.width = self.size(dims - 1);
  p.out_height = pooledSize(p.height, p.kh, p.ph, p.sh, p.dh, ceil_mode);
  p.out_width = pooledSize(p.width, p.kw, p.pw, p.sw, p.dw, ceil_mode);
  const int64_t channels = self.size(dims - 3);
  OPCORE_CHECK(p.out_height >= 1 && p.out_width >= 1, "Given input size: (", channels, "x", p.height, "x", p.width,
               "). Calculated output size: (", channels, "x", p.out_height, "x", p.out_width,
               "). Output size is too small");
  p.planes = self.numel() / (p.height * p.width);
  p.output_sizes = self.sizes().vec();
  p.output_sizes[static_cast<size_t>(dims - 2)] = p.out_height;
  p.output_sizes[static_cast<size_t>(dims - 1)] = p.out_width;
  return p;
}

Pool2d checkMaxPool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      IntArrayRef dilation, bool ceil_mode) {
  const auto [kh, kw] = pair2d("max_pool2d", kernel_size,
                               "kernel_size must either be a single int, or a tuple of two ints", std::nullopt);
  const auto [sh, sw] = pair2d("max_pool2d", stride,
                               "stride must either be omitted, a single int, or a tuple of two ints",
                               std::pair{kh, kw});
  const auto [ph, pw] = pair2d("max_pool2d", padding,
                               "padding must either be a single int, or a tuple of two ints", std::nullopt);
  const auto [dh, dw] = pair2d("max_pool2d", dilation,
                               "dilation must be either a single int, or a tuple of two ints", std::nullopt);
  OPCORE_CHECK(kh > 0 && kw > 0, "kernel size should be greater than zero, but got kH: ", kh, " kW: ", kw);
  OPCORE_CHECK(sh > 0 && sw > 0, "stride should be greater than zero, but got dH: ", sh, " dW: ", sw);
  OPCORE_CHECK(dh > 0 && dw > 0, "dilation should be greater than zero, but got dilationH: ", dh, " dilationW: ", dw);
  const int64_t dims = self.dim();
  OPCORE_CHECK((dims == 3 || dims == 4) && self.size(dims - 1) != 0 && self.size(dims - 2) != 0 &&
                   self.size(dims - 3) != 0,
               "non-empty 3D or 4D (batch mode) tensor expected for input");
  OPCORE_CHECK(ph <= kh / 2 && pw <= kw / 2, "pad should be at most half of kernel size, but got pad=",
               ph > kh / 2 ? ph : pw, " and kernel_size=", ph > kh / 2 ? kh : kw);
  const ScalarType t = self.scalar_type();
  if (t != kFloat && t != kDouble && t != kBFloat16) detail::throwNotImplementedForDtype("max_pool2d", t);
  return pooled(self, Pool2d{kh, kw, sh, sw, ph, pw, dh, dw, 0, 0, 0, 0, 0, {}}, ceil_mode);
}

// ---- 3-d pooling (issue #34) ----------------------------------------------------------------

void checkPool3dWindow(std::array<int64_t, 3> kernel, std::array<int64_t, 3> stride,
                       std::array<int64_t, 3> padding) {
  // PyTorch's pooling_output_shape, dimension by dimension, then its pool3d_shape_check
  for (size_t d = 0; d < 3; ++d) {
    OPCORE_CHECK(stride[d] != 0, "stride should not be zero");
    OPCORE_CHECK(padding[d] >= 0, "pad must be non-negative, but got pad: ", padding[d]);
    OPCORE_CHECK(padding[d] <= kernel[d] / 2, "pad should be at most half of kernel size, but got pad=", padding[d],
                 " and kernel_size=", kernel[d]);
  }
  OPCORE_CHECK(kernel[0] > 0 && kernel[1] > 0 && kernel[2] > 0, "kernel size should be greater than zero, but got kT: ",
               kernel[0], " kH: ", kernel[1], " kW: ", kernel[2]);
  OPCORE_CHECK(stride[0] > 0 && stride[1] > 0 && stride[2] > 0, "stride should be greater than zero, but got dT: ",
               stride[0], " dH: ", stride[1], " dW: ", stride[2]);
}

std::array<int64_t, 3> triple3d(const char* op, IntArrayRef values, const char* what,
                                std::optional<std::array<int64_t, 3>> empty_is) {
  if (values.empty() && empty_is) return *empty_is;
  OPCORE_CHECK(values.size() == 1 || values.size() == 3, op, ": ", what);
  return values.size() == 1 ? std::array<int64_t, 3>{values[0], values[0], values[0]}
                            : std::array<int64_t, 3>{values[0], values[1], values[2]};
}

Pool2d pooled3d(const Tensor& self, const Pool2d& kernel, bool ceil_mode) {
  Pool2d p = kernel;
  const int64_t dims = self.dim();
  p.depth = self.size(dims - 3);
  p.height = self.size(dims - 2);
  p.width = self.size(dims - 1);
  p.out_depth = pooledSize(p.depth, p.kd, p.pd, p.sd, p.dd, ceil_mode);
  p.out_height = pooledSize(p.height, p.kh, p.ph, p.sh, p.dh, ceil_mode);
  p.out_width = pooledSize(p.width, p.kw, p.pw, p.sw, p.dw, ceil_mode);
  const int64_t channels = self.size(dims - 4);
  OPCORE_CHECK(p.out_depth >= 1 && p.out_height >= 1 && p.out_width >= 1, "Given input size: (", channels, "x",
               p.depth, "x", p.height, "x", p.width, "). Calculated output size: (", channels, "x", p.out_depth, "x",
               p.out_height, "x", p.out_width, "). Output size is too small");
  p.planes = self.numel() / (p.depth * p.height * p.width);
  p.output_sizes = self.sizes().vec();
  p.output_sizes[static_cast<size_t>(dims - 3)] = p.out_depth;
  p.output_sizes[static_cast<size_t>(dims - 2)] = p.out_height;
  p.output_sizes[static_cast<size_t>(dims - 1)] = p.out_width;
  return p;
}

Pool2d checkMaxPool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      IntArrayRef dilation, bool ceil_mode) {
  const auto [kd, kh, kw] = triple3d("max_pool3d", kernel_size,
                                     "kernel_size must either be a single int, or a tuple of three ints", std::nullopt);
  const auto [sd, sh, sw] = triple3d("max_pool3d", stride,
                                     "stride must either be omitted, a single int, or a tuple of three ints",
                                     std::array<int64_t, 3>{kd, kh, kw});
  const auto [pd, ph, pw] = triple3d("max_pool3d", padding,
                                     "padding must be either be a single int, or a tuple of three ints", std::nullopt);
  const auto [dd, dh, dw] = triple3d("max_pool3d", dilation,
                                     "dilation must be either a single int, or a tuple of three ints", std::nullopt);
  const int64_t dims = self.dim();
  OPCORE_CHECK(dims == 4 || dims == 5, "non-empty 4D or 5D (batch mode) tensor expected for input");
  checkPool3dWindow({kd, kh, kw}, {sd, sh, sw}, {pd, ph, pw});
  OPCORE_CHECK(dd > 0 && dh > 0 && dw > 0, "dilation should be greater than zero, but got dilationT: ", dd,
               " dilationH: ", dh, " dilationW: ", dw);
  for (int64_t d = dims == 5 ? 1 : 0; d < dims; ++d) {
    OPCORE_CHECK(self.size(d) > 0, "max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch "
                 "dimensions to have positive length, but input has a shape of ", self.sizes(),
                 " and non-batch dimension ", self.size(d), " has length zero!");
  }
  const ScalarType t = self.scalar_type();
  if (t != kFloat && t != kDouble && t != kBFloat16) detail::throwNotImplementedForDtype("max_pool3d", t);
  Pool2d kernel{kh, kw, sh, sw, ph, pw, dh, dw, 0, 0, 0, 0, 0, {}};
  kernel.kd = kd;
  kernel.sd = sd;
  kernel.pd = pd;
  kernel.dd = dd;
  return pooled3d(self, kernel, ceil_mode);
}

}  // namespace opcore::native

namespace opcore::meta {

max_pool2d_with_indices_out max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                    IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const native::Pool2d p = native::checkMaxPool2d(self, kernel_size, stride, padding, dilation, ceil_mode);
  return {TensorSpec{p.output_sizes, self.scalar_type(), self.device(), /*exact_dtype=*/true},
          TensorSpec{p.output_sizes, kLong, self.device(), /*exact_dtype=*/true}};
}

max_pool2d_with_indices_backward_grad_input max_pool2d_with_indices_backward(
    const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
    IntArrayRef dilation, bool ceil_mode, const Tensor& indices) {
  const native::Pool2d p = native::checkMaxPool2d(self, kernel_size, stride, padding, dilation, ceil_mode);
  OPCORE_CHECK(grad_output.sizes() == IntArrayRef(p.output_sizes), "max_pool2d_with_indices_backward: expected "
               "grad_output of size ", IntArrayRef(p.output_sizes), " (the pooling's output), got ", grad_output.sizes());
  OPCORE_CHECK(indices.sizes() == IntArrayRef(p.output_sizes) && indices.scalar_type() == kLong,
               "max_pool2d_with_indices_backward: expected Long indices of size ", IntArrayRef(p.output_sizes),
               ", got ", indices.scalar_type(), " of size ", indices.sizes());
  OPCORE_CHECK(grad_output.scalar_type() == self.scalar_type(), "expected scalar type ", self.scalar_type(),
               " but found ", grad_output.scalar_type());
  return {TensorSpec{self.sizes().vec(), self.scalar_type(), self.device(), /*exact_dtype=*/true}};
}

// ---- 3-d pooling (issue #34) ----------------------------------------------------------------

max_pool3d_with_indices_out max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                    IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const native::Pool2d p = native::checkMaxPool3d(self, kernel_size, stride, padding, dilation, ceil_mode);
  return {TensorSpec{p.output_sizes, self.scalar_type(), self.device(), /*exact_dtype=*/true},
          TensorSpec{p.output_sizes, kLong, self.device(), /*exact_dtype=*/true}};
}

max_pool3d_with_indices_backward_grad_input max_pool3d_with_indices_backward(
    const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
    IntArrayRef dilation, bool ceil_mode, const Tensor& indices) {
  const native::Pool2d p = native::checkMaxPool3d(self, kernel_size, stride, padding, dilation, ceil_mode);
  OPCORE_CHECK(grad_output.sizes() == IntArrayRef(p.output_sizes), "max_pool3d_with_indices_backward: expected "
               "grad_output of size ", IntArrayRef(p.output_sizes), " (the pooling's output), got ",
               grad_output.sizes());
  OPCORE_CHECK(indices.sizes() == IntArrayRef(p.output_sizes) && indices.scalar_type() == kLong,
               "max_pool3d_with_indices_backward: expected Long indices of size ", IntArrayRef(p.output_sizes),
               ", got ", indices.scalar_type(), " of size ", indices.sizes());
  OPCORE_CHECK(grad_output.scalar_type() == self.scalar_type(), "expected scalar type ", self.scalar_type(),
               " but found ", grad_output.scalar_type());
  return {TensorSpec{self.sizes().vec(), self.scalar_type(), self.device(), /*exact_dtype=*/true}};
}

}  // namespace opcore::meta

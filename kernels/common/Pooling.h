// The geometry of a 2-d pooling, checked as PyTorch checks it, shared by the meta functions
// (kernels/common/PoolingMeta.cpp) and the kernels (kernels/cpu/Pooling.cpp).
//   const Pool2d p = checkMaxPool2d(self, kernel_size, stride, padding, dilation, ceil_mode);
#pragma once

#include <opcore/Tensor.h>

#include <array>
#include <optional>
#include <vector>

namespace opcore::native {

struct Pool2d {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t planes;  // N * C (C for an unbatched input)
  int64_t height, width, out_height, out_width;
  std::vector<int64_t> output_sizes;  // self's sizes with [out_height, out_width] last
  // The depth of a 3-d pooling (issue #34; output_sizes then ends with out_depth): a 2-d one
  // is a 3-d one of depth 1, so that one kernel serves both.
  int64_t kd = 1, sd = 1, pd = 0, dd = 1, depth = 1, out_depth = 1;
};

// One or two values as (first, second) (one: both); `empty_is` stands for an empty list when
// given; else "<op>: <what>" when there are not one or two.
std::pair<int64_t, int64_t> pair2d(const char* op, IntArrayRef values, const char* what,
                                   std::optional<std::pair<int64_t, int64_t>> empty_is);

// A Pool2d of self's H and W for the window of `kernel` (kh, kw, sh, sw, ph, pw, dh, dw): the
// output's sizes (PyTorch's pooling_output_shape along each dimension: ceil_mode rounds up, but
// a last window may not start in the right padding), checked to be at least 1 x 1 with
// PyTorch's message, and the planes. self is 3-D or 4-D.
Pool2d pooled(const Tensor& self, const Pool2d& kernel, bool ceil_mode);

// max_pool2d_with_indices's arguments: a 3-D or 4-D self whose C, H and W are non-zero,
// kernel_size of 1 or 2 values (one: both), stride of 0 (the kernel), 1 or 2, padding and
// dilation of 1 or 2, padding at most half the kernel, an output of at least 1 x 1.
Pool2d checkMaxPool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      IntArrayRef dilation, bool ceil_mode);

// ---- average pooling (issue #34), kernels/common/AvgPoolingMeta.cpp --------------------------

// avg_pool2d's arguments, as PyTorch checks them (a Pool2d with dilation 1): max_pool2d's, but
// a 3-D or 4-D self whose C, H and W are non-zero (N may be zero), a non-zero divisor_override
// and float32, float64, bfloat16, float16 or int64.
Pool2d checkAvgPool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      bool ceil_mode, std::optional<int64_t> divisor_override);

// grad_output of avg_pool2d_backward: the pooling's output size and self's dtype.
void checkAvgPool2dGradOutput(const Tensor& grad_output, const Tensor& self, const Pool2d& p);

// _adaptive_avg_pool2d's arguments: two non-negative output sizes, a 3-D or 4-D self whose
// non-batch dimensions are non-zero, float32, float64, bfloat16 or float16. Returns the
// output's sizes.
std::vector<int64_t> checkAdaptiveAvgPool2d(const Tensor& self, IntArrayRef output_size);

// _adaptive_avg_pool2d_backward's: grad_output of self's rank, batch and channels, non-zero
// output sizes, self's dtype.
void checkAdaptiveAvgPool2dBackward(const Tensor& grad_output, const Tensor& self);

// ---- 3-d pooling (issue #34), kernels/common/PoolingMeta.cpp and AvgPoolingMeta.cpp --------

// pooled with a depth: the output's sizes along self's last three dimensions (kd, sd, pd, dd
// and kh ... dw of `kernel`), checked to be at least 1 x 1 x 1 with PyTorch's message. self is
// 4-D or 5-D.
Pool2d pooled3d(const Tensor& self, const Pool2d& kernel, bool ceil_mode);

// PyTorch's checks of a 3-d pooling window (kernel, stride, padding as D, H, W): no zero
// stride, padding in [0, kernel / 2], positive kernel and stride sizes.
void checkPool3dWindow(std::array<int64_t, 3> kernel, std::array<int64_t, 3> stride, std::array<int64_t, 3> padding);

// One or three values as (first, second, third) (one: all three), as pair2d.
std::array<int64_t, 3> triple3d(const char* op, IntArrayRef values, const char* what,
                                std::optional<std::array<int64_t, 3>> empty_is);

// avg_pool3d's arguments, as PyTorch checks them: a 4-D or 5-D self whose non-batch dimensions
// are non-zero and at least the kernel, stride, padding at most half the kernel, a non-zero
// divisor_override, float32, float64, bfloat16, float16 or int64.
Pool2d checkAvgPool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      bool ceil_mode, std::optional<int64_t> divisor_override);

// grad_output of avg_pool3d_backward: the pooling's output size and self's dtype.
void checkAvgPool3dGradOutput(const Tensor& grad_output, const Tensor& self, const Pool2d& p);

// max_pool3d_with_indices's arguments, as PyTorch checks them: a 4-D or 5-D self whose
// non-batch dimensions are non-zero, kernel_size of 1 or 3 values, stride of 0 (the kernel), 1
// or 3, padding and dilation of 1 or 3, padding at most half the kernel, an output of at least
// 1 x 1 x 1; float32, float64 or bfloat16.
Pool2d checkMaxPool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      IntArrayRef dilation, bool ceil_mode);

// _adaptive_avg_pool3d's arguments: three output sizes, non-negative, a 4-D or 5-D self whose
// dimensions but the first are non-zero, float32, float64, bfloat16 or float16. Returns the
// output's sizes.
std::vector<int64_t> checkAdaptiveAvgPool3d(const Tensor& self, IntArrayRef output_size);

// _adaptive_avg_pool3d_backward's: grad_output of self's rank, batch and channels, non-zero
// output sizes, self's dtype.
void checkAdaptiveAvgPool3dBackward(const Tensor& grad_output, const Tensor& self);

}  // namespace opcore::native

// The geometry of a 2-d pooling, checked as PyTorch checks it, shared by the meta functions
// (kernels/common/PoolingMeta.cpp) and the kernels (kernels/cpu/Pooling.cpp).
//   const Pool2d p = checkMaxPool2d(self, kernel_size, stride, padding, dilation, ceil_mode);
#pragma once

#include <opcore/Tensor.h>

#include <vector>

namespace opcore::native {

struct Pool2d {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t planes;  // N * C (C for an unbatched input)
  int64_t height, width, out_height, out_width;
  std::vector<int64_t> output_sizes;  // self's sizes with [out_height, out_width] last
};

// max_pool2d_with_indices's arguments: a 3-D or 4-D self whose C, H and W are non-zero,
// kernel_size of 1 or 2 values (one: both), stride of 0 (the kernel), 1 or 2, padding and
// dilation of 1 or 2, padding at most half the kernel, an output of at least 1 x 1.
Pool2d checkMaxPool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      IntArrayRef dilation, bool ceil_mode);

}  // namespace opcore::native

// max_pool2d, max_pool2d_with_indices's values: its gradient comes from that operator's.
#include <opcore/ops/max_pool2d_native.h>
#include <opcore/ops/max_pool2d_with_indices.h>
#include <opcore/ops/max_pool3d_native.h>
#include <opcore/ops/max_pool3d_with_indices.h>

namespace opcore::native {

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(opcore::max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

// max_pool3d (issue #34), max_pool3d_with_indices's values, as max_pool2d.
Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(opcore::max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

}  // namespace opcore::native

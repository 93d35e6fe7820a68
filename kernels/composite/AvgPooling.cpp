// Average-pooling composites (issue #34): adaptive_avg_pool2d (a mean for a 1 x 1 output, as
// PyTorch's), and the 1-d forms, avg_pool1d and adaptive_avg_pool1d, as the 2-d ones of a
// [N, C, 1, L] view. Their gradients come from the operators they call.
#include <opcore/ops/_adaptive_avg_pool2d.h>
#include <opcore/ops/_adaptive_avg_pool3d.h>
#include <opcore/ops/adaptive_avg_pool1d_native.h>
#include <opcore/ops/adaptive_avg_pool2d.h>
#include <opcore/ops/adaptive_avg_pool2d_native.h>
#include <opcore/ops/adaptive_avg_pool3d_native.h>
#include <opcore/ops/avg_pool1d_native.h>
#include <opcore/ops/avg_pool2d.h>
#include <opcore/ops/mean.h>

namespace opcore::native {

namespace {

// The argument checks of PyTorch's 1-d poolings (check1d and checkDimRange).
void check1d(const char* function, const char* argument, IntArrayRef values) {
  OPCORE_CHECK(values.size() == 1, function, "() argument '", argument, "' should contain one int (got ",
               values.size(), ")");
}

void check2dOr3d(const Tensor& self, const char* function) {
  OPCORE_CHECK(self.dim() == 2 || self.dim() == 3, "Expected 2 to 3 dimensions, but got ", self.dim(),
               "-dimensional tensor for argument #1 'self' (while checking arguments for ", function, ")");
}

}  // namespace

Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  OPCORE_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  OPCORE_CHECK(output_size[0] >= 0 && output_size[1] >= 0, "adaptive_avg_pool2d: elements of output_size must be "
               "greater than or equal to 0 but received {", output_size[0], ", ", output_size[1], "}");
  if (output_size[0] == 1 && output_size[1] == 1) return opcore::mean(self, IntArrayRef{-1, -2}, /*keepdim=*/true);
  return opcore::_adaptive_avg_pool2d(self, output_size);
}

Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  check1d("adaptive_avg_pool1d", "output_size", output_size);
  check2dOr3d(self, "adaptive_avg_pool1d");
  const Tensor out = opcore::adaptive_avg_pool2d(self.unsqueeze(-2), {1, output_size[0]});
  return out.squeeze(-2);
}

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad) {
  const IntArrayRef kernel = kernel_size;
  check1d("avg_pool1d", "kernel_size", kernel);
  const IntArrayRef step = stride.empty() ? kernel : stride;
  check1d("avg_pool1d", "stride", step);
  check1d("avg_pool1d", "padding", padding);
  check2dOr3d(self, "avg_pool1d");
  const Tensor out = opcore::avg_pool2d(self.unsqueeze(-2), {1, kernel[0]}, {1, step[0]}, {0, padding[0]}, ceil_mode,
                                        count_include_pad, std::nullopt);
  return out.squeeze(-2);
}

// ---- 3-d pooling (issue #34) ----------------------------------------------------------------

Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  OPCORE_CHECK(output_size.size() == 3, "adaptive_avg_pool3d: output_size must be 3");
  OPCORE_CHECK(output_size[0] >= 0 && output_size[1] >= 0 && output_size[2] >= 0,
               "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but received {",
               output_size[0], ", ", output_size[1], ", ", output_size[2], "}");
  if (output_size[0] == 1 && output_size[1] == 1 && output_size[2] == 1) {
    return opcore::mean(self, IntArrayRef{-1, -2, -3}, /*keepdim=*/true);
  }
  return opcore::_adaptive_avg_pool3d(self, output_size);
}

}  // namespace opcore::native

// The `.vec` overloads of the 2-d upsamplings (issue #34), CompositeImplicitAutograd as PyTorch's:
// an output size, or scale factors that give it, then the structured operator (whose autograd
// the result takes).
#include <opcore/ops/upsample_bilinear2d.h>
#include <opcore/ops/upsample_bilinear2d_native.h>
#include <opcore/ops/upsample_nearest2d.h>
#include <opcore/ops/upsample_nearest2d_native.h>

#include <cmath>
#include <optional>
#include <vector>

namespace opcore::native {

namespace {

// Exactly one of output_size and scale_factors, with one entry per spatial dimension (2); the
// scales give the input's sizes times them, truncated.
std::vector<int64_t> outputSize(const Tensor& input, OptionalIntArrayRef output_size,
                                OptionalArrayRef<double> scale_factors) {
  OPCORE_CHECK(output_size.has_value() != scale_factors.has_value(),
               "Must specify exactly one of output_size and scale_factors");
  OPCORE_CHECK(input.dim() == 4, "Expected 4D input (N, C, H, W), but got input of size ", input.sizes());
  if (output_size.has_value()) {
    OPCORE_CHECK(output_size->size() == 2, "It is expected output_size equals to 2, but got size ",
                 output_size->size());
    return output_size->vec();
  }
  OPCORE_CHECK(scale_factors->size() == 2, "It is expected scale_factors equals to 2, but got size ",
               scale_factors->size());
  std::vector<int64_t> sizes;
  for (size_t d = 0; d < 2; ++d) {
    const double size = static_cast<double>(input.size(static_cast<int64_t>(d) + 2)) * (*scale_factors)[d];
    OPCORE_CHECK(std::isfinite(size) && std::abs(size) < 0x1p62, "upsample: scale factor ", (*scale_factors)[d],
                 " gives no output size");
    sizes.push_back(static_cast<int64_t>(size));
  }
  return sizes;
}

std::optional<double> scale(OptionalArrayRef<double> scale_factors, size_t d) {
  return scale_factors.has_value() ? std::optional<double>((*scale_factors)[d]) : std::nullopt;
}

}  // namespace

Tensor upsample_nearest2d(const Tensor& input, OptionalIntArrayRef output_size,
                          OptionalArrayRef<double> scale_factors) {
  return opcore::upsample_nearest2d(input, outputSize(input, output_size, scale_factors), scale(scale_factors, 0),
                                    scale(scale_factors, 1));
}

Tensor upsample_bilinear2d(const Tensor& input, OptionalIntArrayRef output_size, bool align_corners,
                           OptionalArrayRef<double> scale_factors) {
  return opcore::upsample_bilinear2d(input, outputSize(input, output_size, scale_factors), align_corners,
                                     scale(scale_factors, 0), scale(scale_factors, 1));
}

}  // namespace opcore::native

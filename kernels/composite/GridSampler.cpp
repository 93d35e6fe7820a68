// grid_sampler (issue #34), CompositeImplicitAutograd as PyTorch's: the 2-d grid sampler for a
// 4-d input (its autograd comes from grid_sampler_2d's).
#include <opcore/ops/grid_sampler_2d.h>
#include <opcore/ops/grid_sampler_native.h>

namespace opcore::native {

Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                    bool align_corners) {
  if (input.dim() == 5) {
    OPCORE_CHECK(interpolation_mode != 2, "grid_sampler(): bicubic interpolation only supports 4D input");
    detail::throwNotImplementedError(__FILE__, __LINE__, "grid_sampler(): a 5-D input needs grid_sampler_3d, which "
                                     "opcore does not have yet");
  }
  return opcore::grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners);
}

}  // namespace opcore::native

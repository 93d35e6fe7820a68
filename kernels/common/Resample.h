// The geometry of the reflection and replication paddings, checked as PyTorch checks it, shared by the meta functions (kernels/common/ResampleMeta.cpp)
// and the CPU kernels (kernels/cpu/Resample.cpp).
//   const PadShape p = checkPad(name, self, padding, PadMode::kReflect, /*spatial=*/2);
#pragma once

#include <opcore/Tensor.h>

#include <algorithm>
#include <vector>

namespace opcore::native {

enum class PadMode { kReflect, kReplicate };

// A 1-d or 2-d padding is a 3-d one of depth (and height) 1 with no pads there.
struct PadShape {
  PadMode mode;
  int spatial;     // 1, 2 or 3
  int64_t planes;  // N * C (C for an unbatched input)
  int64_t depth, height, width, out_depth, out_height, out_width;
  int64_t pad_front, pad_top, pad_left;
  std::vector<int64_t> output_sizes;  // self's sizes with the padded ones last
};

// reflection_pad{1,2,3}d / replication_pad{1,2,3}d's arguments (`spatial` 1, 2 or 3): a
// batched or unbatched input whose channel and spatial sizes are non-zero, 2 * spatial pads,
// reflection pads smaller than their dimension, a non-empty result. `name` is the operator's,
// for errors.
PadShape checkPad(const char* name, const Tensor& self, IntArrayRef padding, PadMode mode, int spatial);

// The backward's grad_output: the padding's output size, self's dtype.
void checkPadGradOutput(const PadShape& p, const Tensor& grad_output, const Tensor& self);

// The input index an output index `o` copies along a dimension of `size` padded by `before`
// in front (negative: dropped); its reflection / replication across the edges.
inline int64_t padSource(int64_t o, int64_t before, int64_t size, PadMode mode) {
  int64_t i = o - before;
  if (mode == PadMode::kReplicate) return std::clamp<int64_t>(i, 0, size - 1);
  if (i < 0) i = -i;
  if (i >= size) i = 2 * (size - 1) - i;
  return i;
}

}  // namespace opcore::native

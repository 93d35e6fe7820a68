// The geometry of the 2-d upsamplings (nearest and bilinear), checked as PyTorch checks it,
// shared by the meta functions (kernels/common/UpsampleMeta.cpp) and the CPU kernels
// (kernels/cpu/Upsample.cpp), and the source coordinates PyTorch's kernels compute.
//   const Upsample2d u = checkUpsample2d(input_sizes, output_size);
#pragma once

#include <opcore/Tensor.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace opcore::native {

struct Upsample2d {
  int64_t planes;  // N * C
  int64_t height, width, out_height, out_width;
  std::vector<int64_t> output_sizes;  // [N, C, out_height, out_width]
};

// A 4-d input size (non-empty but for the batch), 2 output sizes, all spatial sizes positive.
Upsample2d checkUpsample2d(IntArrayRef input_size, IntArrayRef output_size);

// The backward's grad_output: 4-d, of the output's size.
void checkUpsampleGradOutput(const Upsample2d& u, const Tensor& grad_output);

// The ratio input / output along one dimension, as PyTorch's compute_scales_value: 1 / the
// given scale factor when there is a positive one, else the sizes' ratio.
template <typename T>
T upsampleScale(std::optional<double> scale, int64_t in, int64_t out) {
  return scale.has_value() && *scale > 0 ? static_cast<T>(1.0 / *scale) : static_cast<T>(in) / static_cast<T>(out);
}

// The input index nearest-neighbour upsampling reads for output index `o` (PyTorch's
// nearest_idx, in float as its kernel computes it).
inline int64_t nearestSource(int64_t o, int64_t in, int64_t out, std::optional<double> scale) {
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  const float s = upsampleScale<float>(scale, in, out);
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
}

// nearestSource of every output index.
inline std::vector<int64_t> nearestTable(int64_t in, int64_t out, std::optional<double> scale) {
  std::vector<int64_t> table(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) table[static_cast<size_t>(o)] = nearestSource(o, in, out, scale);
  return table;
}

// One output index's two input neighbours along a dimension and their weights (PyTorch's
// area_pixel_compute_scale and area_pixel_compute_source_index, in T).
template <typename T>
struct Linear {
  int64_t i0, i1;
  T w0, w1;
};

template <typename T>
std::vector<Linear<T>> linearTable(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  const T s = align_corners ? (out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0))
                            : upsampleScale<T>(scale, in, out);
  std::vector<Linear<T>> table(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    // (o + 0.5) in double, as PyTorch's, rounded to T once
    const T real = align_corners ? s * static_cast<T>(o)
                                 : std::max<T>(static_cast<T>(static_cast<double>(s) * (static_cast<double>(o) + 0.5) - 0.5),
                                               T(0));
    const int64_t i0 = std::min<int64_t>(static_cast<int64_t>(std::floor(real)), in - 1);
    const T w1 = std::clamp<T>(real - static_cast<T>(i0), T(0), T(1));
    table[static_cast<size_t>(o)] = {i0, i0 + (i0 < in - 1 ? 1 : 0), T(1) - w1, w1};
  }
  return table;
}

}  // namespace opcore::native

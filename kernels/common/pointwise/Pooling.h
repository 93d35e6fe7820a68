// The windows of average pooling, written once for the CPU kernels (kernels/cpu/AvgPooling.cpp)
// and the CUDA ones (kernels/cuda/CudaPoolingKernels.cu). P is a pooling's geometry with
// common/Pooling.h's Pool2d field names (Pool2d, or cuda::PoolWindow on the device); a 2-d
// pooling is a 3-d one of depth 1. nvcc-clean.
//   const AvgWindow win = avgWindow(p, od, oh, ow, count_include_pad, /*divisor_override=*/0);
#pragma once

#include <opcore/core/Macros.h>

#include <cstdint>

namespace opcore::native {

// One avg_pool window: [d0, d1) x [h0, h1) x [w0, w1) inside the input and the divisor of its
// sum. The window is clipped to the padded input (PyTorch's pool size, counting the padding)
// and then to the input itself; an output whose window is all padding is zero (divisor 0).
struct AvgWindow {
  int64_t d0, d1, h0, h1, w0, w1, divisor;
};

// divisor_override: 0 for none (PyTorch refuses 0 as an override).
OPCORE_HOST_DEVICE inline int64_t windowMin(int64_t a, int64_t b) { return a < b ? a : b; }
OPCORE_HOST_DEVICE inline int64_t windowMax(int64_t a, int64_t b) { return a < b ? b : a; }

template <typename P>
OPCORE_HOST_DEVICE inline AvgWindow avgWindow(const P& p, int64_t od, int64_t oh, int64_t ow, bool count_include_pad,
                                              int64_t divisor_override) {
  int64_t d0 = od * p.sd - p.pd, h0 = oh * p.sh - p.ph, w0 = ow * p.sw - p.pw;
  int64_t d1 = windowMin(d0 + p.kd, p.depth + p.pd), h1 = windowMin(h0 + p.kh, p.height + p.ph),
          w1 = windowMin(w0 + p.kw, p.width + p.pw);
  const int64_t padded_size = (d1 - d0) * (h1 - h0) * (w1 - w0);
  d0 = windowMax(d0, 0);
  h0 = windowMax(h0, 0);
  w0 = windowMax(w0, 0);
  d1 = windowMin(d1, p.depth);
  h1 = windowMin(h1, p.height);
  w1 = windowMin(w1, p.width);
  if (d0 >= d1 || h0 >= h1 || w0 >= w1) return {0, 0, 0, 0, 0, 0, 0};
  const int64_t d = divisor_override != 0 ? divisor_override
                    : count_include_pad   ? padded_size
                                          : (d1 - d0) * (h1 - h0) * (w1 - w0);
  return {d0, d1, h0, h1, w0, w1, d};
}

// Adaptive windows: [floor(i * in / out), ceil((i + 1) * in / out)).
OPCORE_HOST_DEVICE inline int64_t adaptiveStart(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
OPCORE_HOST_DEVICE inline int64_t adaptiveEnd(int64_t i, int64_t out, int64_t in) {
  return ((i + 1) * in + out - 1) / out;
}

}  // namespace opcore::native

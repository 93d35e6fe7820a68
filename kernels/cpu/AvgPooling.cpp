// CPU average pooling (issue #34): avg_pool2d / avg_pool3d and their backward operators (the
// impls of structured operators, their meta functions in common/AvgPoolingMeta.cpp) and
// _adaptive_avg_pool2d / _adaptive_avg_pool3d and their backward operators (with their Meta
// kernels); one kernel per job, a 2-d pooling being a 3-d one of depth 1. The planes (N * C of
// them) are shared among the threads; within a plane each output reads its window directly,
// and a backward adds each output's share into its window plane by plane, so no two threads
// write one element and the result does not depend on the thread count. BFloat16 and Half sum
// in float and round once; int64 (avg_pool2d and avg_pool3d only, as PyTorch's) sums wrapping
// on overflow (Note [Wrapping integer arithmetic] in common/Wrapping.h) and divides rounding
// toward zero.
#include <opcore/core/Empty.h>
#include <opcore/core/Structured.h>
#include <opcore/ops/_adaptive_avg_pool2d_backward_native.h>
#include <opcore/ops/_adaptive_avg_pool2d_native.h>
#include <opcore/ops/_adaptive_avg_pool3d.h>
#include <opcore/ops/_adaptive_avg_pool3d_backward.h>
#include <opcore/ops/_adaptive_avg_pool3d_backward_native.h>
#include <opcore/ops/_adaptive_avg_pool3d_native.h>
#include <opcore/ops/adaptive_avg_pool3d_backward_native.h>
#include <opcore/ops/adaptive_avg_pool3d_native.h>
#include <opcore/ops/avg_pool2d_backward_native.h>
#include <opcore/ops/avg_pool2d_native.h>
#include <opcore/ops/avg_pool3d_backward_native.h>
#include <opcore/ops/avg_pool3d_native.h>

#include "common/Pooling.h"
#include "common/pointwise/Pooling.h"
#include "cpu/Loops.h"
#include "cpu/Output.h"
#include "common/Wrapping.h"

#include <algorithm>
#include <array>
#include <vector>

namespace opcore::native {

namespace {

// Planes per task: at least a grain's worth of element reads.
int64_t planeGrain(int64_t reads_per_plane) {
  return grainFor(reads_per_plane);
}

#define OPCORE_DISPATCH_AVG_POOL_TYPES(TYPE, NAME, ...)                                                     \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)                      \
                                         OPCORE_DISPATCH_CASE(kHalf, __VA_ARGS__)                          \
                                             OPCORE_DISPATCH_CASE(kBFloat16, __VA_ARGS__)                  \
                                                 OPCORE_DISPATCH_CASE(kLong, __VA_ARGS__))

// One dimension of an avg_pool2d window (avgWindow's, per dimension): [begin, end) inside the
// input and `padded`, its extent in the padded input.
struct Span {
  int64_t begin, end, padded;
};

Span avgSpan(int64_t o, int64_t stride, int64_t pad, int64_t kernel, int64_t size) {
  const int64_t start = o * stride - pad, stop = std::min(start + kernel, size + pad);
  return {std::max<int64_t>(start, 0), std::min(stop, size), stop - start};
}

// avg_pool2d's and avg_pool3d's kernel (a 2-d pooling is one of depth 1).
void avgPoolForward(const char* name, const Tensor& self, const Pool2d& p, bool count_include_pad,
                    std::optional<int64_t> divisor_override, const Tensor& out) {
  const TensorBase src = cpu::contiguousCopy(self);
  const TensorBase values = cpu::contiguousOutput(out);
  OPCORE_DISPATCH_AVG_POOL_TYPES(self.scalar_type(), name, [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* in = src.data_ptr<scalar_t>();
    scalar_t* o = values.data_ptr<scalar_t>();
    const int64_t slice = p.height * p.width, plane = p.depth * slice;
    const int64_t out_plane = p.out_depth * p.out_height * p.out_width;
    // The windows' columns, once for every row of outputs; those of [ow_lo, ow_hi) lie inside
    // the input (no clipping).
    std::vector<Span> columns(static_cast<size_t>(p.out_width));
    int64_t ow_lo = p.out_width, ow_hi = 0;
    for (int64_t ow = 0; ow < p.out_width; ++ow) {
      const Span cols = avgSpan(ow, p.sw, p.pw, p.kw, p.width);
      columns[static_cast<size_t>(ow)] = cols;
      const int64_t start = ow * p.sw - p.pw;
      if (start >= 0 && start + p.kw <= p.width) {
        ow_lo = std::min(ow_lo, ow);
        ow_hi = std::max(ow_hi, ow + 1);
      }
    }
    if (ow_lo >= ow_hi) ow_lo = ow_hi = 0;
    parallel_for(0, p.planes, planeGrain(out_plane * p.kd * p.kh * p.kw), [&](int64_t begin, int64_t end) {
      // A row of sums: each output's window added slice by slice, row by row, column by column
      // (the order of a plain loop over its window), the inner loop running along the outputs.
      std::vector<M> sums(static_cast<size_t>(p.out_width));
      M* acc = sums.data();
      for (int64_t c = begin; c < end; ++c) {
        const scalar_t* x = in + c * plane;
        scalar_t* y = o + c * out_plane;
        for (int64_t od = 0; od < p.out_depth; ++od) {
          const Span slices = avgSpan(od, p.sd, p.pd, p.kd, p.depth);
          for (int64_t oh = 0; oh < p.out_height; ++oh) {
            const Span rows = avgSpan(oh, p.sh, p.ph, p.kh, p.height);
            std::fill(sums.begin(), sums.end(), M(0));
            for (int64_t d = slices.begin; d < slices.end; ++d) {
              for (int64_t h = rows.begin; h < rows.end; ++h) {
                const scalar_t* row = x + d * slice + h * p.width;
                for (int64_t j = 0; j < p.kw; ++j) {
                  for (int64_t ow = 0; ow < ow_lo; ++ow) {
                    const int64_t w = ow * p.sw - p.pw + j;
                    if (w >= 0 && w < p.width) acc[ow] = wrappingAdd(acc[ow], static_cast<M>(row[w]));
                  }
                  if (ow_lo < ow_hi) {
                    const scalar_t* from = row + (ow_lo * p.sw - p.pw + j);
                    for (int64_t ow = ow_lo; ow < ow_hi; ++ow) {
                      acc[ow] = wrappingAdd(acc[ow], static_cast<M>(from[(ow - ow_lo) * p.sw]));
                    }
                  }
                  for (int64_t ow = ow_hi; ow < p.out_width; ++ow) {
                    const int64_t w = ow * p.sw - p.pw + j;
                    if (w >= 0 && w < p.width) acc[ow] = wrappingAdd(acc[ow], static_cast<M>(row[w]));
                  }
                }
              }
            }
            scalar_t* y_row = y + (od * p.out_height + oh) * p.out_width;
            for (int64_t ow = 0; ow < p.out_width; ++ow) {
              const Span& cols = columns[static_cast<size_t>(ow)];
              const int64_t divisor =
                  divisor_override    ? *divisor_override
                  : count_include_pad ? slices.padded * rows.padded * cols.padded
                                      : (slices.end - slices.begin) * (rows.end - rows.begin) * (cols.end - cols.begin);
              // an output whose window is all padding is zero
              const bool empty = slices.begin >= slices.end || rows.begin >= rows.end || cols.begin >= cols.end;
              y_row[ow] = empty ? scalar_t(0) : static_cast<scalar_t>(acc[ow] / static_cast<M>(divisor));
            }
          }
        }
      }
    });
  });
  cpu::copyBack(out, values);
}

// avg_pool2d_backward's and avg_pool3d_backward's kernel.
void avgPoolBackward(const char* name, const Tensor& grad_output, const Pool2d& p, bool count_include_pad,
                     std::optional<int64_t> divisor_override, const Tensor& grad_input) {
  const TensorBase g = cpu::contiguousCopy(grad_output);
  const TensorBase result = cpu::contiguousOutput(grad_input);
  OPCORE_DISPATCH_AVG_POOL_TYPES(grad_output.scalar_type(), name, [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* go = g.data_ptr<scalar_t>();
    scalar_t* gi = result.data_ptr<scalar_t>();
    const int64_t slice = p.height * p.width, plane = p.depth * slice;
    const int64_t out_plane = p.out_depth * p.out_height * p.out_width;
    parallel_for(0, p.planes, planeGrain(out_plane * p.kd * p.kh * p.kw), [&](int64_t begin, int64_t end) {
      std::vector<M> sums(static_cast<size_t>(plane));
      for (int64_t c = begin; c < end; ++c) {
        std::fill(sums.begin(), sums.end(), M(0));
        const scalar_t* gy = go + c * out_plane;
        for (int64_t od = 0; od < p.out_depth; ++od) {
          for (int64_t oh = 0; oh < p.out_height; ++oh) {
            for (int64_t ow = 0; ow < p.out_width; ++ow) {
              const AvgWindow win = avgWindow(p, od, oh, ow, count_include_pad, divisor_override.value_or(0));
              if (win.divisor == 0) continue;
              const M share =
                  static_cast<M>(gy[(od * p.out_height + oh) * p.out_width + ow]) / static_cast<M>(win.divisor);
              for (int64_t d = win.d0; d < win.d1; ++d) {
                for (int64_t h = win.h0; h < win.h1; ++h) {
                  for (int64_t w = win.w0; w < win.w1; ++w) {
                    M& sum = sums[static_cast<size_t>(d * slice + h * p.width + w)];
                    sum = wrappingAdd(sum, share);
                  }
                }
              }
            }
          }
        }
        for (int64_t i = 0; i < plane; ++i) gi[c * plane + i] = static_cast<scalar_t>(sums[static_cast<size_t>(i)]);
      }
    });
  });
  cpu::copyBack(grad_input, result);
}

}  // namespace

void avg_pool2d_out_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                        bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                        const Tensor& out) {
  cpu::checkCpu("avg_pool2d", {&self, &out});
  const Pool2d p = checkAvgPool2d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  avgPoolForward("avg_pool2d", self, p, count_include_pad, divisor_override, out);
}

void avg_pool2d_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                 IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                 std::optional<int64_t> divisor_override, const Tensor& grad_input) {
  cpu::checkCpu("avg_pool2d_backward", {&grad_output, &self, &grad_input});
  const Pool2d p = checkAvgPool2d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  checkAvgPool2dGradOutput(grad_output, self, p);
  avgPoolBackward("avg_pool2d_backward", grad_output, p, count_include_pad, divisor_override, grad_input);
}

// ---- 3-d pooling (issue #34) ----------------------------------------------------------------

void avg_pool3d_out_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                        bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                        const Tensor& out) {
  cpu::checkCpu("avg_pool3d", {&self, &out});
  const Pool2d p = checkAvgPool3d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  avgPoolForward("avg_pool3d", self, p, count_include_pad, divisor_override, out);
}

void avg_pool3d_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                 IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                 std::optional<int64_t> divisor_override, const Tensor& grad_input) {
  cpu::checkCpu("avg_pool3d_backward", {&grad_output, &self, &grad_input});
  const Pool2d p = checkAvgPool3d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  checkAvgPool3dGradOutput(grad_output, self, p);
  avgPoolBackward("avg_pool3d_backward", grad_output, p, count_include_pad, divisor_override, grad_input);
}

namespace {

// One plane (or volume) of adaptive average pooling; kOneSlice (a 2-d pooling: depth 1) runs
// without the depth loop, which costs a 16 x 16 window a tenth of its time.
template <typename scalar_t, bool kOneSlice>
void adaptivePlane(const scalar_t* x, scalar_t* y, std::array<int64_t, 3> in, std::array<int64_t, 3> outs) {
  using M = opmath_t<scalar_t>;
  const auto [depth, height, width] = in;
  const auto [od_n, oh_n, ow_n] = outs;
  const int64_t slice = height * width;
  for (int64_t od = 0; od < od_n; ++od) {
    const int64_t d0 = kOneSlice ? 0 : adaptiveStart(od, od_n, depth);
    const int64_t d1 = kOneSlice ? 1 : adaptiveEnd(od, od_n, depth);
    for (int64_t oh = 0; oh < oh_n; ++oh) {
      const int64_t h0 = adaptiveStart(oh, oh_n, height), h1 = adaptiveEnd(oh, oh_n, height);
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        const int64_t w0 = adaptiveStart(ow, ow_n, width), w1 = adaptiveEnd(ow, ow_n, width);
        M sum = M(0);
        for (int64_t d = d0; d < d1; ++d) {
          const scalar_t* slab = x + d * slice;
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) sum += static_cast<M>(slab[h * width + w]);
          }
        }
        // divided by each extent in turn, as PyTorch's (bit for bit in float32)
        y[(od * oh_n + oh) * ow_n + ow] = static_cast<scalar_t>(
            sum / static_cast<M>(d1 - d0) / static_cast<M>(h1 - h0) / static_cast<M>(w1 - w0));
      }
    }
  }
}

// _adaptive_avg_pool2d's and _adaptive_avg_pool3d's kernels on self's last three dimensions,
// `in` (a 2-d pooling: of depth 1) to `outs`.
Tensor adaptiveForward(const char* name, const Tensor& self, std::array<int64_t, 3> in, std::array<int64_t, 3> outs,
                       const std::vector<int64_t>& sizes) {
  Tensor out = detail::emptyCpu(sizes, self.scalar_type());
  if (out.numel() == 0) return out;
  const int64_t plane = in[0] * in[1] * in[2], out_plane = outs[0] * outs[1] * outs[2];
  const int64_t planes = self.numel() / plane;
  const TensorBase src = cpu::contiguousCopy(self);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), name, [&] {
    const scalar_t* x_all = src.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    parallel_for(0, planes, planeGrain(std::max(plane, out_plane)), [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        if (in[0] == 1 && outs[0] == 1) {
          adaptivePlane<scalar_t, true>(x_all + c * plane, o + c * out_plane, in, outs);
        } else {
          adaptivePlane<scalar_t, false>(x_all + c * plane, o + c * out_plane, in, outs);
        }
      }
    });
  });
  return out;
}

Tensor adaptiveBackward(const char* name, const Tensor& grad_output, const Tensor& self, std::array<int64_t, 3> in,
                        std::array<int64_t, 3> outs) {
  Tensor grad_input = detail::emptyCpu(self.sizes(), self.scalar_type());
  if (grad_input.numel() == 0) return grad_input;
  const auto [depth, height, width] = in;
  const auto [od_n, oh_n, ow_n] = outs;
  const int64_t slice = height * width, plane = depth * slice, out_plane = od_n * oh_n * ow_n;
  const int64_t planes = self.numel() / plane;
  const TensorBase g = cpu::contiguousCopy(grad_output);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), name, [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* go = g.data_ptr<scalar_t>();
    scalar_t* gi = grad_input.data_ptr<scalar_t>();
    parallel_for(0, planes, planeGrain(std::max(plane, out_plane)), [&](int64_t begin, int64_t end) {
      std::vector<M> sums(static_cast<size_t>(plane));
      for (int64_t c = begin; c < end; ++c) {
        std::fill(sums.begin(), sums.end(), M(0));
        const scalar_t* gy = go + c * out_plane;
        for (int64_t od = 0; od < od_n; ++od) {
          const int64_t d0 = adaptiveStart(od, od_n, depth), d1 = adaptiveEnd(od, od_n, depth);
          for (int64_t oh = 0; oh < oh_n; ++oh) {
            const int64_t h0 = adaptiveStart(oh, oh_n, height), h1 = adaptiveEnd(oh, oh_n, height);
            for (int64_t ow = 0; ow < ow_n; ++ow) {
              const int64_t w0 = adaptiveStart(ow, ow_n, width), w1 = adaptiveEnd(ow, ow_n, width);
              const M share = static_cast<M>(gy[(od * oh_n + oh) * ow_n + ow]) / static_cast<M>(d1 - d0) /
                              static_cast<M>(h1 - h0) / static_cast<M>(w1 - w0);
              for (int64_t d = d0; d < d1; ++d) {
                for (int64_t h = h0; h < h1; ++h) {
                  for (int64_t w = w0; w < w1; ++w) sums[static_cast<size_t>(d * slice + h * width + w)] += share;
                }
              }
            }
          }
        }
        for (int64_t i = 0; i < plane; ++i) gi[c * plane + i] = static_cast<scalar_t>(sums[static_cast<size_t>(i)]);
      }
    });
  });
  return grad_input;
}

}  // namespace

Tensor adaptive_avg_pool2d_cpu(const Tensor& self, IntArrayRef output_size) {
  cpu::checkCpu("adaptive_avg_pool2d", {&self});
  const std::vector<int64_t> sizes = checkAdaptiveAvgPool2d(self, output_size);
  return adaptiveForward("adaptive_avg_pool2d", self, {1, self.size(-2), self.size(-1)},
                         {1, output_size[0], output_size[1]}, sizes);
}

Tensor adaptive_avg_pool2d_meta(const Tensor& self, IntArrayRef output_size) {
  return detail::empty(checkAdaptiveAvgPool2d(self, output_size), self.scalar_type(), self.device());
}

Tensor adaptive_avg_pool2d_backward_cpu(const Tensor& grad_output, const Tensor& self) {
  cpu::checkCpu("adaptive_avg_pool2d_backward", {&grad_output, &self});
  checkAdaptiveAvgPool2dBackward(grad_output, self);
  return adaptiveBackward("adaptive_avg_pool2d_backward", grad_output, self, {1, self.size(-2), self.size(-1)},
                          {1, grad_output.size(-2), grad_output.size(-1)});
}

Tensor adaptive_avg_pool2d_backward_meta(const Tensor& grad_output, const Tensor& self) {
  checkAdaptiveAvgPool2dBackward(grad_output, self);
  return detail::empty(self.sizes(), self.scalar_type(), self.device());
}

// ---- 3-d pooling (issue #34) ----------------------------------------------------------------

Tensor adaptive_avg_pool3d_cpu(const Tensor& self, IntArrayRef output_size) {
  cpu::checkCpu("adaptive_avg_pool3d", {&self});
  const std::vector<int64_t> sizes = checkAdaptiveAvgPool3d(self, output_size);
  return adaptiveForward("adaptive_avg_pool3d_cpu", self, {self.size(-3), self.size(-2), self.size(-1)},
                         {output_size[0], output_size[1], output_size[2]}, sizes);
}

Tensor adaptive_avg_pool3d_meta(const Tensor& self, IntArrayRef output_size) {
  return detail::empty(checkAdaptiveAvgPool3d(self, output_size), self.scalar_type(), self.device());
}

// The out= forms, on every device: the functional operator through the dispatcher, copied.
Tensor& adaptive_avg_pool3d_out(const Tensor& self, IntArrayRef output_size, Tensor& out) {
  const Tensor result = opcore::_adaptive_avg_pool3d(self, output_size);
  detail::prepareOut("adaptive_avg_pool3d.out", out, TensorSpec{result.sizes().vec(), result.scalar_type(),
                                                                 result.device(), /*exact_dtype=*/true}, {&self});
  out.copy_(result);
  return out;
}

Tensor& adaptive_avg_pool3d_out_meta(const Tensor& self, IntArrayRef output_size, Tensor& out) {
  const TensorSpec spec{checkAdaptiveAvgPool3d(self, output_size), self.scalar_type(), self.device(),
                        /*exact_dtype=*/true};
  detail::prepareOut("adaptive_avg_pool3d.out", out, spec, {&self});
  return out;
}

Tensor adaptive_avg_pool3d_backward_cpu(const Tensor& grad_output, const Tensor& self) {
  cpu::checkCpu("adaptive_avg_pool3d_backward", {&grad_output, &self});
  checkAdaptiveAvgPool3dBackward(grad_output, self);
  return adaptiveBackward("adaptive_avg_pool3d_backward_cpu", grad_output, self,
                          {self.size(-3), self.size(-2), self.size(-1)},
                          {grad_output.size(-3), grad_output.size(-2), grad_output.size(-1)});
}

Tensor adaptive_avg_pool3d_backward_meta(const Tensor& grad_output, const Tensor& self) {
  checkAdaptiveAvgPool3dBackward(grad_output, self);
  return detail::empty(self.sizes(), self.scalar_type(), self.device());
}

Tensor& adaptive_avg_pool3d_backward_out(const Tensor& grad_output, const Tensor& self, Tensor& grad_input) {
  const Tensor result = opcore::_adaptive_avg_pool3d_backward(grad_output, self);
  detail::prepareOut("adaptive_avg_pool3d_backward.grad_input", grad_input,
                     TensorSpec{result.sizes().vec(), result.scalar_type(), result.device(), /*exact_dtype=*/true},
                     {&grad_output, &self});
  grad_input.copy_(result);
  return grad_input;
}

Tensor& adaptive_avg_pool3d_backward_out_meta(const Tensor& grad_output, const Tensor& self, Tensor& grad_input) {
  checkAdaptiveAvgPool3dBackward(grad_output, self);
  detail::prepareOut("adaptive_avg_pool3d_backward.grad_input", grad_input,
                     TensorSpec{self.sizes().vec(), self.scalar_type(), self.device(), /*exact_dtype=*/true},
                     {&grad_output, &self});
  return grad_input;
}

#undef OPCORE_DISPATCH_AVG_POOL_TYPES

}  // namespace opcore::native

// CPU average pooling (issue #34): avg_pool2d and its backward (the impls of structured
// operators, their meta functions in common/AvgPoolingMeta.cpp) and _adaptive_avg_pool2d and
// its backward (with their Meta kernels). The planes (N * C of them) are shared among the
// threads; within a plane each output reads its window directly, and a backward adds each
// output's share into its window plane by plane, so no two threads write one element and the
// result does not depend on the thread count. BFloat16 and Half sum in float and round once;
// int64 (avg_pool2d only, as PyTorch's) sums wrapping on overflow (Note [Wrapping integer
// arithmetic] in cpu/Wrapping.h) and divides rounding toward zero.
#include <opcore/core/Empty.h>
#include <opcore/ops/_adaptive_avg_pool2d_backward_native.h>
#include <opcore/ops/_adaptive_avg_pool2d_native.h>
#include <opcore/ops/avg_pool2d_backward_native.h>
#include <opcore/ops/avg_pool2d_native.h>

#include "common/Pooling.h"
#include "cpu/Loops.h"
#include "cpu/Output.h"
#include "cpu/Wrapping.h"

#include <algorithm>
#include <vector>

namespace opcore::native {

namespace {

// Planes per task: at least a grain's worth of element reads.
int64_t planeGrain(int64_t reads_per_plane) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, reads_per_plane));
}

#define OPCORE_DISPATCH_AVG_POOL_TYPES(TYPE, NAME, ...)                                                     \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)                      \
                                         OPCORE_DISPATCH_CASE(kHalf, __VA_ARGS__)                          \
                                             OPCORE_DISPATCH_CASE(kBFloat16, __VA_ARGS__)                  \
                                                 OPCORE_DISPATCH_CASE(kLong, __VA_ARGS__))

// One avg_pool2d window: [h0, h1) x [w0, w1) inside the input and the divisor of its sum.
// The window is clipped to the padded input (PyTorch's pool size, counting the padding) and
// then to the input itself; an output whose window is all padding is zero (divisor 0).
struct Window {
  int64_t h0, h1, w0, w1, divisor;
};

Window avgWindow(const Pool2d& p, int64_t oh, int64_t ow, bool count_include_pad, std::optional<int64_t> divisor) {
  int64_t h0 = oh * p.sh - p.ph, w0 = ow * p.sw - p.pw;
  int64_t h1 = std::min(h0 + p.kh, p.height + p.ph), w1 = std::min(w0 + p.kw, p.width + p.pw);
  const int64_t padded_size = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0);
  w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, p.height);
  w1 = std::min(w1, p.width);
  if (h0 >= h1 || w0 >= w1) return {0, 0, 0, 0, 0};
  const int64_t d = divisor ? *divisor : count_include_pad ? padded_size : (h1 - h0) * (w1 - w0);
  return {h0, h1, w0, w1, d};
}

// One dimension of an avg_pool2d window (avgWindow's, per dimension): [begin, end) inside the
// input and `padded`, its extent in the padded input.
struct Span {
  int64_t begin, end, padded;
};

Span avgSpan(int64_t o, int64_t stride, int64_t pad, int64_t kernel, int64_t size) {
  const int64_t start = o * stride - pad, stop = std::min(start + kernel, size + pad);
  return {std::max<int64_t>(start, 0), std::min(stop, size), stop - start};
}

// Adaptive windows: [floor(i * in / out), ceil((i + 1) * in / out)).
inline int64_t adaptiveStart(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
inline int64_t adaptiveEnd(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

}  // namespace

void avg_pool2d_out_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                        bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                        const Tensor& out) {
  cpu::checkCpu("avg_pool2d", {&self, &out});
  const Pool2d p = checkAvgPool2d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  const TensorBase src = cpu::contiguousCopy(self);
  const TensorBase values = cpu::contiguousOutput(out);
  OPCORE_DISPATCH_AVG_POOL_TYPES(self.scalar_type(), "avg_pool2d", [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* in = src.data_ptr<scalar_t>();
    scalar_t* o = values.data_ptr<scalar_t>();
    const int64_t plane = p.height * p.width, out_plane = p.out_height * p.out_width;
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
    parallel_for(0, p.planes, planeGrain(out_plane * p.kh * p.kw), [&](int64_t begin, int64_t end) {
      // A row of sums: each output's window added row by row, column by column (the order of a
      // plain loop over its window), the inner loop running along the outputs.
      std::vector<M> sums(static_cast<size_t>(p.out_width));
      M* acc = sums.data();
      for (int64_t c = begin; c < end; ++c) {
        const scalar_t* x = in + c * plane;
        scalar_t* y = o + c * out_plane;
        for (int64_t oh = 0; oh < p.out_height; ++oh) {
          const Span rows = avgSpan(oh, p.sh, p.ph, p.kh, p.height);
          std::fill(sums.begin(), sums.end(), M(0));
          for (int64_t h = rows.begin; h < rows.end; ++h) {
            const scalar_t* row = x + h * p.width;
            for (int64_t j = 0; j < p.kw; ++j) {
              for (int64_t ow = 0; ow < ow_lo; ++ow) {
                const int64_t w = ow * p.sw - p.pw + j;
                if (w >= 0 && w < p.width) acc[ow] = cpu::wrappingAdd(acc[ow], static_cast<M>(row[w]));
              }
              if (ow_lo < ow_hi) {
                const scalar_t* from = row + (ow_lo * p.sw - p.pw + j);
                for (int64_t ow = ow_lo; ow < ow_hi; ++ow) {
                  acc[ow] = cpu::wrappingAdd(acc[ow], static_cast<M>(from[(ow - ow_lo) * p.sw]));
                }
              }
              for (int64_t ow = ow_hi; ow < p.out_width; ++ow) {
                const int64_t w = ow * p.sw - p.pw + j;
                if (w >= 0 && w < p.width) acc[ow] = cpu::wrappingAdd(acc[ow], static_cast<M>(row[w]));
              }
            }
          }
          for (int64_t ow = 0; ow < p.out_width; ++ow) {
            const Span& cols = columns[static_cast<size_t>(ow)];
            const int64_t divisor = divisor_override ? *divisor_override
                                    : count_include_pad ? rows.padded * cols.padded
                                                        : (rows.end - rows.begin) * (cols.end - cols.begin);
            // an output whose window is all padding is zero
            const bool empty = rows.begin >= rows.end || cols.begin >= cols.end;
            y[oh * p.out_width + ow] = empty ? scalar_t(0) : static_cast<scalar_t>(acc[ow] / static_cast<M>(divisor));
          }
        }
      }
    });
  });
  cpu::copyBack(out, values);
}

void avg_pool2d_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                 IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                 std::optional<int64_t> divisor_override, const Tensor& grad_input) {
  cpu::checkCpu("avg_pool2d_backward", {&grad_output, &self, &grad_input});
  const Pool2d p = checkAvgPool2d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  checkAvgPool2dGradOutput(grad_output, self, p);
  const TensorBase g = cpu::contiguousCopy(grad_output);
  const TensorBase result = cpu::contiguousOutput(grad_input);
  OPCORE_DISPATCH_AVG_POOL_TYPES(self.scalar_type(), "avg_pool2d_backward", [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* go = g.data_ptr<scalar_t>();
    scalar_t* gi = result.data_ptr<scalar_t>();
    const int64_t plane = p.height * p.width, out_plane = p.out_height * p.out_width;
    parallel_for(0, p.planes, planeGrain(out_plane * p.kh * p.kw), [&](int64_t begin, int64_t end) {
      std::vector<M> sums(static_cast<size_t>(plane));
      for (int64_t c = begin; c < end; ++c) {
        std::fill(sums.begin(), sums.end(), M(0));
        for (int64_t oh = 0; oh < p.out_height; ++oh) {
          for (int64_t ow = 0; ow < p.out_width; ++ow) {
            const Window win = avgWindow(p, oh, ow, count_include_pad, divisor_override);
            if (win.divisor == 0) continue;
            const M share = static_cast<M>(go[c * out_plane + oh * p.out_width + ow]) / static_cast<M>(win.divisor);
            for (int64_t h = win.h0; h < win.h1; ++h) {
              for (int64_t w = win.w0; w < win.w1; ++w) {
                M& sum = sums[static_cast<size_t>(h * p.width + w)];
                sum = cpu::wrappingAdd(sum, share);
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

Tensor adaptive_avg_pool2d_cpu(const Tensor& self, IntArrayRef output_size) {
  cpu::checkCpu("adaptive_avg_pool2d", {&self});
  const std::vector<int64_t> sizes = checkAdaptiveAvgPool2d(self, output_size);
  Tensor out = detail::emptyCpu(sizes, self.scalar_type());
  const int64_t height = self.size(-2), width = self.size(-1), oh_n = output_size[0], ow_n = output_size[1];
  const int64_t plane = height * width, out_plane = oh_n * ow_n;
  if (out.numel() == 0) return out;
  const int64_t planes = self.numel() / plane;
  const TensorBase src = cpu::contiguousCopy(self);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), "adaptive_avg_pool2d", [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* in = src.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    parallel_for(0, planes, planeGrain(std::max(plane, out_plane)), [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        const scalar_t* x = in + c * plane;
        for (int64_t oh = 0; oh < oh_n; ++oh) {
          const int64_t h0 = adaptiveStart(oh, oh_n, height), h1 = adaptiveEnd(oh, oh_n, height);
          for (int64_t ow = 0; ow < ow_n; ++ow) {
            const int64_t w0 = adaptiveStart(ow, ow_n, width), w1 = adaptiveEnd(ow, ow_n, width);
            M sum = M(0);
            for (int64_t h = h0; h < h1; ++h) {
              for (int64_t w = w0; w < w1; ++w) sum += static_cast<M>(x[h * width + w]);
            }
            o[c * out_plane + oh * ow_n + ow] = static_cast<scalar_t>(sum / static_cast<M>((h1 - h0) * (w1 - w0)));
          }
        }
      }
    });
  });
  return out;
}

Tensor adaptive_avg_pool2d_meta(const Tensor& self, IntArrayRef output_size) {
  return detail::empty(checkAdaptiveAvgPool2d(self, output_size), self.scalar_type(), self.device());
}

Tensor adaptive_avg_pool2d_backward_cpu(const Tensor& grad_output, const Tensor& self) {
  cpu::checkCpu("adaptive_avg_pool2d_backward", {&grad_output, &self});
  checkAdaptiveAvgPool2dBackward(grad_output, self);
  Tensor grad_input = detail::emptyCpu(self.sizes(), self.scalar_type());
  if (grad_input.numel() == 0) return grad_input;
  const int64_t height = self.size(-2), width = self.size(-1), oh_n = grad_output.size(-2), ow_n = grad_output.size(-1);
  const int64_t plane = height * width, out_plane = oh_n * ow_n, planes = self.numel() / plane;
  const TensorBase g = cpu::contiguousCopy(grad_output);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), "adaptive_avg_pool2d_backward", [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* go = g.data_ptr<scalar_t>();
    scalar_t* gi = grad_input.data_ptr<scalar_t>();
    parallel_for(0, planes, planeGrain(std::max(plane, out_plane)), [&](int64_t begin, int64_t end) {
      std::vector<M> sums(static_cast<size_t>(plane));
      for (int64_t c = begin; c < end; ++c) {
        std::fill(sums.begin(), sums.end(), M(0));
        for (int64_t oh = 0; oh < oh_n; ++oh) {
          const int64_t h0 = adaptiveStart(oh, oh_n, height), h1 = adaptiveEnd(oh, oh_n, height);
          for (int64_t ow = 0; ow < ow_n; ++ow) {
            const int64_t w0 = adaptiveStart(ow, ow_n, width), w1 = adaptiveEnd(ow, ow_n, width);
            const M share = static_cast<M>(go[c * out_plane + oh * ow_n + ow]) / static_cast<M>((h1 - h0) * (w1 - w0));
            for (int64_t h = h0; h < h1; ++h) {
              for (int64_t w = w0; w < w1; ++w) sums[static_cast<size_t>(h * width + w)] += share;
            }
          }
        }
        for (int64_t i = 0; i < plane; ++i) gi[c * plane + i] = static_cast<scalar_t>(sums[static_cast<size_t>(i)]);
      }
    });
  });
  return grad_input;
}

Tensor adaptive_avg_pool2d_backward_meta(const Tensor& grad_output, const Tensor& self) {
  checkAdaptiveAvgPool2dBackward(grad_output, self);
  return detail::empty(self.sizes(), self.scalar_type(), self.device());
}

#undef OPCORE_DISPATCH_AVG_POOL_TYPES

}  // namespace opcore::native

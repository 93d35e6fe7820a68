// CPU pooling kernels: max_pool2d_with_indices and max_pool3d_with_indices (one kernel: a 2-d
// pooling is a 3-d one of depth 1) and their backward operators, the impls of structured
// operators (their meta functions, with the checks, in common/PoolingMeta.cpp). The planes
// (N * C of them) are shared among the threads; within a plane each output reads its window
// directly. The backward adds each output's gradient at its index, plane by plane, so no two
// threads write one element and the result does not depend on the thread count; BFloat16
// gradients are summed in float and rounded once.
#include <opcore/core/Empty.h>
#include <opcore/ops/max_pool2d_with_indices_backward_native.h>
#include <opcore/ops/max_pool2d_with_indices_native.h>
#include <opcore/ops/max_pool3d_with_indices_backward_native.h>
#include <opcore/ops/max_pool3d_with_indices_native.h>

#include "common/Pooling.h"
#include "cpu/Loops.h"
#include "cpu/Output.h"

#include <cmath>
#include <limits>
#include <vector>

namespace opcore::native {

namespace {

// Planes per task: at least a grain's worth of window reads.
int64_t planeGrain(const Pool2d& p, int64_t per_output) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, p.out_depth * p.out_height * p.out_width * per_output));
}

// max_pool2d_with_indices's and max_pool3d_with_indices's kernel (a 2-d pooling is one of
// depth 1; an index is then within the H * W plane, else within the D * H * W volume).
void maxPoolForward(const char* name, const Tensor& self, const Pool2d& p, const Tensor& out, const Tensor& indices) {
  const TensorBase src = cpu::contiguousCopy(self);
  const TensorBase values = cpu::contiguousOutput(out), where = cpu::contiguousOutput(indices);
  int64_t* ind = where.data_ptr<int64_t>();
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), name, [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* in = src.data_ptr<scalar_t>();
    scalar_t* o = values.data_ptr<scalar_t>();
    const int64_t slice = p.height * p.width, plane = p.depth * slice;
    const int64_t out_plane = p.out_depth * p.out_height * p.out_width;
    parallel_for(0, p.planes, planeGrain(p, p.kd * p.kh * p.kw), [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        const scalar_t* x = in + c * plane;
        for (int64_t od = 0; od < p.out_depth; ++od) {
          int64_t d0 = od * p.sd - p.pd;
          const int64_t d1 = std::min(d0 + (p.kd - 1) * p.dd + 1, p.depth);
          while (d0 < 0) d0 += p.dd;
          for (int64_t oh = 0; oh < p.out_height; ++oh) {
            int64_t h0 = oh * p.sh - p.ph;
            const int64_t h1 = std::min(h0 + (p.kh - 1) * p.dh + 1, p.height);
            while (h0 < 0) h0 += p.dh;
            for (int64_t ow = 0; ow < p.out_width; ++ow) {
              int64_t w0 = ow * p.sw - p.pw;
              const int64_t w1 = std::min(w0 + (p.kw - 1) * p.dw + 1, p.width);
              while (w0 < 0) w0 += p.dw;
              // As PyTorch's: the first element's index when every one is -inf, and the last
              // NaN's when there is one.
              int64_t best_index = d0 * slice + h0 * p.width + w0;
              M best = -std::numeric_limits<M>::infinity();
              for (int64_t d = d0; d < d1; d += p.dd) {
                for (int64_t h = h0; h < h1; h += p.dh) {
                  for (int64_t w = w0; w < w1; w += p.dw) {
                    const int64_t i = d * slice + h * p.width + w;
                    const M v = static_cast<M>(x[i]);
                    if (v > best || std::isnan(v)) {
                      best = v;
                      best_index = i;
                    }
                  }
                }
              }
              const int64_t at = c * out_plane + (od * p.out_height + oh) * p.out_width + ow;
              o[at] = static_cast<scalar_t>(best);
              ind[at] = best_index;
            }
          }
        }
      }
    });
  });
  cpu::copyBack(out, values);
  cpu::copyBack(indices, where);
}

void maxPoolBackward(const char* name, bool volume, const Tensor& grad_output, const Pool2d& p,
                     const Tensor& indices, const Tensor& grad_input) {
  const TensorBase g = cpu::contiguousCopy(grad_output), idx = cpu::contiguousCopy(indices);
  const TensorBase result = cpu::contiguousOutput(grad_input);
  const int64_t* ind = idx.data_ptr<int64_t>();
  const int64_t plane = p.depth * p.height * p.width, out_plane = p.out_depth * p.out_height * p.out_width;
  // Every index inside its plane before anything is written.
  for (int64_t i = 0; i < idx.numel(); ++i) {
    if (ind[i] >= 0 && ind[i] < plane) continue;
    if (!volume) {
      OPCORE_CHECK_INDEX(false, name, ": index ", ind[i], " is out of range for a plane of ", p.height, " x ",
                         p.width);
    }
    OPCORE_CHECK_INDEX(false, name, ": index ", ind[i], " is out of range for a volume of ", p.depth, " x ",
                       p.height, " x ", p.width);
  }
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, grad_output.scalar_type(), name, [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* go = g.data_ptr<scalar_t>();
    scalar_t* gi = result.data_ptr<scalar_t>();
    parallel_for(0, p.planes, planeGrain(p, 1), [&](int64_t begin, int64_t end) {
      std::vector<M> sums(static_cast<size_t>(plane));
      for (int64_t c = begin; c < end; ++c) {
        std::fill(sums.begin(), sums.end(), M(0));
        for (int64_t o = 0; o < out_plane; ++o) sums[static_cast<size_t>(ind[c * out_plane + o])] += static_cast<M>(go[c * out_plane + o]);
        for (int64_t i = 0; i < plane; ++i) gi[c * plane + i] = static_cast<scalar_t>(sums[static_cast<size_t>(i)]);
      }
    });
  });
  cpu::copyBack(grad_input, result);
}

}  // namespace

void max_pool2d_with_indices_out_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                     IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, const Tensor& out,
                                     const Tensor& indices) {
  cpu::checkCpu("max_pool2d_with_indices", {&self, &out, &indices});
  const Pool2d p = checkMaxPool2d(self, kernel_size, stride, padding, dilation, ceil_mode);
  maxPoolForward("max_pool2d", self, p, out, indices);
}

void max_pool2d_with_indices_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                              bool ceil_mode, const Tensor& indices, const Tensor& grad_input) {
  cpu::checkCpu("max_pool2d_with_indices_backward", {&grad_output, &self, &indices, &grad_input});
  const Pool2d p = checkMaxPool2d(self, kernel_size, stride, padding, dilation, ceil_mode);
  maxPoolBackward("max_pool2d_with_indices_backward", false, grad_output, p, indices, grad_input);
}

// ---- 3-d pooling (issue #34) ----------------------------------------------------------------

void max_pool3d_with_indices_out_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                     IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, const Tensor& out,
                                     const Tensor& indices) {
  cpu::checkCpu("max_pool3d_with_indices", {&self, &out, &indices});
  const Pool2d p = checkMaxPool3d(self, kernel_size, stride, padding, dilation, ceil_mode);
  maxPoolForward("max_pool3d_with_indices_cpu", self, p, out, indices);
}

void max_pool3d_with_indices_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                              bool ceil_mode, const Tensor& indices, const Tensor& grad_input) {
  cpu::checkCpu("max_pool3d_with_indices_backward", {&grad_output, &self, &indices, &grad_input});
  const Pool2d p = checkMaxPool3d(self, kernel_size, stride, padding, dilation, ceil_mode);
  maxPoolBackward("max_pool3d_with_indices_backward", true, grad_output, p, indices, grad_input);
}

}  // namespace opcore::native

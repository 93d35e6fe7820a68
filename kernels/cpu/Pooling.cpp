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
#include <cstdint>
#include <limits>
#include <vector>

namespace opcore::native {

namespace {

// Planes per task: at least a grain's worth of window reads.
int64_t planeGrain(const Pool2d& p, int64_t per_output) {
  return grainFor(p.out_depth * p.out_height * p.out_width * per_output);
}

// Two floats' or doubles' worth of a 16-byte vector register (GCC's vector types).
template <typename M>
struct Lanes;
template <>
struct Lanes<float> {
  typedef float type __attribute__((vector_size(16)));
};
template <>
struct Lanes<double> {
  typedef double type __attribute__((vector_size(16)));
};

// The window's running maximum and its index, kept in a vector register (its first lane) and
// updated with masks rather than branches: GCC branches on a ternary of floats, each such
// branch here is a coin toss, and masks moved through the integer registers made a chain of a
// dozen cycles per element.
template <typename M>
struct RunningMax {
  using Lane = typename Lanes<M>::type;
  Lane value = Lane{} - std::numeric_limits<M>::infinity();
  int64_t index;

  // As PyTorch's: a larger value or a NaN replaces the maximum (so the last NaN wins).
  void update(M x, int64_t i) {
    const Lane v = Lane{} + x;
    const auto take = (v > value) | (v != v);  // all ones where x replaces the maximum
    value = take ? v : value;
    index ^= (index ^ i) & static_cast<int64_t>(take[0]);
  }
  M max() const { return value[0]; }
};

// One plane (or volume) of max pooling: the geometry copied into locals first, which the
// stores into the int64 indices cannot alias (the compiler would otherwise reload p's fields
// for every window); a window of one slice (kOneSlice: kd == 1, every 2-d pooling) runs
// without the depth loop, which costs a 2x2 window a sixth of its time. The maximum is kept
// without branches (RunningMax): on data in no order a branch per element mispredicts about
// half the time, which cost more than the rest of the window's work (bench/README.md).
template <typename scalar_t, bool kOneSlice>
void maxPoolPlane(const scalar_t* x, scalar_t* y, int64_t* where, const Pool2d& p) {
  using M = opmath_t<scalar_t>;
  const int64_t kd = p.kd, kh = p.kh, kw = p.kw, sd = p.sd, sh = p.sh, sw = p.sw, pd = p.pd, ph = p.ph, pw = p.pw;
  const int64_t dd = p.dd, dh = p.dh, dw = p.dw, depth = p.depth, height = p.height, width = p.width;
  const int64_t out_depth = p.out_depth, out_height = p.out_height, out_width = p.out_width;
  const int64_t slice = height * width;
  for (int64_t od = 0; od < out_depth; ++od) {
    int64_t d0 = od * sd - pd;
    const int64_t d1 = kOneSlice ? d0 + 1 : std::min(d0 + (kd - 1) * dd + 1, depth);
    while (d0 < 0) d0 += dd;
    for (int64_t oh = 0; oh < out_height; ++oh) {
      int64_t h0 = oh * sh - ph;
      const int64_t h1 = std::min(h0 + (kh - 1) * dh + 1, height);
      while (h0 < 0) h0 += dh;
      const scalar_t* slab = x + d0 * slice;
      for (int64_t ow = 0; ow < out_width; ++ow) {
        int64_t w0 = ow * sw - pw;
        const int64_t w1 = std::min(w0 + (kw - 1) * dw + 1, width);
        while (w0 < 0) w0 += dw;
        // The first element's index when every one is -inf, as PyTorch's.
        RunningMax<M> best{.index = d0 * slice + h0 * width + w0};
        if constexpr (kOneSlice) {
          for (int64_t h = h0; h < h1; h += dh) {
            for (int64_t w = w0; w < w1; w += dw) best.update(static_cast<M>(slab[h * width + w]), d0 * slice + h * width + w);
          }
        } else {
          for (int64_t d = d0; d < d1; d += dd) {
            for (int64_t h = h0; h < h1; h += dh) {
              for (int64_t w = w0; w < w1; w += dw) {
                const int64_t i = d * slice + h * width + w;
                best.update(static_cast<M>(x[i]), i);
              }
            }
          }
        }
        const int64_t at = (od * out_height + oh) * out_width + ow;
        y[at] = static_cast<scalar_t>(best.max());
        where[at] = best.index;
      }
    }
  }
}

// max_pool2d_with_indices's and max_pool3d_with_indices's kernel (a 2-d pooling is one of
// depth 1; an index is then within the H * W plane, else within the D * H * W volume).
void maxPoolForward(const char* name, const Tensor& self, const Pool2d& p, const Tensor& out, const Tensor& indices) {
  const TensorBase src = cpu::contiguousCopy(self);
  const TensorBase values = cpu::contiguousOutput(out), where = cpu::contiguousOutput(indices);
  int64_t* ind = where.data_ptr<int64_t>();
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), name, [&] {
    const scalar_t* in = src.data_ptr<scalar_t>();
    scalar_t* o = values.data_ptr<scalar_t>();
    const int64_t plane = p.depth * p.height * p.width, out_plane = p.out_depth * p.out_height * p.out_width;
    parallel_for(0, p.planes, planeGrain(p, p.kd * p.kh * p.kw), [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        if (p.kd == 1) {
          maxPoolPlane<scalar_t, true>(in + c * plane, o + c * out_plane, ind + c * out_plane, p);
        } else {
          maxPoolPlane<scalar_t, false>(in + c * plane, o + c * out_plane, ind + c * out_plane, p);
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

// CPU kernels of the 2-d upsamplings, nearest and bilinear, and their backwards (the impls of
// structured operators; their meta functions, with the checks, in common/UpsampleMeta.cpp).
// The planes (N * C of them) are shared among the threads; the source indices (and weights)
// of each output row and column are computed once per call, as PyTorch's kernels compute them
// (common/Upsample.h). The backwards add each gradient into the input elements it was read
// from, plane by plane in a fixed order: deterministic on any number of threads; 16-bit types
// computed in float and rounded once.
#include <opcore/core/Empty.h>
#include <opcore/ops/upsample_bilinear2d_backward_native.h>
#include <opcore/ops/upsample_bilinear2d_native.h>
#include <opcore/ops/upsample_nearest2d_backward_native.h>
#include <opcore/ops/upsample_nearest2d_native.h>

#include "common/Upsample.h"
#include "cpu/Loops.h"
#include "cpu/Output.h"

#include <type_traits>
#include <vector>

namespace opcore::native {

namespace {

// Nearest upsampling copies elements: T is an unsigned integer of the element's size.
template <typename T>
void nearestPlanes(const Upsample2d& u, const std::vector<int64_t>& rows, const std::vector<int64_t>& cols,
                   const TensorBase& src, const TensorBase& dst) {
  const int64_t plane = u.height * u.width, out_plane = u.out_height * u.out_width;
  const T* in = static_cast<const T*>(src.data_ptr());
  T* o = static_cast<T*>(dst.data_ptr());
  parallel_for(0, u.planes, grainFor(out_plane), [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      for (int64_t oh = 0; oh < u.out_height; ++oh) {
        T* y = o + c * out_plane + oh * u.out_width;
        if (oh > 0 && rows[static_cast<size_t>(oh)] == rows[static_cast<size_t>(oh - 1)]) {
          std::copy(y - u.out_width, y, y);  // the same input row: its output again
          continue;
        }
        const T* x = in + c * plane + rows[static_cast<size_t>(oh)] * u.width;
        for (int64_t ow = 0; ow < u.out_width; ++ow) y[ow] = x[cols[static_cast<size_t>(ow)]];
      }
    }
  });
}

// Sums a plane's gradient in M (the result itself when M is the element type), then writes it.
template <typename scalar_t, typename Accumulate>
void backwardPlanes(const Upsample2d& u, const scalar_t* go, scalar_t* gi, Accumulate accumulate) {
  using M = opmath_t<scalar_t>;
  constexpr bool kDirect = std::is_same_v<M, scalar_t>;
  const int64_t plane = u.height * u.width, out_plane = u.out_height * u.out_width;
  parallel_for(0, u.planes, grainFor(out_plane), [&](int64_t begin, int64_t end) {
    std::vector<M> buffer(kDirect ? 0 : static_cast<size_t>(plane));
    for (int64_t c = begin; c < end; ++c) {
      M* sums = kDirect ? reinterpret_cast<M*>(gi + c * plane) : buffer.data();
      std::fill(sums, sums + plane, M(0));
      accumulate(sums, go + c * out_plane);
      if constexpr (!kDirect) {
        for (int64_t i = 0; i < plane; ++i) gi[c * plane + i] = static_cast<scalar_t>(sums[i]);
      }
    }
  });
}

}  // namespace

void upsample_nearest2d_out_cpu(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                                std::optional<double> scales_w, const Tensor& out) {
  cpu::checkCpu("upsample_nearest2d", {&self, &out});
  const Upsample2d u = checkUpsample2d(self.sizes(), output_size);
  const TensorBase src = cpu::contiguousCopy(self);
  const TensorBase dst = cpu::contiguousOutput(out);
  const std::vector<int64_t> rows = nearestTable(u.height, u.out_height, scales_h);
  const std::vector<int64_t> cols = nearestTable(u.width, u.out_width, scales_w);
  // a copy of elements: by their size (the meta function has checked the dtype)
  switch (self.element_size()) {
    case 1: nearestPlanes<uint8_t>(u, rows, cols, src, dst); break;
    case 2: nearestPlanes<uint16_t>(u, rows, cols, src, dst); break;
    case 4: nearestPlanes<uint32_t>(u, rows, cols, src, dst); break;
    default: nearestPlanes<uint64_t>(u, rows, cols, src, dst); break;
  }
  cpu::copyBack(out, dst);
}

void upsample_nearest2d_backward_out_cpu(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                         std::optional<double> scales_h, std::optional<double> scales_w,
                                         const Tensor& grad_input) {
  cpu::checkCpu("upsample_nearest2d_backward", {&grad_output, &grad_input});
  const Upsample2d u = checkUpsample2d(input_size, output_size);
  checkUpsampleGradOutput(u, grad_output);
  const TensorBase g = cpu::contiguousCopy(grad_output);
  const TensorBase result = cpu::contiguousOutput(grad_input);
  const std::vector<int64_t> rows = nearestTable(u.height, u.out_height, scales_h);
  const std::vector<int64_t> cols = nearestTable(u.width, u.out_width, scales_w);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, grad_output.scalar_type(), "upsample_nearest2d_backward", [&] {
    using M = opmath_t<scalar_t>;
    backwardPlanes<scalar_t>(u, g.data_ptr<scalar_t>(), result.data_ptr<scalar_t>(), [&](M* sums, const scalar_t* go) {
      for (int64_t oh = 0; oh < u.out_height; ++oh) {
        M* s = sums + rows[static_cast<size_t>(oh)] * u.width;
        const scalar_t* y = go + oh * u.out_width;
        for (int64_t ow = 0; ow < u.out_width; ++ow) s[cols[static_cast<size_t>(ow)]] += static_cast<M>(y[ow]);
      }
    });
  });
  cpu::copyBack(grad_input, result);
}

void upsample_bilinear2d_out_cpu(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                 std::optional<double> scales_h, std::optional<double> scales_w, const Tensor& out) {
  cpu::checkCpu("upsample_bilinear2d", {&self, &out});
  const Upsample2d u = checkUpsample2d(self.sizes(), output_size);
  const TensorBase src = cpu::contiguousCopy(self);
  const TensorBase dst = cpu::contiguousOutput(out);
  const int64_t plane = u.height * u.width, out_plane = u.out_height * u.out_width;
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), "upsample_bilinear2d", [&] {
    using M = opmath_t<scalar_t>;
    const auto rows = linearTable<M>(u.height, u.out_height, align_corners, scales_h);
    const auto cols = linearTable<M>(u.width, u.out_width, align_corners, scales_w);
    const scalar_t* in = src.data_ptr<scalar_t>();
    scalar_t* o = dst.data_ptr<scalar_t>();
    parallel_for(0, u.planes, grainFor(4 * out_plane), [&](int64_t begin, int64_t end) {
      // Each input row interpolated along the width once and kept while output rows read it
      // (two slots: an output row reads two input rows); the same sums as a direct loop.
      std::vector<M> slots(static_cast<size_t>(2 * u.out_width));
      int64_t held[2];
      for (int64_t c = begin; c < end; ++c) {
        const scalar_t* x = in + c * plane;
        held[0] = held[1] = -1;
        auto row = [&](int64_t ih, int64_t keep) -> const M* {
          for (int k = 0; k < 2; ++k) {
            if (held[k] == ih) return slots.data() + k * u.out_width;
          }
          const int k = held[0] == keep ? 1 : 0;
          M* r = slots.data() + k * u.out_width;
          const scalar_t* xr = x + ih * u.width;
          for (int64_t ow = 0; ow < u.out_width; ++ow) {
            const Linear<M>& w = cols[static_cast<size_t>(ow)];
            r[ow] = static_cast<M>(xr[w.i0]) * w.w0 + static_cast<M>(xr[w.i1]) * w.w1;
          }
          held[k] = ih;
          return r;
        };
        for (int64_t oh = 0; oh < u.out_height; ++oh) {
          const Linear<M>& r = rows[static_cast<size_t>(oh)];
          const M* top = row(r.i0, r.i1);
          const M* bottom = row(r.i1, r.i0);
          scalar_t* y = o + c * out_plane + oh * u.out_width;
          for (int64_t ow = 0; ow < u.out_width; ++ow) y[ow] = static_cast<scalar_t>(top[ow] * r.w0 + bottom[ow] * r.w1);
        }
      }
    });
  });
  cpu::copyBack(out, dst);
}

void upsample_bilinear2d_backward_out_cpu(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                          bool align_corners, std::optional<double> scales_h,
                                          std::optional<double> scales_w, const Tensor& grad_input) {
  cpu::checkCpu("upsample_bilinear2d_backward", {&grad_output, &grad_input});
  const Upsample2d u = checkUpsample2d(input_size, output_size);
  checkUpsampleGradOutput(u, grad_output);
  const TensorBase g = cpu::contiguousCopy(grad_output);
  const TensorBase result = cpu::contiguousOutput(grad_input);
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, grad_output.scalar_type(), "upsample_bilinear2d_backward", [&] {
    using M = opmath_t<scalar_t>;
    const auto rows = linearTable<M>(u.height, u.out_height, align_corners, scales_h);
    const auto cols = linearTable<M>(u.width, u.out_width, align_corners, scales_w);
    backwardPlanes<scalar_t>(u, g.data_ptr<scalar_t>(), result.data_ptr<scalar_t>(), [&](M* sums, const scalar_t* go) {
      for (int64_t oh = 0; oh < u.out_height; ++oh) {
        const Linear<M>& r = rows[static_cast<size_t>(oh)];
        M* s0 = sums + r.i0 * u.width;
        M* s1 = sums + r.i1 * u.width;
        const scalar_t* y = go + oh * u.out_width;
        for (int64_t ow = 0; ow < u.out_width; ++ow) {
          const Linear<M>& k = cols[static_cast<size_t>(ow)];
          const M v = static_cast<M>(y[ow]);
          s0[k.i0] += v * r.w0 * k.w0;
          s0[k.i1] += v * r.w0 * k.w1;
          s1[k.i0] += v * r.w1 * k.w0;
          s1[k.i1] += v * r.w1 * k.w1;
        }
      }
    });
  });
  cpu::copyBack(grad_input, result);
}

}  // namespace opcore::native

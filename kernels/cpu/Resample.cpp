// CPU kernels of the reflection and replication paddings (the impls of structured operators;
// their meta functions, with the checks, in common/ResampleMeta.cpp). The planes (N * C of them)
// are shared among the threads, a 1-d or 2-d padding being a 3-d one of depth 1. Along each
// padded dimension a table says which input index an output index copies (common/Resample.h's padSource), so the forward copies each row's middle
// in one run and only the pads through the table. The backward adds each gradient at the index
// it was copied from, plane by plane in a fixed order: no two threads write one element and the
// result does not depend on the thread count; 16-bit gradients are summed in float and rounded
// once.
#include <opcore/core/Empty.h>
#include <opcore/ops/reflection_pad1d_backward_native.h>
#include <opcore/ops/reflection_pad1d_native.h>
#include <opcore/ops/reflection_pad2d_backward_native.h>
#include <opcore/ops/reflection_pad2d_native.h>
#include <opcore/ops/reflection_pad3d_backward_native.h>
#include <opcore/ops/reflection_pad3d_native.h>
#include <opcore/ops/replication_pad1d_backward_native.h>
#include <opcore/ops/replication_pad1d_native.h>
#include <opcore/ops/replication_pad2d_backward_native.h>
#include <opcore/ops/replication_pad2d_native.h>
#include <opcore/ops/replication_pad3d_backward_native.h>
#include <opcore/ops/replication_pad3d_native.h>

#include "common/Resample.h"
#include "cpu/Loops.h"
#include "cpu/Output.h"

#include <algorithm>
#include <type_traits>
#include <vector>

namespace opcore::native {

namespace {

// The source index of each output index along one dimension, and the run [begin, end) of
// outputs that copy the input in order (out index - before).
struct PadTable {
  std::vector<int64_t> source;
  int64_t begin, end;
};

PadTable padTable(int64_t out_size, int64_t before, int64_t size, PadMode mode) {
  PadTable t{std::vector<int64_t>(static_cast<size_t>(out_size)), std::clamp<int64_t>(before, 0, out_size),
             std::clamp<int64_t>(size + before, 0, out_size)};
  for (int64_t o = 0; o < out_size; ++o) t.source[static_cast<size_t>(o)] = padSource(o, before, size, mode);
  return t;
}

// The input row (of a plane's depth * height rows) each output row (of its out_depth * out_height)
// copies.
std::vector<int64_t> sourceRows(const PadShape& p) {
  std::vector<int64_t> source;
  source.reserve(static_cast<size_t>(p.out_depth * p.out_height));
  for (int64_t od = 0; od < p.out_depth; ++od) {
    const int64_t slice = padSource(od, p.pad_front, p.depth, p.mode);
    for (int64_t oh = 0; oh < p.out_height; ++oh) {
      source.push_back(slice * p.height + padSource(oh, p.pad_top, p.height, p.mode));
    }
  }
  return source;
}

void padForward(const char* name, const Tensor& self, IntArrayRef padding, PadMode mode, int spatial,
                const Tensor& out) {
  cpu::checkCpu(name, {&self, &out});
  const PadShape p = checkPad(name, self, padding, mode, spatial);
  const TensorBase src = cpu::contiguousCopy(self);
  const TensorBase dst = cpu::contiguousOutput(out);
  const std::vector<int64_t> source_rows = sourceRows(p);
  const PadTable cols = padTable(p.out_width, p.pad_left, p.width, mode);
  const int64_t plane = p.depth * p.height * p.width, out_plane = p.out_depth * p.out_height * p.out_width;
  const auto out_rows = static_cast<int64_t>(source_rows.size());
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), name, [&] {
    const scalar_t* in = src.data_ptr<scalar_t>();
    scalar_t* o = dst.data_ptr<scalar_t>();
    parallel_for(0, p.planes, grainFor(out_plane), [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        for (int64_t r = 0; r < out_rows; ++r) {
          const scalar_t* x = in + c * plane + source_rows[static_cast<size_t>(r)] * p.width;
          scalar_t* y = o + c * out_plane + r * p.out_width;
          for (int64_t ow = 0; ow < cols.begin; ++ow) y[ow] = x[cols.source[static_cast<size_t>(ow)]];
          std::copy(x + cols.begin - p.pad_left, x + cols.end - p.pad_left, y + cols.begin);
          for (int64_t ow = cols.end; ow < p.out_width; ++ow) y[ow] = x[cols.source[static_cast<size_t>(ow)]];
        }
      }
    });
  });
  cpu::copyBack(out, dst);
}

void padBackward(const char* name, const Tensor& grad_output, const Tensor& self, IntArrayRef padding, PadMode mode,
                 int spatial, const Tensor& grad_input) {
  cpu::checkCpu(name, {&grad_output, &self, &grad_input});
  const PadShape p = checkPad(name, self, padding, mode, spatial);
  checkPadGradOutput(p, grad_output, self);
  const TensorBase g = cpu::contiguousCopy(grad_output);
  const TensorBase result = cpu::contiguousOutput(grad_input);
  const std::vector<int64_t> source_rows = sourceRows(p);
  const PadTable cols = padTable(p.out_width, p.pad_left, p.width, mode);
  const int64_t plane = p.depth * p.height * p.width, out_plane = p.out_depth * p.out_height * p.out_width;
  const auto out_rows = static_cast<int64_t>(source_rows.size());
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), name, [&] {
    using M = opmath_t<scalar_t>;
    constexpr bool kDirect = std::is_same_v<M, scalar_t>;  // sums in the result itself
    const scalar_t* go = g.data_ptr<scalar_t>();
    scalar_t* gi = result.data_ptr<scalar_t>();
    parallel_for(0, p.planes, grainFor(out_plane), [&](int64_t begin, int64_t end) {
      std::vector<M> buffer(kDirect ? 0 : static_cast<size_t>(plane));
      for (int64_t c = begin; c < end; ++c) {
        M* sums = kDirect ? reinterpret_cast<M*>(gi + c * plane) : buffer.data();
        std::fill(sums, sums + plane, M(0));
        for (int64_t r = 0; r < out_rows; ++r) {
          M* s = sums + source_rows[static_cast<size_t>(r)] * p.width;
          const scalar_t* y = go + c * out_plane + r * p.out_width;
          for (int64_t ow = 0; ow < cols.begin; ++ow) s[cols.source[static_cast<size_t>(ow)]] += static_cast<M>(y[ow]);
          M* run = s + cols.begin - p.pad_left;
          for (int64_t ow = cols.begin; ow < cols.end; ++ow) run[ow - cols.begin] += static_cast<M>(y[ow]);
          for (int64_t ow = cols.end; ow < p.out_width; ++ow) s[cols.source[static_cast<size_t>(ow)]] += static_cast<M>(y[ow]);
        }
        if constexpr (!kDirect) {
          for (int64_t i = 0; i < plane; ++i) gi[c * plane + i] = static_cast<scalar_t>(sums[i]);
        }
      }
    });
  });
  cpu::copyBack(grad_input, result);
}

}  // namespace

void reflection_pad1d_out_cpu(const Tensor& self, IntArrayRef padding, const Tensor& out) {
  padForward("reflection_pad1d", self, padding, PadMode::kReflect, 1, out);
}

void reflection_pad2d_out_cpu(const Tensor& self, IntArrayRef padding, const Tensor& out) {
  padForward("reflection_pad2d", self, padding, PadMode::kReflect, 2, out);
}

void reflection_pad3d_out_cpu(const Tensor& self, IntArrayRef padding, const Tensor& out) {
  padForward("reflection_pad3d", self, padding, PadMode::kReflect, 3, out);
}

void replication_pad1d_out_cpu(const Tensor& self, IntArrayRef padding, const Tensor& out) {
  padForward("replication_pad1d", self, padding, PadMode::kReplicate, 1, out);
}

void replication_pad2d_out_cpu(const Tensor& self, IntArrayRef padding, const Tensor& out) {
  padForward("replication_pad2d", self, padding, PadMode::kReplicate, 2, out);
}

void replication_pad3d_out_cpu(const Tensor& self, IntArrayRef padding, const Tensor& out) {
  padForward("replication_pad3d", self, padding, PadMode::kReplicate, 3, out);
}

void reflection_pad1d_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                                       const Tensor& grad_input) {
  padBackward("reflection_pad1d_backward", grad_output, self, padding, PadMode::kReflect, 1, grad_input);
}

void reflection_pad2d_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                                       const Tensor& grad_input) {
  padBackward("reflection_pad2d_backward", grad_output, self, padding, PadMode::kReflect, 2, grad_input);
}

void reflection_pad3d_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                                       const Tensor& grad_input) {
  padBackward("reflection_pad3d_backward", grad_output, self, padding, PadMode::kReflect, 3, grad_input);
}

void replication_pad1d_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                                        const Tensor& grad_input) {
  padBackward("replication_pad1d_backward", grad_output, self, padding, PadMode::kReplicate, 1, grad_input);
}

void replication_pad2d_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                                        const Tensor& grad_input) {
  padBackward("replication_pad2d_backward", grad_output, self, padding, PadMode::kReplicate, 2, grad_input);
}

void replication_pad3d_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                                        const Tensor& grad_input) {
  padBackward("replication_pad3d_backward", grad_output, self, padding, PadMode::kReplicate, 3, grad_input);
}

}  // namespace opcore::native

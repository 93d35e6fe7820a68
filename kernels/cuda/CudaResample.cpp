// The CUDA kernels of the reflection and replication paddings and of the 2-d nearest and
// bilinear upsamplings, forward and backward (structured: their meta functions have checked
// the arguments and prepared the outputs), on the CPU kernels' geometry and source indices
// (common/Resample.h, common/Upsample.h). Each is separable: along each of its dimensions an
// output index reads one input index (two, weighted, for bilinear), so the forward is an
// index_select per dimension (weighted and added for bilinear) and the backward an index_add
// per dimension back to the input's size, the last dimension first, in float for 16-bit
// dtypes. Bilinear weighs along the rows, then along the columns: the CPU's products in
// another order.
#include "CudaOperands.h"

#include "common/Resample.h"
#include "common/Upsample.h"

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
#include <opcore/ops/upsample_bilinear2d_backward_native.h>
#include <opcore/ops/upsample_bilinear2d_native.h>
#include <opcore/ops/upsample_nearest2d_backward_native.h>
#include <opcore/ops/upsample_nearest2d_native.h>
#include <opcore/ops/zeros.h>

#include <cstring>
#include <vector>

namespace opcore::native {
namespace {

// One dimension of a separable resampling: output index o reads input index index[o], times
// weight[o] when weighted (the weights in the dtype computed in).
struct Axis {
  int64_t dim;   // negative: from the last
  int64_t size;  // the input's size along it
  Tensor index;
  Tensor weight;  // undefined: unweighted
};

Tensor onDeviceOf(const std::vector<int64_t>& values, const Tensor& like) {
  Tensor host = detail::emptyCpu({static_cast<int64_t>(values.size())}, ScalarType::Long);
  if (!values.empty()) std::memcpy(host.data_ptr(), values.data(), values.size() * sizeof(int64_t));
  return host.to(like.device());
}

// `weight` ([n]) viewed to broadcast along dimension `dim` (negative) of x.
Tensor along(const Tensor& weight, int64_t dim) {
  std::vector<int64_t> shape(static_cast<size_t>(-dim), 1);
  shape[0] = -1;
  return weight.reshape(shape);
}

Tensor forward(Tensor x, const std::vector<std::vector<Axis>>& axes) {
  for (const std::vector<Axis>& terms : axes) {  // per dimension: one term, or bilinear's two
    Tensor y;
    for (const Axis& a : terms) {
      Tensor t = x.index_select(a.dim, a.index);
      if (a.weight.defined()) t = t.mul(along(a.weight, a.dim));
      y = y.defined() ? y.add(t) : t;
    }
    x = y;
  }
  return x;
}

Tensor backward(Tensor g, const std::vector<std::vector<Axis>>& axes) {
  for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
    std::vector<int64_t> shape = g.sizes().vec();
    const int64_t dim = it->front().dim;
    shape[shape.size() - static_cast<size_t>(-dim)] = it->front().size;
    const Tensor sums = opcore::zeros(shape, g.options());
    for (const Axis& a : *it) sums.index_add_(a.dim, a.index, a.weight.defined() ? g.mul(along(a.weight, a.dim)) : g);
    g = sums;
  }
  return g;
}

// A padding's axes: its last `spatial` dimensions, each output index read from padSource's.
std::vector<std::vector<Axis>> padAxes(const PadShape& p, const Tensor& like) {
  const int64_t sizes[3] = {p.depth, p.height, p.width}, outs[3] = {p.out_depth, p.out_height, p.out_width};
  const int64_t before[3] = {p.pad_front, p.pad_top, p.pad_left};
  std::vector<std::vector<Axis>> axes;
  for (int k = 3 - p.spatial; k < 3; ++k) {
    std::vector<int64_t> source(static_cast<size_t>(outs[k]));
    for (int64_t o = 0; o < outs[k]; ++o) source[static_cast<size_t>(o)] = padSource(o, before[k], sizes[k], p.mode);
    axes.push_back({Axis{k - 3, sizes[k], onDeviceOf(source, like), Tensor()}});
  }
  return axes;
}

void padForward(const char* name, const Tensor& self, IntArrayRef padding, PadMode mode, int spatial,
                const Tensor& out) {
  const PadShape p = checkPad(name, self, padding, mode, spatial);
  out.copy_(forward(self, padAxes(p, self)));
}

void padBackward(const char* name, const Tensor& grad_output, const Tensor& self, IntArrayRef padding, PadMode mode,
                 int spatial, const Tensor& grad_input) {
  const PadShape p = checkPad(name, self, padding, mode, spatial);
  checkPadGradOutput(p, grad_output, self);
  grad_input.copy_(backward(grad_output.to(cuda::opmathType(grad_output.scalar_type())), padAxes(p, self)));
}

std::vector<std::vector<Axis>> nearestAxes(const Upsample2d& u, std::optional<double> scales_h,
                                           std::optional<double> scales_w, const Tensor& like) {
  return {{Axis{-2, u.height, onDeviceOf(nearestTable(u.height, u.out_height, scales_h), like), Tensor()}},
          {Axis{-1, u.width, onDeviceOf(nearestTable(u.width, u.out_width, scales_w), like), Tensor()}}};
}

// Bilinear's axes: along each dimension the two neighbours of linearTable, weighted (in T,
// the dtype computed in: float for 16-bit dtypes).
template <typename T>
std::vector<Axis> linearAxis(int64_t dim, int64_t in, int64_t out, bool align_corners, std::optional<double> scale,
                             const Tensor& like) {
  std::vector<int64_t> i0, i1;
  Tensor w0 = detail::emptyCpu({out}, like.scalar_type()), w1 = detail::emptyCpu({out}, like.scalar_type());
  int64_t o = 0;
  for (const Linear<T>& l : linearTable<T>(in, out, align_corners, scale)) {
    i0.push_back(l.i0);
    i1.push_back(l.i1);
    w0.data_ptr<T>()[o] = l.w0;
    w1.data_ptr<T>()[o++] = l.w1;
  }
  return {Axis{dim, in, onDeviceOf(i0, like), w0.to(like.device())},
          Axis{dim, in, onDeviceOf(i1, like), w1.to(like.device())}};
}

std::vector<std::vector<Axis>> bilinearAxes(const Upsample2d& u, bool align_corners, std::optional<double> scales_h,
                                            std::optional<double> scales_w, const Tensor& like) {
  if (like.scalar_type() == ScalarType::Double) {
    return {linearAxis<double>(-2, u.height, u.out_height, align_corners, scales_h, like),
            linearAxis<double>(-1, u.width, u.out_width, align_corners, scales_w, like)};
  }
  return {linearAxis<float>(-2, u.height, u.out_height, align_corners, scales_h, like),
          linearAxis<float>(-1, u.width, u.out_width, align_corners, scales_w, like)};
}

}  // namespace

// ---- paddings ---------------------------------------------------------------------------------------

void reflection_pad1d_out_cuda(const Tensor& self, IntArrayRef padding, const Tensor& out) {
  padForward("reflection_pad1d", self, padding, PadMode::kReflect, 1, out);
}

void reflection_pad2d_out_cuda(const Tensor& self, IntArrayRef padding, const Tensor& out) {
  padForward("reflection_pad2d", self, padding, PadMode::kReflect, 2, out);
}

void reflection_pad3d_out_cuda(const Tensor& self, IntArrayRef padding, const Tensor& out) {
  padForward("reflection_pad3d", self, padding, PadMode::kReflect, 3, out);
}

void replication_pad1d_out_cuda(const Tensor& self, IntArrayRef padding, const Tensor& out) {
  padForward("replication_pad1d", self, padding, PadMode::kReplicate, 1, out);
}

void replication_pad2d_out_cuda(const Tensor& self, IntArrayRef padding, const Tensor& out) {
  padForward("replication_pad2d", self, padding, PadMode::kReplicate, 2, out);
}

void replication_pad3d_out_cuda(const Tensor& self, IntArrayRef padding, const Tensor& out) {
  padForward("replication_pad3d", self, padding, PadMode::kReplicate, 3, out);
}

void reflection_pad1d_backward_out_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                                        const Tensor& grad_input) {
  padBackward("reflection_pad1d_backward", grad_output, self, padding, PadMode::kReflect, 1, grad_input);
}

void reflection_pad2d_backward_out_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                                        const Tensor& grad_input) {
  padBackward("reflection_pad2d_backward", grad_output, self, padding, PadMode::kReflect, 2, grad_input);
}

void reflection_pad3d_backward_out_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                                        const Tensor& grad_input) {
  padBackward("reflection_pad3d_backward", grad_output, self, padding, PadMode::kReflect, 3, grad_input);
}

void replication_pad1d_backward_out_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                                         const Tensor& grad_input) {
  padBackward("replication_pad1d_backward", grad_output, self, padding, PadMode::kReplicate, 1, grad_input);
}

void replication_pad2d_backward_out_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                                         const Tensor& grad_input) {
  padBackward("replication_pad2d_backward", grad_output, self, padding, PadMode::kReplicate, 2, grad_input);
}

void replication_pad3d_backward_out_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                                         const Tensor& grad_input) {
  padBackward("replication_pad3d_backward", grad_output, self, padding, PadMode::kReplicate, 3, grad_input);
}

// ---- upsamplings ------------------------------------------------------------------------------------

void upsample_nearest2d_out_cuda(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                                 std::optional<double> scales_w, const Tensor& out) {
  const Upsample2d u = checkUpsample2d(self.sizes(), output_size);
  out.copy_(forward(self, nearestAxes(u, scales_h, scales_w, self)));
}

void upsample_nearest2d_backward_out_cuda(const Tensor& grad_output, IntArrayRef output_size,
                                          IntArrayRef input_size, std::optional<double> scales_h,
                                          std::optional<double> scales_w, const Tensor& grad_input) {
  const Upsample2d u = checkUpsample2d(input_size, output_size);
  checkUpsampleGradOutput(u, grad_output);
  const Tensor g = grad_output.to(cuda::opmathType(grad_output.scalar_type()));
  grad_input.copy_(backward(g, nearestAxes(u, scales_h, scales_w, g)));
}

void upsample_bilinear2d_out_cuda(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                  std::optional<double> scales_h, std::optional<double> scales_w, const Tensor& out) {
  const Upsample2d u = checkUpsample2d(self.sizes(), output_size);
  const Tensor x = self.to(cuda::opmathType(self.scalar_type()));
  out.copy_(forward(x, bilinearAxes(u, align_corners, scales_h, scales_w, x)));
}

void upsample_bilinear2d_backward_out_cuda(const Tensor& grad_output, IntArrayRef output_size,
                                           IntArrayRef input_size, bool align_corners, std::optional<double> scales_h,
                                           std::optional<double> scales_w, const Tensor& grad_input) {
  const Upsample2d u = checkUpsample2d(input_size, output_size);
  checkUpsampleGradOutput(u, grad_output);
  const Tensor g = grad_output.to(cuda::opmathType(grad_output.scalar_type()));
  grad_input.copy_(backward(g, bilinearAxes(u, align_corners, scales_h, scales_w, g)));
}

}  // namespace opcore::native

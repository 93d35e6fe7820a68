// The CUDA kernels of the poolings: max_pool2d_with_indices and max_pool3d_with_indices and
// their backward operators (structured: their meta functions in common/PoolingMeta.cpp have
// checked the arguments and prepared the outputs), avg_pool2d / avg_pool3d (structured too)
// and _adaptive_avg_pool2d / _adaptive_avg_pool3d and their backward operators, with the CPU
// kernels' geometry and checks (common/Pooling.h) and errors. Max pooling's backward is a
// scatter_add of the gradient at the indices, plane by plane; average pooling's adds each
// output's share over its window atomically: both sum in float for 16-bit dtypes, in the GPU's
// order.
#include "CudaOperands.h"

#include "common/Pooling.h"

#include <opcore/ops/_adaptive_avg_pool2d_backward_native.h>
#include <opcore/ops/_adaptive_avg_pool2d_native.h>
#include <opcore/ops/_adaptive_avg_pool3d_backward_native.h>
#include <opcore/ops/_adaptive_avg_pool3d_native.h>
#include <opcore/ops/avg_pool2d_backward_native.h>
#include <opcore/ops/avg_pool2d_native.h>
#include <opcore/ops/avg_pool3d_backward_native.h>
#include <opcore/ops/avg_pool3d_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/max_pool2d_with_indices_backward_native.h>
#include <opcore/ops/max_pool2d_with_indices_native.h>
#include <opcore/ops/max_pool3d_with_indices_backward_native.h>
#include <opcore/ops/max_pool3d_with_indices_native.h>
#include <opcore/ops/zeros.h>

#include <array>
#include <optional>

namespace opcore::native {
namespace {

cuda::PoolWindow windowOf(const Pool2d& p) {
  cuda::PoolWindow w;
  w.kd = p.kd, w.kh = p.kh, w.kw = p.kw, w.sd = p.sd, w.sh = p.sh, w.sw = p.sw;
  w.pd = p.pd, w.ph = p.ph, w.pw = p.pw, w.dd = p.dd, w.dh = p.dh, w.dw = p.dw;
  w.planes = p.planes, w.depth = p.depth, w.height = p.height, w.width = p.width;
  w.out_depth = p.out_depth, w.out_height = p.out_height, w.out_width = p.out_width;
  return w;
}

void maxPoolForward(const char* name, const Tensor& self, const Pool2d& p, const Tensor& out, const Tensor& indices) {
  const Tensor src = self.contiguous();
  const Tensor values = cuda::contiguousOutput(out), where = cuda::contiguousOutput(indices);
  cuda::launchMaxPool(self.scalar_type(), name, windowOf(p), static_cast<const char*>(src.data_ptr()),
                      static_cast<char*>(values.data_ptr()), where.data_ptr<int64_t>());
  cuda::copyBack(out, values);
  cuda::copyBack(indices, where);
}

void maxPoolBackward(const char* name, bool volume, const Tensor& grad_output, const Pool2d& p,
                     const Tensor& indices, const Tensor& grad_input) {
  const int64_t plane = p.depth * p.height * p.width, out_plane = p.out_depth * p.out_height * p.out_width;
  const Tensor where = indices.contiguous().view({p.planes, out_plane});
  // every index inside its plane before anything is written, with the CPU kernel's error
  if (const std::optional<int64_t> bad = cuda::badIndex(where, plane)) {
    if (!volume) {
      OPCORE_CHECK_INDEX(false, name, ": index ", *bad, " is out of range for a plane of ", p.height, " x ", p.width);
    }
    OPCORE_CHECK_INDEX(false, name, ": index ", *bad, " is out of range for a volume of ", p.depth, " x ", p.height,
                       " x ", p.width);
  }
  const ScalarType acc = cuda::opmathType(grad_output.scalar_type());
  const Tensor sums = opcore::zeros({p.planes, plane}, grad_output.options().dtype(acc));
  sums.scatter_add_(1, where, grad_output.contiguous().view({p.planes, out_plane}).to(acc));
  grad_input.copy_(sums.view(grad_input.sizes()));
}

cuda::AvgPoolProblem avgProblem(const Pool2d& p, bool count_include_pad, std::optional<int64_t> divisor_override) {
  cuda::AvgPoolProblem problem;
  problem.w = windowOf(p);
  problem.count_include_pad = count_include_pad;
  problem.divisor_override = divisor_override.value_or(0);
  return problem;
}

// An adaptive pooling of self's last three dimensions `in` (a 2-d one: of depth 1) to `outs`.
cuda::AvgPoolProblem adaptiveProblem(const Tensor& self, std::array<int64_t, 3> in, std::array<int64_t, 3> outs) {
  cuda::AvgPoolProblem problem;
  problem.adaptive = true;
  cuda::PoolWindow& w = problem.w;
  w.depth = in[0], w.height = in[1], w.width = in[2];
  w.out_depth = outs[0], w.out_height = outs[1], w.out_width = outs[2];
  const int64_t plane = in[0] * in[1] * in[2];
  w.planes = plane == 0 ? 0 : self.numel() / plane;
  return problem;
}

void avgPoolForward(const char* name, const Tensor& self, const cuda::AvgPoolProblem& problem, const Tensor& out) {
  const Tensor src = self.contiguous();
  const Tensor values = cuda::contiguousOutput(out);
  cuda::launchAvgPool(self.scalar_type(), name, problem, static_cast<const char*>(src.data_ptr()),
                      static_cast<char*>(values.data_ptr()));
  cuda::copyBack(out, values);
}

void avgPoolBackward(const char* name, const Tensor& grad_output, const cuda::AvgPoolProblem& problem,
                     const Tensor& grad_input) {
  const Tensor g = grad_output.contiguous();
  const Tensor sums =
      opcore::zeros(grad_input.sizes(), grad_input.options().dtype(cuda::opmathType(grad_input.scalar_type())));
  cuda::launchAvgPoolBackward(grad_output.scalar_type(), name, problem, static_cast<const char*>(g.data_ptr()),
                              sums.data_ptr());
  grad_input.copy_(sums);
}

}  // namespace

void max_pool2d_with_indices_out_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                      IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, const Tensor& out,
                                      const Tensor& indices) {
  const Pool2d p = checkMaxPool2d(self, kernel_size, stride, padding, dilation, ceil_mode);
  maxPoolForward("max_pool2d", self, p, out, indices);
}

void max_pool2d_with_indices_backward_out_cuda(const Tensor& grad_output, const Tensor& self,
                                               IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                               IntArrayRef dilation, bool ceil_mode, const Tensor& indices,
                                               const Tensor& grad_input) {
  const Pool2d p = checkMaxPool2d(self, kernel_size, stride, padding, dilation, ceil_mode);
  maxPoolBackward("max_pool2d_with_indices_backward", false, grad_output, p, indices, grad_input);
}

void max_pool3d_with_indices_out_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                      IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, const Tensor& out,
                                      const Tensor& indices) {
  const Pool2d p = checkMaxPool3d(self, kernel_size, stride, padding, dilation, ceil_mode);
  maxPoolForward("max_pool3d_with_indices_cuda", self, p, out, indices);
}

void max_pool3d_with_indices_backward_out_cuda(const Tensor& grad_output, const Tensor& self,
                                               IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                               IntArrayRef dilation, bool ceil_mode, const Tensor& indices,
                                               const Tensor& grad_input) {
  const Pool2d p = checkMaxPool3d(self, kernel_size, stride, padding, dilation, ceil_mode);
  maxPoolBackward("max_pool3d_with_indices_backward", true, grad_output, p, indices, grad_input);
}

// ---- average pooling -------------------------------------------------------------------------

void avg_pool2d_out_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                         bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                         const Tensor& out) {
  const Pool2d p = checkAvgPool2d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  avgPoolForward("avg_pool2d", self, avgProblem(p, count_include_pad, divisor_override), out);
}

void avg_pool2d_backward_out_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                  IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                  std::optional<int64_t> divisor_override, const Tensor& grad_input) {
  const Pool2d p = checkAvgPool2d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  checkAvgPool2dGradOutput(grad_output, self, p);
  avgPoolBackward("avg_pool2d_backward", grad_output, avgProblem(p, count_include_pad, divisor_override),
                  grad_input);
}

void avg_pool3d_out_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                         bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                         const Tensor& out) {
  const Pool2d p = checkAvgPool3d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  avgPoolForward("avg_pool3d", self, avgProblem(p, count_include_pad, divisor_override), out);
}

void avg_pool3d_backward_out_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                  IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                  std::optional<int64_t> divisor_override, const Tensor& grad_input) {
  const Pool2d p = checkAvgPool3d(self, kernel_size, stride, padding, ceil_mode, divisor_override);
  checkAvgPool3dGradOutput(grad_output, self, p);
  avgPoolBackward("avg_pool3d_backward", grad_output, avgProblem(p, count_include_pad, divisor_override),
                  grad_input);
}

Tensor adaptive_avg_pool2d_cuda(const Tensor& self, IntArrayRef output_size) {
  const Tensor out = opcore::empty(checkAdaptiveAvgPool2d(self, output_size), self.options());
  avgPoolForward("adaptive_avg_pool2d", self,
                 adaptiveProblem(self, {1, self.size(-2), self.size(-1)}, {1, output_size[0], output_size[1]}), out);
  return out;
}

Tensor adaptive_avg_pool2d_backward_cuda(const Tensor& grad_output, const Tensor& self) {
  checkAdaptiveAvgPool2dBackward(grad_output, self);
  const Tensor grad_input = opcore::empty(self.sizes(), self.options());
  avgPoolBackward("adaptive_avg_pool2d_backward", grad_output,
                  adaptiveProblem(self, {1, self.size(-2), self.size(-1)},
                                  {1, grad_output.size(-2), grad_output.size(-1)}),
                  grad_input);
  return grad_input;
}

Tensor adaptive_avg_pool3d_cuda(const Tensor& self, IntArrayRef output_size) {
  const Tensor out = opcore::empty(checkAdaptiveAvgPool3d(self, output_size), self.options());
  avgPoolForward("adaptive_avg_pool3d_cuda", self,
                 adaptiveProblem(self, {self.size(-3), self.size(-2), self.size(-1)},
                                 {output_size[0], output_size[1], output_size[2]}),
                 out);
  return out;
}

Tensor adaptive_avg_pool3d_backward_cuda(const Tensor& grad_output, const Tensor& self) {
  checkAdaptiveAvgPool3dBackward(grad_output, self);
  const Tensor grad_input = opcore::empty(self.sizes(), self.options());
  avgPoolBackward("adaptive_avg_pool3d_backward_cuda", grad_output,
                  adaptiveProblem(self, {self.size(-3), self.size(-2), self.size(-1)},
                                  {grad_output.size(-3), grad_output.size(-2), grad_output.size(-1)}),
                  grad_input);
  return grad_input;
}

}  // namespace opcore::native

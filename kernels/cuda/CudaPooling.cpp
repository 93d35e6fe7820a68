// The CUDA kernels of max_pool2d_with_indices and max_pool3d_with_indices and their backward
// operators (structured: their meta functions in common/PoolingMeta.cpp have checked the
// arguments and prepared the outputs), with the CPU kernels' geometry (common/Pooling.h) and
// errors. The backward is a scatter_add of the gradient at the indices, plane by plane,
// summed in float for 16-bit dtypes (the order of the additions is the GPU's).
#include "CudaOperands.h"

#include "common/Pooling.h"

#include <opcore/ops/empty.h>
#include <opcore/ops/max_pool2d_with_indices_backward_native.h>
#include <opcore/ops/max_pool2d_with_indices_native.h>
#include <opcore/ops/max_pool3d_with_indices_backward_native.h>
#include <opcore/ops/max_pool3d_with_indices_native.h>
#include <opcore/ops/zeros.h>

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

}  // namespace opcore::native

// The CUDA kernels of _softmax, _log_softmax and their backward (structured: the meta
// functions have checked the operands, wrapped dim and chosen out's dtype). The softmax
// dimension is moved last and the rows made contiguous, the kernels of CudaSoftmaxKernels.cu
// run over them, and the result is written back in out's layout.
#include "CudaOperands.h"

#include "cpu/Loops.h"

#include <opcore/core/Empty.h>
#include <opcore/ops/_log_softmax_backward_data_native.h>
#include <opcore/ops/_log_softmax_native.h>
#include <opcore/ops/_softmax_backward_data_native.h>
#include <opcore/ops/_softmax_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/movedim.h>

namespace opcore::native {
namespace {

// t with `dim` last, contiguous (t itself when it already is).
Tensor rowsOf(const Tensor& t, int64_t dim) {
  if (t.dim() == 0) return t.contiguous();
  return opcore::movedim(t, dim, -1).contiguous();
}

// The rows' results, written into out (moving the last dimension back to `dim`).
void storeRows(const Tensor& rows, const Tensor& out, int64_t dim) {
  if (rows.is_same(out)) return;
  if (out.dim() == 0) {
    out.copy_(rows);
    return;
  }
  opcore::movedim(out, dim, -1).copy_(rows);
}

// A contiguous buffer for the rows of the result: out itself when its rows are already those.
Tensor resultRows(const Tensor& out, int64_t dim, std::initializer_list<const Tensor*> inputs) {
  const bool last = out.dim() == 0 || dim == out.dim() - 1;
  bool apart = true;
  for (const Tensor* t : inputs) apart = apart && !cpu::sharesStorage(*t, out);
  if (last && out.is_contiguous() && apart) return out;
  Tensor moved = out.dim() == 0 ? out : opcore::movedim(out, dim, -1);
  return opcore::empty(moved.sizes(), out.options());
}

void forward(bool log, const char* name, const Tensor& self, int64_t dim, const Tensor& out) {
  cpu::checkNoInternalOverlap(out);
  dim = self.dim() == 0 ? 0 : self.wrapDim(dim);
  if (self.numel() == 0) return;  // any dtype, as PyTorch's
  const Tensor x = rowsOf(self, dim);
  const Tensor y = resultRows(out, dim, {&x});
  const int64_t len = self.dim() == 0 ? 1 : self.size(dim);
  cuda::launchSoftmax(log, name, x.scalar_type(), y.scalar_type(), static_cast<const char*>(x.data_ptr()),
                      static_cast<char*>(y.data_ptr()), x.numel() / len, len);
  storeRows(y, out, dim);
}

void backward(bool log, const char* name, const Tensor& grad, const Tensor& output, int64_t dim,
              const Tensor& grad_input) {
  cpu::checkNoInternalOverlap(grad_input);
  dim = grad.dim() == 0 ? 0 : grad.wrapDim(dim);
  if (grad.numel() == 0) return;
  const Tensor g = rowsOf(grad, dim), y = rowsOf(output.to(grad.scalar_type()), dim);
  const Tensor out = resultRows(grad_input, dim, {&g, &y});
  const int64_t len = grad.dim() == 0 ? 1 : grad.size(dim);
  cuda::launchSoftmaxBackward(log, name, g.scalar_type(), out.scalar_type(), static_cast<const char*>(g.data_ptr()),
                              static_cast<const char*>(y.data_ptr()), static_cast<char*>(out.data_ptr()),
                              g.numel() / len, len);
  storeRows(out, grad_input, dim);
}

}  // namespace

void softmax_cuda_out(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out) {
  (void)half_to_float;  // the meta function chose out's dtype
  forward(false, "softmax", self, dim, out);
}

void log_softmax_cuda_out(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out) {
  (void)half_to_float;
  forward(true, "log_softmax", self, dim, out);
}

void softmax_backward_cuda_out(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype,
                               const Tensor& grad_input) {
  (void)input_dtype;  // the meta function chose grad_input's dtype
  backward(false, "softmax_backward", grad_output, output, dim, grad_input);
}

void log_softmax_backward_cuda_out(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                   ScalarType input_dtype, const Tensor& out) {
  (void)input_dtype;
  backward(true, "log_softmax_backward", grad_output, output, dim, out);
}

}  // namespace opcore::native

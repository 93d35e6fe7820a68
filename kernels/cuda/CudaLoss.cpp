// The CUDA kernels of nll_loss_forward and nll_loss_backward (structured: the meta functions in
// common/LossMeta.cpp have checked the shapes and prepared the outputs). A target that is
// neither a class nor ignore_index raises PyTorch's IndexError before anything is written, as
// on the CPU: the targets are checked on the GPU and one flag read back (a copy that waits for
// the stream, where PyTorch's CUDA kernels assert on the device and lose the process's GPU).
#include "CudaOperands.h"

#include <opcore/core/Reduction.h>
#include <opcore/ops/nll_loss_backward_native.h>
#include <opcore/ops/nll_loss_forward_native.h>

#include <optional>

namespace opcore::native {
namespace {

// The operands of both kernels, the targets checked; the tensors they point into.
struct Operands {
  cuda::NllLossProblem problem;
  Tensor x, target, weight;
};

// PyTorch's IndexError for the first target that is neither a class nor ignore_index.
void checkTargets(const Tensor& target, int64_t classes, int64_t ignore_index) {
  const Tensor bad = target.ne(ignore_index).logical_and(target.lt(0).logical_or(target.ge(classes)));
  if (!bad.any().item<bool>()) return;
  const Tensor t = target.to(Device(DeviceType::CPU));
  const int64_t* p = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    OPCORE_CHECK_INDEX(p[i] == ignore_index || (p[i] >= 0 && p[i] < classes), "Target ", p[i], " is out of bounds.");
  }
}

Operands operandsOf(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                    int64_t ignore_index) {
  Operands o;
  o.target = target.to(kLong).contiguous();
  checkTargets(o.target, self.size(-1), ignore_index);
  o.x = self.contiguous();
  if (weight && weight->defined()) o.weight = weight->to(self.scalar_type()).contiguous();
  cuda::NllLossProblem& p = o.problem;
  p.x = static_cast<const char*>(o.x.data_ptr());
  p.target = o.target.data_ptr<int64_t>();
  p.weight = o.weight.defined() ? static_cast<const char*>(o.weight.data_ptr()) : nullptr;
  p.classes = self.size(-1);
  p.batch = self.dim() == 2 ? self.size(0) : 1;
  p.ignore_index = ignore_index;
  p.reduction = reduction;
  p.per_element = reduction == Reduction::None && self.dim() == 2;
  return o;
}

}  // namespace

void nll_loss_forward_out_cuda(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                               int64_t reduction, int64_t ignore_index, const Tensor& output,
                               const Tensor& total_weight) {
  const Operands o = operandsOf(self, target, weight, reduction, ignore_index);
  const Tensor out = cuda::contiguousOutput(output), total = cuda::contiguousOutput(total_weight);
  cuda::launchNllLoss(self.scalar_type(), o.problem, static_cast<char*>(out.data_ptr()),
                      static_cast<char*>(total.data_ptr()));
  cuda::copyBack(output, out);
  cuda::copyBack(total_weight, total);
}

void nll_loss_backward_out_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                                const Tensor& total_weight, const Tensor& grad_input) {
  const Operands o = operandsOf(self, target, weight, reduction, ignore_index);
  const Tensor g = grad_output.to(self.scalar_type()).contiguous();
  const Tensor total = total_weight.to(self.scalar_type()).contiguous();
  const Tensor out = cuda::contiguousOutput(grad_input);
  out.fill_(0);
  cuda::launchNllLossBackward(self.scalar_type(), o.problem, static_cast<const char*>(g.data_ptr()),
                              static_cast<const char*>(total.data_ptr()), static_cast<char*>(out.data_ptr()));
  cuda::copyBack(grad_input, out);
}

}  // namespace opcore::native

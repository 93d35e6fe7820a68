// The CUDA kernels of nll_loss_forward and nll_loss_backward (structured: the meta functions in
// common/LossMeta.cpp have checked the shapes and prepared the outputs). A target that is
// neither a class nor ignore_index raises PyTorch's IndexError, as on the CPU: the kernels
// flag it on the GPU and the flag is read back once they are done (a copy that waits for the
// stream, where PyTorch's CUDA kernels assert on the device and lose the process's GPU).
#include "CudaOperands.h"

#include <opcore/core/Reduction.h>
#include <opcore/ops/nll_loss_backward_native.h>
#include <opcore/ops/nll_loss_forward_native.h>

#include <optional>

namespace opcore::native {
namespace {

// The operands of both kernels; `keep` holds the contiguous copies they point into.
struct Operands {
  cuda::NllLossProblem problem;
  Tensor x, target, weight, bad;
};

Operands operandsOf(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                    int64_t ignore_index) {
  Operands o;
  o.x = self.contiguous();
  o.target = target.to(kLong).contiguous();
  if (weight && weight->defined()) o.weight = weight->to(self.scalar_type()).contiguous();
  o.bad = cuda::newFlag(self.device());
  cuda::NllLossProblem& p = o.problem;
  p.x = static_cast<const char*>(o.x.data_ptr());
  p.target = o.target.data_ptr<int64_t>();
  p.weight = o.weight.defined() ? static_cast<const char*>(o.weight.data_ptr()) : nullptr;
  p.classes = self.size(-1);
  p.batch = self.numel() / std::max<int64_t>(p.classes, 1);
  p.ignore_index = ignore_index;
  p.reduction = reduction;
  p.per_element = reduction == Reduction::None && self.dim() == 2;
  p.bad = o.bad.data_ptr<int>();
  return o;
}

// PyTorch's IndexError for the first bad target, found on the host once the kernel flagged one.
void checkTargets(const Operands& o) {
  if (!cuda::flagged(o.bad)) return;
  const Tensor t = o.target.to(Device(DeviceType::CPU));
  const int64_t* p = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    OPCORE_CHECK_INDEX(p[i] == o.problem.ignore_index || (p[i] >= 0 && p[i] < o.problem.classes), "Target ", p[i],
                       " is out of bounds.");
  }
}

}  // namespace

void nll_loss_forward_out_cuda(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                               int64_t reduction, int64_t ignore_index, const Tensor& output,
                               const Tensor& total_weight) {
  const Operands o = operandsOf(self, target, weight, reduction, ignore_index);
  const Tensor out = cuda::contiguousOutput(output), total = cuda::contiguousOutput(total_weight);
  cuda::launchNllLoss(self.scalar_type(), o.problem, static_cast<char*>(out.data_ptr()),
                      static_cast<char*>(total.data_ptr()));
  checkTargets(o);
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
  checkTargets(o);
  cuda::copyBack(grad_input, out);
}

}  // namespace opcore::native

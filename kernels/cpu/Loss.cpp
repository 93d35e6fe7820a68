// CPU loss kernels: nll_loss_forward and nll_loss_backward, the impls of the structured
// operators (their meta functions, with the checks, in common/LossMeta.cpp). One pass over the
// targets: a [N, C] input is read at one element per row, so there is nothing to vectorize,
// and the sums are accumulated in double, serially, so that results do not depend on the
// thread count. The backward's zero fill of its [N, C] result is threaded.
#include <opcore/core/Reduction.h>
#include <opcore/ops/nll_loss_backward_native.h>
#include <opcore/ops/nll_loss_forward_native.h>

#include "cpu/Loops.h"
#include "cpu/Output.h"

#include <cstring>
#include <optional>

namespace opcore::native {

namespace {

// The targets as contiguous Long (a Byte target converted), each checked to be a class or
// ignore_index before anything is written (PyTorch's IndexError).
TensorBase checkedTargets(const Tensor& target, int64_t classes, int64_t ignore_index) {
  const TensorBase t = cpu::convertTo(cpu::contiguousCopy(target), kLong);
  const int64_t* p = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    OPCORE_CHECK_INDEX(p[i] == ignore_index || (p[i] >= 0 && p[i] < classes), "Target ", p[i], " is out of bounds.");
  }
  return t;
}

}  // namespace

void nll_loss_forward_out_cpu(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                              int64_t reduction, int64_t ignore_index, const Tensor& output,
                              const Tensor& total_weight) {
  cpu::checkCpu("nll_loss_forward", {&self, &target, &output, &total_weight});
  const int64_t classes = self.size(-1), batch = self.dim() == 2 ? self.size(0) : 1;
  const TensorBase t = checkedTargets(target, classes, ignore_index);
  const TensorBase x = cpu::contiguousCopy(self);
  const std::optional<TensorBase> w =
      weight && weight->defined() ? std::optional<TensorBase>(cpu::contiguousCopy(*weight)) : std::nullopt;
  const TensorBase out = cpu::contiguousOutput(output);
  const int64_t* tp = t.data_ptr<int64_t>();
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), "nll_loss_forward", [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* wp = w ? w->data_ptr<scalar_t>() : nullptr;
    const auto weightOf = [&](int64_t c) { return wp ? static_cast<double>(static_cast<M>(wp[c])) : 1.0; };
    scalar_t* op = out.data_ptr<scalar_t>();
    if (reduction == Reduction::None && self.dim() == 2) {
      for (int64_t i = 0; i < batch; ++i) {
        const int64_t c = tp[i];
        op[i] = c == ignore_index ? scalar_t(0)
                                  : static_cast<scalar_t>(-weightOf(c) * static_cast<double>(static_cast<M>(xp[i * classes + c])));
      }
      *total_weight.data_ptr<scalar_t>() = scalar_t(0);
      return;
    }
    double sum = 0, weights = 0;
    for (int64_t i = 0; i < batch; ++i) {
      const int64_t c = tp[i];
      if (c == ignore_index) continue;
      const double wc = weightOf(c);
      sum -= wc * static_cast<double>(static_cast<M>(xp[i * classes + c]));
      weights += wc;
    }
    *op = static_cast<scalar_t>(reduction == Reduction::Mean ? sum / weights : sum);
    *total_weight.data_ptr<scalar_t>() = static_cast<scalar_t>(weights);
  });
  cpu::copyBack(output, out);
}

void nll_loss_backward_out_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                               const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                               const Tensor& total_weight, const Tensor& grad_input) {
  cpu::checkCpu("nll_loss_backward", {&grad_output, &self, &target, &total_weight, &grad_input});
  const int64_t classes = self.size(-1), batch = self.dim() == 2 ? self.size(0) : 1;
  const TensorBase t = checkedTargets(target, classes, ignore_index);
  const TensorBase g = cpu::contiguousCopy(grad_output);
  const std::optional<TensorBase> w =
      weight && weight->defined() ? std::optional<TensorBase>(cpu::contiguousCopy(*weight)) : std::nullopt;
  const TensorBase out = cpu::contiguousOutput(grad_input);
  const int64_t* tp = t.data_ptr<int64_t>();
  const bool per_element = reduction == Reduction::None && self.dim() == 2;
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), "nll_loss_backward", [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* gp = g.data_ptr<scalar_t>();
    const scalar_t* wp = w ? w->data_ptr<scalar_t>() : nullptr;
    scalar_t* op = out.data_ptr<scalar_t>();
    // Zeroing the gradient is the work (it is [N, C], of which N elements are then written):
    // threaded as a fill is.
    parallel_for(0, out.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
      std::memset(static_cast<void*>(op + begin), 0, static_cast<size_t>(end - begin) * sizeof(scalar_t));
    });
    const double total = static_cast<double>(static_cast<M>(*total_weight.data_ptr<scalar_t>()));
    for (int64_t i = 0; i < batch; ++i) {
      const int64_t c = tp[i];
      if (c == ignore_index) continue;
      double gi = static_cast<double>(static_cast<M>(gp[per_element ? i : 0]));
      if (reduction == Reduction::Mean) gi /= total;
      const double wc = wp ? static_cast<double>(static_cast<M>(wp[c])) : 1.0;
      op[i * classes + c] = static_cast<scalar_t>(-wc * gi);
    }
  });
  cpu::copyBack(grad_input, out);
}

}  // namespace opcore::native

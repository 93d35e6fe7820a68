// Loss functions written with other operators (their gradients come from those operators'):
// mse_loss, the mean, sum or elementwise squared difference; nll_loss, nll_loss_forward over
// any number of dimensions.
#include <opcore/core/Reduction.h>
#include <opcore/core/ScalarType.h>
#include <opcore/ops/mean.h>
#include <opcore/ops/movedim.h>
#include <opcore/ops/mse_loss_native.h>
#include <opcore/ops/nll_loss_forward.h>
#include <opcore/ops/nll_loss_native.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/sum.h>

namespace opcore::native {

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  // PyTorch's mse_loss takes floating dtypes only: without this check an integer or complex
  // loss was computed ((a - b)^2 of complex numbers is not a squared error) or failed inside
  // mean() with an error that did not name mse_loss.
  const ScalarType dtype = promoteTypes(self.scalar_type(), target.scalar_type());
  if (!isFloatingType(dtype)) detail::throwNotImplementedForDtype("mse_loss", dtype);
  const Tensor diff = opcore::sub(self, target);
  const Tensor squared = opcore::mul(diff, diff);
  switch (reduction) {
    case Reduction::None: return squared;
    case Reduction::Mean: return opcore::mean(squared);
    case Reduction::Sum: return opcore::sum(squared);
    default: OPCORE_FAIL("mse_loss(): reduction must be 0 (none), 1 (mean) or 2 (sum), got ", reduction);
  }
}

// nll_loss_forward takes [N, C] or [C]; an input [N, C, d1, ...] (target [N, d1, ...]) has its
// class dimension moved last and the others folded into the batch, as PyTorch's nll_loss_nd
// (whose 4-D case, nll_loss2d, computes the same sums).
Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                int64_t ignore_index) {
  OPCORE_CHECK(self.dim() >= 1, "input tensor should be 1D or 2D");
  OPCORE_CHECK(self.dim() == 1 || target.dim() == 0 || self.size(0) == target.size(0), "Expected input batch_size (",
               self.size(0), ") to match target batch_size (", target.dim() > 0 ? target.size(0) : 1, ").");
  if (self.dim() <= 2) return std::get<0>(opcore::nll_loss_forward(self, target, weight, reduction, ignore_index));
  std::vector<int64_t> expected = self.sizes().vec();
  expected.erase(expected.begin() + 1);
  OPCORE_CHECK(target.sizes().vec() == expected, "Expected target size ", IntArrayRef(expected), ", got ",
               target.sizes());
  const Tensor rows = self.movedim(1, -1).reshape({-1, self.size(1)});
  const Tensor loss = std::get<0>(opcore::nll_loss_forward(rows, target.reshape({-1}), weight, reduction, ignore_index));
  return reduction == Reduction::None ? loss.view(target.sizes()) : loss;
}

}  // namespace opcore::native

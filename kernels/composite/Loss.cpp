// Loss functions written with other operators (their gradients come from those operators'):
// mse_loss, the mean, sum or elementwise squared difference.
#include <opcore/core/Reduction.h>
#include <opcore/core/ScalarType.h>
#include <opcore/ops/mean.h>
#include <opcore/ops/mse_loss_native.h>
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

}  // namespace opcore::native

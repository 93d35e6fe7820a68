// Loss functions written with other operators (their gradients come from those operators'):
// mse_loss, the mean, sum or elementwise squared difference.
#include <opcore/core/Reduction.h>
#include <opcore/ops/mean.h>
#include <opcore/ops/mse_loss_native.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/sum.h>

namespace opcore::native {

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
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

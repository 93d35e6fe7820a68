// Loss functions written with other operators (their gradients come from those operators'):
// l1_loss, the mean, sum or elementwise absolute difference; kl_div; nll_loss, nll_loss_forward over
// any number of dimensions; cross_entropy_loss, nll_loss of log_softmax, with class
// probabilities and label smoothing as PyTorch composes them.
#include <opcore/core/Reduction.h>
#include <opcore/core/ScalarType.h>
#include <opcore/ops/abs.h>
#include <opcore/ops/add.h>
#include <opcore/ops/cross_entropy_loss_native.h>
#include <opcore/ops/div.h>
#include <opcore/ops/eq.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/gather.h>
#include <opcore/ops/kl_div_native.h>
#include <opcore/ops/l1_loss_native.h>
#include <opcore/ops/log.h>
#include <opcore/ops/log_softmax.h>
#include <opcore/ops/logical_not.h>
#include <opcore/ops/masked_fill.h>
#include <opcore/ops/masked_select.h>
#include <opcore/ops/mean.h>
#include <opcore/ops/movedim.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/neg.h>
#include <opcore/ops/nll_loss_forward.h>
#include <opcore/ops/nll_loss_native.h>
#include <opcore/ops/scalar_tensor.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/where.h>

namespace opcore::native {

// l1_loss as PyTorch composes it: |self - target|, then the reduction (its gradient comes from
// sub, abs, mean and sum).
Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  const Tensor loss = opcore::abs(opcore::sub(self, target));
  switch (reduction) {
    case Reduction::None: return loss;
    case Reduction::Mean: return opcore::mean(loss);
    case Reduction::Sum: return opcore::sum(loss);
    default: OPCORE_FAIL("l1_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), got ", reduction);
  }
}

// kl_div as PyTorch composes it: exp(target) * (target - self) for log-probabilities, else
// xlogy(target, target) - target * self, written target * log(target, with 1 where target is 0)
// (0 there, with a zero gradient; NaN stays NaN); then the reduction.
Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  OPCORE_CHECK(!isComplexType(self.scalar_type()) && !isComplexType(target.scalar_type()),
               "kl_div: Complex inputs not supported.");
  OPCORE_CHECK(isFloatingType(self.scalar_type()) && isFloatingType(target.scalar_type()),
               "kl_div: Integral inputs not supported.");
  Tensor loss;
  if (log_target) {
    loss = opcore::mul(opcore::exp(target), opcore::sub(target, self));
  } else {
    const Tensor log_target_or_0 = opcore::log(opcore::where(opcore::eq(target, 0), 1, target));
    loss = opcore::sub(opcore::mul(target, log_target_or_0), opcore::mul(target, self));
  }
  switch (reduction) {
    case Reduction::None: return loss;
    case Reduction::Mean: return opcore::mean(loss);
    case Reduction::Sum: return opcore::sum(loss);
    default: OPCORE_FAIL("kl_div: reduction must be 0 (none), 1 (mean) or 2 (sum), got ", reduction);
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

namespace {

// weight, viewed to broadcast along the class dimension of an input of `dim` dimensions.
Tensor classWeights(const Tensor& weight, int64_t dim, int64_t class_dim) {
  std::vector<int64_t> shape(static_cast<size_t>(dim), 1);
  shape[static_cast<size_t>(class_dim)] = weight.size(0);
  return weight.view(shape);
}

Tensor reduced(const Tensor& losses, int64_t reduction, const Tensor& divisor) {
  switch (reduction) {
    case Reduction::None: return losses;
    case Reduction::Sum: return opcore::sum(losses);
    default: return opcore::div(opcore::sum(losses), divisor);
  }
}

// A floating target of the input's shape: class probabilities.
Tensor crossEntropyWithProbabilities(const Tensor& log_probs, const Tensor& target, const std::optional<Tensor>& weight,
                                     int64_t reduction, double label_smoothing, int64_t class_dim) {
  const int64_t classes = log_probs.size(class_dim);
  const Tensor smoothed = label_smoothing > 0 ? opcore::add(opcore::mul(target, 1 - label_smoothing),
                                                            label_smoothing / static_cast<double>(classes))
                                              : target;
  Tensor terms = opcore::mul(log_probs, smoothed);
  if (weight && weight->defined()) terms = opcore::mul(terms, classWeights(*weight, log_probs.dim(), class_dim));
  const Tensor losses = opcore::neg(opcore::sum(terms, IntArrayRef{class_dim}));
  // Mean: over the batch (and further dimensions), the weights not divided out, as PyTorch's.
  const double count = static_cast<double>(log_probs.numel() / std::max<int64_t>(classes, 1));
  return reduced(losses, reduction, opcore::scalar_tensor(count == 0 ? NAN : count, log_probs.scalar_type()));
}

// Class indices with label smoothing: (1 - s) nll_loss + s / C times the sum of -log_probs over
// the classes (weighted), ignored targets counting for nothing; Mean divides that sum by the
// counted targets' weights, as nll_loss's mean does.
Tensor crossEntropyWithSmoothing(const Tensor& log_probs, const Tensor& target, const std::optional<Tensor>& weight,
                                 int64_t reduction, int64_t ignore_index, double label_smoothing, int64_t class_dim) {
  const Tensor nll = native::nll_loss(log_probs, target, weight, reduction, ignore_index);
  const bool weighted = weight && weight->defined();
  const Tensor weighted_log_probs =
      weighted ? opcore::mul(log_probs, classWeights(*weight, log_probs.dim(), class_dim)) : log_probs;
  const Tensor ignored = opcore::eq(target, ignore_index);
  const Tensor smooth = opcore::masked_fill(opcore::neg(opcore::sum(weighted_log_probs, IntArrayRef{class_dim})),
                                            ignored, 0.0);
  const Tensor counted = opcore::logical_not(ignored);
  const Tensor divisor = weighted ? opcore::sum(opcore::gather(*weight, 0, opcore::masked_select(target, counted)))
                                  : opcore::sum(counted);
  const Tensor smooth_loss = reduced(smooth, reduction, divisor);
  const double classes = static_cast<double>(log_probs.size(class_dim));
  return opcore::add(opcore::mul(nll, 1 - label_smoothing), opcore::mul(smooth_loss, label_smoothing / classes));
}

}  // namespace

Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  if (self.sizes() == target.sizes()) {  // PyTorch's rule: the same shape means class probabilities
    OPCORE_CHECK(isFloatingType(target.scalar_type()), "Expected floating point type for target with class "
                 "probabilities, got ", target.scalar_type());
    OPCORE_CHECK(ignore_index < 0, "ignore_index is not supported for floating point target");
    OPCORE_CHECK(label_smoothing <= 1, "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
    const int64_t classes = self.size(class_dim);
    OPCORE_CHECK(!weight || !weight->defined() || (weight->dim() == 1 && weight->numel() == classes),
                 "cross_entropy: weight tensor should be defined either for all ", classes,
                 " classes or no classes but got weight tensor of shape: ", weight ? weight->sizes() : IntArrayRef{});
    return crossEntropyWithProbabilities(opcore::log_softmax(self, class_dim, self.scalar_type()), target, weight,
                                         reduction, label_smoothing, class_dim);
  }
  const Tensor log_probs = opcore::log_softmax(self, class_dim, self.scalar_type());
  if (label_smoothing > 0) {
    OPCORE_CHECK(label_smoothing <= 1, "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
    return crossEntropyWithSmoothing(log_probs, target, weight, reduction, ignore_index, label_smoothing, class_dim);
  }
  return native::nll_loss(log_probs, target, weight, reduction, ignore_index);
}

}  // namespace opcore::native

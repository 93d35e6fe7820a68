// The random operators' argument checks (Random.h) and their Meta kernels, which check and
// draw nothing: a Meta tensor has no values, and the generator's state does not move.
#include "common/Random.h"

#include <opcore/ops/bernoulli_native.h>
#include <opcore/ops/multinomial_native.h>
#include <opcore/ops/normal_native.h>
#include <opcore/ops/random_native.h>
#include <opcore/ops/randperm_native.h>
#include <opcore/ops/uniform_native.h>

#include <opcore/core/Empty.h>

#include <cmath>
#include <limits>

namespace opcore::native {

void checkFloatingOutput(const char* name, const TensorBase& self) {
  OPCORE_CHECK(isFloatingType(self.scalar_type()), name, ": expected a floating-point tensor, got dtype ",
               toString(self.scalar_type()));
}

void checkUniformBounds(const char* name, double from, double to) {
  OPCORE_CHECK(std::isfinite(from) && std::isfinite(to), name, ": expects finite bounds, got from=", from,
               " and to=", to);
  OPCORE_CHECK(from <= to, name, ": expects to return a [from, to) range, but found from=", from, " > to=", to);
}

void checkNormalParameters(const char* name, double mean, double stddev) {
  OPCORE_CHECK(std::isfinite(mean), name, ": expects a finite mean, got ", mean);
  OPCORE_CHECK(std::isfinite(stddev) && stddev >= 0.0, name, ": expects a finite stddev >= 0, got ", stddev);
}

ExactIntegers exactIntegers(const char* name, ScalarType type) {
  const auto digits = [](int d) { return ExactIntegers{-(int64_t{1} << d), int64_t{1} << d}; };
  switch (type) {
    case ScalarType::Bool: return {0, 1};
    case ScalarType::Byte: return {0, 255};
    case ScalarType::Char: return {-128, 127};
    case ScalarType::Short: return {-32768, 32767};
    case ScalarType::Int: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case ScalarType::Long: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    case ScalarType::Half: return digits(11);
    case ScalarType::BFloat16: return digits(8);
    case ScalarType::Float: return digits(24);
    case ScalarType::Double: return digits(53);
    default: detail::throwNotImplementedForDtype(name, type);
  }
}

void checkRandpermOutput(int64_t n, const TensorBase& out) {
  OPCORE_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  const ScalarType type = out.scalar_type();
  OPCORE_CHECK(type != ScalarType::Bool && !isComplexType(type), "\"randperm\" not implemented for '", toString(type),
               "'");
  // The largest count whose values 0 .. n - 1 the dtype holds exactly (for a floating dtype,
  // its highest exact integer, as PyTorch's check).
  const int64_t highest = exactIntegers("randperm", type).highest;
  const int64_t limit =
      isFloatingType(type) || highest == std::numeric_limits<int64_t>::max() ? highest : highest + 1;
  OPCORE_CHECK(n <= limit, "randperm: n = ", n, " is too large for a result of dtype ", toString(type),
               ", which holds the values 0 .. n - 1 exactly only up to n = ", limit);
}

RandomRange randomRange(ScalarType type, int64_t from, std::optional<int64_t> to) {
  const ExactIntegers exact = exactIntegers("random_", type);
  if (to) {
    OPCORE_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", *to);
  }
  OPCORE_CHECK(from >= exact.lowest && from <= exact.highest, "random_: from=", from, " is out of bounds for dtype ",
               toString(type), ", whose integers are exact in [", exact.lowest, ", ", exact.highest, "]");
  const int64_t last = to ? *to - 1 : exact.highest;
  OPCORE_CHECK(last <= exact.highest, "random_: to - 1=", last, " is out of bounds for dtype ", toString(type),
               ", whose integers are exact in [", exact.lowest, ", ", exact.highest, "]");
  return {from, static_cast<uint64_t>(last) - static_cast<uint64_t>(from) + 1};  // 2^64 wraps to 0
}

void checkBernoulliOutput(const char* name, const TensorBase& self) {
  if (isComplexType(self.scalar_type())) detail::throwNotImplementedForDtype(name, self.scalar_type());
}

void checkBernoulliProbability(const char* name, double p) {
  OPCORE_CHECK(p >= 0 && p <= 1, name, " expects p to be in [0, 1], but got p=", p);
}

void checkBernoulliProbabilities(const char* name, const TensorBase& p, const TensorBase& self) {
  OPCORE_CHECK(isFloatingType(p.scalar_type()), name, ": expected a floating-point tensor of probabilities, got dtype ",
               toString(p.scalar_type()));
  OPCORE_CHECK(p.device() == self.device(), name, ": expected all tensors to be on the same device, but found at "
               "least two devices, ", self.device(), " (argument 'self') and ", p.device(), " (argument 'p')");
  OPCORE_CHECK(p.dim() <= self.dim(), name, ": the probabilities' shape ", p.sizes(),
               " cannot be broadcast to self's shape ", self.sizes());
  for (int64_t d = 1; d <= p.dim(); ++d) {
    const int64_t size = p.sizes()[static_cast<size_t>(p.dim() - d)];
    OPCORE_CHECK(size == 1 || size == self.sizes()[static_cast<size_t>(self.dim() - d)], name,
                 ": the probabilities' shape ", p.sizes(), " cannot be broadcast to self's shape ", self.sizes());
  }
}

void checkMultinomial(const TensorBase& self, int64_t num_samples, bool replacement, const TensorBase& out) {
  OPCORE_CHECK(isFloatingType(self.scalar_type()), "multinomial only supports floating-point dtypes for input, got: ",
               toString(self.scalar_type()));
  OPCORE_CHECK(self.dim() == 1 || self.dim() == 2, "prob_dist must be 1 or 2 dim, got ", self.dim());
  OPCORE_CHECK(num_samples > 0, "cannot sample n_sample <= 0 samples");
  const int64_t categories = self.sizes()[static_cast<size_t>(self.dim() - 1)];
  OPCORE_CHECK(replacement || num_samples <= categories,
               "cannot sample n_sample > prob_dist.size(-1) samples without replacement (", num_samples, " > ",
               categories, ")");
  OPCORE_CHECK(categories <= (int64_t{1} << 24), "number of categories cannot exceed 2^24, got ", categories);
  OPCORE_CHECK(out.scalar_type() == ScalarType::Long, "multinomial expects Long tensor out, got: ",
               toString(out.scalar_type()));
  OPCORE_CHECK(out.device() == self.device(), "multinomial: expected all tensors to be on the same device, but "
               "found at least two devices, ", self.device(), " (argument 'self') and ", out.device(),
               " (argument 'out')");
}

void checkMultinomialWeights(const double* weights, int64_t rows, int64_t categories, int64_t num_samples,
                             bool replacement) {
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = weights + r * categories;
    double sum = 0;
    int64_t positive = 0;
    for (int64_t j = 0; j < categories; ++j) {
      OPCORE_CHECK(std::isfinite(row[j]) && row[j] >= 0,
                   "multinomial: probability tensor contains either `inf`, `nan` or element < 0 (", row[j],
                   " in row ", r, ", category ", j, ")");
      sum += row[j];
      positive += row[j] > 0;
    }
    OPCORE_CHECK(sum > 0, "multinomial: invalid multinomial distribution (sum of probabilities <= 0) in row ", r);
    OPCORE_CHECK(replacement || positive >= num_samples, "multinomial: invalid multinomial distribution (with "
                 "replacement=False, not enough non-negative category to sample): row ", r, " has ", positive,
                 " positive weights for ", num_samples, " samples");
  }
}

std::vector<int64_t> multinomialShape(const TensorBase& self, int64_t num_samples) {
  if (self.dim() == 1) return {num_samples};
  return {self.sizes()[0], num_samples};
}

void checkGeneratorDevice(const char* name, const std::optional<Generator>& generator, Device device) {
  if (!generator || !generator->defined()) return;
  OPCORE_CHECK(generator->device().type() == device.type(), name, ": expected a generator on ",
               toString(device.type()), " for a tensor on ", device, ", got one on ", generator->device());
}

Tensor& uniform_meta_(Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  checkFloatingOutput("uniform_", self);
  checkUniformBounds("uniform_", from, to);
  checkGeneratorDevice("uniform_", generator, self.device());
  return self;
}

Tensor& normal_meta_(Tensor& self, double mean, double stddev, const std::optional<Generator>& generator) {
  checkFloatingOutput("normal_", self);
  checkNormalParameters("normal_", mean, stddev);
  checkGeneratorDevice("normal_", generator, self.device());
  return self;
}


Tensor& random_from_meta_(Tensor& self, int64_t from, std::optional<int64_t> to,
                          const std::optional<Generator>& generator) {
  randomRange(self.scalar_type(), from, to);
  checkGeneratorDevice("random_", generator, self.device());
  return self;
}

Tensor& random_to_meta_(Tensor& self, int64_t to, const std::optional<Generator>& generator) {
  return random_from_meta_(self, 0, to, generator);
}

Tensor& random_meta_(Tensor& self, const std::optional<Generator>& generator) {
  return random_from_meta_(self, 0, std::nullopt, generator);
}

Tensor& bernoulli_out_meta(const Tensor& self, const std::optional<Generator>& generator, Tensor& out) {
  checkBernoulliOutput("bernoulli", out);
  checkBernoulliProbabilities("bernoulli", self, self);
  checkGeneratorDevice("bernoulli", generator, out.device());
  detail::resizeOutput(out, self.sizes());
  return out;
}

Tensor& bernoulli_tensor_meta_(Tensor& self, const Tensor& p, const std::optional<Generator>& generator) {
  checkBernoulliOutput("bernoulli_", self);
  checkBernoulliProbabilities("bernoulli_", p, self);
  checkGeneratorDevice("bernoulli_", generator, self.device());
  return self;
}

Tensor& bernoulli_float_meta_(Tensor& self, double p, const std::optional<Generator>& generator) {
  checkBernoulliOutput("bernoulli_", self);
  checkBernoulliProbability("bernoulli_", p);
  checkGeneratorDevice("bernoulli_", generator, self.device());
  return self;
}

Tensor& multinomial_out_meta(const Tensor& self, int64_t num_samples, bool replacement,
                             const std::optional<Generator>& generator, Tensor& out) {
  checkMultinomial(self, num_samples, replacement, out);
  checkGeneratorDevice("multinomial", generator, out.device());
  detail::resizeOutput(out, multinomialShape(self, num_samples));
  return out;
}

Tensor& randperm_out_meta(int64_t n, const std::optional<Generator>& generator, Tensor& out) {
  checkRandpermOutput(n, out);
  checkGeneratorDevice("randperm", generator, out.device());
  detail::resizeOutput(out, {n});
  return out;
}

}  // namespace opcore::native

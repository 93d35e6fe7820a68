// The CUDA random kernels named in native_functions.yaml: uniform_, normal_, random_ (all three
// forms), bernoulli_ and bernoulli.out, native_dropout, multinomial and randperm. They take the
// CPU kernels' checks and draw the CPU kernels' numbers (CudaRandomKernels.cu) from `generator`
// or the CUDA default generator, so that a CUDA generator and a CPU one in the same state give
// the same tensors (opcore.manual_seed seeds both defaults alike).
#include "CudaOperands.h"

#include "common/Random.h"
#include "cpu/Loops.h"

#include <opcore/core/Empty.h>
#include <opcore/core/Generator.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/bernoulli_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/multinomial_native.h>
#include <opcore/ops/native_dropout_native.h>
#include <opcore/ops/normal_native.h>
#include <opcore/ops/random_native.h>
#include <opcore/ops/randperm_native.h>
#include <opcore/ops/uniform_native.h>
#include <opcore/ops/where.h>

#include <limits>
#include <optional>
#include <tuple>
#include <vector>

namespace opcore::native {
namespace {

// Reserves `blocks` Philox blocks for `self` (as the CPU kernels do: the same number for the
// same call), then has draw(stream, target, n) write self's n elements: into self when it is
// contiguous, else into a contiguous tensor copied into self.
template <typename Draw>
Tensor& drawInto(const char* name, Tensor& self, const std::optional<Generator>& generator, uint64_t blocks,
                 const Draw& draw) {
  checkGeneratorDevice(name, generator, self.device());
  cpu::checkNoInternalOverlap(self);
  const PhiloxBlocks reserved = generatorOrDefault(generator, DeviceType::CUDA).reserveBlocks(blocks);
  const int64_t n = self.numel();
  if (n == 0) return self;
  const Tensor target = self.is_contiguous() ? self : opcore::empty(self.sizes(), self.options());
  draw(cuda::RandomStream{reserved.seed, reserved.offset}, static_cast<char*>(target.data_ptr()), n);
  if (!target.is_same(self)) self.copy_(target);
  return self;
}

uint64_t pairs(const Tensor& t) { return static_cast<uint64_t>((t.numel() + 1) / 2); }

}  // namespace

Tensor& uniform_cuda_(Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  checkUniformBounds("uniform_", from, to);
  checkFloatingOutput("uniform_", self);
  return drawInto("uniform_", self, generator, pairs(self), [&](const cuda::RandomStream& s, char* out, int64_t n) {
    cuda::launchUniform(self.scalar_type(), s, out, n, from, to);
  });
}

Tensor& normal_cuda_(Tensor& self, double mean, double stddev, const std::optional<Generator>& generator) {
  checkNormalParameters("normal_", mean, stddev);
  checkFloatingOutput("normal_", self);
  return drawInto("normal_", self, generator, pairs(self), [&](const cuda::RandomStream& s, char* out, int64_t n) {
    cuda::launchNormal(self.scalar_type(), s, out, n, mean, stddev);
  });
}

Tensor& bernoulli_float_cuda_(Tensor& self, double p, const std::optional<Generator>& generator) {
  checkBernoulliOutput("bernoulli_", self);
  checkBernoulliProbability("bernoulli_", p);
  return drawInto("bernoulli_", self, generator, pairs(self), [&](const cuda::RandomStream& s, char* out, int64_t n) {
    cuda::launchBernoulli(self.scalar_type(), s, out, n, p);
  });
}

namespace {

// The probabilities of bernoulli(p) for self: p broadcast to self's shape, as contiguous doubles
// in a copy of their own (self may alias p), each checked to be in [0, 1] with the CPU's error.
Tensor probabilitiesOf(const char* name, const Tensor& p, const Tensor& self) {
  checkBernoulliProbabilities(name, p, self);
  const Tensor probs = p.expand(self.sizes()).to(ScalarType::Double).clone();
  if (!probs.ge(0).logical_and(probs.le(1)).all().item<bool>()) {
    const Tensor host = probs.to(Device(DeviceType::CPU));
    const double* v = host.data_ptr<double>();
    for (int64_t i = 0; i < host.numel(); ++i) {
      OPCORE_CHECK(v[i] >= 0 && v[i] <= 1, name, ": every probability must be in [0, 1], got ", v[i], " at element ",
                   i);
    }
  }
  return probs;
}

}  // namespace

Tensor& bernoulli_tensor_cuda_(Tensor& self, const Tensor& p, const std::optional<Generator>& generator) {
  checkBernoulliOutput("bernoulli_", self);
  const Tensor probs = probabilitiesOf("bernoulli_", p, self);
  return drawInto("bernoulli_", self, generator, pairs(self), [&](const cuda::RandomStream& s, char* out, int64_t n) {
    cuda::launchBernoulli(self.scalar_type(), s, out, n, 0, probs.data_ptr<double>());
  });
}

Tensor& bernoulli_out_cuda(const Tensor& self, const std::optional<Generator>& generator, Tensor& out) {
  checkBernoulliOutput("bernoulli", out);
  const Tensor probs = probabilitiesOf("bernoulli", self, self);
  detail::resizeOutput(out, self.sizes());
  return drawInto("bernoulli", out, generator, pairs(out), [&](const cuda::RandomStream& s, char* target, int64_t n) {
    cuda::launchBernoulli(out.scalar_type(), s, target, n, 0, probs.data_ptr<double>());
  });
}

Tensor& random_from_cuda_(Tensor& self, int64_t from, std::optional<int64_t> to,
                          const std::optional<Generator>& generator) {
  const RandomRange range = randomRange(self.scalar_type(), from, to);
  return drawInto("random_", self, generator, pairs(self), [&](const cuda::RandomStream& s, char* out, int64_t n) {
    cuda::launchRandom(self.scalar_type(), s, out, n, range.from, range.span);
  });
}

Tensor& random_to_cuda_(Tensor& self, int64_t to, const std::optional<Generator>& generator) {
  return random_from_cuda_(self, 0, to, generator);
}

Tensor& random_cuda_(Tensor& self, const std::optional<Generator>& generator) {
  return random_from_cuda_(self, 0, std::nullopt, generator);
}

std::tuple<Tensor, Tensor> native_dropout_cuda(const Tensor& input, double p, std::optional<bool> train) {
  native_dropout_meta(input, p, train);  // the checks (its results are Meta tensors: nothing is allocated)
  Tensor output = opcore::empty(input.sizes(), input.options());
  Tensor mask = opcore::empty(input.sizes(), input.options().dtype(kBool));
  if (train.has_value() && !*train) {
    output.copy_(input);
    mask.fill_(true);
    return {output, mask};
  }
  const int64_t n = input.numel();
  const PhiloxBlocks reserved = generatorOrDefault(std::nullopt, DeviceType::CUDA).reserveBlocks((n + 3) / 4);
  const Tensor src = input.contiguous();
  cuda::launchDropout(input.scalar_type(), cuda::RandomStream{reserved.seed, reserved.offset},
                      static_cast<const char*>(src.data_ptr()), static_cast<char*>(output.data_ptr()),
                      mask.data_ptr<bool>(), n, 1 - p);
  return {output, mask};
}

// Note [multinomial] in kernels/cpu/Random.cpp, on the GPU: the weights checked there (one flag
// read back; on a bad row, the CPU's check on a host copy names it), the uniforms of the same
// elements of the same reserved blocks. With replacement a thread per sample searches its row's
// running sums (summed on the GPU, in its order: a sample within an ulp of a boundary may fall
// on the other side of it, never on a zero weight); without, each positive weight's key
// log(1 - u) / w and the row's num_samples largest (topk: the first of equal keys, as the
// CPU's order).
Tensor& multinomial_out_cuda(const Tensor& self, int64_t num_samples, bool replacement,
                             const std::optional<Generator>& generator, Tensor& out) {
  checkMultinomial(self, num_samples, replacement, out);
  checkGeneratorDevice("multinomial", generator, out.device());
  const int64_t categories = self.size(-1), rows = self.dim() == 1 ? 1 : self.size(0);
  const Tensor w = self.to(ScalarType::Double).reshape({rows, categories}).contiguous();
  Tensor valid = w.isfinite().logical_and(w.ge(0)).all().logical_and(w.sum(IntArrayRef{1}).gt(0).all());
  if (!replacement) valid = valid.logical_and(w.gt(0).sum(IntArrayRef{1}).ge(num_samples).all());
  if (!valid.item<bool>()) {
    const Tensor host = w.to(Device(DeviceType::CPU));
    checkMultinomialWeights(host.data_ptr<double>(), rows, categories, num_samples, replacement);
  }
  const int64_t draws = rows * (replacement ? num_samples : categories);
  const PhiloxBlocks reserved =
      generatorOrDefault(generator, DeviceType::CUDA).reserveBlocks(static_cast<uint64_t>((draws + 1) / 2));
  const cuda::RandomStream stream{reserved.seed, reserved.offset};
  detail::resizeOutput(out, multinomialShape(self, num_samples));
  if (rows == 0) return out;  // no row to draw for (and [0, 0] weights have no last category)
  const auto longs = w.options().dtype(ScalarType::Long);
  Tensor samples;
  if (replacement) {
    const Tensor running = w.cumsum(1);
    const Tensor last_positive = opcore::where(w.gt(0), opcore::arange(categories, longs), 0).amax({1});
    samples = opcore::empty({rows, num_samples}, longs);
    cuda::launchMultinomial(stream, w.data_ptr<double>(), running.data_ptr<double>(), last_positive.data_ptr<int64_t>(),
                            rows, categories, num_samples, samples.data_ptr<int64_t>());
  } else {
    const Tensor u = opcore::empty({rows, categories}, w.options());
    cuda::launchUniform(ScalarType::Double, stream, static_cast<char*>(u.data_ptr()), draws, 0, 1);
    // A zero weight has no key (-inf). A positive weight's key is at least the lowest double:
    // a subnormal weight's quotient overflows to -inf, and would then tie with a zero weight,
    // which topk's first-of-equal-keys order could draw instead.
    const Tensor keys = opcore::where(w.gt(0), u.neg().log1p().div(w).clamp_min(std::numeric_limits<double>::lowest()),
                                      -std::numeric_limits<double>::infinity());
    samples = std::get<1>(keys.topk(num_samples, 1, /*largest=*/true, /*sorted=*/true));
  }
  out.copy_(samples.view(out.sizes()));
  return out;
}

// The CPU kernel's permutation (a Fisher-Yates shuffle is serial), shuffled on the host and
// copied to the GPU: PyTorch's CUDA randperm does so below 30,000 elements, and sorts random
// keys on the GPU above (other numbers than its CPU's).
Tensor& randperm_out_cuda(int64_t n, const std::optional<Generator>& generator, Tensor& out) {
  checkRandpermOutput(n, out);
  checkGeneratorDevice("randperm", generator, out.device());
  std::vector<int64_t> perm = randomPermutation(n, generatorOrDefault(generator, DeviceType::CUDA));
  detail::resizeOutput(out, {n});
  Tensor host(detail::emptyCpu({n}, ScalarType::Long));
  std::copy(perm.begin(), perm.end(), host.data_ptr<int64_t>());
  out.copy_(host);
  return out;
}

}  // namespace opcore::native

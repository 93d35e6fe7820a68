// CPU random kernels: uniform_, normal_, random_, bernoulli, multinomial and randperm, from a
// Philox generator (Note [Philox generator]). Element i, in row-major order of the logical
// shape, is computed from Philox block i / 2 of the blocks the call reserved: the values depend
// only on the generator's state, never on the tensor's strides, the dtype's precision or the
// thread count (a Float and a Double tensor filled from the same seed hold the same numbers,
// rounded).
#include "common/Random.h"
#include "cpu/Loops.h"
#include "cpu/VecMath.h"

#include <opcore/ops/bernoulli_native.h>
#include <opcore/ops/multinomial_native.h>
#include <opcore/ops/normal_native.h>
#include <opcore/ops/random_native.h>
#include <opcore/ops/randperm_native.h>
#include <opcore/ops/uniform_native.h>
#include <opcore/core/Empty.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>
#include <vector>

namespace opcore::native {

namespace {

using PhiloxBlock = std::array<uint32_t, 4>;

// Element i's 64 bits, from block i / 2 (w): words (0, 1) for an even i, (2, 3) for an odd one.
uint64_t bitsOf(const PhiloxBlock& w, int64_t i) {
  return i % 2 == 0 ? (uint64_t{w[0]} << 32) | w[1] : (uint64_t{w[2]} << 32) | w[3];
}

// Element i's 53-bit uniform in [0, 1), from bitsOf's bits.
double uniformOf(const PhiloxBlock& w, int64_t i) {
  const uint64_t bits = bitsOf(w, i);
  return uniformFromBits(static_cast<uint32_t>(bits >> 32), static_cast<uint32_t>(bits));
}

// r scaled into [0, span): the high 64 bits of r * span (span 0 meaning 2^64: r itself). Its
// bias is below span / 2^64.
uint64_t scaled(uint64_t r, uint64_t span) {
  return span == 0 ? r : static_cast<uint64_t>((static_cast<unsigned __int128>(r) * span) >> 64);
}

// The largest T below v (v finite).
template <typename T>
T nextBelow(T v) {
  if constexpr (is_reduced_floating_point_v<T>) {
    const float f = static_cast<float>(v);
    const uint16_t bits = f > 0 ? v.x - 1 : (f == 0 ? 0x8001 : v.x + 1);
    return T(bits, T::from_bits());
  } else {
    return std::nextafter(v, -std::numeric_limits<T>::infinity());
  }
}

// Reserves a block per two elements of `self` from `generator` (or the CPU default), then has
// fill(blocks, target, n) write the n elements of target: self when it is contiguous, else a
// contiguous tensor copied into self afterwards.
template <typename Fill>
Tensor& drawInto(const char* name, Tensor& self, const std::optional<Generator>& generator, Fill fill) {
  cpu::checkCpu(name, {&self});
  checkGeneratorDevice(name, generator, self.device());
  cpu::checkNoInternalOverlap(self);
  const int64_t n = self.numel();
  const PhiloxBlocks blocks = generatorOrDefault(generator, DeviceType::CPU).reserveBlocks((n + 1) / 2);
  if (n == 0) return self;
  const TensorBase target = self.is_contiguous() ? TensorBase(self) : detail::emptyCpu(self.sizes(), self.scalar_type());
  fill(blocks, target, n);
  if (!target.is_same(self)) cpu::copyInto(self, target);
  return self;
}

// Blocks first .. first + kPhiloxBatch - 1 of `blocks`, side by side in vectors: the rounds of
// detail::philox4x32 (the same words), several blocks per instruction. A block at a time, its
// products and their chain of rounds bound rand and randint.
constexpr int kPhiloxBatch = 16;
typedef uint32_t U32Batch __attribute__((vector_size(kPhiloxBatch * sizeof(uint32_t))));
typedef uint64_t U64Batch __attribute__((vector_size(kPhiloxBatch * sizeof(uint64_t))));

struct PhiloxBatch {
  alignas(64) U32Batch word[4];  // word[j][l]: word j of the batch's block l
  PhiloxBlock block(int64_t l) const { return {word[0][l], word[1][l], word[2][l], word[3][l]}; }
};

OPCORE_CPU_CLONES_WITH_AVX512 void philoxBatch(const PhiloxBlocks& blocks, uint64_t first, PhiloxBatch& out) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  // Each word in the low half of a 64-bit lane: its product with a multiplier needs no
  // widening, and the words no conversion between rounds (an eighth faster than 32-bit lanes
  // widened for each product; GCC multiplies all 64 bits, vpmullq, not 32, pmuludq).
  const U64Batch low = U64Batch{} + 0xFFFFFFFFu;
  U64Batch c0, c1, c2 = U64Batch{}, c3 = U64Batch{};
  for (int l = 0; l < kPhiloxBatch; ++l) {
    const uint64_t counter = blocks.offset + first + static_cast<uint64_t>(l);
    c0[l] = counter & 0xFFFFFFFFu;
    c1[l] = counter >> 32;
  }
  uint64_t k0 = static_cast<uint32_t>(blocks.seed), k1 = blocks.seed >> 32;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 = (k0 + kW0) & 0xFFFFFFFFu;
      k1 = (k1 + kW1) & 0xFFFFFFFFu;
    }
    const U64Batch p0 = c0 * kM0;
    const U64Batch p1 = c2 * kM1;
    const U64Batch next0 = (p1 >> 32) ^ c1 ^ k0;
    const U64Batch next2 = (p0 >> 32) ^ c3 ^ k1;
    c1 = p1 & low;
    c3 = p0 & low;
    c0 = next0;
    c2 = next2;
  }
  out.word[0] = __builtin_convertvector(c0, U32Batch);
  out.word[1] = __builtin_convertvector(c1, U32Batch);
  out.word[2] = __builtin_convertvector(c2, U32Batch);
  out.word[3] = __builtin_convertvector(c3, U32Batch);
}

// f(block, i) for each element i in [first, last), block being Philox block i / 2: the blocks
// computed in batches (philoxBatch), each once.
template <typename F>
void forEachDraw(const PhiloxBlocks& blocks, int64_t first, int64_t last, const F& f) {
  PhiloxBatch batch;
  for (int64_t b = first / 2; 2 * b < last; b += kPhiloxBatch) {
    philoxBatch(blocks, static_cast<uint64_t>(b), batch);
    const int64_t begin = std::max(first, 2 * b), end = std::min(last, 2 * (b + kPhiloxBatch));
    for (int64_t i = begin; i < end; ++i) f(batch.block(i / 2 - b), i);
  }
}

// out[i] = value(block, i) for the n elements of a contiguous T tensor (forEachDraw), in
// parallel.
template <typename T, typename Value>
void fillEach(const TensorBase& target, int64_t n, const PhiloxBlocks& blocks, const Value& value) {
  T* out = target.data_ptr<T>();
  parallel_for(0, n, kGrainSize, [&](int64_t begin, int64_t end) {
    forEachDraw(blocks, begin, end, [&](const PhiloxBlock& w, int64_t i) { out[i] = value(w, i); });
  });
}

// out[j] = the uniform of element first + j (uniformOf), for j < count.
void uniformsInto(const PhiloxBlocks& blocks, int64_t first, int64_t count, double* out) {
  forEachDraw(blocks, first, first + count,
              [&](const PhiloxBlock& w, int64_t i) { out[i - first] = uniformOf(w, i); });
}

// v as a T: through float for Half and BFloat16, whose constructors take a float.
template <typename T>
T fromInteger(int64_t v) {
  if constexpr (is_reduced_floating_point_v<T>) {
    return static_cast<T>(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// 1 where element i's uniform is below probability(i), else 0, into a real `self`.
template <typename Probability>
Tensor& fillBernoulli(const char* name, Tensor& self, const std::optional<Generator>& generator,
                      const Probability& probability) {
  return drawInto(name, self, generator, [&](const PhiloxBlocks& blocks, const TensorBase& target, int64_t n) {
    OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, target.scalar_type(), name, [&] {
      fillEach<scalar_t>(target, n, blocks, [&](const PhiloxBlock& w, int64_t i) {
        return fromInteger<scalar_t>(uniformOf(w, i) < probability(i));
      });
    });
  });
}

// The probabilities of bernoulli_(p) for self: p broadcast to self's shape, as contiguous
// doubles (a copy, so that self may alias p), each checked to be in [0, 1].
TensorBase bernoulliProbabilities(const char* name, const Tensor& p, const Tensor& self) {
  checkBernoulliProbabilities(name, p, self);
  const TensorBase probs = cpu::ownedCopy(cpu::convertTo(p.expand(self.sizes()), kDouble));
  const double* v = probs.data_ptr<double>();
  for (int64_t i = 0; i < probs.numel(); ++i) {
    OPCORE_CHECK(v[i] >= 0 && v[i] <= 1, name, ": every probability must be in [0, 1], got ", v[i], " at element ",
                 i);
  }
  return probs;
}

}  // namespace

Tensor& uniform_(Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  checkUniformBounds("uniform_", from, to);
  checkFloatingOutput("uniform_", self);
  return drawInto("uniform_", self, generator, [&](const PhiloxBlocks& blocks, const TensorBase& target, int64_t n) {
    OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, target.scalar_type(), "uniform_", [&] {
      using T = scalar_t;
      fillEach<T>(target, n, blocks, [&](const PhiloxBlock& w, int64_t i) {
        const T v = static_cast<T>(from + (to - from) * uniformOf(w, i));
        // Rounding to T may reach `to`; the range is half-open.
        return (v >= static_cast<T>(to) && from < to) ? nextBelow(static_cast<T>(to)) : v;
      });
    });
  });
}

// Note [Normal draws]
// Box-Muller on the two uniforms of each block: element 2k gets r cos(t), element 2k + 1
// r sin(t), with r = sqrt(-2 log(1 - u1)) (1 - u1 in (0, 1]: the logarithm is finite) and
// t = 2 pi u2, u1 and u2 the uniforms of words (0, 1) and (2, 3) of block k. A chunk of blocks
// at a time: their uniforms first, then the logarithms, square roots, sines and cosines of the
// whole chunk by SLEEF's vector functions (vecMap), which libm's scalar calls ran at half
// torch's speed (bench/README.md, "Random operators"); then mean + stddev * (r cos(t)) (or
// sin) in double, rounded once to the tensor's dtype.
Tensor& normal_(Tensor& self, double mean, double stddev, const std::optional<Generator>& generator) {
  checkNormalParameters("normal_", mean, stddev);
  checkFloatingOutput("normal_", self);
  return drawInto("normal_", self, generator, [&](const PhiloxBlocks& blocks, const TensorBase& target, int64_t n) {
    constexpr int64_t kChunk = 8 * kPhiloxBatch;  // blocks
    const int64_t pairs = (n + 1) / 2;
    OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, target.scalar_type(), "normal_", [&] {
      scalar_t* out = target.data_ptr<scalar_t>();
      parallel_for(0, (pairs + kChunk - 1) / kChunk, grainFor(2 * kChunk), [&](int64_t begin, int64_t end) {
        double uniform[2 * kChunk], radius[kChunk], angle[kChunk], cosine[kChunk], sine[kChunk];
        for (int64_t c = begin; c < end; ++c) {
          const int64_t first = c * kChunk, count = std::min(kChunk, pairs - first);
          uniformsInto(blocks, 2 * first, 2 * kChunk, uniform);  // u1, u2 of block k: elements 2k, 2k + 1
          for (int64_t k = 0; k < kChunk; ++k) {
            radius[k] = 1.0 - uniform[2 * k];
            angle[k] = 2.0 * std::numbers::pi * uniform[2 * k + 1];
          }
          cpu::vecMap(cpu::VecFn::Log, radius, radius, kChunk);
          for (double& r : radius) r *= -2.0;
          cpu::vecMap(cpu::VecFn::Sqrt, radius, radius, kChunk);
          cpu::vecMap(cpu::VecFn::Cos, angle, cosine, kChunk);
          cpu::vecMap(cpu::VecFn::Sin, angle, sine, kChunk);
          for (int64_t k = 0; k < count; ++k) {
            const int64_t i = 2 * (first + k);
            out[i] = static_cast<scalar_t>(mean + stddev * (radius[k] * cosine[k]));
            if (i + 1 < n) out[i + 1] = static_cast<scalar_t>(mean + stddev * (radius[k] * sine[k]));
          }
        }
      });
    });
  });
}

Tensor& random_from_(Tensor& self, int64_t from, std::optional<int64_t> to, const std::optional<Generator>& generator) {
  const RandomRange range = randomRange(self.scalar_type(), from, to);
  return drawInto("random_", self, generator, [&](const PhiloxBlocks& blocks, const TensorBase& target, int64_t n) {
    OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, target.scalar_type(), "random_", [&] {
      fillEach<scalar_t>(target, n, blocks, [&](const PhiloxBlock& w, int64_t i) {
        const uint64_t k = scaled(bitsOf(w, i), range.span);
        return fromInteger<scalar_t>(static_cast<int64_t>(static_cast<uint64_t>(range.from) + k));
      });
    });
  });
}

Tensor& random_to_(Tensor& self, int64_t to, const std::optional<Generator>& generator) {
  return random_from_(self, 0, to, generator);
}

Tensor& random_(Tensor& self, const std::optional<Generator>& generator) {
  return random_from_(self, 0, std::nullopt, generator);
}

Tensor& bernoulli_float_(Tensor& self, double p, const std::optional<Generator>& generator) {
  checkBernoulliOutput("bernoulli_", self);
  checkBernoulliProbability("bernoulli_", p);
  return fillBernoulli("bernoulli_", self, generator, [p](int64_t) { return p; });
}

Tensor& bernoulli_tensor_(Tensor& self, const Tensor& p, const std::optional<Generator>& generator) {
  cpu::checkCpu("bernoulli_", {&self, &p});
  checkBernoulliOutput("bernoulli_", self);
  const TensorBase probs = bernoulliProbabilities("bernoulli_", p, self);
  const double* v = probs.data_ptr<double>();
  return fillBernoulli("bernoulli_", self, generator, [v](int64_t i) { return v[i]; });
}

Tensor& bernoulli_out(const Tensor& self, const std::optional<Generator>& generator, Tensor& out) {
  cpu::checkCpu("bernoulli", {&self, &out});
  checkBernoulliOutput("bernoulli", out);
  const TensorBase probs = bernoulliProbabilities("bernoulli", self, self);
  detail::resizeOutput(out, self.sizes());
  const double* v = probs.data_ptr<double>();
  return fillBernoulli("bernoulli", out, generator, [v](int64_t i) { return v[i]; });
}

// Note [multinomial]
// Each row of weights is read as doubles and checked (finite, non-negative, a positive sum;
// without replacement, at least num_samples positive). With replacement, sample k of row r is
// the first category whose running sum of weights exceeds u * sum, u the uniform of element
// r * num_samples + k (uniformsInto): a zero weight is never drawn. Without replacement,
// category j of row r gets the key log(1 - u) / w_j, u the uniform of element r * categories + j
// (the row's logarithms by SLEEF's log1p, vecMap), and the num_samples largest keys are the
// sample, largest first: the order of drawing one category at a time, each in proportion to
// the weights left (Efraimidis and Spirakis' weighted sampling); a zero weight has no key.
// Either way a row's samples depend only on the generator's state and the row, and the rows run
// in parallel.
Tensor& multinomial_out(const Tensor& self, int64_t num_samples, bool replacement,
                        const std::optional<Generator>& generator, Tensor& out) {
  cpu::checkCpu("multinomial", {&self, &out});
  checkMultinomial(self, num_samples, replacement, out);
  checkGeneratorDevice("multinomial", generator, out.device());
  const TensorBase weights = cpu::contiguousCopy(cpu::convertTo(self, kDouble));
  const int64_t categories = self.sizes()[static_cast<size_t>(self.dim() - 1)];
  const int64_t rows = self.dim() == 1 ? 1 : self.sizes()[0];
  const double* w = weights.data_ptr<double>();
  checkMultinomialWeights(w, rows, categories, num_samples, replacement);
  const int64_t draws = rows * (replacement ? num_samples : categories);
  const PhiloxBlocks blocks =
      generatorOrDefault(generator, DeviceType::CPU).reserveBlocks(static_cast<uint64_t>((draws + 1) / 2));
  detail::resizeOutput(out, multinomialShape(self, num_samples));
  const TensorBase result = out.is_contiguous() ? TensorBase(out) : detail::emptyCpu(out.sizes(), kLong);
  int64_t* samples = result.data_ptr<int64_t>();
  parallel_for(0, rows, grainFor(categories + num_samples), [&](int64_t first, int64_t last) {
    std::vector<double> running, uniforms(static_cast<size_t>(replacement ? num_samples : categories));
    std::vector<std::pair<double, int64_t>> keys;
    for (int64_t r = first; r < last; ++r) {
      const double* row = w + r * categories;
      int64_t* drawn = samples + r * num_samples;
      if (replacement) {
        running.resize(static_cast<size_t>(categories));
        double sum = 0;
        int64_t last_positive = 0;
        for (int64_t j = 0; j < categories; ++j) {
          sum += row[j];
          running[static_cast<size_t>(j)] = sum;
          if (row[j] > 0) last_positive = j;
        }
        uniformsInto(blocks, r * num_samples, num_samples, uniforms.data());
        for (int64_t k = 0; k < num_samples; ++k) {
          const double target = uniforms[static_cast<size_t>(k)] * sum;
          const auto at = std::upper_bound(running.begin(), running.end(), target) - running.begin();
          drawn[k] = std::min<int64_t>(at, last_positive);  // u * sum rounded up to sum: the last weight
        }
      } else {
        uniformsInto(blocks, r * categories, categories, uniforms.data());
        for (double& u : uniforms) u = -u;
        cpu::vecMap(cpu::VecFn::Log1p, uniforms.data(), uniforms.data(), categories);
        keys.clear();
        for (int64_t j = 0; j < categories; ++j) {
          if (row[j] > 0) keys.emplace_back(uniforms[static_cast<size_t>(j)] / row[j], j);
        }
        const auto larger = [](const auto& a, const auto& b) {
          return a.first > b.first || (a.first == b.first && a.second < b.second);
        };
        std::nth_element(keys.begin(), keys.begin() + (num_samples - 1), keys.end(), larger);
        std::sort(keys.begin(), keys.begin() + num_samples, larger);
        for (int64_t k = 0; k < num_samples; ++k) drawn[k] = keys[static_cast<size_t>(k)].second;
      }
    }
  });
  if (!result.is_same(out)) cpu::copyInto(out, result);
  return out;
}

// Note [randperm]
// A Fisher-Yates shuffle of 0 .. n - 1: position i swaps with i + r * (n - i) / 2^64, r 64 bits
// of Philox block i / 2 (words 0 and 1 for an even i, 2 and 3 for an odd one, as uniformOf's
// elements; a multiply-high, whose bias is below n / 2^64). The result depends only on the
// generator's state and n, whatever the dtype. The swaps are serial, but each one's partner
// depends on nothing before it: a chunk of partners is computed first, in parallel (a Philox
// block costs more than a swap), and the swaps then run through it with the partner a few swaps
// ahead prefetched (it is anywhere in the permutation, which outgrows the cache).
std::vector<int64_t> randomPermutation(int64_t n, const Generator& generator) {
  const PhiloxBlocks blocks = generator.reserveBlocks(static_cast<uint64_t>((n + 1) / 2));
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  constexpr int64_t kChunk = 1 << 16, kAhead = 16;  // kChunk even: a chunk starts a block
  std::vector<int64_t> partner(static_cast<size_t>(std::min(n, kChunk)));
  const auto partnerOf = [n](int64_t i, uint32_t hi, uint32_t lo) {
    return i + static_cast<int64_t>(scaled((uint64_t{hi} << 32) | lo, static_cast<uint64_t>(n - i)));
  };
  for (int64_t first = 0; first + 1 < n; first += kChunk) {
    const int64_t last = std::min(n - 1, first + kChunk);
    parallel_for(first / 2, (last + 1) / 2, 2048, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        const auto w = blocks.block(static_cast<uint64_t>(k));
        const int64_t i = 2 * k;
        partner[static_cast<size_t>(i - first)] = partnerOf(i, w[0], w[1]);
        if (i + 1 < last) partner[static_cast<size_t>(i + 1 - first)] = partnerOf(i + 1, w[2], w[3]);
      }
    });
    for (int64_t i = first; i < last; ++i) {
      if (i + kAhead < last) __builtin_prefetch(&perm[static_cast<size_t>(partner[static_cast<size_t>(i + kAhead - first)])], 1);
      std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(partner[static_cast<size_t>(i - first)])]);
    }
  }
  return perm;
}

Tensor& randperm_out(int64_t n, const std::optional<Generator>& generator, Tensor& out) {
  cpu::checkCpu("randperm", {&out});
  checkRandpermOutput(n, out);
  checkGeneratorDevice("randperm", generator, out.device());
  const std::vector<int64_t> perm = randomPermutation(n, generatorOrDefault(generator, DeviceType::CPU));
  detail::resizeOutput(out, {n});
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, out.scalar_type(), "randperm", [&] {
    scalar_t* p = out.data_ptr<scalar_t>();
    const int64_t stride = n > 0 ? out.stride(0) : 1;
    for (int64_t i = 0; i < n; ++i) p[i * stride] = static_cast<scalar_t>(perm[i]);
  });
  return out;
}

}  // namespace opcore::native

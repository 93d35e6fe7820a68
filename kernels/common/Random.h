// Argument checks shared by every backend's random kernels (uniform_, normal_, random_,
// bernoulli, multinomial, randperm), so that the CPU and Meta kernels reject the same calls
// with the same messages.
//   checkUniformBounds("uniform_", from, to);
#pragma once

#include <opcore/core/TensorBase.h>
#include <opcore/core/TensorFwd.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace opcore::native {

// `self` must have a floating dtype.
void checkFloatingOutput(const char* name, const TensorBase& self);
// Finite bounds with from <= to.
void checkUniformBounds(const char* name, double from, double to);
// A finite mean and a finite stddev >= 0.
void checkNormalParameters(const char* name, double mean, double stddev);
// randperm(n, out=out): n >= 0, and out's dtype holds every value of 0 .. n - 1 exactly.
void checkRandpermOutput(int64_t n, const TensorBase& out);
// The integers a dtype holds, every one of them exactly: [lowest, highest] (for a floating
// dtype, +-2^digits of its significand). Complex dtypes have none (refused).
struct ExactIntegers {
  int64_t lowest, highest;
};
ExactIntegers exactIntegers(const char* name, ScalarType type);
// The integers random_ draws from: [from, from + span), span 0 meaning 2^64. `to` None: up to
// the dtype's highest. Refuses an empty range and ends outside exactIntegers(type).
struct RandomRange {
  int64_t from;
  uint64_t span;
};
RandomRange randomRange(ScalarType type, int64_t from, std::optional<int64_t> to);
// bernoulli's output: any real dtype; a float probability in [0, 1]; a probability tensor
// floating, and broadcastable to `self`'s shape.
void checkBernoulliOutput(const char* name, const TensorBase& self);
void checkBernoulliProbability(const char* name, double p);
void checkBernoulliProbabilities(const char* name, const TensorBase& p, const TensorBase& self);
// multinomial(self, num_samples, replacement, out=out): self floating, 1-D or 2-D, with at most
// 2^24 categories; num_samples > 0, and at most the categories without replacement; out Long.
// The weights' values are the kernel's to check.
void checkMultinomial(const TensorBase& self, int64_t num_samples, bool replacement, const TensorBase& out);
// multinomial's weights, `rows` rows of `categories` doubles on the host: each finite and
// non-negative, a positive sum per row, and without replacement at least num_samples positive
// ones (PyTorch's messages, naming the row and category).
void checkMultinomialWeights(const double* weights, int64_t rows, int64_t categories, int64_t num_samples,
                             bool replacement);
// The shape of multinomial's result: (num_samples) or (rows, num_samples).
std::vector<int64_t> multinomialShape(const TensorBase& self, int64_t num_samples);
// randperm's permutation of 0 .. n - 1 from `generator` (Note [randperm] in kernels/cpu/Random.cpp,
// which defines it), computed on the host: the CPU kernel writes it out, the CUDA kernel copies it
// to the GPU, so that both devices' generators in one state give one permutation.
std::vector<int64_t> randomPermutation(int64_t n, const Generator& generator);
// A given generator must be on the tensor's device type.
void checkGeneratorDevice(const char* name, const std::optional<Generator>& generator, Device device);

}  // namespace opcore::native

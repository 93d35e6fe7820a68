// CPU random kernels: uniform_ and normal_, from a Philox generator (Note [Philox generator]).
// Element i, in row-major order of the logical shape, is computed from Philox block i / 2 of
// the blocks the call reserved: the values depend only on the generator's state, never on
// the tensor's strides or dtype precision (a Float and a Double tensor filled from the same
// seed hold the same numbers, rounded).
#include "common/Random.h"
#include "cpu/Loops.h"

#include <opcore/ops/normal_native.h>
#include <opcore/ops/randperm_native.h>
#include <opcore/ops/uniform_native.h>
#include <opcore/core/Empty.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

namespace opcore::native {

namespace {

// Two 53-bit uniforms in [0, 1) per block: words (0, 1) for even elements, (2, 3) for odd.
double uniformAt(const PhiloxBlocks& blocks, int64_t i) {
  const auto w = blocks.block(static_cast<uint64_t>(i) / 2);
  return i % 2 == 0 ? uniformFromBits(w[0], w[1]) : uniformFromBits(w[2], w[3]);
}

// Box-Muller on the two uniforms of a block: element 2k gets r cos(t), element 2k + 1 r sin(t).
double standardNormalAt(const PhiloxBlocks& blocks, int64_t i) {
  const auto w = blocks.block(static_cast<uint64_t>(i) / 2);
  const double u1 = 1.0 - uniformFromBits(w[0], w[1]);  // (0, 1]: log(u1) is finite
  const double u2 = uniformFromBits(w[2], w[3]);
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double t = 2.0 * std::numbers::pi * u2;
  return i % 2 == 0 ? r * std::cos(t) : r * std::sin(t);
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

// Reserves the blocks for `self` from `generator` (or the CPU default), then writes
// value(blocks, i, scalar_t) into element i of self.
template <typename Value>
Tensor& fillRandom(const char* name, Tensor& self, const std::optional<Generator>& generator, Value value) {
  cpu::checkCpu(name, {&self});
  checkFloatingOutput(name, self);
  checkGeneratorDevice(name, generator, self.device());
  cpu::checkNoInternalOverlap(self);
  const int64_t n = self.numel();
  const PhiloxBlocks blocks = generatorOrDefault(generator, DeviceType::CPU).reserveBlocks((n + 1) / 2);
  if (n == 0) return self;
  const TensorBase target = self.is_contiguous() ? TensorBase(self) : detail::emptyCpu(self.sizes(), self.scalar_type());
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, self.scalar_type(), name, [&] {
    scalar_t* out = target.data_ptr<scalar_t>();
    for (int64_t i = 0; i < n; ++i) out[i] = value(blocks, i, scalar_t{});
  });
  if (!target.is_same(self)) cpu::copyInto(self, target);
  return self;
}

}  // namespace

Tensor& uniform_(Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  checkUniformBounds("uniform_", from, to);
  return fillRandom("uniform_", self, generator, [from, to](const PhiloxBlocks& blocks, int64_t i, auto zero) {
    using T = decltype(zero);
    const T v = static_cast<T>(from + (to - from) * uniformAt(blocks, i));
    // Rounding to T may reach `to`; the range is half-open.
    return (v >= static_cast<T>(to) && from < to) ? nextBelow(static_cast<T>(to)) : v;
  });
}

Tensor& normal_(Tensor& self, double mean, double stddev, const std::optional<Generator>& generator) {
  checkNormalParameters("normal_", mean, stddev);
  return fillRandom("normal_", self, generator, [mean, stddev](const PhiloxBlocks& blocks, int64_t i, auto zero) {
    using T = decltype(zero);
    return static_cast<T>(mean + stddev * standardNormalAt(blocks, i));
  });
}


// Note [randperm]
// A Fisher-Yates shuffle of 0 .. n - 1: position i swaps with i + r * (n - i) / 2^64, r 64 bits
// of Philox block i / 2 (words 0 and 1 for an even i, 2 and 3 for an odd one, as uniformAt's
// elements; a multiply-high, whose bias is below n / 2^64). The result depends only on the
// generator's state and n, whatever the dtype. The swaps are serial, but each one's partner
// depends on nothing before it: a chunk of partners is computed first, in parallel (a Philox
// block costs more than a swap), and the swaps then run through it with the partner a few swaps
// ahead prefetched (it is anywhere in the permutation, which outgrows the cache).
Tensor& randperm_out(int64_t n, const std::optional<Generator>& generator, Tensor& out) {
  cpu::checkCpu("randperm", {&out});
  checkRandpermOutput(n, out);
  checkGeneratorDevice("randperm", generator, out.device());
  const PhiloxBlocks blocks =
      generatorOrDefault(generator, DeviceType::CPU).reserveBlocks(static_cast<uint64_t>((n + 1) / 2));
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  constexpr int64_t kChunk = 1 << 16, kAhead = 16;  // kChunk even: a chunk starts a block
  std::vector<int64_t> partner(static_cast<size_t>(std::min(n, kChunk)));
  const auto partnerOf = [n](int64_t i, uint32_t hi, uint32_t lo) {
    const uint64_t r = (uint64_t{hi} << 32) | lo;
    return i + static_cast<int64_t>((static_cast<unsigned __int128>(r) * static_cast<uint64_t>(n - i)) >> 64);
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
  detail::resizeOutput(out, {n});
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, out.scalar_type(), "randperm", [&] {
    scalar_t* p = out.data_ptr<scalar_t>();
    const int64_t stride = n > 0 ? out.stride(0) : 1;
    for (int64_t i = 0; i < n; ++i) p[i * stride] = static_cast<scalar_t>(perm[i]);
  });
  return out;
}

}  // namespace opcore::native

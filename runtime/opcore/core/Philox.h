// The Philox4x32-10 block function (Note [Philox generator] in Generator.h), written for both
// compilers, so that a CUDA kernel draws the same numbers as the CPU kernels from the same
// generator state.
//   uint32_t words[4] = {counter_lo, counter_hi, 0, 0};
//   detail::philoxRounds(words, seed_lo, seed_hi);       // words: block `counter` of `seed`
#pragma once

#include <opcore/core/Macros.h>

#include <cstdint>

namespace opcore {
namespace detail {

// The ten rounds on the counter `ctr` with the key (k0, k1); ctr becomes the block's words.
OPCORE_HOST_DEVICE constexpr void philoxRounds(uint32_t (&ctr)[4], uint32_t k0, uint32_t k1) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // multipliers
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    const uint64_t p0 = uint64_t{kM0} * ctr[0];
    const uint64_t p1 = uint64_t{kM1} * ctr[2];
    const uint32_t c0 = static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ k0;
    const uint32_t c2 = static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ k1;
    ctr[1] = static_cast<uint32_t>(p1);
    ctr[3] = static_cast<uint32_t>(p0);
    ctr[0] = c0;
    ctr[2] = c2;
  }
}

}  // namespace detail

// A uniform double in [0, 1) from 53 of the 64 bits in (hi, lo).
OPCORE_HOST_DEVICE constexpr double uniformFromBits(uint32_t hi, uint32_t lo) {
  const uint64_t bits = (uint64_t{hi} << 32) | lo;
  return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);  // 2^-53
}

}  // namespace opcore

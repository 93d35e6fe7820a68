// The CUDA random kernels: uniform_, normal_, random_, bernoulli_, native_dropout and
// multinomial with replacement, drawing
// the numbers the CPU kernels draw from the same generator state (Note [Philox generator]):
// element i of the tensor's row-major order comes from the block
// of the reserved range the CPU kernel would take it from (kernels/cpu/Random.cpp,
// Dropout.cpp), computed by the same Philox rounds (opcore/core/Philox.h). Only the last bits
// of normal_'s transcendental functions may differ (the GPU's libm against SLEEF, in double).
#include "CudaLoops.cuh"

#include <opcore/core/Philox.h>

#include <cmath>

namespace opcore::cuda {
namespace {

struct Block {
  uint32_t w[4];
};

__device__ Block philoxBlock(const RandomStream& s, uint64_t k) {
  const uint64_t c = s.offset + k;
  Block b{{static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0u, 0u}};
  detail::philoxRounds(b.w, static_cast<uint32_t>(s.seed), static_cast<uint32_t>(s.seed >> 32));
  return b;
}

// Element i's uniform in [0, 1): words (0, 1) of block i / 2 for an even i, (2, 3) for an odd one.
__device__ double uniformOf(const Block& b, int64_t i) {
  return i % 2 == 0 ? uniformFromBits(b.w[0], b.w[1]) : uniformFromBits(b.w[2], b.w[3]);
}

// The largest T below v (v finite), as the CPU's nextBelow.
template <typename T>
__device__ T nextBelow(T v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    const float f = static_cast<float>(v);
    const uint16_t bits = f > 0 ? static_cast<uint16_t>(v.x - 1) : (f == 0 ? uint16_t{0x8001} : static_cast<uint16_t>(v.x + 1));
    return T(bits, typename T::from_bits_t{});
  } else {
    return nextafter(v, -static_cast<T>(INFINITY));
  }
}

template <typename T>
__global__ void uniformKernel(RandomStream s, T* out, int64_t n, double from, double to) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const Block b = philoxBlock(s, static_cast<uint64_t>(i / 2));
    using M = opmath_t<T>;
    const T v = static_cast<T>(static_cast<M>(from + (to - from) * uniformOf(b, i)));
    const T hi = static_cast<T>(static_cast<M>(to));
    out[i] = (static_cast<M>(v) >= static_cast<M>(hi) && from < to) ? nextBelow(hi) : v;  // [from, to)
  }
}

// Note [Normal draws] in kernels/cpu/Random.cpp: block k gives elements 2k and 2k + 1.
template <typename T>
__global__ void normalKernel(RandomStream s, T* out, int64_t n, double mean, double stddev) {
  const int64_t pairs = (n + 1) / 2;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < pairs; k += step) {
    const Block b = philoxBlock(s, static_cast<uint64_t>(k));
    const double u1 = uniformFromBits(b.w[0], b.w[1]), u2 = uniformFromBits(b.w[2], b.w[3]);
    const double radius = std::sqrt(-2.0 * std::log(1.0 - u1));
    const double angle = 2.0 * 3.141592653589793238462643383279502884 * u2;
    const int64_t i = 2 * k;
    out[i] = static_cast<T>(static_cast<opmath_t<T>>(mean + stddev * (radius * std::cos(angle))));
    if (i + 1 < n) out[i + 1] = static_cast<T>(static_cast<opmath_t<T>>(mean + stddev * (radius * std::sin(angle))));
  }
}

// 1 where element i's uniform is below its probability (probabilities[i], or p), else 0 (any
// real T).
template <typename T>
__global__ void bernoulliKernel(RandomStream s, T* out, int64_t n, double p, const double* probabilities) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const Block b = philoxBlock(s, static_cast<uint64_t>(i / 2));
    const double probability = probabilities ? probabilities[i] : p;
    out[i] = static_cast<T>(static_cast<opmath_t<T>>(uniformOf(b, i) < probability ? 1 : 0));
  }
}

// Element i's 64 bits: words (0, 1) of block i / 2 for an even i, (2, 3) for an odd one (the
// CPU's bitsOf), scaled into [0, span) by the high half of their product (span 0: 2^64), from
// `from`, as a T (through float for Half and BFloat16, as the CPU's fromInteger).
template <typename T>
__global__ void randomKernel(RandomStream s, T* out, int64_t n, int64_t from, uint64_t span) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const Block b = philoxBlock(s, static_cast<uint64_t>(i / 2));
    const uint64_t bits = i % 2 == 0 ? (uint64_t{b.w[0]} << 32) | b.w[1] : (uint64_t{b.w[2]} << 32) | b.w[3];
    const uint64_t k = span == 0 ? bits : __umul64hi(bits, span);
    const auto v = static_cast<int64_t>(static_cast<uint64_t>(from) + k);
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      out[i] = static_cast<T>(static_cast<float>(v));
    } else {
      out[i] = static_cast<T>(v);
    }
  }
}

// native_dropout: element i kept when word i % 4 of block i / 4 is below threshold.
template <typename T>
__global__ void dropoutKernel(RandomStream s, const T* in, T* out, bool* mask, int64_t n, uint64_t threshold,
                              opmath_t<T> scale) {
  using M = opmath_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const Block b = philoxBlock(s, static_cast<uint64_t>(i / 4));
    const bool kept = b.w[i % 4] < threshold;
    mask[i] = kept;
    out[i] = static_cast<T>(static_cast<M>(in[i]) * (static_cast<M>(kept) * scale));  // a dropped NaN stays NaN
  }
}

}  // namespace

void launchUniform(ScalarType dtype, const RandomStream& s, char* out, int64_t n, double from, double to) {
  if (n == 0) return;
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "uniform_", [&] {
    uniformKernel<scalar_t><<<blocksFor(n), kThreads, 0, currentStream()>>>(s, reinterpret_cast<scalar_t*>(out), n, from, to);
  });
  checkLaunch("uniform_");
}

void launchNormal(ScalarType dtype, const RandomStream& s, char* out, int64_t n, double mean, double stddev) {
  if (n == 0) return;
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "normal_", [&] {
    normalKernel<scalar_t><<<blocksFor((n + 1) / 2), kThreads, 0, currentStream()>>>(
        s, reinterpret_cast<scalar_t*>(out), n, mean, stddev);
  });
  checkLaunch("normal_");
}

void launchBernoulli(ScalarType dtype, const RandomStream& s, char* out, int64_t n, double p,
                     const double* probabilities) {
  if (n == 0) return;
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, dtype, "bernoulli_", [&] {
    bernoulliKernel<scalar_t><<<blocksFor(n), kThreads, 0, currentStream()>>>(s, reinterpret_cast<scalar_t*>(out), n, p,
                                                                              probabilities);
  });
  checkLaunch("bernoulli_");
}

void launchRandom(ScalarType dtype, const RandomStream& s, char* out, int64_t n, int64_t from, uint64_t span) {
  if (n == 0) return;
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, dtype, "random_", [&] {
    randomKernel<scalar_t><<<blocksFor(n), kThreads, 0, currentStream()>>>(s, reinterpret_cast<scalar_t*>(out), n, from,
                                                                           span);
  });
  checkLaunch("random_");
}

void launchDropout(ScalarType dtype, const RandomStream& s, const char* in, char* out, bool* mask, int64_t n,
                   double keep) {
  if (n == 0) return;
  const auto threshold = static_cast<uint64_t>(std::ldexp(keep, 32));  // 2^32 for p = 0: every word
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, "native_dropout", [&] {
    using M = opmath_t<scalar_t>;
    dropoutKernel<scalar_t><<<blocksFor(n), kThreads, 0, currentStream()>>>(
        s, reinterpret_cast<const scalar_t*>(in), reinterpret_cast<scalar_t*>(out), mask, n, threshold,
        static_cast<M>(keep == 0 ? 0.0 : 1 / keep));
  });
  checkLaunch("native_dropout");
}

namespace {

__global__ void multinomialKernel(RandomStream s, const double* weights, const double* running,
                                  const int64_t* last_positive, int64_t rows, int64_t categories, int64_t samples,
                                  int64_t* out) {
  const int64_t n = rows * samples;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step) {
    const int64_t r = e / samples;
    const double* row = running + r * categories;
    const double target = uniformOf(philoxBlock(s, static_cast<uint64_t>(e / 2)), e) * row[categories - 1];
    int64_t low = 0, high = categories;  // the first running sum above target (std::upper_bound)
    while (low < high) {
      const int64_t mid = low + (high - low) / 2;
      if (!(target < row[mid])) {  // upper_bound's test: a NaN target (u = 0 times an infinite sum) goes last
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    low = low < last_positive[r] ? low : last_positive[r];  // u * sum rounded up to sum: the last weight
    // The GPU's scan associates its sums otherwise than one after another, so a zero weight's
    // running sum may stand an ulp above its predecessor's; the target in that gap belongs to
    // the next positive weight (there is one: last_positive's), as the CPU's order would have it.
    const double* w = weights + r * categories;
    while (w[low] == 0) ++low;
    out[e] = low;
  }
}

}  // namespace

void launchMultinomial(const RandomStream& s, const double* weights, const double* running,
                       const int64_t* last_positive, int64_t rows, int64_t categories, int64_t samples, int64_t* out) {
  if (rows * samples == 0) return;
  multinomialKernel<<<blocksFor(rows * samples), kThreads, 0, currentStream()>>>(s, weights, running, last_positive,
                                                                                   rows, categories, samples, out);
  checkLaunch("multinomial");
}

}  // namespace opcore::cuda

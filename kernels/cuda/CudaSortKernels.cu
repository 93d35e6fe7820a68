// The CUDA sort (CudaLaunch.h's launchSort): a bitonic network over each row's (key, index)
// pairs, padded to a power of two, in global memory, a launch per stage. Comparing the index
// after the key makes the network stable; a descending sort complements the keys, as the CPU's
// radix sort does (Note [Radix sort keys] in kernels/cpu/Sort.cpp).
#include "CudaLoops.cuh"

#include <common/pointwise/Sort.h>

namespace opcore::cuda {
namespace {

struct Pair {
  uint64_t key;
  int64_t index;
};
static_assert(sizeof(Pair) == kSortPairBytes);

__device__ inline bool before(const Pair& a, const Pair& b) {
  return a.key < b.key || (a.key == b.key && a.index < b.index);
}

// The row's pairs; the padding after its last element sorts after every element.
template <typename T>
__global__ void keysKernel(const T* in, int64_t rows, int64_t len, int64_t span, bool descending, Pair* pairs) {
  using K = native::KeyOf<T>;
  const int64_t total = rows * span;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t row = e / span, i = e % span;
    if (i < len) {
      const K key = native::sortKey(in[row * len + i]);
      pairs[e] = Pair{static_cast<uint64_t>(descending ? static_cast<K>(~key) : key), i};
    } else {
      pairs[e] = Pair{~uint64_t{0}, INT64_MAX};
    }
  }
}

// One stage of the network: each pair (i, i + j) with bit j of i clear, ordered ascending
// where bit k of i is clear, descending where it is set.
__global__ void bitonicStageKernel(Pair* pairs, int64_t rows, int64_t span, int64_t k, int64_t j) {
  const int64_t half = span / 2, total = rows * half;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    const int64_t row = t / half, q = t % half;
    const int64_t i = 2 * j * (q / j) + q % j;
    Pair* p = pairs + row * span;
    const Pair a = p[i], b = p[i + j];
    const bool ascending = (i & k) == 0;
    if (ascending ? before(b, a) : before(a, b)) {
      p[i] = b;
      p[i + j] = a;
    }
  }
}

template <typename T>
__global__ void gatherSortedKernel(const T* in, const Pair* pairs, int64_t rows, int64_t len, int64_t span, T* values,
                                   int64_t* indices) {
  const int64_t total = rows * len;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t row = e / len, r = e % len;
    const int64_t at = pairs[row * span + r].index;
    indices[e] = at;
    values[e] = in[row * len + at];
  }
}

}  // namespace

void launchSort(const char* name, ScalarType dtype, const char* in, int64_t rows, int64_t len, bool descending,
                void* scratch, char* values, int64_t* indices) {
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, dtype, name, [&] {
    if (rows * len == 0) return;
    const int64_t span = sortSpan(len);
    Pair* pairs = static_cast<Pair*>(scratch);
    const auto* x = reinterpret_cast<const scalar_t*>(in);
    keysKernel<scalar_t><<<blocksFor(rows * span), kThreads, 0, currentStream()>>>(x, rows, len, span, descending,
                                                                                    pairs);
    for (int64_t k = 2; k <= span; k <<= 1) {
      for (int64_t j = k >> 1; j > 0; j >>= 1) {
        bitonicStageKernel<<<blocksFor(rows * span / 2), kThreads, 0, currentStream()>>>(pairs, rows, span, k, j);
      }
    }
    gatherSortedKernel<scalar_t><<<blocksFor(rows * len), kThreads, 0, currentStream()>>>(
        x, pairs, rows, len, span, reinterpret_cast<scalar_t*>(values), indices);
    checkLaunch(name);
  });
}

}  // namespace opcore::cuda

// The CUDA kernels of cumsum and cumprod (CudaLaunch.h's launchScan).
#include "CudaLoops.cuh"

#include <common/pointwise/Scan.h>

namespace opcore::cuda {
namespace {

using native::ScanAcc;
using native::scanIdentity;
using native::scanStep;

// Rows no longer than this are scanned by one thread each; longer ones by a block.
constexpr int64_t kThreadRow = 32;

// A thread per (outer, inner) pair walks its line of len elements, `inner` apart: neighbouring
// threads read neighbouring elements when inner > 1; with inner == 1, a thread per short row.
template <bool kSum, typename T>
__global__ void scanLinesKernel(const T* in, T* out, int64_t outer, int64_t len, int64_t inner) {
  using A = typename ScanAcc<T>::type;
  const int64_t lines = outer * inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t line = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; line < lines; line += step) {
    const int64_t o = line / inner, k = line % inner;
    const int64_t base = o * len * inner + k;
    A acc = scanIdentity<kSum, A>();
    for (int64_t i = 0; i < len; ++i) {
      acc = scanStep<kSum>(acc, static_cast<A>(in[base + i * inner]));
      out[base + i * inner] = static_cast<T>(acc);
    }
  }
}

// A block per row (inner == 1): tiles of kThreads elements, a thread per element; each tile
// is scanned in shared memory (Hillis and Steele: log2(kThreads) rounds) and continues from
// the previous tiles' total, carried by every thread.
template <bool kSum, typename T>
__global__ void scanRowsKernel(const T* in, T* out, int64_t rows, int64_t len) {
  using A = typename ScanAcc<T>::type;
  // raw storage: A (complex<double>) has a constructor, which __shared__ variables may not
  __shared__ alignas(16) unsigned char storage[kThreads * sizeof(A)];
  A* tile = reinterpret_cast<A*>(storage);
  const int t = threadIdx.x;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* x = in + row * len;
    T* y = out + row * len;
    A carry = scanIdentity<kSum, A>();
    for (int64_t start = 0; start < len; start += kThreads) {
      const int64_t i = start + t;
      tile[t] = i < len ? static_cast<A>(x[i]) : scanIdentity<kSum, A>();
      __syncthreads();
      for (int offset = 1; offset < kThreads; offset <<= 1) {
        const A before = t >= offset ? tile[t - offset] : scanIdentity<kSum, A>();
        __syncthreads();
        tile[t] = scanStep<kSum>(before, tile[t]);
        __syncthreads();
      }
      if (i < len) y[i] = static_cast<T>(scanStep<kSum>(carry, tile[t]));
      carry = scanStep<kSum>(carry, tile[kThreads - 1]);
      __syncthreads();  // every thread has read the tile before the next one overwrites it
    }
  }
}

template <bool kSum, typename T>
void scan(const ScanProblem& p) {
  const T* in = reinterpret_cast<const T*>(p.in);
  T* out = reinterpret_cast<T*>(p.out);
  if (p.inner == 1 && p.len > kThreadRow) {
    const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(p.outer, kMaxBlocks));
    scanRowsKernel<kSum, T><<<blocks, kThreads, 0, currentStream()>>>(in, out, p.outer, p.len);
  } else {
    scanLinesKernel<kSum, T><<<blocksFor(p.outer * p.inner), kThreads, 0, currentStream()>>>(in, out, p.outer, p.len,
                                                                                            p.inner);
  }
}

}  // namespace

void launchScan(bool sum, const char* name, ScalarType dtype, const ScanProblem& p) {
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(kHalf, kBFloat16, kBool, dtype, name, [&] {
    if (p.outer * p.len * p.inner == 0) return;
    if (sum) {
      scan<true, scalar_t>(p);
    } else {
      scan<false, scalar_t>(p);
    }
    checkLaunch(name);
  });
}

}  // namespace opcore::cuda

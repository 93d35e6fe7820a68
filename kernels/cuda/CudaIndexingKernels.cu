// The CUDA kernels of arange, index_select and embedding_dense_backward (CudaLaunch.h).
#include "CudaLoops.cuh"

namespace opcore::cuda {
namespace {

template <typename T>
__global__ void arangeKernel(T* out, int64_t stride, int64_t n, bool integral, int64_t start_i, int64_t step_i,
                             double start_d, double step_d) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    if (integral) {
      out[i * stride] = static_cast<T>(static_cast<opmath_t<T>>(start_i + i * step_i));
    } else {
      out[i * stride] = static_cast<T>(static_cast<opmath_t<T>>(start_d + static_cast<double>(i) * step_d));
    }
  }
}

// A thread per element of dst; element_size bytes moved as the widest word that divides it.
template <typename Word>
__global__ void indexSelectKernel(IndexSelectProblem p) {
  const int64_t words = p.element_size / static_cast<int64_t>(sizeof(Word));
  const int64_t total = p.outer * p.n * p.inner;
  const Word* src = reinterpret_cast<const Word*>(p.src);
  Word* dst = reinterpret_cast<Word*>(p.dst);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t b = e % p.inner, rest = e / p.inner;
    const int64_t i = rest % p.n, a = rest / p.n;
    const int64_t row = p.index[i];
    Word* d = dst + e * words;
    if (row < 0 || row >= p.size) {
      *p.bad = 1;
      for (int64_t w = 0; w < words; ++w) d[w] = Word(0);
      continue;
    }
    const Word* s = src + ((a * p.size + row) * p.inner + b) * words;
    for (int64_t w = 0; w < words; ++w) d[w] = s[w];
  }
}

__global__ void countRowsKernel(EmbeddingBackwardProblem p) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n; i += step) {
    const int64_t row = p.index[i];
    if (row >= 0 && row < p.num_weights) {
      atomicAdd(reinterpret_cast<unsigned long long*>(p.counts + row), 1ull);
    }
  }
}

// A thread per element of grad: its value, scaled, added to its row's sum (atomically: rows
// repeat). The order of the additions is the GPU's, not the CPU's index order.
template <typename T>
__global__ void embeddingBackwardKernel(EmbeddingBackwardProblem p) {
  using M = opmath_t<T>;
  const T* grad = reinterpret_cast<const T*>(p.grad);
  M* sums = static_cast<M*>(p.sums);
  const int64_t total = p.n * p.dim;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t i = e / p.dim, c = e % p.dim;
    const int64_t row = p.index[i];
    if (row < 0 || row >= p.num_weights) {
      *p.bad = 1;
      continue;
    }
    if (row == p.padding_idx) continue;
    M v = static_cast<M>(grad[e]);
    if (p.scale_by_freq) v = v / static_cast<M>(p.counts[row]);
    atomicAdd(sums + row * p.dim + c, v);
  }
}

}  // namespace

void launchArange(ScalarType dtype, char* out, int64_t stride, int64_t n, bool integral, int64_t start_i,
                  int64_t step_i, double start_d, double step_d) {
  if (n == 0) return;
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, "arange", [&] {
    arangeKernel<scalar_t><<<blocksFor(n), kThreads, 0, currentStream()>>>(
        reinterpret_cast<scalar_t*>(out), stride, n, integral, start_i, step_i, start_d, step_d);
  });
  checkLaunch("arange");
}

void launchIndexSelect(const IndexSelectProblem& p) {
  const int64_t total = p.outer * p.n * p.inner;
  if (total == 0) return;
  if (p.element_size % 8 == 0) {
    indexSelectKernel<uint64_t><<<blocksFor(total), kThreads, 0, currentStream()>>>(p);
  } else if (p.element_size % 4 == 0) {
    indexSelectKernel<uint32_t><<<blocksFor(total), kThreads, 0, currentStream()>>>(p);
  } else if (p.element_size % 2 == 0) {
    indexSelectKernel<uint16_t><<<blocksFor(total), kThreads, 0, currentStream()>>>(p);
  } else {
    indexSelectKernel<uint8_t><<<blocksFor(total), kThreads, 0, currentStream()>>>(p);
  }
  checkLaunch("index_select");
}

// The dtype is dispatched first: one the kernel lacks is refused even for empty operands.
void launchEmbeddingBackward(ScalarType dtype, const EmbeddingBackwardProblem& p) {
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "embedding_dense_backward", [&] {
    if (p.n == 0) return;
    if (p.scale_by_freq) {
      countRowsKernel<<<blocksFor(p.n), kThreads, 0, currentStream()>>>(p);
      checkLaunch("embedding_dense_backward");
    }
    if (p.dim == 0) return;
    embeddingBackwardKernel<scalar_t><<<blocksFor(p.n * p.dim), kThreads, 0, currentStream()>>>(p);
    checkLaunch("embedding_dense_backward");
  });
}

}  // namespace opcore::cuda

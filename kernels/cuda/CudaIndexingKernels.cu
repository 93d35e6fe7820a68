// The CUDA kernels of arange, index_select, embedding_dense_backward, _embedding_bag and the
// gathers and scatters (CudaLaunch.h, Note [CUDA gather and scatter]).
#include "CudaLoops.cuh"

#include <common/Wrapping.h>
#include <common/pointwise/Indexing.h>

#include <cstring>

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
    if (row < 0 || row >= p.num_weights || row == p.padding_idx) continue;
    M v = static_cast<M>(grad[e]);
    if (p.scale_by_freq) v = v / static_cast<M>(p.counts[row]);
    atomicAdd(sums + row * p.dim + c, v);
  }
}

// ---- gathers and scatters ----------------------------------------------------------------------

namespace npw = native::pointwise;

// *address = f(*address, src) computed in opmath_t<T>, atomically: a compare-and-swap loop on
// the element (4 or 8 bytes) or on the aligned 32-bit word that holds it (1 or 2 bytes).
template <typename T, typename F>
__device__ void atomicApply(T* address, T src, const F& f) {
  using M = opmath_t<T>;
  static_assert(sizeof(T) <= 8, "no compare-and-swap is that wide");
  const auto combine = [&](T now) { return static_cast<T>(f(static_cast<M>(now), static_cast<M>(src))); };
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    using Word = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
    Word* word = reinterpret_cast<Word*>(address);
    Word old = *word, assumed;
    do {
      assumed = old;
      T now;
      memcpy(&now, &assumed, sizeof(T));
      const T next = combine(now);
      Word bits;
      memcpy(&bits, &next, sizeof(T));
      old = atomicCAS(word, assumed, bits);
    } while (assumed != old);
  } else {
    using Bits = std::conditional_t<sizeof(T) == 1, uint8_t, uint16_t>;
    const uintptr_t at = reinterpret_cast<uintptr_t>(address);
    unsigned int* word = reinterpret_cast<unsigned int*>(at & ~uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(at & 3) * 8;
    const unsigned int mask = ((1u << (8 * sizeof(T))) - 1) << shift;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const auto now_bits = static_cast<Bits>((assumed & mask) >> shift);
      T now;
      memcpy(&now, &now_bits, sizeof(T));
      const T next = combine(now);
      Bits next_bits;
      memcpy(&next_bits, &next, sizeof(T));
      old = atomicCAS(word, assumed, (assumed & ~mask) | (static_cast<unsigned int>(next_bits) << shift));
    } while (assumed != old);
  }
}

// index_add's combination: now + alpha * src (integers wrap).
template <typename M>
struct AddScaledFn {
  M alpha;
  template <typename V>
  __device__ V operator()(V now, V src) const {
    return native::wrappingAdd(now, native::wrappingMul(static_cast<V>(alpha), src));
  }
};

// What each position does with the element it reads (src) and the one it points at (to).
struct GatherStep {
  static constexpr bool kGather = true;
};
struct AssignStep {
  static constexpr bool kGather = false;
  template <typename T>
  __device__ void operator()(T* to, T src) const { *to = src; }
};
template <typename F>
struct AtomicStep {
  static constexpr bool kGather = false;
  F f;
  template <typename T>
  __device__ void operator()(T* to, T src) const {
    if constexpr (sizeof(T) == 16) {  // complex<double>: adds, a part at a time (dispatched only for them)
      using R = typename T::value_type;
      const T delta = f(T(0), src);
      R* parts = reinterpret_cast<R*>(to);
      atomicAdd(parts, delta.real());
      atomicAdd(parts + 1, delta.imag());
    } else {
      atomicApply(to, src, f);
    }
  }
};

template <typename T, typename Index, typename Step>
__global__ void indexedKernel(IndexedProblem p, Step step) {
  const auto numel = static_cast<Index>(p.ops.numel);
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < numel; i += stride) {
    int64_t off[3];
    p.ops.offsets.offsets(i, off);
    int64_t v = *reinterpret_cast<const int64_t*>(p.ops.data[2] + off[2]);
    if (p.wrap && v < 0) v += p.bound;
    if (v < 0 || v >= p.bound) continue;
    const int64_t moved = v * p.index_stride;
    if constexpr (Step::kGather) {
      *reinterpret_cast<T*>(p.ops.data[0] + off[0]) = *reinterpret_cast<const T*>(p.ops.data[1] + off[1] + moved);
    } else {
      step(reinterpret_cast<T*>(p.ops.data[0] + off[0] + moved), *reinterpret_cast<const T*>(p.ops.data[1] + off[1]));
    }
  }
}

__global__ void checkIndicesKernel(const int64_t* index, int64_t n, int64_t bound, bool wrap, int* bad) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t v = index[i];
    if (wrap && v < 0) v += bound;
    if (v < 0 || v >= bound) *bad = 1;
  }
}

__global__ void compactKernel(const bool* flags, const int64_t* positions, int64_t n, int64_t* out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    if (flags[i]) out[positions[i] - 1] = i;
  }
}

template <typename T, typename Step>
void indexed(const IndexedProblem& p, const Step& step, const char* name) {
  if (p.ops.numel == 0) return;
  if (p.ops.numel <= INT32_MAX) {
    indexedKernel<T, uint32_t><<<blocksFor(p.ops.numel), kThreads, 0, currentStream()>>>(p, step);
  } else {
    indexedKernel<T, uint64_t><<<blocksFor(p.ops.numel), kThreads, 0, currentStream()>>>(p, step);
  }
  checkLaunch(name);
}

}  // namespace

void launchIndexed(IndexedOp op, const char* name, ScalarType dtype, const IndexedProblem& p, const Scalar& alpha) {
  switch (op) {
    case IndexedOp::Gather:
      return OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] { indexed<scalar_t>(p, GatherStep{}, name); });
    case IndexedOp::Assign:
      return OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] { indexed<scalar_t>(p, AssignStep{}, name); });
    case IndexedOp::Add:
      return OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] {
        indexed<scalar_t>(p, AtomicStep<npw::ScatterAdd>{}, name);
      });
    case IndexedOp::AddScaled:
      return OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] {
        using M = opmath_t<scalar_t>;
        indexed<scalar_t>(p, AtomicStep<AddScaledFn<M>>{{static_cast<M>(alpha.to<scalar_t>())}}, name);
      });
    case IndexedOp::Multiply:
      return OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(kHalf, kBFloat16, kBool, dtype, name, [&] {
        if constexpr (sizeof(scalar_t) > 8) {
          detail::throwNotImplementedForDtype(name, dtype);  // complex<double>: no atomic operation that wide
        } else {
          indexed<scalar_t>(p, AtomicStep<npw::ScatterMultiply>{}, name);
        }
      });
    case IndexedOp::Max:
      return OPCORE_DISPATCH_ALL_TYPES_AND3(kBool, kHalf, kBFloat16, dtype, name, [&] {
        indexed<scalar_t>(p, AtomicStep<npw::ScatterMax>{}, name);
      });
    case IndexedOp::Min:
      return OPCORE_DISPATCH_ALL_TYPES_AND3(kBool, kHalf, kBFloat16, dtype, name, [&] {
        indexed<scalar_t>(p, AtomicStep<npw::ScatterMin>{}, name);
      });
  }
}

void launchCompact(const bool* flags, const int64_t* positions, int64_t n, int64_t* out) {
  if (n == 0) return;
  compactKernel<<<blocksFor(n), kThreads, 0, currentStream()>>>(flags, positions, n, out);
  checkLaunch("nonzero");
}

void launchCheckIndices(const int64_t* index, int64_t n, int64_t bound, bool wrap, int* bad) {
  if (n == 0) return;
  checkIndicesKernel<<<blocksFor(n), kThreads, 0, currentStream()>>>(index, n, bound, wrap, bad);
  checkLaunch("index check");
}

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

namespace {

// A thread per element (b, c) of the output: bag b's rows in the order of its indices, the CPU
// kernel's arithmetic (kernels/cpu/EmbeddingBag.cpp: a sum in opmath_t, divided once for the
// mean; in max mode a larger value replaces the maximum, so the first of equal ones stays).
template <typename T>
__global__ void embeddingBagKernel(EmbeddingBagProblem p) {
  using M = opmath_t<T>;
  const auto* weight = reinterpret_cast<const T*>(p.weight);
  const auto* psw = reinterpret_cast<const T*>(p.per_sample_weights);
  auto* out = reinterpret_cast<T*>(p.out);
  const int64_t total = p.num_bags * p.dim;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t b = e / p.dim, c = e % p.dim;
    M acc = M(0);
    int64_t count = 0, where = 0;
    for (int64_t i = p.ends[b]; i < p.ends[b + 1]; ++i) {
      const int64_t r = p.idx[i];
      if (r == p.padding_idx) continue;
      const M v = static_cast<M>(weight[r * p.row_stride + c * p.col_stride]);
      if (p.mode == 2) {
        if (count == 0 || v > acc) {
          acc = v;
          where = r;
        }
      } else {
        acc += psw != nullptr ? v * static_cast<M>(psw[i]) : v;
      }
      ++count;
    }
    if (p.mode == 2) {
      p.maxima[e] = where;
    } else if (p.mode == 1 && count > 0) {
      acc /= static_cast<M>(count);
    }
    out[e] = static_cast<T>(acc);
  }
}

}  // namespace

void launchEmbeddingBag(ScalarType dtype, const EmbeddingBagProblem& p) {
  if (p.num_bags * p.dim == 0) return;
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "_embedding_bag", [&] {
    embeddingBagKernel<scalar_t><<<blocksFor(p.num_bags * p.dim), kThreads, 0, currentStream()>>>(p);
    checkLaunch("_embedding_bag");
  });
}

}  // namespace opcore::cuda

// The matrix-product libraries behind mm and bmm (Linear.cpp), one narrow file each:
// OpenBlasGemm.cpp (always built) and OneDnnGemm.cpp (built when CMake finds Debian's
// libdnnl-dev; OPCORE_WITH_ONEDNN is then 1). See Note [Matrix-product libraries].
//   cpu::openblas::sgemm(n, m, k, {a, false, lda}, {b, true, ldb}, c, ldc);  // c = a . b^T
#pragma once

#include <opcore/core/Parallel.h>

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace opcore::native::cpu {

// Note [Matrix-product libraries]
// float products go to oneDNN when it is built in, else to OpenBLAS; double to OpenBLAS
// (oneDNN has no double product); BFloat16 to oneDNN's matmul when the CPU has a kernel for
// it (AVX-512), else to a float product of converted copies. The choice was made by
// measurement (bench/README.md, issue #31): on AVX2 code paths oneDNN 2.6's sgemm and
// OpenBLAS 0.3.21's run at the same speed, while on a CPU with full-width AVX-512 oneDNN's
// is about twice OpenBLAS's, which has no AVX-512 kernels for it.
//
// Note [Thread-count-independent products]
// Given several threads, oneDNN splits a small product along k, and OpenBLAS computes the
// edges of a result with other kernels depending on where its threads' parts end: either
// would make the bits of a result depend on the thread count (Note [Parallel loops]). So each
// library runs on one thread here, on blocks of the result whose number depends only on its
// shape: up to kMaxGemmBlocks blocks of columns (of rows when the result is taller than
// wide), at least kMinGemmBlock wide, which parallel_for spreads over the threads; a product
// of fewer than kMinGemmWork multiply-adds is one block. Cutting along columns lets each block
// read its own part of b, which the libraries repack for every call; a 1024^2 product runs
// about as fast this way as with the library's own threads (bench/README.md). BFloat16
// products are cut into rows instead, sharing one packed b (Note [Packed bfloat16 operands]
// in OneDnnGemm.cpp).
constexpr int64_t kMaxGemmBlocks = 8;
constexpr int64_t kMinGemmBlock = 64;
constexpr int64_t kMinGemmWork = int64_t{1} << 21;

// A row-major operand: element (i, p) at data[i * ld + p], or at data[p * ld + i] when trans.
template <typename T>
struct GemmOperand {
  const T* data;
  bool trans;
  int64_t ld;
};

// The blocks of an [n, m] result (Note [Thread-count-independent products]).
struct GemmBlocks {
  bool by_columns;
  int64_t total;  // columns or rows
  int64_t width;  // of every block but the last
  int64_t count;

  GemmBlocks(int64_t n, int64_t m, int64_t k) : GemmBlocks(n, m, k, m >= n) {}
  GemmBlocks(int64_t n, int64_t m, int64_t k, bool by_columns) : by_columns(by_columns), total(by_columns ? m : n) {
    const int64_t wanted = n * m * k < kMinGemmWork ? 1 : std::min(kMaxGemmBlocks, total / kMinGemmBlock);
    width = (total + std::max<int64_t>(wanted, 1) - 1) / std::max<int64_t>(wanted, 1);
    width = (width + 15) / 16 * 16;  // whole vectors
    count = (total + width - 1) / width;
  }
  int64_t begin(int64_t i) const { return i * width; }
  int64_t size(int64_t i) const { return std::min(width, total - i * width); }
  // Block i's operands and result: gemm(rows, cols, a, b, c) computes it.
  template <typename T, typename Gemm>
  void call(int64_t i, int64_t n, int64_t m, GemmOperand<T> a, GemmOperand<T> b, T* c, int64_t ldc,
            const Gemm& gemm) const {
    const int64_t first = begin(i);
    if (by_columns) {
      gemm(n, size(i), a, GemmOperand<T>{b.trans ? b.data + first * b.ld : b.data + first, b.trans, b.ld}, c + first);
    } else {
      gemm(size(i), m, GemmOperand<T>{a.trans ? a.data + first : a.data + first * a.ld, a.trans, a.ld}, b,
           c + first * ldc);
    }
  }
};

// Both libraries read the calling thread's OpenMP setting (and use one thread inside a
// parallel region): this makes it 1 for a scope.
class OneLibraryThread {
 public:
  OneLibraryThread() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneLibraryThread() { omp_set_num_threads(saved_); }
  OneLibraryThread(const OneLibraryThread&) = delete;
  OneLibraryThread& operator=(const OneLibraryThread&) = delete;

 private:
  int saved_;
};

// Runs block(i) for every block of `blocks` on parallel_for's threads, the library on one
// thread in each.
template <typename F>
void forEachGemmBlock(const GemmBlocks& blocks, const F& block) {
  const OneLibraryThread one;
  parallel_for(0, blocks.count, 1, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) block(i);
  });
}

// In each library: c[n, m] = a[n, k] . b[k, m], written row-major with leading dimension ldc;
// every size and leading dimension at most INT_MAX, k >= 1. Linear.cpp picks the library.
namespace openblas {
void sgemm(int64_t n, int64_t m, int64_t k, GemmOperand<float> a, GemmOperand<float> b, float* c, int64_t ldc);
void dgemm(int64_t n, int64_t m, int64_t k, GemmOperand<double> a, GemmOperand<double> b, double* c, int64_t ldc);
}  // namespace openblas
#if OPCORE_WITH_ONEDNN
namespace onednn {
// bf16gemm: a and b hold BFloat16 bits; computed in float, each result rounded once to nearest
// even. Returns false, c untouched, when oneDNN has no fast kernel for it on this CPU.
void sgemm(int64_t n, int64_t m, int64_t k, GemmOperand<float> a, GemmOperand<float> b, float* c, int64_t ldc);
bool bf16gemm(int64_t n, int64_t m, int64_t k, GemmOperand<uint16_t> a, GemmOperand<uint16_t> b, uint16_t* c,
              int64_t ldc);
}  // namespace onednn
#endif

}  // namespace opcore::native::cpu

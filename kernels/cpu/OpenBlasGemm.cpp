// OpenBLAS's products (Note [Matrix-product libraries] in cpu/Gemm.h): float and double.
#include "cpu/Gemm.h"

#include <cblas.h>

namespace opcore::native::cpu {

namespace openblas {

namespace {
CBLAS_TRANSPOSE transpose(bool trans) { return trans ? CblasTrans : CblasNoTrans; }

// c = a . b in blocks (Note [Thread-count-independent products]).
template <typename T, typename Gemm>
void blocked(int64_t n, int64_t m, int64_t k, GemmOperand<T> a, GemmOperand<T> b, T* c, int64_t ldc, Gemm gemm) {
  const GemmBlocks blocks(n, m, k);
  forEachGemmBlock(blocks, [&](int64_t i) {
    blocks.call(i, n, m, a, b, c, ldc, [&](int64_t rows, int64_t cols, GemmOperand<T> x, GemmOperand<T> y, T* z) {
      gemm(CblasRowMajor, transpose(x.trans), transpose(y.trans), int(rows), int(cols), int(k), T(1), x.data, int(x.ld),
           y.data, int(y.ld), T(0), z, int(ldc));
    });
  });
}
}  // namespace

void sgemm(int64_t n, int64_t m, int64_t k, GemmOperand<float> a, GemmOperand<float> b, float* c, int64_t ldc) {
  blocked(n, m, k, a, b, c, ldc, cblas_sgemm);
}

void dgemm(int64_t n, int64_t m, int64_t k, GemmOperand<double> a, GemmOperand<double> b, double* c, int64_t ldc) {
  blocked(n, m, k, a, b, c, ldc, cblas_dgemm);
}

}  // namespace openblas
}  // namespace opcore::native::cpu

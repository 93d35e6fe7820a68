// CPU matrix products: mm_out (2-D x 2-D, the impl of structured mm) and bmm (batched 3-D), on
// contiguous copies with a cache-blocked i-k-j loop that the compiler vectorises along rows of
// the result.
#include <opcore/ops/bmm.h>
#include <opcore/ops/bmm_native.h>
#include <opcore/ops/mm.h>
#include <opcore/ops/mm_native.h>

#include "common/Shape.h"
#include "cpu/Loops.h"

#include <algorithm>

namespace opcore::native {

namespace {

// Note [Blocked i-k-j product]
// C[i, :] += a[i, p] * b[p, :] streams rows of b and c, which
// vectorises. Blocking p and j keeps a 128 x 512 panel of b in L2 while every row of a
// passes over it, and four rows of c are updated per load of b.
constexpr int64_t kBlockK = 128;
constexpr int64_t kBlockM = 512;

template <typename T>
void rowsTimesPanel(const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc,
                    int64_t rows, int64_t k0, int64_t k1, int64_t m0, int64_t m1) {
  if (rows == 4) {
    T* __restrict__ c0 = c;
    T* __restrict__ c1 = c + ldc;
    T* __restrict__ c2 = c + 2 * ldc;
    T* __restrict__ c3 = c + 3 * ldc;
    for (int64_t p = k0; p < k1; ++p) {
      const T a0 = a[p], a1 = a[lda + p], a2 = a[2 * lda + p], a3 = a[3 * lda + p];
      const T* __restrict__ brow = b + p * ldb;
      for (int64_t j = m0; j < m1; ++j) {
        const T bv = brow[j];
        c0[j] += a0 * bv;
        c1[j] += a1 * bv;
        c2[j] += a2 * bv;
        c3[j] += a3 * bv;
      }
    }
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    T* __restrict__ crow = c + r * ldc;
    for (int64_t p = k0; p < k1; ++p) {
      const T av = a[r * lda + p];
      const T* __restrict__ brow = b + p * ldb;
      for (int64_t j = m0; j < m1; ++j) crow[j] += av * brow[j];
    }
  }
}

// c[n, m] = a[n, k] . b[k, m]; all contiguous and row-major, c not overlapping a or b.
template <typename T>
void gemm(const T* a, const T* b, T* c, int64_t n, int64_t k, int64_t m) {
  std::fill(c, c + n * m, T(0));
  for (int64_t m0 = 0; m0 < m; m0 += kBlockM) {
    const int64_t m1 = std::min(m, m0 + kBlockM);
    for (int64_t k0 = 0; k0 < k; k0 += kBlockK) {
      const int64_t k1 = std::min(k, k0 + kBlockK);
      for (int64_t i = 0; i < n; i += 4) {
        const int64_t rows = std::min<int64_t>(4, n - i);
        rowsTimesPanel(a + i * k, k, b, m, c + i * m, m, rows, k0, k1, m0, m1);
      }
    }
  }
}

void checkMatmulDtypes(const char* name, const TensorBase& a, const TensorBase& b) {
  OPCORE_CHECK(a.scalar_type() == b.scalar_type(), "expected mat1 and mat2 to have the same dtype, but got: ",
               a.scalar_type(), " != ", b.scalar_type());
  OPCORE_CHECK(a.scalar_type() != ScalarType::Bool, name, ": not implemented for dtype Bool");
}

// c[i] = a[i] . b[i] for each of `batch` contiguous matrices.
void batchedGemm(const TensorBase& a, const TensorBase& b, const TensorBase& c, int64_t batch,
                 int64_t n, int64_t k, int64_t m) {
  OPCORE_DISPATCH_NUMERIC_TYPES(a.scalar_type(), "mm", [&] {
    const scalar_t* pa = a.data_ptr<scalar_t>();
    const scalar_t* pb = b.data_ptr<scalar_t>();
    scalar_t* pc = c.data_ptr<scalar_t>();
    for (int64_t i = 0; i < batch; ++i) gemm(pa + i * n * k, pb + i * k * m, pc + i * n * m, n, k, m);
  });
}

}  // namespace

// The impl of structured mm: meta::mm (common/LinearAlgebraMeta.cpp) has checked the operands
// and prepared `out` (its dtype is theirs), except that a resize is left for here when out
// shares memory with an operand: they are read before out is resized or written.
void mm_out(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  cpu::checkCpu("mm", {&self, &mat2, &out});
  cpu::checkNoInternalOverlap(out);
  const int64_t n = self.size(0), k = self.size(1), m = mat2.size(1);
  TensorBase a = cpu::contiguousCopy(self), b = cpu::contiguousCopy(mat2);
  if (cpu::sharesStorage(a, out)) a = cpu::ownedCopy(a);
  if (cpu::sharesStorage(b, out)) b = cpu::ownedCopy(b);
  const DimVector shape{n, m};
  detail::resizeOutput(out, shape);
  const bool direct = out.is_contiguous();
  const TensorBase c = direct ? TensorBase(out) : detail::emptyCpu(shape, out.scalar_type());
  batchedGemm(a, b, c, 1, n, k, m);
  if (!direct) cpu::copyInto(out, c);
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  cpu::checkCpu("bmm", {&self, &mat2});
  OPCORE_CHECK(self.dim() == 3, "batch1 must be a 3D tensor");
  OPCORE_CHECK(mat2.dim() == 3, "batch2 must be a 3D tensor");
  const int64_t batch = self.size(0), n = self.size(1), k = self.size(2), m = mat2.size(2);
  OPCORE_CHECK(mat2.size(0) == batch && mat2.size(1) == k,
               "Expected size for first two dimensions of batch2 tensor to be: [", batch, ", ", k,
               "] but got: [", mat2.size(0), ", ", mat2.size(1), "].");
  checkMatmulDtypes("bmm", self, mat2);
  const TensorBase a = cpu::contiguousCopy(self), b = cpu::contiguousCopy(mat2);
  TensorBase c = detail::emptyCpu(DimVector{batch, n, m}, self.scalar_type());
  batchedGemm(a, b, c, batch, n, k, m);
  return c;
}

}  // namespace opcore::native

// CPU matrix products: mm_out, bmm_out, and addmm_out, addmv_out and baddbmm_out (2-D x 2-D,
// batched 3-D, and each with an added term: the impls of the structured operators).
// float, double and BFloat16 go to a matrix library (Note [Matrix-product libraries] in
// cpu/Gemm.h: oneDNN or OpenBLAS), reading row-major and transposed operands in place (Note
// [BLAS operands]); Half, and BFloat16 where oneDNN has no kernel for it, are products in
// float, rounded once per result; the other dtypes use a cache-blocked loop on contiguous copies.
#include <opcore/ops/addmm_native.h>
#include <opcore/ops/addmv_native.h>
#include <opcore/ops/baddbmm_native.h>
#include <opcore/ops/bmm.h>
#include <opcore/ops/bmm_native.h>
#include <opcore/ops/mm.h>
#include <opcore/ops/mm_native.h>

#include "common/Shape.h"
#include "cpu/Gemm.h"
#include "cpu/Loops.h"
#include "common/Wrapping.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <type_traits>

namespace opcore::native {

namespace {

// Note [Blocked i-k-j product]
// C[i, :] += a[i, p] * b[p, :] (integers wrapping: Note [Wrapping integer arithmetic] in
// common/Wrapping.h) streams rows of b and c, which
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
        c0[j] = wrappingAdd(c0[j], wrappingMul(a0, bv));
        c1[j] = wrappingAdd(c1[j], wrappingMul(a1, bv));
        c2[j] = wrappingAdd(c2[j], wrappingMul(a2, bv));
        c3[j] = wrappingAdd(c3[j], wrappingMul(a3, bv));
      }
    }
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    T* __restrict__ crow = c + r * ldc;
    for (int64_t p = k0; p < k1; ++p) {
      const T av = a[r * lda + p];
      const T* __restrict__ brow = b + p * ldb;
      for (int64_t j = m0; j < m1; ++j) crow[j] = wrappingAdd(crow[j], wrappingMul(av, brow[j]));
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

// Note [BLAS operands]
// A row-major BLAS reads a matrix whose columns are adjacent (stride 1 along dim 1) with
// any row stride >= its width, and the transpose of one whose rows are adjacent. Those
// cover contiguous tensors, their transposes and column slices, which mm and bmm then read
// without a copy; any other layout is copied to a contiguous matrix first. The result is
// written in place when it is row-major itself. The sizes must fit BLAS's 32-bit int.
struct BlasMatrix {
  bool trans;
  int64_t ld;
};

// How a BLAS reads the rows x cols matrix with strides (s0, s1), if it can.
std::optional<BlasMatrix> blasLayout(int64_t rows, int64_t cols, int64_t s0, int64_t s1) {
  const int64_t row_ld = rows <= 1 ? std::max<int64_t>(cols, 1) : s0;
  if ((cols <= 1 || s1 == 1) && row_ld >= std::max<int64_t>(cols, 1)) return BlasMatrix{false, row_ld};
  const int64_t col_ld = cols <= 1 ? std::max<int64_t>(rows, 1) : s1;
  if ((rows <= 1 || s0 == 1) && col_ld >= std::max<int64_t>(rows, 1)) return BlasMatrix{true, col_ld};
  return std::nullopt;
}

// The layout of t's last two dimensions for a BLAS, when t can be read in place.
std::optional<BlasMatrix> blasLayout(const TensorBase& t) {
  const int64_t d = t.dim();
  return blasLayout(t.size(d - 2), t.size(d - 1), t.stride(d - 2), t.stride(d - 1));
}

bool fitsBlasInt(std::initializer_list<int64_t> values) {
  return std::all_of(values.begin(), values.end(), [](int64_t v) { return v <= INT_MAX; });
}

// One product through the library chosen for T (Note [Matrix-product libraries]); false when
// none has a kernel for it.
bool libraryGemm(int64_t n, int64_t m, int64_t k, cpu::GemmOperand<float> a, cpu::GemmOperand<float> b, float* c) {
#if OPCORE_WITH_ONEDNN
  cpu::onednn::sgemm(n, m, k, a, b, c, std::max<int64_t>(m, 1));
#else
  cpu::openblas::sgemm(n, m, k, a, b, c, std::max<int64_t>(m, 1));
#endif
  return true;
}
bool libraryGemm(int64_t n, int64_t m, int64_t k, cpu::GemmOperand<double> a, cpu::GemmOperand<double> b, double* c) {
  cpu::openblas::dgemm(n, m, k, a, b, c, std::max<int64_t>(m, 1));
  return true;
}
bool libraryGemm(int64_t n, int64_t m, int64_t k, cpu::GemmOperand<BFloat16> a, cpu::GemmOperand<BFloat16> b,
                 BFloat16* c) {
#if OPCORE_WITH_ONEDNN
  static_assert(sizeof(BFloat16) == sizeof(uint16_t));
  const auto bits = [](cpu::GemmOperand<BFloat16> x) {
    return cpu::GemmOperand<uint16_t>{reinterpret_cast<const uint16_t*>(x.data), x.trans, x.ld};
  };
  return cpu::onednn::bf16gemm(n, m, k, bits(a), bits(b), reinterpret_cast<uint16_t*>(c), std::max<int64_t>(m, 1));
#else
  return false;
#endif
}

template <typename T>
constexpr bool kLibraryDtype = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, BFloat16>;

// c[i] = a[i] . b[i] for each of `batch` matrices ([n, k] . [k, m] -> [n, m], at the batch
// strides of a, b, c; c row-major with no gaps), through a library when the layouts allow.
template <typename T>
bool libraryBatchedGemm(const TensorBase& a, const TensorBase& b, const TensorBase& c, int64_t batch, int64_t n,
                        int64_t k, int64_t m) {
  if constexpr (kLibraryDtype<T>) {
    const auto la = blasLayout(a), lb = blasLayout(b);
    if (!la || !lb || !fitsBlasInt({n, k, m, la->ld, lb->ld})) return false;
    const int64_t sa = a.dim() == 3 ? a.stride(0) : 0, sb = b.dim() == 3 ? b.stride(0) : 0;
    const T* pa = a.data_ptr<T>();
    const T* pb = b.data_ptr<T>();
    T* pc = c.data_ptr<T>();
    for (int64_t i = 0; i < batch; ++i) {
      if (!libraryGemm(n, m, k, {pa + i * sa, la->trans, la->ld}, {pb + i * sb, lb->trans, lb->ld}, pc + i * n * m)) {
        return false;  // the first product already fails when any would
      }
    }
    return true;
  } else {
    return false;
  }
}

// c = a . b (batched when 3-D); c is contiguous and does not overlap a or b.
void batchedGemm(const TensorBase& a, const TensorBase& b, const TensorBase& c, int64_t batch,
                 int64_t n, int64_t k, int64_t m) {
  if (a.scalar_type() == kBFloat16 && n > 0 && m > 0 && k > 0 &&
      libraryBatchedGemm<BFloat16>(a, b, c, batch, n, k, m)) {
    return;
  }
  if (isReducedFloatingType(a.scalar_type())) {
    const TensorBase c_float = detail::emptyCpu(c.sizes(), kFloat);
    batchedGemm(cpu::convertTo(a, kFloat), cpu::convertTo(b, kFloat), c_float, batch, n, k, m);
    cpu::copyInto(c, c_float);
    return;
  }
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX(a.scalar_type(), "mm", [&] {
    if (n == 0 || m == 0) return;
    if (k == 0) {
      std::fill_n(c.data_ptr<scalar_t>(), batch * n * m, scalar_t(0));
      return;
    }
    if (libraryBatchedGemm<scalar_t>(a, b, c, batch, n, k, m)) return;
    const TensorBase ac = cpu::contiguousCopy(a), bc = cpu::contiguousCopy(b);
    const scalar_t* pa = ac.data_ptr<scalar_t>();
    const scalar_t* pb = bc.data_ptr<scalar_t>();
    scalar_t* pc = c.data_ptr<scalar_t>();
    for (int64_t i = 0; i < batch; ++i) gemm(pa + i * n * k, pb + i * k * m, pc + i * n * m, n, k, m);
  });
}

// out = `batch` products of [n, k] x [k, m] matrices (the operands' last two dimensions), of
// `shape`. An operand sharing memory with out is copied first: the operands are read before
// out is resized or written.
void productInto(const Tensor& self, const Tensor& mat2, const Tensor& out, int64_t batch, const DimVector& shape) {
  cpu::checkNoInternalOverlap(out);
  const int64_t n = self.size(self.dim() - 2), k = self.size(self.dim() - 1), m = mat2.size(mat2.dim() - 1);
  TensorBase a = self, b = mat2;
  if (cpu::sharesStorage(a, out)) a = cpu::ownedCopy(a);
  if (cpu::sharesStorage(b, out)) b = cpu::ownedCopy(b);
  detail::resizeOutput(out, shape);
  const bool direct = out.is_contiguous();
  const TensorBase c = direct ? TensorBase(out) : detail::emptyCpu(shape, out.scalar_type());
  batchedGemm(a, b, c, batch, n, k, m);
  if (!direct) cpu::copyInto(out, c);
}

}  // namespace

// The impl of structured mm: meta::mm (common/LinearAlgebraMeta.cpp) has checked the operands
// and prepared `out` (its dtype is theirs), except that a resize is left for productInto when
// out shares memory with an operand.
void mm_out(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  cpu::checkCpu("mm", {&self, &mat2, &out});
  productInto(self, mat2, out, 1, DimVector{self.size(0), mat2.size(1)});
}

// The impl of structured bmm, as mm_out's (meta::bmm, common/LinearAlgebraMeta.cpp).
void bmm_out(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  cpu::checkCpu("bmm", {&self, &mat2, &out});
  productInto(self, mat2, out, self.size(0), DimVector{self.size(0), self.size(1), mat2.size(2)});
}

namespace {

// out = beta * self + alpha * (a x b), `batch` products of [n, k] x [k, m] (a and b 2-D or 3-D):
// the impls of addmm, addmv and baddbmm, whose meta functions have checked the operands and
// prepared out (`shape`, the operands' dtype). The product goes to a tensor of its own, since
// out may be self (the in-place forms) or an operand, then one elementwise pass adds it, scaled,
// to self broadcast. A 16-bit float product is computed in float (from float copies of the
// operands) and rounded once, after the addition, as PyTorch's is: rounding the product to 16
// bits first missed torch's result by an ulp. With beta = 0 self is not read, as in PyTorch
// (its NaNs would otherwise survive the multiplication by zero).
void addProductInto(const char* name, const Tensor& self, const TensorBase& a, const TensorBase& b, int64_t batch,
                    const DimVector& shape, const Scalar& beta, const Scalar& alpha, const Tensor& out) {
  const ScalarType dtype = a.scalar_type();
  const bool reduced = dtype == kHalf || dtype == kBFloat16;
  const ScalarType product_dtype = reduced ? kFloat : dtype;
  const int64_t n = a.size(a.dim() - 2), k = a.size(a.dim() - 1), m = b.size(b.dim() - 1);
  const TensorBase product = detail::emptyCpu(shape, product_dtype);
  batchedGemm(cpu::convertTo(a, product_dtype), cpu::convertTo(b, product_dtype), product, batch, n, k, m);
  const bool read_self = beta.isComplex() ? beta.toComplexDouble() != complex<double>(0) : beta.toDouble() != 0;
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, dtype, name, [&] {
    using M = opmath_t<scalar_t>;
    using P = std::conditional_t<std::is_same_v<scalar_t, Half> || std::is_same_v<scalar_t, BFloat16>, float, scalar_t>;
    const M beta_v = static_cast<M>(beta.to<scalar_t>()), alpha_v = static_cast<M>(alpha.to<scalar_t>());
    if (!read_self) {
      cpu::ElementwiseOp op(name, out, dtype, {{product, product_dtype}});
      op.run<scalar_t, P>([alpha_v](M p) -> M {
        if constexpr (std::is_integral_v<M>) return wrappingMul(alpha_v, p);
        else return alpha_v * p;
      });
      return;
    }
    cpu::ElementwiseOp op(name, out, dtype, {{self, dtype}, {product, product_dtype}});
    op.run<scalar_t, scalar_t, P>([alpha_v, beta_v](M s, M p) -> M {
      if constexpr (std::is_integral_v<M>) {
        return wrappingAdd(wrappingMul(beta_v, s), wrappingMul(alpha_v, p));
      }
      else return beta_v * s + alpha_v * p;
    });
  });
}

}  // namespace

// The impl of structured addmm (meta::addmm, common/LinearAlgebraMeta.cpp).
void addmm_out(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha,
               const Tensor& out) {
  cpu::checkCpu("addmm", {&self, &mat1, &mat2, &out});
  addProductInto("addmm", self, mat1, mat2, 1, DimVector{mat1.size(0), mat2.size(1)}, beta, alpha, out);
}

// The impl of structured addmv (meta::addmv): vec is read in place as an [m, 1] matrix.
void addmv_out(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha,
               const Tensor& out) {
  cpu::checkCpu("addmv", {&self, &mat, &vec, &out});
  const TensorBase column = detail::makeView(vec, {vec.size(0), 1}, {vec.stride(0), 1}, vec.storage_offset());
  addProductInto("addmv", self, mat, column, 1, DimVector{mat.size(0)}, beta, alpha, out);
}

// The impl of structured baddbmm (meta::baddbmm).
void baddbmm_out(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                 const Scalar& alpha, const Tensor& out) {
  cpu::checkCpu("baddbmm", {&self, &batch1, &batch2, &out});
  addProductInto("baddbmm", self, batch1, batch2, batch1.size(0),
                 DimVector{batch1.size(0), batch1.size(1), batch2.size(2)}, beta, alpha, out);
}

}  // namespace opcore::native

// Tests of the threaded CPU kernels: set_num_threads, parallel_for, and elementwise ops,
// sums, max.dim and matrix products at sizes around the parallel threshold, in every layout,
// giving the same bits whatever the thread count and matching a straightforward reference.
#include <opcore/core/Parallel.h>
#include <opcore/ops/add.h>
#include <opcore/ops/bmm.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/max.h>
#include <opcore/ops/mm.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/sum.h>
#include "TestUtil.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)
using ::testing::ElementsAreArray;

// f() computed with 1, 2 and 3 threads: the results must be the same bits.
template <typename F>
Tensor sameAtEveryThreadCount(const F& f) {
  Tensor one;
  {
    ThreadCount count(1);
    one = f();
  }
  for (int threads : {2, 3}) {
    ThreadCount count(threads);
    Tensor many = f();
    EXPECT_EQ(shapeOf(many), shapeOf(one));
    EXPECT_EQ(many.scalar_type(), one.scalar_type());
    const Tensor a = one.contiguous(), b = many.contiguous();
    EXPECT_EQ(std::memcmp(a.data_ptr(), b.data_ptr(), a.numel() * a.element_size()), 0)
        << "the result differs between 1 and " << threads << " threads";
  }
  return one;
}

// Values that make float rounding visible: i * 0.37 mod 1.7, shaped.
template <typename T = float>
Tensor wavy(int64_t n, std::vector<int64_t> shape) {
  std::vector<T> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<T>(std::fmod(double(i) * 0.37, 1.7));
  return fromVector<T>(values, shape);
}

TEST(ParallelTest, ThreadCountIsSetAndChecked) {
  EXPECT_GE(get_num_threads(), 1);
  {
    ThreadCount count(3);
    EXPECT_EQ(get_num_threads(), 3);
  }
  EXPECT_THAT(errorOf([] { set_num_threads(0); }), HasSubstr("expected a positive number of threads, but got 0"));
}

TEST(ParallelTest, ParallelForCoversTheRangeOnceAndPropagatesErrors) {
  ThreadCount count(2);
  std::vector<std::atomic<int>> seen(100000);
  parallel_for(0, 100000, 1000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) seen[i]++;
  });
  for (const auto& s : seen) ASSERT_EQ(s.load(), 1);
  std::atomic<int> inner_chunks{0};
  parallel_for(0, 4, 1, [&](int64_t, int64_t) {
    EXPECT_TRUE(in_parallel_region());
    parallel_for(0, 100000, 1, [&](int64_t b, int64_t e) {  // nested: one serial chunk
      EXPECT_EQ(e - b, 100000);
      inner_chunks++;
    });
  });
  EXPECT_EQ(inner_chunks.load(), 2);  // one per outer chunk: 4 items on 2 threads
  EXPECT_FALSE(in_parallel_region());
  EXPECT_THROW(parallel_for(0, 100000, 1, [](int64_t b, int64_t) {
                 if (b > 0) throw std::runtime_error("second chunk");
               }),
               std::runtime_error);
}

TEST(ParallelTest, ElementwiseOpsAroundTheThresholdMatchAReference) {
  for (int64_t n : {kGrainSize * 2 - 1, kGrainSize * 2 + 17, int64_t{300001}}) {
    Tensor a = wavy(n, {n}), b = wavy(n, {n}).mul(3);
    Tensor c = sameAtEveryThreadCount([&] { return opcore::add(a, b, 2); });
    Tensor e = sameAtEveryThreadCount([&] { return opcore::exp(a); });
    std::vector<float> av = toVector<float>(a), bv = toVector<float>(b), cv = toVector<float>(c),
                       ev = toVector<float>(e);
    for (int64_t i = 0; i < n; i += 97) {
      ASSERT_EQ(cv[i], av[i] + 2 * bv[i]) << i;
      ASSERT_NEAR(ev[i], std::exp(av[i]), 2e-7f * ev[i]) << i;  // 1 ulp: VecMathTest
    }
  }
}

// add and mul of same-shape contiguous operands (ElementwiseOp's dense case, Note [Dense
// operands]) of one dtype, against element-by-element arithmetic: every length up to a few
// vector widths, one around the parallel threshold, in place, and into an out that overlaps an
// input at another offset (which must leave the dense case).
template <typename T>
void checkDenseArithmetic() {
  const ScalarType dtype = CppTypeToScalarType<T>::value;
  auto value = [](int64_t i, int k) { return static_cast<T>((i * (k + 3) + k) % 11); };
  std::vector<int64_t> lengths;
  for (int64_t n = 0; n <= 40; ++n) lengths.push_back(n);
  lengths.push_back(2 * kGrainSize + 5);
  for (int64_t n : lengths) {
    std::vector<T> x(n), y(n);
    for (int64_t i = 0; i < n; ++i) x[i] = value(i, 0), y[i] = value(i, 1);
    Tensor a = fromVector<T>(x, {n}), b = fromVector<T>(y, {n});
    std::vector<T> sum = toVector<T>(opcore::add(a, b)), product = toVector<T>(opcore::mul(a, b));
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(sum[i], static_cast<T>(x[i] + y[i])) << toString(dtype) << " n=" << n << " i=" << i;
      ASSERT_EQ(product[i], static_cast<T>(x[i] * y[i])) << toString(dtype) << " n=" << n << " i=" << i;
    }
    a.add_(b);  // in place: out is self
    EXPECT_THAT(toVector<T>(a), ElementsAreArray(sum));
  }
  // out = buffer[0:n], input = buffer[1:n+1]: overlapping at another offset.
  Tensor buffer = fromVector<T>(std::vector<T>{1, 2, 3, 4, 5, 6}, {6});
  Tensor out = buffer.slice(0, 0, 5), shifted = buffer.slice(0, 1, 6);
  opcore::add_out(out, shifted, shifted);
  EXPECT_THAT(toVector<T>(buffer), ElementsAre(T(4), T(6), T(8), T(10), T(12), T(6)));
}

TEST(ParallelTest, DenseOperandsOfEveryDtypeMatchAReference) {
  checkDenseArithmetic<int32_t>();
  checkDenseArithmetic<int64_t>();
  checkDenseArithmetic<float>();
  checkDenseArithmetic<double>();
  // Bool: add is logical or, mul logical and.
  Tensor p = fromVector<bool>({true, true, false, false}), q = fromVector<bool>({true, false, true, false});
  EXPECT_THAT(toVector<bool>(opcore::add(p, q)), ElementsAre(true, true, true, false));
  EXPECT_THAT(toVector<bool>(opcore::mul(p, q)), ElementsAre(true, false, false, false));
  // 0-dim operands.
  EXPECT_EQ(opcore::add(scalarTensor<float>(1.5f), scalarTensor<float>(2.0f)).item<float>(), 3.5f);
}

TEST(ParallelTest, BroadcastTransposedAndStridedOperandsMatchAReference) {
  const int64_t rows = 300, cols = 700;  // 210000 elements: above the threshold
  Tensor m = wavy(rows * cols, {rows, cols});
  Tensor row = wavy(cols, {cols});
  Tensor mt = wavy(rows * cols, {cols, rows}).t();             // transposed
  Tensor strided = wavy(rows * cols * 2, {rows, cols * 2}).slice(1, 0, cols * 2, 2);
  for (const Tensor& other : {row, mt, strided}) {
    Tensor r = sameAtEveryThreadCount([&] { return opcore::add(m, other); });
    Tensor ob = other.expand({rows, cols});
    std::vector<float> mv = toVector<float>(m), ov = toVector<float>(ob), rv = toVector<float>(r);
    for (int64_t i = 0; i < rows * cols; i += 31) ASSERT_EQ(rv[i], mv[i] + ov[i]) << i;
  }
  // Into a transposed out.
  Tensor out = opcore::empty({cols, rows}).t();
  opcore::add_out(out, m, mt);
  std::vector<float> mv = toVector<float>(m), tv = toVector<float>(mt), ov = toVector<float>(out);
  for (int64_t i = 0; i < rows * cols; i += 31) ASSERT_EQ(ov[i], mv[i] + tv[i]) << i;
}

TEST(ParallelTest, SumsAreDeterministicAndAccurate) {
  for (int64_t n : {int64_t{1000}, kGrainSize * 4 - 1, kGrainSize * 4 * 3 + 5, int64_t{1} << 22}) {
    Tensor a = wavy(n, {n});
    Tensor s = sameAtEveryThreadCount([&] { return opcore::sum(a); });
    double expected = 0;
    for (float v : toVector<float>(a)) expected += v;
    EXPECT_NEAR(s.item<float>(), expected, 1e-6 * std::abs(expected)) << n;
  }
}

TEST(ParallelTest, SixteenMillionOnesSumExactly) {
  EXPECT_EQ(opcore::sum(opcore::ones({int64_t{1} << 24})).item<float>(), 16777216.0f);
}

TEST(ParallelTest, SumsOverEitherDimensionOfAMatrixAreDeterministic) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{2048, 300}, {300, 2048}, {3, 200000}, {200000, 3}}) {
    Tensor m = wavy(rows * cols, {rows, cols});
    std::vector<float> mv = toVector<float>(m);
    for (int64_t dim : {0, 1}) {
      Tensor s = sameAtEveryThreadCount([&] { return opcore::sum(m, {dim}); });
      std::vector<float> sv = toVector<float>(s);
      const int64_t outputs = dim == 0 ? cols : rows, len = dim == 0 ? rows : cols;
      for (int64_t o = 0; o < outputs; o += 7) {
        double expected = 0;
        for (int64_t j = 0; j < len; ++j) expected += mv[dim == 0 ? j * cols + o : o * cols + j];
        ASSERT_NEAR(sv[o], expected, 1e-5 * (1 + std::abs(expected))) << rows << "x" << cols << " dim " << dim;
      }
    }
  }
  // Into a strided out, in double.
  Tensor m = wavy<double>(4000 * 100, {4000, 100});
  Tensor out = opcore::empty({200}, ScalarType::Double).slice(0, 0, 200, 2);
  opcore::sum_out(out, m, {0});
  std::vector<double> mv = toVector<double>(m), ov = toVector<double>(out);
  double expected = 0;
  for (int64_t j = 0; j < 4000; ++j) expected += mv[j * 100 + 99];
  EXPECT_NEAR(ov[99], expected, 1e-9 * expected);
}

TEST(ParallelTest, MaxAlongALongDimensionMatchesAReference) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1000, 300}, {3, 100000}}) {
    Tensor m = wavy(rows * cols, {rows, cols});
    std::vector<float> mv = toVector<float>(m);
    for (int64_t dim : {0, 1}) {
      auto [values, indices] = opcore::max(m, dim);
      Tensor v2 = sameAtEveryThreadCount([&] { return std::get<0>(opcore::max(m, dim)); });
      EXPECT_THAT(toVector<float>(v2), Pointwise(FloatEq(), toVector<float>(values)));
      std::vector<float> vv = toVector<float>(values);
      std::vector<int64_t> iv = toVector<int64_t>(indices);
      const int64_t outputs = dim == 0 ? cols : rows, len = dim == 0 ? rows : cols;
      for (int64_t o = 0; o < outputs; o += 11) {
        float best = -1;
        int64_t where = -1;
        for (int64_t j = 0; j < len; ++j) {
          const float x = mv[dim == 0 ? j * cols + o : o * cols + j];
          if (x > best) best = x, where = j;
        }
        ASSERT_EQ(vv[o], best);
        ASSERT_EQ(iv[o], where);
      }
    }
  }
}

// a . b computed in double from the row-major values of any layout.
template <typename T>
std::vector<double> naiveProduct(const Tensor& a, const Tensor& b) {
  const int64_t n = a.size(0), k = a.size(1), m = b.size(1);
  std::vector<T> av = toVector<T>(a), bv = toVector<T>(b);
  std::vector<double> c(n * m, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t j = 0; j < m; ++j) c[i * m + j] += double(av[i * k + p]) * double(bv[p * m + j]);
    }
  }
  return c;
}

template <typename T>
void expectProduct(const Tensor& a, const Tensor& b, const Tensor& c, double tol) {
  std::vector<double> expected = naiveProduct<T>(a, b);
  std::vector<T> got = toVector<T>(c);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], expected[i], tol * (1 + std::abs(expected[i]))) << i;
}

template <typename T>
void checkProductLayouts(double tol) {
  const int64_t n = 65, k = 130, m = 97;
  const ScalarType dtype = CppTypeToScalarType<T>::value;
  Tensor a = wavy<T>(n * k, {n, k}), b = wavy<T>(k * m, {k, m});
  Tensor at = wavy<T>(n * k, {k, n}).t();  // transposed
  Tensor bt = wavy<T>(k * m, {m, k}).t();
  Tensor a_cols = wavy<T>(n * k * 2, {n, k * 2}).slice(1, 3, 3 + k);  // row stride 2k
  Tensor b_every_other = wavy<T>(k * m * 4, {k * 2, m * 2}).slice(0, 0, 2 * k, 2).slice(1, 0, 2 * m, 2);
  for (const Tensor& x : {a, at, a_cols}) {
    for (const Tensor& y : {b, bt, b_every_other}) expectProduct<T>(x, y, opcore::mm(x, y), tol);
  }
  // Into a transposed out, and with an empty inner dimension.
  Tensor out = opcore::empty({m, n}, dtype).t();
  opcore::mm_out(out, at, bt);
  expectProduct<T>(at, bt, out, tol);
  Tensor zero_k = opcore::mm(opcore::empty({3, 0}, dtype), opcore::empty({0, 4}, dtype));
  EXPECT_EQ(shapeOf(zero_k), (Shape{3, 4}));
  EXPECT_THAT(toVector<T>(zero_k), Each(T(0)));
}

TEST(ParallelTest, MatrixProductsReadEveryLayout) {
  checkProductLayouts<float>(1e-5);
  checkProductLayouts<double>(1e-12);
}

TEST(ParallelTest, BatchedProductsReadTransposedAndExpandedBatches) {
  const int64_t batch = 5, n = 33, k = 40, m = 21;
  Tensor a = wavy(batch * k * n, {batch, k, n}).transpose(1, 2);  // each matrix transposed
  Tensor b = wavy(k * m, {1, k, m}).expand({batch, k, m});       // one matrix, batch stride 0
  Tensor c = sameAtEveryThreadCount([&] { return opcore::bmm(a, b); });
  for (int64_t i = 0; i < batch; ++i) expectProduct<float>(a.select(0, i), b.select(0, i), c.select(0, i), 1e-5);
  std::vector<int32_t> int_values(batch * n * k);
  for (size_t i = 0; i < int_values.size(); ++i) int_values[i] = static_cast<int32_t>(i % 7);
  Tensor ints = fromVector<int32_t>(int_values, {batch, n, k});
  Tensor ci = opcore::bmm(ints, ints.transpose(1, 2));  // the dtype BLAS lacks: the loop
  std::vector<int32_t> cv = toVector<int32_t>(ci), iv = toVector<int32_t>(ints);
  int32_t expected = 0;
  for (int64_t p = 0; p < k; ++p) expected += iv[(4 * n + 2) * k + p] * iv[(4 * n + 5) * k + p];
  EXPECT_EQ(cv[(4 * n + 2) * n + 5], expected);
}

}  // namespace
}  // namespace opcore

// Tests of the matrix-product libraries behind mm and bmm (kernels/cpu/Gemm.h, Note
// [Matrix-product libraries]): oneDNN's products agree with OpenBLAS's, BFloat16 products
// through oneDNN agree with the float product rounded once, and no result depends on the
// thread count (Note [Thread-count-independent products] in kernels/cpu/OneDnnGemm.cpp).
#include <opcore/core/Parallel.h>
#include <opcore/ops/bmm.h>
#include <opcore/ops/mm.h>
#include "TestUtil.h"
#include "cpu/Gemm.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

// i * 0.37 mod 1.7 - 0.8 (signs mixed, so sums cancel and rounding shows), shaped.
Tensor wavy(std::vector<int64_t> shape, int seed = 0) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<float> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<float>(std::fmod(double(i + seed) * 0.37, 1.7) - 0.8);
  return fromVector<float>(values, shape);
}

// f() at 1, 2 and 3 threads: the same bits.
template <typename F>
void expectSameAtEveryThreadCount(const F& f, const std::string& what) {
  Tensor one;
  {
    ThreadCount count(1);
    one = f().contiguous();
  }
  for (int threads : {2, 3}) {
    ThreadCount count(threads);
    const Tensor many = f().contiguous();
    ASSERT_EQ(many.numel(), one.numel());
    EXPECT_EQ(std::memcmp(many.data_ptr(), one.data_ptr(), one.numel() * one.element_size()), 0)
        << what << ": the result differs between 1 and " << threads << " threads";
  }
}

// The shapes and layouts the products are checked on: [n, k] . [k, m], operands transposed
// or not. Small results with a long k (which oneDNN would split along k), results of several
// blocks with a remainder, both orientations (and bfloat16's rows of a result wider than tall).
struct Shape {
  int64_t n, k, m;
};
const Shape kShapes[] = {{1, 1, 1},     {2, 8192, 3},    {3, 5, 700},    {700, 5, 3},
                         {300, 257, 513}, {513, 64, 300}, {576, 96, 640}, {64, 4096, 64}};

#if OPCORE_WITH_ONEDNN
TEST(GemmTest, OneDnnMatchesOpenBlas) {
  for (const Shape& s : kShapes) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        const Tensor a = wavy({s.n, s.k}, 1), b = wavy({s.k, s.m}, 2);
        const Tensor a_in = ta ? a.t().contiguous() : a, b_in = tb ? b.t().contiguous() : b;  // stored transposed
        const native::cpu::GemmOperand<float> oa{a_in.data_ptr<float>(), ta, ta ? s.n : s.k},
            ob{b_in.data_ptr<float>(), tb, tb ? s.k : s.m};
        std::vector<float> c1(static_cast<size_t>(s.n * s.m)), c2(c1.size());
        native::cpu::openblas::sgemm(s.n, s.m, s.k, oa, ob, c1.data(), s.m);
        native::cpu::onednn::sgemm(s.n, s.m, s.k, oa, ob, c2.data(), s.m);
        for (size_t i = 0; i < c1.size(); ++i) {
          // Both sum k products of |x| <= 0.9 in float, in their own orders.
          ASSERT_NEAR(c1[i], c2[i], 4e-7 * double(s.k) + 1e-6)
              << "n=" << s.n << " k=" << s.k << " m=" << s.m << " ta=" << ta << " tb=" << tb << " i=" << i;
        }
      }
    }
  }
}
#endif

TEST(GemmTest, BFloat16ProductIsTheFloatProductRoundedOnce) {
  for (const Shape& s : kShapes) {
    const Tensor a = wavy({s.n, s.k}, 3).to(kBFloat16), b = wavy({s.k, s.m}, 4).to(kBFloat16);
    for (const Tensor& bb : {b, b.t().contiguous().t()}) {
      const Tensor c = opcore::mm(a, bb);
      ASSERT_EQ(c.scalar_type(), kBFloat16);
      const std::vector<float> exact = toVector<float>(opcore::mm(a.to(kDouble), bb.to(kDouble)).to(kFloat));
      const std::vector<float> got = toVector<float>(c.to(kFloat));
      for (size_t i = 0; i < got.size(); ++i) {
        // One rounding to bfloat16 (2^-8 relative) and float sums of k products.
        ASSERT_NEAR(got[i], exact[i], std::abs(exact[i]) * 0x1p-8 + 1e-6 * double(s.k))
            << "n=" << s.n << " k=" << s.k << " m=" << s.m << " i=" << i;
      }
    }
  }
}

TEST(GemmTest, ProductsDoNotDependOnTheThreadCount) {
  for (const Shape& s : kShapes) {
    const std::string shape = " [" + std::to_string(s.n) + ", " + std::to_string(s.k) + "] . [" +
                              std::to_string(s.k) + ", " + std::to_string(s.m) + "]";
    const Tensor a = wavy({s.n, s.k}, 5), b = wavy({s.k, s.m}, 6);
    const Tensor bt = b.t().contiguous().t();
    expectSameAtEveryThreadCount([&] { return opcore::mm(a, b); }, "float mm" + shape);
    expectSameAtEveryThreadCount([&] { return opcore::mm(a, bt); }, "float mm, b transposed" + shape);
    const Tensor ah = a.to(kBFloat16), bh = b.to(kBFloat16);
    expectSameAtEveryThreadCount([&] { return opcore::mm(ah, bh); }, "bfloat16 mm" + shape);
    const Tensor ad = a.to(kDouble), bd = b.to(kDouble);
    expectSameAtEveryThreadCount([&] { return opcore::mm(ad, bd); }, "double mm" + shape);
  }
  const Tensor a = wavy({3, 40, 600}), b = wavy({3, 600, 50});
  expectSameAtEveryThreadCount([&] { return opcore::bmm(a, b); }, "float bmm");
  expectSameAtEveryThreadCount([&] { return opcore::bmm(a.to(kBFloat16), b.to(kBFloat16)); }, "bfloat16 bmm");
}

}  // namespace
}  // namespace opcore

// Tests of sum, mean and max.dim (structured, with its out= overload max.dim_max): all and
// selected dimensions, keepdim, dtype, integral inputs, out= (aliasing its input too) and errors.
#include <opcore/ops/arange.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/max.h>
#include <opcore/ops/mean.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/sum.h>
#include "TestUtil.h"

#include <cmath>
#include <tuple>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

// [[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]]]
Tensor cube() { return fromVector<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {2, 2, 3}); }

TEST(ReduceTest, SumsEverything) {
  Tensor s = opcore::sum(cube());
  EXPECT_EQ(shapeOf(s), Shape{});
  EXPECT_EQ(s.scalar_type(), ScalarType::Float);
  EXPECT_EQ(s.item<float>(), 66);
}

TEST(ReduceTest, SumsOverOneDimension) {
  EXPECT_THAT(toVector<float>(opcore::sum(cube(), {0})), ElementsAre(6, 8, 10, 12, 14, 16));
  EXPECT_THAT(toVector<float>(opcore::sum(cube(), {1})), ElementsAre(3, 5, 7, 15, 17, 19));
  Tensor last = opcore::sum(cube(), {-1});
  EXPECT_EQ(shapeOf(last), (Shape{2, 2}));
  EXPECT_THAT(toVector<float>(last), ElementsAre(3, 12, 21, 30));
}

TEST(ReduceTest, SumsOverSeveralDimensionsWithKeepdim) {
  Tensor s = opcore::sum(cube(), {0, 2}, /*keepdim=*/true);
  EXPECT_EQ(shapeOf(s), (Shape{1, 2, 1}));
  EXPECT_THAT(toVector<float>(s), ElementsAre(24, 42));
  Tensor t = opcore::sum(cube(), {2, 0});
  EXPECT_EQ(shapeOf(t), (Shape{2}));
  EXPECT_THAT(toVector<float>(t), ElementsAre(24, 42));
  Tensor all = opcore::sum(cube(), {0, 1, 2}, true);
  EXPECT_EQ(shapeOf(all), (Shape{1, 1, 1}));
  EXPECT_THAT(toVector<float>(all), ElementsAre(66));
}

TEST(ReduceTest, SumOfIntegralAndBoolIsLong) {
  Tensor i = fromVector<int32_t>({1, 2, 3});
  Tensor s = opcore::sum(i);
  EXPECT_EQ(s.scalar_type(), ScalarType::Long);
  EXPECT_EQ(s.item<int64_t>(), 6);
  Tensor b = opcore::sum(fromVector<bool>({true, false, true}));
  EXPECT_EQ(b.scalar_type(), ScalarType::Long);
  EXPECT_EQ(b.item<int64_t>(), 2);
}

// Every row length around the short rows' path and the blocks' lanes (Reduce.cpp's
// sumContiguous), of every dtype whose sum is exact there: GCC 12 at -O3 once dropped partial
// sums of short int8 rows (16 ones summed to 4).
TEST(ReduceTest, SumsOfOnesOfEveryLengthUpTo300) {
  for (ScalarType t : {ScalarType::Bool, ScalarType::Byte, ScalarType::Char, ScalarType::Short, ScalarType::Int,
                       ScalarType::Long, ScalarType::Float, ScalarType::Double, ScalarType::Half}) {
    for (int64_t n = 1; n <= 300; ++n) {
      ASSERT_EQ(opcore::sum(opcore::ones({n}, TensorOptions().dtype(t))).item<double>(), static_cast<double>(n))
          << toString(t) << " n=" << n;
    }
  }
}

TEST(ReduceTest, SumWithDtype) {
  Tensor i = fromVector<int32_t>({1, 2, 3, 4}, {2, 2});
  Tensor s = opcore::sum(i, {1}, false, ScalarType::Double);
  EXPECT_EQ(s.scalar_type(), ScalarType::Double);
  EXPECT_THAT(toVector<double>(s), ElementsAre(3, 7));
  Tensor f = opcore::sum(fromVector<float>({0.5, 0.25}), ScalarType::Double);
  EXPECT_EQ(f.item<double>(), 0.75);
}

TEST(ReduceTest, SumOfStridedAndEmptyInputs) {
  Tensor a = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}).t();  // [[1, 4], [2, 5], [3, 6]]
  EXPECT_THAT(toVector<float>(opcore::sum(a, {0})), ElementsAre(6, 15));
  EXPECT_THAT(toVector<float>(opcore::sum(a, {1})), ElementsAre(5, 7, 9));
  Tensor e = opcore::sum(opcore::ones({0, 3}), {0});
  EXPECT_THAT(toVector<float>(e), ElementsAre(0, 0, 0));
  EXPECT_EQ(opcore::sum(opcore::ones({0})).item<float>(), 0);
}

TEST(ReduceTest, SumOfManyElementsIsAccurate) {
  const int64_t n = 100000;
  Tensor ones = opcore::ones({n});
  EXPECT_EQ(opcore::sum(ones).item<float>(), static_cast<float>(n));
  Tensor r = opcore::arange(n, ScalarType::Float);
  EXPECT_THAT(opcore::sum(r).item<double>(), DoubleNear(4999950000.0, 4999950000.0 * 1e-6));
}

TEST(ReduceTest, SumOut) {
  Tensor out = opcore::empty({0});
  opcore::sum_out(out, cube(), {1, 2});
  EXPECT_EQ(shapeOf(out), (Shape{2}));
  EXPECT_THAT(toVector<float>(out), ElementsAre(15, 51));
  Tensor wrong = opcore::empty({2}, ScalarType::Double);
  EXPECT_THAT(errorOf([&] { opcore::sum_out(wrong, cube(), {1, 2}, false, ScalarType::Float); }),
              HasSubstr("Expected out tensor to have dtype Float, but got Double instead"));
}

TEST(ReduceTest, SumOutIntoItsOwnInput) {
  Tensor x = fromVector<float>({1, 2, 3, 4}, {2, 2});
  opcore::sum_out(x, x, {1});
  EXPECT_EQ(shapeOf(x), (Shape{2}));
  EXPECT_THAT(toVector<float>(x), ElementsAre(3, 7));
}

TEST(ReduceTest, SumOfALargeTransposedMatrix) {
  const int64_t rows = 37, cols = 70;
  Tensor a = opcore::arange(rows * cols).view({rows, cols});  // a[j][i] = 70 j + i
  std::vector<int64_t> s = toVector<int64_t>(opcore::sum(a.t(), {1}));
  ASSERT_EQ(s.size(), static_cast<size_t>(cols));
  for (int64_t i = 0; i < cols; ++i) EXPECT_EQ(s[i], cols * (rows * (rows - 1) / 2) + rows * i);
  std::vector<int64_t> t = toVector<int64_t>(opcore::sum(a.t(), {0}));
  for (int64_t j = 0; j < rows; ++j) EXPECT_EQ(t[j], cols * cols * j + cols * (cols - 1) / 2);
}

TEST(ReduceTest, SumRejectsBadDims) {
  EXPECT_THAT(errorOf([] { opcore::sum(cube(), {3}); }), HasSubstr("dimension out of range"));
  EXPECT_THAT(errorOf([] { opcore::sum(cube(), {0, -3}); }),
              HasSubstr("dim 0 appears multiple times in the list of dims"));
}

TEST(ReduceTest, Mean) {
  EXPECT_EQ(opcore::mean(cube()).item<float>(), 5.5);
  Tensor m = opcore::mean(cube(), {0, 1}, true);
  EXPECT_EQ(shapeOf(m), (Shape{1, 1, 3}));
  EXPECT_THAT(toVector<float>(m), ElementsAre(4.5, 5.5, 6.5));
  Tensor d = opcore::mean(fromVector<int64_t>({1, 2}), ScalarType::Double);
  EXPECT_EQ(d.scalar_type(), ScalarType::Double);
  EXPECT_EQ(d.item<double>(), 1.5);
  EXPECT_TRUE(std::isnan(opcore::mean(opcore::ones({0})).item<float>()));
}

TEST(ReduceTest, MeanRejectsIntegralDtypes) {
  EXPECT_THAT(errorOf([] { opcore::mean(fromVector<int64_t>({1, 2})); }),
              HasSubstr("mean(): could not infer output dtype. Input dtype must be either a "
                        "floating point or complex dtype. Got: Long"));
  EXPECT_THAT(errorOf([] { opcore::mean(cube(), ScalarType::Int); }),
              HasSubstr("Optional dtype must be either a floating point or complex dtype. Got: Int"));
}

TEST(ReduceTest, MaxAlongDimension) {
  Tensor a = fromVector<float>({1, 5, 3, 7, 2, 7}, {2, 3});
  auto [values, indices] = opcore::max(a, 1);
  EXPECT_EQ(indices.scalar_type(), ScalarType::Long);
  EXPECT_THAT(toVector<float>(values), ElementsAre(5, 7));
  EXPECT_THAT(toVector<int64_t>(indices), ElementsAre(1, 0));  // first index on ties
  auto [v0, i0] = opcore::max(a, 0, /*keepdim=*/true);
  EXPECT_EQ(shapeOf(v0), (Shape{1, 3}));
  EXPECT_THAT(toVector<float>(v0), ElementsAre(7, 5, 7));
  EXPECT_THAT(toVector<int64_t>(i0), ElementsAre(1, 0, 1));
}

TEST(ReduceTest, MaxOfStridedIntegralAndNanInputs) {
  Tensor a = fromVector<int32_t>({1, 9, 4, 2}, {2, 2}).t();  // [[1, 4], [9, 2]]
  auto [v, i] = a.max(-1);
  EXPECT_THAT(toVector<int32_t>(v), ElementsAre(4, 9));
  EXPECT_THAT(toVector<int64_t>(i), ElementsAre(1, 0));
  auto [nv, ni] = opcore::max(fromVector<float>({1, NAN, 3}), 0);
  EXPECT_TRUE(std::isnan(nv.item<float>()));
  EXPECT_EQ(ni.item<int64_t>(), 1);
}

TEST(ReduceTest, MaxRejectsEmptyDimension) {
  EXPECT_THAT(errorOf([] { opcore::max(opcore::ones({2, 0}), 1); }),
              HasSubstr("Expected reduction dim 1 to have non-zero size"));
}

TEST(ReduceTest, MaxOfA0DimTensorAndBadDims) {
  auto [v, i] = opcore::max(scalarTensor<float>(5), 0);
  EXPECT_EQ(shapeOf(v), Shape{});
  EXPECT_EQ(v.item<float>(), 5);
  EXPECT_EQ(i.item<int64_t>(), 0);
  EXPECT_THAT(errorOf([] { opcore::max(opcore::ones({2, 3}), 2); }),
              HasSubstr("dimension out of range (expected to be in range of [-2, 1], but got 2)"));
}

// max.dim_max: `max` receives the values, `max_values` the indices (PyTorch's names).
TEST(ReduceTest, MaxOutResizesAndAgreesWithTheFunctionalForm) {
  Tensor a = fromVector<float>({1, 5, 3, 7, 2, 7}, {2, 3});
  Tensor values = opcore::empty({0}), indices = opcore::empty({5}, ScalarType::Long);
  auto [rv, ri] = opcore::max_out(values, indices, a, -1, /*keepdim=*/true);
  EXPECT_TRUE(rv.is_same(values) && ri.is_same(indices)) << "out= returns its outputs";
  EXPECT_EQ(shapeOf(values), (Shape{2, 1}));
  EXPECT_THAT(toVector<float>(values), ElementsAre(5, 7));
  EXPECT_THAT(toVector<int64_t>(indices), ElementsAre(1, 0));
  Tensor values_t = opcore::empty({3, 1}).t();  // a non-contiguous out keeps its strides
  Tensor indices_1 = opcore::empty({1, 3}, ScalarType::Long);
  opcore::max_outf(a, 0, true, values_t, indices_1);
  EXPECT_THAT(toVector<float>(values_t), ElementsAre(7, 5, 7));
  EXPECT_THAT(toVector<int64_t>(indices_1), ElementsAre(1, 0, 1));
}

TEST(ReduceTest, MaxOutIntoItsOwnInput) {
  Tensor x = fromVector<float>({1, 5, 3, 7, 2, 7}, {2, 3});
  Tensor indices = opcore::empty({0}, ScalarType::Long);
  opcore::max_out(x, indices, x, 1);  // x is read before it is resized to [2]
  EXPECT_EQ(shapeOf(x), (Shape{2}));
  EXPECT_THAT(toVector<float>(x), ElementsAre(5, 7));
  EXPECT_THAT(toVector<int64_t>(indices), ElementsAre(1, 0));
  Tensor l = fromVector<int64_t>({4, 9, 2, 1}, {2, 2});
  Tensor l_values = opcore::empty({2}, ScalarType::Long);
  opcore::max_out(l_values, l, l, 0);  // indices into the input, same shape: no resize
  EXPECT_THAT(toVector<int64_t>(l_values), ElementsAre(4, 9));
  EXPECT_THAT(toVector<int64_t>(l), ElementsAre(0, 0));
}

TEST(ReduceTest, MaxOutChecksItsOutputs) {
  Tensor a = fromVector<float>({1, 5, 3, 7}, {2, 2});
  Tensor values = opcore::empty({2}), indices = opcore::empty({2}, ScalarType::Long);
  Tensor double_values = opcore::empty({2}, ScalarType::Double);
  EXPECT_THAT(errorOf([&] { opcore::max_out(double_values, indices, a, 1); }),
              HasSubstr("aten::max.dim_max: Expected out tensor to have dtype Float, but got Double instead"));
  Tensor int_indices = opcore::empty({2}, ScalarType::Int);
  EXPECT_THAT(errorOf([&] { opcore::max_out(values, int_indices, a, 1); }),
              HasSubstr("aten::max.dim_max: Expected out tensor to have dtype Long, but got Int instead"));
  Tensor meta_values = opcore::empty({2}, ScalarType::Float, std::nullopt, Device(DeviceType::Meta));
  EXPECT_THAT(errorOf([&] { opcore::max_out(meta_values, indices, a, 1); }),
              HasSubstr("aten::max.dim_max: expected out on cpu, but it is on meta"));
  Tensor long_a = fromVector<int64_t>({1, 5, 3, 7}, {2, 2});
  Tensor both = opcore::empty({2}, ScalarType::Long);
  EXPECT_THAT(errorOf([&] { opcore::max_out(both, both, long_a, 1); }),
              HasSubstr("max(): the values and indices outputs share memory"));
  EXPECT_THAT(errorOf([&] { opcore::max_out(values, indices, opcore::ones({2, 0}), 1); }),
              HasSubstr("max(): Expected reduction dim 1 to have non-zero size."));
}

TEST(ReduceTest, MethodVariants) {
  Tensor a = fromVector<float>({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(a.sum().item<float>(), 10);
  EXPECT_THAT(toVector<float>(a.sum({0}, true)), ElementsAre(4, 6));
  EXPECT_EQ(a.mean().item<float>(), 2.5);
  EXPECT_THAT(toVector<float>(a.mean({1})), ElementsAre(1.5, 3.5));
}

}  // namespace
}  // namespace opcore

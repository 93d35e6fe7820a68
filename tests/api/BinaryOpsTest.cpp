// Tests of add / sub / mul / div through the public API: values, broadcasting, alpha, Scalar
// overloads, in-place and out= forms, strided inputs, method variants and error messages.
#include <opcore/ops/add.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/div.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/zeros.h>
#include "TestUtil.h"

#include <limits>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

TEST(BinaryOpsTest, AddsSameShapeTensors) {
  Tensor a = fromVector<float>({1, 2, 3, 4}, {2, 2});
  Tensor b = fromVector<float>({10, 20, 30, 40}, {2, 2});
  Tensor c = opcore::add(a, b);
  EXPECT_EQ(c.scalar_type(), ScalarType::Float);
  EXPECT_EQ(shapeOf(c), (std::vector<int64_t>{2, 2}));
  EXPECT_THAT(toVector<float>(c), ElementsAre(11, 22, 33, 44));
}

TEST(BinaryOpsTest, BroadcastsRowAgainstColumn) {
  Tensor row = fromVector<int64_t>({1, 2, 3}, {1, 3});
  Tensor col = fromVector<int64_t>({10, 20}, {2, 1});
  Tensor c = opcore::add(row, col);
  EXPECT_EQ(shapeOf(c), (std::vector<int64_t>{2, 3}));
  EXPECT_THAT(toVector<int64_t>(c), ElementsAre(11, 12, 13, 21, 22, 23));
}

TEST(BinaryOpsTest, BroadcastsLowerRankOperand) {
  Tensor a = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = fromVector<float>({1, 10, 100});
  EXPECT_THAT(toVector<float>(opcore::mul(a, b)), ElementsAre(1, 20, 300, 4, 50, 600));
  EXPECT_THAT(toVector<float>(opcore::mul(b, a)), ElementsAre(1, 20, 300, 4, 50, 600));
}

TEST(BinaryOpsTest, RejectsIncompatibleShapes) {
  Tensor a = opcore::ones({2, 3});
  Tensor b = opcore::ones({2, 4});
  EXPECT_THAT(errorOf([&] { opcore::add(a, b); }),
              HasSubstr("The size of tensor a (3) must match the size of tensor b (4) at "
                        "non-singleton dimension 1"));
}

TEST(BinaryOpsTest, AppliesAlphaInAddAndSub) {
  Tensor a = fromVector<float>({1, 2, 3});
  Tensor b = fromVector<float>({1, 1, 2});
  EXPECT_THAT(toVector<float>(opcore::add(a, b, 2)), ElementsAre(3, 4, 7));
  EXPECT_THAT(toVector<float>(opcore::sub(a, b)), ElementsAre(0, 1, 1));
  EXPECT_THAT(toVector<float>(opcore::sub(a, b, 0.5)), ElementsAre(0.5, 1.5, 2));
  Tensor i = fromVector<int32_t>({5, 6});
  EXPECT_THAT(toVector<int32_t>(opcore::sub(i, fromVector<int32_t>({1, 2}), 3)), ElementsAre(2, 0));
}

TEST(BinaryOpsTest, RejectsFloatAlphaForIntegralInputs) {
  Tensor i = fromVector<int64_t>({1, 2});
  EXPECT_THAT(errorOf([&] { opcore::add(i, i, 1.5); }),
              HasSubstr("For integral input tensors, argument alpha must not be a floating point number"));
}

TEST(BinaryOpsTest, ScalarOverloadsKeepTheTensorsIntegralType) {
  Tensor i = fromVector<int32_t>({1, 2, 3});
  Tensor r = opcore::add(i, 2);
  EXPECT_EQ(r.scalar_type(), ScalarType::Int);
  EXPECT_THAT(toVector<int32_t>(r), ElementsAre(3, 4, 5));
  EXPECT_THAT(toVector<int32_t>(opcore::mul(i, 3)), ElementsAre(3, 6, 9));
  EXPECT_THAT(toVector<int32_t>(opcore::sub(i, 1)), ElementsAre(0, 1, 2));
}

TEST(BinaryOpsTest, FloatScalarPromotesIntTensorToDefaultFloat) {
  Tensor i = fromVector<int32_t>({1, 2});
  Tensor r = opcore::add(i, 2.5);
  EXPECT_EQ(r.scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(r), ElementsAre(3.5, 4.5));
}

TEST(BinaryOpsTest, ZeroDimTensorsDoNotWidenWithinACategory) {
  Tensor i = fromVector<int32_t>({1, 2});
  Tensor r = opcore::add(i, scalarTensor<int64_t>(5));
  EXPECT_EQ(r.scalar_type(), ScalarType::Int);
  EXPECT_THAT(toVector<int32_t>(r), ElementsAre(6, 7));

  Tensor f = fromVector<float>({1, 2});
  Tensor g = opcore::mul(f, scalarTensor<double>(0.5));
  EXPECT_EQ(g.scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(g), ElementsAre(0.5, 1));
}

TEST(BinaryOpsTest, ZeroDimFloatTensorPromotesIntTensor) {
  // A zero-dim tensor of a higher category decides the dtype (PyTorch gives float64 here).
  Tensor r = opcore::add(fromVector<int32_t>({1, 2}), scalarTensor<double>(0.5));
  EXPECT_EQ(r.scalar_type(), ScalarType::Double);
  EXPECT_THAT(toVector<double>(r), ElementsAre(1.5, 2.5));
}

TEST(BinaryOpsTest, PromotesAcrossDimensionedTensors) {
  Tensor r = opcore::add(fromVector<int32_t>({1, 2}), fromVector<int64_t>({10, 20}));
  EXPECT_EQ(r.scalar_type(), ScalarType::Long);
  Tensor s = opcore::mul(fromVector<int64_t>({1, 2}), fromVector<float>({0.5, 0.5}));
  EXPECT_EQ(s.scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(s), ElementsAre(0.5, 1));
  Tensor d = opcore::add(fromVector<float>({1}), fromVector<double>({2}));
  EXPECT_EQ(d.scalar_type(), ScalarType::Double);
}

TEST(BinaryOpsTest, BoolArithmetic) {
  Tensor a = fromVector<bool>({true, true, false, false});
  Tensor b = fromVector<bool>({true, false, true, false});
  Tensor sum = opcore::add(a, b);
  EXPECT_EQ(sum.scalar_type(), ScalarType::Bool);
  EXPECT_THAT(toVector<bool>(sum), ElementsAre(true, true, true, false));
  EXPECT_THAT(toVector<bool>(opcore::mul(a, b)), ElementsAre(true, false, false, false));
  Tensor plus_int = opcore::add(a, 2);
  EXPECT_EQ(plus_int.scalar_type(), ScalarType::Long);
  EXPECT_THAT(toVector<int64_t>(plus_int), ElementsAre(3, 3, 2, 2));
}

TEST(BinaryOpsTest, SubtractionOfBoolTensorsIsAnError) {
  Tensor a = fromVector<bool>({true});
  EXPECT_THAT(errorOf([&] { opcore::sub(a, a); }),
              HasSubstr("sub: both operands are bool tensors"));
  EXPECT_THAT(errorOf([&] { opcore::sub(a, fromVector<float>({1})); }),
              HasSubstr("sub: one operand is a bool tensor"));
}

TEST(BinaryOpsTest, TrueDivisionOfIntegersGivesFloat) {
  Tensor a = fromVector<int64_t>({7, -7, 1});
  Tensor b = fromVector<int64_t>({2, 2, 0});
  Tensor q = opcore::div(a, b);
  EXPECT_EQ(q.scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(q), ElementsAre(3.5, -3.5, std::numeric_limits<float>::infinity()));
  EXPECT_EQ(opcore::div(a, 2).scalar_type(), ScalarType::Float);
  EXPECT_EQ(opcore::div(fromVector<double>({1}), 2).scalar_type(), ScalarType::Double);
}

TEST(BinaryOpsTest, DivisionRoundingModes) {
  Tensor a = fromVector<int64_t>({7, -7, 7, -7});
  Tensor b = fromVector<int64_t>({2, 2, -2, -2});
  Tensor trunc = opcore::div(a, b, "trunc");
  EXPECT_EQ(trunc.scalar_type(), ScalarType::Long);
  EXPECT_THAT(toVector<int64_t>(trunc), ElementsAre(3, -3, -3, 3));
  EXPECT_THAT(toVector<int64_t>(opcore::div(a, b, "floor")), ElementsAre(3, -4, -4, 3));
  Tensor f = fromVector<float>({7.5, -7.5});
  Tensor g = fromVector<float>({2, 2});
  EXPECT_THAT(toVector<float>(opcore::div(f, g, "trunc")), ElementsAre(3, -3));
  EXPECT_THAT(toVector<float>(opcore::div(f, g, "floor")), ElementsAre(3, -4));
  EXPECT_THAT(toVector<float>(opcore::div(f, g, std::nullopt)), ElementsAre(3.75, -3.75));
  EXPECT_THAT(toVector<double>(opcore::div(fromVector<double>({1}), fromVector<double>({0.1}), "floor")),
              ElementsAre(9));
}

TEST(BinaryOpsTest, DivisionRoundingModeErrors) {
  Tensor a = fromVector<int64_t>({1});
  EXPECT_THAT(errorOf([&] { opcore::div(a, a, "round"); }),
              HasSubstr("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'"));
  EXPECT_THAT(errorOf([&] { opcore::div(a, fromVector<int64_t>({0}), "trunc"); }),
              HasSubstr("ZeroDivisionError"));
}

TEST(BinaryOpsTest, InPlaceOpsWriteSelf) {
  Tensor a = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor& r = a.add_(fromVector<float>({1, 1, 1}));
  EXPECT_TRUE(r.is_same(a));
  EXPECT_THAT(toVector<float>(a), ElementsAre(2, 3, 4, 5, 6, 7));
  a.sub_(1).mul_(2);
  EXPECT_THAT(toVector<float>(a), ElementsAre(2, 4, 6, 8, 10, 12));
  a.div_(fromVector<float>({2, 4}, {2, 1}));
  EXPECT_THAT(toVector<float>(a), ElementsAre(1, 2, 3, 2, 2.5, 3));
  a.add_(a);
  EXPECT_THAT(toVector<float>(a), ElementsAre(2, 4, 6, 4, 5, 6));
}

TEST(BinaryOpsTest, InPlaceRejectsBroadcastThatGrowsSelf) {
  Tensor a = opcore::ones({3});
  Tensor b = opcore::ones({2, 3});
  EXPECT_THAT(errorOf([&] { a.add_(b); }),
              HasSubstr("output with shape [3] doesn't match the broadcast shape [2, 3]"));
}

TEST(BinaryOpsTest, InPlaceRejectsResultTypeThatSelfCannotHold) {
  Tensor i = fromVector<int64_t>({1, 2});
  EXPECT_THAT(errorOf([&] { i.add_(fromVector<float>({1, 1})); }),
              HasSubstr("result type Float can't be cast to the desired output type Long"));
  EXPECT_THAT(errorOf([&] { i.mul_(1.5); }),
              HasSubstr("result type Float can't be cast to the desired output type Long"));
  EXPECT_THAT(errorOf([&] { i.div_(2); }),
              HasSubstr("result type Float can't be cast to the desired output type Long"));
  EXPECT_THAT(toVector<int64_t>(i), ElementsAre(1, 2));  // untouched
}

TEST(BinaryOpsTest, InPlaceIntoWiderTypeConverts) {
  Tensor d = fromVector<double>({1, 2});
  d.add_(fromVector<int32_t>({1, 2}));
  EXPECT_EQ(d.scalar_type(), ScalarType::Double);
  EXPECT_THAT(toVector<double>(d), ElementsAre(2, 4));
}

TEST(BinaryOpsTest, OutVariantsWriteAndResize) {
  Tensor a = fromVector<float>({1, 2, 3});
  Tensor b = fromVector<float>({4, 5, 6});
  Tensor out = opcore::empty({3});
  Tensor& r = opcore::add_out(out, a, b);
  EXPECT_TRUE(r.is_same(out));
  EXPECT_THAT(toVector<float>(out), ElementsAre(5, 7, 9));
  Tensor wrong_shape = opcore::empty({0});
  opcore::mul_outf(a, b, wrong_shape);
  EXPECT_EQ(shapeOf(wrong_shape), (std::vector<int64_t>{3}));
  EXPECT_THAT(toVector<float>(wrong_shape), ElementsAre(4, 10, 18));
  Tensor bigger = opcore::zeros({2, 2});
  opcore::sub_out(bigger, a, b, 2);
  EXPECT_THAT(toVector<float>(bigger), ElementsAre(-7, -8, -9));
}

TEST(BinaryOpsTest, OutVariantsCastToWiderOutAndRejectNarrower) {
  Tensor a = fromVector<int32_t>({1, 2});
  Tensor out = opcore::empty({2}, ScalarType::Double);
  opcore::add_out(out, a, a);
  EXPECT_THAT(toVector<double>(out), ElementsAre(2, 4));
  Tensor long_out = opcore::empty({2}, ScalarType::Long);
  EXPECT_THAT(errorOf([&] { opcore::div_out(long_out, a, a); }),
              HasSubstr("result type Float can't be cast to the desired output type Long"));
}

TEST(BinaryOpsTest, OutOverlappingAnInputIsComputedCorrectly) {
  Tensor a = fromVector<float>({1, 2, 3, 4}, {2, 2});
  // out aliases a, but reads a transposed: the kernel must not see half-updated values.
  opcore::add_out(a, a, a.t());
  EXPECT_THAT(toVector<float>(a), ElementsAre(2, 5, 5, 8));
}

TEST(BinaryOpsTest, OutThatIsAlsoAnInputIsResizedAfterReadingIt) {
  Tensor a = fromVector<float>({1, 2, 3});
  opcore::add_out(a, a, opcore::ones({2, 3}));
  EXPECT_EQ(shapeOf(a), (std::vector<int64_t>{2, 3}));
  EXPECT_THAT(toVector<float>(a), ElementsAre(2, 3, 4, 2, 3, 4));
}

TEST(BinaryOpsTest, LargeTransposedOperandsAndOutputs) {
  // Big enough for the tiled loop, with sizes that are not multiples of the tile.
  const int64_t rows = 37, cols = 70;
  Tensor a = opcore::arange(rows * cols, ScalarType::Float).view({rows, cols});
  Tensor b = opcore::arange(rows * cols, ScalarType::Float).view({cols, rows});
  std::vector<float> r = toVector<float>(opcore::add(a.t(), b));  // [cols, rows]
  for (int64_t i = 0; i < cols; ++i) {
    for (int64_t j = 0; j < rows; ++j) {
      ASSERT_EQ(r[i * rows + j], static_cast<float>((j * cols + i) + (i * rows + j))) << i << "," << j;
    }
  }
  Tensor base = opcore::zeros({rows, cols});
  base.t().add_(b);  // base[j][i] = b[i][j]
  std::vector<float> v = toVector<float>(base);
  for (int64_t j = 0; j < rows; ++j) {
    for (int64_t i = 0; i < cols; ++i) ASSERT_EQ(v[j * cols + i], static_cast<float>(i * rows + j));
  }
}

TEST(BinaryOpsTest, TransposedInputs) {
  Tensor a = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor at = a.t();  // [[1, 4], [2, 5], [3, 6]]
  Tensor b = fromVector<float>({1, 1, 2, 2, 3, 3}, {3, 2});
  EXPECT_THAT(toVector<float>(opcore::add(at, b)), ElementsAre(2, 5, 4, 7, 6, 9));
  EXPECT_THAT(toVector<float>(opcore::sub(at, b)), ElementsAre(0, 3, 0, 3, 0, 3));
  EXPECT_THAT(toVector<float>(opcore::mul(at, b)), ElementsAre(1, 4, 4, 10, 9, 18));
  EXPECT_THAT(toVector<float>(opcore::div(at, b)), ElementsAre(1, 4, 1, 2.5, 1, 2));
  EXPECT_THAT(toVector<float>(opcore::mul(at, at)), ElementsAre(1, 16, 4, 25, 9, 36));
}

TEST(BinaryOpsTest, MethodVariants) {
  Tensor a = fromVector<float>({2, 4});
  Tensor b = fromVector<float>({1, 2});
  EXPECT_THAT(toVector<float>(a.add(b)), ElementsAre(3, 6));
  EXPECT_THAT(toVector<float>(a.add(b, 3)), ElementsAre(5, 10));
  EXPECT_THAT(toVector<float>(a.sub(b)), ElementsAre(1, 2));
  EXPECT_THAT(toVector<float>(a.mul(b)), ElementsAre(2, 8));
  EXPECT_THAT(toVector<float>(a.div(b)), ElementsAre(2, 2));
  EXPECT_THAT(toVector<float>(a.add(1)), ElementsAre(3, 5));
  EXPECT_THAT(toVector<float>(a.mul(0.5)), ElementsAre(1, 2));
  EXPECT_THAT(toVector<float>(a.div(4)), ElementsAre(0.5, 1));
}

TEST(BinaryOpsTest, LargeContiguousAndBroadcastInputs) {
  const int64_t n = 1000;
  Tensor a = opcore::arange(n, ScalarType::Float);
  Tensor r = opcore::add(opcore::mul(a, 2), a);  // 3 * i
  std::vector<float> v = toVector<float>(r);
  ASSERT_EQ(v.size(), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) EXPECT_THAT(v[i], FloatEq(3.0f * i)) << i;
  Tensor grid = opcore::add(a.view({10, 100}), opcore::arange(10, ScalarType::Float).view({10, 1}));
  EXPECT_THAT(toVector<float>(grid)[250], FloatEq(252));
}

TEST(BinaryOpsTest, EmptyTensors) {
  Tensor a = opcore::ones({0, 3});
  Tensor r = opcore::add(a, fromVector<float>({1, 2, 3}));
  EXPECT_EQ(shapeOf(r), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(r.numel(), 0);
}

}  // namespace
}  // namespace opcore

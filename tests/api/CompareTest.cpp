// Tests of eq / ne / lt / le / gt / ge (structured: tensor and Scalar forms, functional,
// in-place and out=; Bool results, promotion before comparing, NaN) and where.
#include <opcore/ops/empty.h>
#include <opcore/ops/eq.h>
#include <opcore/ops/ge.h>
#include <opcore/ops/gt.h>
#include <opcore/ops/le.h>
#include <opcore/ops/lt.h>
#include <opcore/ops/ne.h>
#include <opcore/ops/where.h>
#include <opcore/ops/zeros.h>
#include "TestUtil.h"

#include <cmath>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

TEST(CompareTest, ComparesTensorsElementwise) {
  Tensor a = fromVector<float>({1, 2, 3});
  Tensor b = fromVector<float>({3, 2, 1});
  Tensor e = opcore::eq(a, b);
  EXPECT_EQ(e.scalar_type(), ScalarType::Bool);
  EXPECT_THAT(toVector<bool>(e), ElementsAre(false, true, false));
  EXPECT_THAT(toVector<bool>(opcore::lt(a, b)), ElementsAre(true, false, false));
  EXPECT_THAT(toVector<bool>(opcore::gt(a, b)), ElementsAre(false, false, true));
  Tensor n = opcore::ne(a, b);
  EXPECT_EQ(n.scalar_type(), ScalarType::Bool);
  EXPECT_THAT(toVector<bool>(n), ElementsAre(true, false, true));
  EXPECT_THAT(toVector<bool>(opcore::le(a, b)), ElementsAre(true, true, false));
  EXPECT_THAT(toVector<bool>(opcore::ge(a, b)), ElementsAre(false, true, true));
}

TEST(CompareTest, ComparesAgainstScalars) {
  Tensor a = fromVector<int32_t>({1, 2, 3});
  EXPECT_THAT(toVector<bool>(opcore::eq(a, 2)), ElementsAre(false, true, false));
  EXPECT_THAT(toVector<bool>(opcore::lt(a, 2)), ElementsAre(true, false, false));
  EXPECT_THAT(toVector<bool>(opcore::gt(a, 2)), ElementsAre(false, false, true));
  // The int tensor is compared as float against 2.5: nothing equals it.
  EXPECT_THAT(toVector<bool>(opcore::eq(a, 2.5)), ElementsAre(false, false, false));
  EXPECT_THAT(toVector<bool>(opcore::lt(a, 2.5)), ElementsAre(true, true, false));
  EXPECT_THAT(toVector<bool>(opcore::ne(a, 2)), ElementsAre(true, false, true));
  EXPECT_THAT(toVector<bool>(opcore::le(a, 2)), ElementsAre(true, true, false));
  EXPECT_THAT(toVector<bool>(opcore::ge(a, 2)), ElementsAre(false, true, true));
  // Compared as float too (as int, 2.5 would become 2): 2 != 2.5, and 2 >= 2.5 is false.
  EXPECT_THAT(toVector<bool>(opcore::ne(a, 2.5)), ElementsAre(true, true, true));
  EXPECT_THAT(toVector<bool>(opcore::le(a, 2.5)), ElementsAre(true, true, false));
  EXPECT_THAT(toVector<bool>(opcore::ge(a, 2.5)), ElementsAre(false, false, true));
}

TEST(CompareTest, PromotesMixedDtypesBeforeComparing) {
  Tensor i = fromVector<int64_t>({1, 2});
  Tensor f = fromVector<float>({1.0f, 2.5f});
  EXPECT_THAT(toVector<bool>(opcore::eq(i, f)), ElementsAre(true, false));
  EXPECT_THAT(toVector<bool>(opcore::lt(i, scalarTensor<double>(1.5))), ElementsAre(true, false));
  EXPECT_THAT(toVector<bool>(opcore::ne(i, f)), ElementsAre(false, true));
  EXPECT_THAT(toVector<bool>(opcore::le(i, f)), ElementsAre(true, true));
  EXPECT_THAT(toVector<bool>(opcore::ge(i, f)), ElementsAre(true, false));
  EXPECT_THAT(toVector<bool>(opcore::ge(i, scalarTensor<double>(1.5))), ElementsAre(false, true));
  EXPECT_THAT(toVector<bool>(opcore::le(f, scalarTensor<int64_t>(2))), ElementsAre(true, false));
}

TEST(CompareTest, BroadcastsAndHandlesStridedInputs) {
  Tensor a = fromVector<int64_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor r = opcore::gt(a.t(), fromVector<int64_t>({2, 4}));  // [[1,4],[2,5],[3,6]] > [2,4]
  EXPECT_EQ(shapeOf(r), (std::vector<int64_t>{3, 2}));
  EXPECT_THAT(toVector<bool>(r), ElementsAre(false, false, false, true, true, true));
  Tensor rows = fromVector<int64_t>({2, 4});
  EXPECT_THAT(toVector<bool>(opcore::ne(a.t(), rows)), ElementsAre(true, false, false, true, true, true));
  EXPECT_THAT(toVector<bool>(opcore::le(a.t(), rows)), ElementsAre(true, true, true, false, false, false));
  EXPECT_THAT(toVector<bool>(opcore::ge(a.t(), rows)), ElementsAre(false, true, true, true, true, true));
}

TEST(CompareTest, BroadcastsBothOperands) {
  Tensor col = fromVector<float>({1, 2, 3}, {3, 1});
  Tensor row = fromVector<float>({1, 2, 3});
  Tensor n = opcore::ne(col, row);
  EXPECT_EQ(shapeOf(n), (Shape{3, 3}));
  EXPECT_THAT(toVector<bool>(n), ElementsAre(false, true, true, true, false, true, true, true, false));
  EXPECT_THAT(toVector<bool>(opcore::le(col, row)),
              ElementsAre(true, true, true, false, true, true, false, false, true));
  EXPECT_THAT(toVector<bool>(opcore::ge(col, row)),
              ElementsAre(true, false, false, true, true, false, true, true, true));
  EXPECT_EQ(shapeOf(opcore::ge(row, col)), (Shape{3, 3}));
}

TEST(CompareTest, EveryComparisonAcceptsTransposedInputs) {
  Tensor a = fromVector<float>({1, 2, 3, 4}, {2, 2}).t();  // [[1, 3], [2, 4]]
  Tensor b = fromVector<float>({1, 3, 3, 3}, {2, 2});
  EXPECT_THAT(toVector<bool>(opcore::eq(a, b)), ElementsAre(true, true, false, false));
  EXPECT_THAT(toVector<bool>(opcore::lt(a, b)), ElementsAre(false, false, true, false));
  EXPECT_THAT(toVector<bool>(opcore::gt(a, 2)), ElementsAre(false, true, false, true));
  EXPECT_THAT(toVector<bool>(opcore::eq(a, 4)), ElementsAre(false, false, false, true));
  EXPECT_THAT(toVector<bool>(opcore::ne(a, b)), ElementsAre(false, false, true, true));
  EXPECT_THAT(toVector<bool>(opcore::le(a, b)), ElementsAre(true, true, true, false));
  EXPECT_THAT(toVector<bool>(opcore::ge(a, b)), ElementsAre(true, true, false, true));
  EXPECT_THAT(toVector<bool>(opcore::ne(a, 4)), ElementsAre(true, true, true, false));
  EXPECT_THAT(toVector<bool>(opcore::le(a, 3)), ElementsAre(true, true, true, false));
  EXPECT_THAT(toVector<bool>(opcore::ge(a, 2)), ElementsAre(false, true, true, true));
  Tensor cond = fromVector<bool>({true, false, false, true}, {2, 2}).t();  // [[T, F], [F, T]]
  EXPECT_THAT(toVector<float>(opcore::where(cond, a, b)), ElementsAre(1, 3, 3, 4));
}

TEST(CompareTest, MethodVariants) {
  Tensor a = fromVector<float>({1, 5});
  EXPECT_THAT(toVector<bool>(a.eq(5)), ElementsAre(false, true));
  EXPECT_THAT(toVector<bool>(a.lt(fromVector<float>({2, 2}))), ElementsAre(true, false));
  EXPECT_THAT(toVector<bool>(a.gt(1)), ElementsAre(false, true));
  EXPECT_THAT(toVector<bool>(a.ne(5)), ElementsAre(true, false));
  EXPECT_THAT(toVector<bool>(a.le(fromVector<float>({2, 5}))), ElementsAre(true, true));
  EXPECT_THAT(toVector<bool>(a.ge(5)), ElementsAre(false, true));
}

// IEEE comparisons: NaN is unequal to everything, itself included, and neither ordered below
// nor above anything, whichever operand it is and whether it comes in a tensor or a Scalar.
TEST(CompareTest, NanIsUnequalAndUnordered) {
  Tensor x = fromVector<float>({NAN, 1, NAN});
  Tensor y = fromVector<float>({1, NAN, NAN});
  EXPECT_THAT(toVector<bool>(opcore::ne(x, y)), ElementsAre(true, true, true));
  EXPECT_THAT(toVector<bool>(opcore::eq(x, y)), ElementsAre(false, false, false));
  EXPECT_THAT(toVector<bool>(opcore::le(x, y)), ElementsAre(false, false, false));
  EXPECT_THAT(toVector<bool>(opcore::ge(x, y)), ElementsAre(false, false, false));
  EXPECT_THAT(toVector<bool>(opcore::lt(x, y)), ElementsAre(false, false, false));
  EXPECT_THAT(toVector<bool>(opcore::gt(x, y)), ElementsAre(false, false, false));
  Tensor d = fromVector<double>({NAN, 2});
  EXPECT_THAT(toVector<bool>(opcore::ne(d, 2)), ElementsAre(true, false));
  EXPECT_THAT(toVector<bool>(opcore::le(d, 2)), ElementsAre(false, true));
  EXPECT_THAT(toVector<bool>(opcore::ge(d, 2)), ElementsAre(false, true));
  // A NaN Scalar promotes an integral tensor to float, where every element is unequal to it.
  Tensor i = fromVector<int64_t>({1, 2});
  EXPECT_THAT(toVector<bool>(opcore::ne(i, NAN)), ElementsAre(true, true));
  EXPECT_THAT(toVector<bool>(opcore::le(i, NAN)), ElementsAre(false, false));
  EXPECT_THAT(toVector<bool>(opcore::ge(i, NAN)), ElementsAre(false, false));
  EXPECT_THAT(toVector<bool>(opcore::ge(i, scalarTensor<float>(NAN))), ElementsAre(false, false));
}

TEST(CompareTest, OutOverloadsResizeAndConvert) {
  Tensor a = fromVector<float>({1, 2, 3});
  Tensor b = fromVector<float>({3, 2, 1, 1, 2, 3}, {2, 3});
  Tensor out = opcore::empty({0}, ScalarType::Bool);
  opcore::eq_out(out, a, b);  // broadcast to [2, 3]
  EXPECT_EQ(shapeOf(out), (Shape{2, 3}));
  EXPECT_THAT(toVector<bool>(out), ElementsAre(false, true, false, true, true, true));
  Tensor floats = opcore::empty({3});  // any out= dtype: 1 and 0
  opcore::lt_out(floats, a, 2);
  EXPECT_THAT(toVector<float>(floats), ElementsAre(1, 0, 0));
  Tensor longs = opcore::empty({3}, ScalarType::Long);
  opcore::gt_outf(a, fromVector<float>({0, 2, 4}), longs);
  EXPECT_THAT(toVector<int64_t>(longs), ElementsAre(1, 0, 0));
  opcore::eq_out(longs, a, 2.0);
  EXPECT_THAT(toVector<int64_t>(longs), ElementsAre(0, 1, 0));
  Tensor mask = opcore::empty({0}, ScalarType::Bool);
  opcore::ne_out(mask, a, b);
  EXPECT_EQ(shapeOf(mask), (Shape{2, 3}));
  EXPECT_THAT(toVector<bool>(mask), ElementsAre(true, false, true, false, false, false));
  opcore::le_out(floats, a, 2);
  EXPECT_THAT(toVector<float>(floats), ElementsAre(1, 1, 0));
  opcore::ge_outf(a, fromVector<float>({0, 2, 4}), longs);
  EXPECT_THAT(toVector<int64_t>(longs), ElementsAre(1, 1, 0));
  opcore::ne_outf(a, 2.0, longs);
  EXPECT_THAT(toVector<int64_t>(longs), ElementsAre(1, 0, 1));
}

TEST(CompareTest, OutMayAliasAnInput) {
  Tensor a = fromVector<float>({1, 2, 3});
  opcore::gt_out(a, a, 1.5);  // same shape: written in place
  EXPECT_THAT(toVector<float>(a), ElementsAre(0, 1, 1));
  Tensor x = fromVector<int64_t>({1, 2, 3});
  Tensor rows = fromVector<int64_t>({1, 1, 1, 3, 2, 1}, {2, 3});
  opcore::eq_out(x, x, rows);  // x needs shape [2, 3]: it is read before it is resized
  EXPECT_EQ(shapeOf(x), (Shape{2, 3}));
  EXPECT_THAT(toVector<int64_t>(x), ElementsAre(1, 0, 0, 0, 1, 0));
}

TEST(CompareTest, InPlaceKeepsSelfsDtype) {
  Tensor a = fromVector<float>({1, 2, 3});
  Tensor& r = a.eq_(fromVector<float>({1, 0, 3}));
  EXPECT_TRUE(r.is_same(a));
  EXPECT_EQ(a.scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(a), ElementsAre(1, 0, 1));
  Tensor i = fromVector<int32_t>({1, 2, 3});
  i.lt_(2.5);  // compared as float, stored as int
  EXPECT_THAT(toVector<int32_t>(i), ElementsAre(1, 1, 0));
  Tensor m = fromVector<float>({1, 4, 2, 3}, {2, 2});
  m.gt_(fromVector<float>({2, 2}));  // other broadcasts
  EXPECT_THAT(toVector<float>(m), ElementsAre(0, 1, 0, 1));
  Tensor flags = fromVector<bool>({true, false});
  flags.eq_(true);
  EXPECT_THAT(toVector<bool>(flags), ElementsAre(true, false));
  m.lt_(scalarTensor<double>(0.5));  // a 0-dim tensor: the Tensor overload
  EXPECT_THAT(toVector<float>(m), ElementsAre(1, 0, 1, 0));
}

TEST(CompareTest, InPlaceNeLeGeKeepSelfsDtype) {
  Tensor a = fromVector<float>({1, 2, 3});
  Tensor& r = a.ne_(fromVector<float>({1, 0, 3}));
  EXPECT_TRUE(r.is_same(a));
  EXPECT_EQ(a.scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(a), ElementsAre(0, 1, 0));
  Tensor i = fromVector<int32_t>({1, 2, 3});
  i.ge_(2.5);  // compared as float (as int, 2 >= 2 would hold), stored as int
  EXPECT_THAT(toVector<int32_t>(i), ElementsAre(0, 0, 1));
  Tensor m = fromVector<float>({1, 4, 2, 3}, {2, 2});
  m.le_(fromVector<float>({2, 2}));  // other broadcasts
  EXPECT_THAT(toVector<float>(m), ElementsAre(1, 0, 1, 0));
  m.ge_(scalarTensor<double>(0.5));  // a 0-dim tensor: the Tensor overload
  EXPECT_THAT(toVector<float>(m), ElementsAre(1, 0, 1, 0));
  m.ne_(1);
  EXPECT_THAT(toVector<float>(m), ElementsAre(0, 1, 0, 1));
  Tensor flags = fromVector<bool>({true, false});
  flags.ne_(true);
  EXPECT_THAT(toVector<bool>(flags), ElementsAre(false, true));
}

TEST(CompareTest, OutputErrorsNameTheOverload) {
  Tensor row = fromVector<float>({1, 2, 3});
  EXPECT_THAT(errorOf([&] { row.eq_(opcore::zeros({2, 3})); }),
              HasSubstr("aten::eq_.Tensor: output with shape [3] doesn't match the broadcast shape [2, 3]"));
  Tensor meta_out = opcore::empty({3}, ScalarType::Bool, std::nullopt, Device(DeviceType::Meta));
  EXPECT_THAT(errorOf([&] { opcore::lt_out(meta_out, row, 1); }),
              HasSubstr("aten::lt.Scalar_out: expected out on cpu, but it is on meta"));
  EXPECT_THAT(errorOf([&] { opcore::gt(row, opcore::zeros({2})); }),
              HasSubstr("The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"));
  EXPECT_THAT(toVector<float>(row), ElementsAre(1, 2, 3)) << "failed checks leave self alone";
  EXPECT_THAT(errorOf([&] { row.ne_(opcore::zeros({2, 3})); }),
              HasSubstr("aten::ne_.Tensor: output with shape [3] doesn't match the broadcast shape [2, 3]"));
  EXPECT_THAT(errorOf([&] { opcore::le_out(meta_out, row, 1); }),
              HasSubstr("aten::le.Scalar_out: expected out on cpu, but it is on meta"));
  EXPECT_THAT(errorOf([&] { opcore::ge(row, opcore::zeros({2})); }),
              HasSubstr("The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"));
  EXPECT_THAT(toVector<float>(row), ElementsAre(1, 2, 3)) << "failed checks leave self alone";
}

TEST(CompareTest, WhereSelectsAndBroadcasts) {
  Tensor cond = fromVector<bool>({true, false, true, false}, {2, 2});
  Tensor x = fromVector<float>({1, 2, 3, 4}, {2, 2});
  Tensor y = fromVector<float>({-1, -2});
  Tensor r = opcore::where(cond, x, y);
  EXPECT_THAT(toVector<float>(r), ElementsAre(1, -2, 3, -2));
  EXPECT_THAT(toVector<float>(x.where(cond, y)), ElementsAre(1, -2, 3, -2));
}

TEST(CompareTest, WherePromotesItsValues) {
  Tensor cond = fromVector<bool>({true, false});
  Tensor r = opcore::where(cond, fromVector<int64_t>({1, 2}), fromVector<double>({0.5, 0.25}));
  EXPECT_EQ(r.scalar_type(), ScalarType::Double);
  EXPECT_THAT(toVector<double>(r), ElementsAre(1, 0.25));
  Tensor mask = opcore::gt(fromVector<float>({-1, 3}), 0);
  Tensor relu_like = opcore::where(mask, fromVector<float>({-1, 3}), opcore::zeros({2}));
  EXPECT_THAT(toVector<float>(relu_like), ElementsAre(0, 3));
}

TEST(CompareTest, WhereRequiresBoolCondition) {
  Tensor f = fromVector<float>({1});
  EXPECT_THAT(errorOf([&] { opcore::where(f, f, f); }),
              HasSubstr("where expected condition to be a boolean tensor, but got a tensor with dtype Float"));
}

}  // namespace
}  // namespace opcore

// Tests of eq / lt / gt (structured: tensor and Scalar forms, functional, in-place and out=;
// Bool results, promotion before comparing) and where.
#include <opcore/ops/empty.h>
#include <opcore/ops/eq.h>
#include <opcore/ops/gt.h>
#include <opcore/ops/lt.h>
#include <opcore/ops/where.h>
#include <opcore/ops/zeros.h>
#include "TestUtil.h"

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
}

TEST(CompareTest, ComparesAgainstScalars) {
  Tensor a = fromVector<int32_t>({1, 2, 3});
  EXPECT_THAT(toVector<bool>(opcore::eq(a, 2)), ElementsAre(false, true, false));
  EXPECT_THAT(toVector<bool>(opcore::lt(a, 2)), ElementsAre(true, false, false));
  EXPECT_THAT(toVector<bool>(opcore::gt(a, 2)), ElementsAre(false, false, true));
  // The int tensor is compared as float against 2.5: nothing equals it.
  EXPECT_THAT(toVector<bool>(opcore::eq(a, 2.5)), ElementsAre(false, false, false));
  EXPECT_THAT(toVector<bool>(opcore::lt(a, 2.5)), ElementsAre(true, true, false));
}

TEST(CompareTest, PromotesMixedDtypesBeforeComparing) {
  Tensor i = fromVector<int64_t>({1, 2});
  Tensor f = fromVector<float>({1.0f, 2.5f});
  EXPECT_THAT(toVector<bool>(opcore::eq(i, f)), ElementsAre(true, false));
  EXPECT_THAT(toVector<bool>(opcore::lt(i, scalarTensor<double>(1.5))), ElementsAre(true, false));
}

TEST(CompareTest, BroadcastsAndHandlesStridedInputs) {
  Tensor a = fromVector<int64_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor r = opcore::gt(a.t(), fromVector<int64_t>({2, 4}));  // [[1,4],[2,5],[3,6]] > [2,4]
  EXPECT_EQ(shapeOf(r), (std::vector<int64_t>{3, 2}));
  EXPECT_THAT(toVector<bool>(r), ElementsAre(false, false, false, true, true, true));
}

TEST(CompareTest, EveryComparisonAcceptsTransposedInputs) {
  Tensor a = fromVector<float>({1, 2, 3, 4}, {2, 2}).t();  // [[1, 3], [2, 4]]
  Tensor b = fromVector<float>({1, 3, 3, 3}, {2, 2});
  EXPECT_THAT(toVector<bool>(opcore::eq(a, b)), ElementsAre(true, true, false, false));
  EXPECT_THAT(toVector<bool>(opcore::lt(a, b)), ElementsAre(false, false, true, false));
  EXPECT_THAT(toVector<bool>(opcore::gt(a, 2)), ElementsAre(false, true, false, true));
  EXPECT_THAT(toVector<bool>(opcore::eq(a, 4)), ElementsAre(false, false, false, true));
  Tensor cond = fromVector<bool>({true, false, false, true}, {2, 2}).t();  // [[T, F], [F, T]]
  EXPECT_THAT(toVector<float>(opcore::where(cond, a, b)), ElementsAre(1, 3, 3, 4));
}

TEST(CompareTest, MethodVariants) {
  Tensor a = fromVector<float>({1, 5});
  EXPECT_THAT(toVector<bool>(a.eq(5)), ElementsAre(false, true));
  EXPECT_THAT(toVector<bool>(a.lt(fromVector<float>({2, 2}))), ElementsAre(true, false));
  EXPECT_THAT(toVector<bool>(a.gt(1)), ElementsAre(false, true));
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

TEST(CompareTest, OutputErrorsNameTheOverload) {
  Tensor row = fromVector<float>({1, 2, 3});
  EXPECT_THAT(errorOf([&] { row.eq_(opcore::zeros({2, 3})); }),
              HasSubstr("aten::eq_.Tensor: output with shape [3] doesn't match the broadcast shape [2, 3]"));
  Tensor meta_out = opcore::empty({3}, ScalarType::Bool, Device(DeviceType::Meta));
  EXPECT_THAT(errorOf([&] { opcore::lt_out(meta_out, row, 1); }),
              HasSubstr("aten::lt.Scalar_out: expected out on cpu, but it is on meta"));
  EXPECT_THAT(errorOf([&] { opcore::gt(row, opcore::zeros({2})); }),
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

// Tests of eq / lt / gt (tensor and Scalar forms, Bool results, promotion before comparing)
// and where.
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
  EXPECT_EQ(e.scalarType(), ScalarType::Bool);
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
  EXPECT_EQ(r.scalarType(), ScalarType::Double);
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

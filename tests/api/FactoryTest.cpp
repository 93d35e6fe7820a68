// Tests of the factories (empty, zeros, ones, full, arange) and of fill_ and copy_:
// dtype inference, strided destinations, broadcasting, conversion and overlap.
#include <opcore/ops/arange.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/full.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/zeros.h>
#include "TestUtil.h"

#include <cstdint>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

TEST(FactoryTest, EmptyHasTheRequestedShapeAndDtype) {
  Tensor e = opcore::empty({2, 3});
  EXPECT_EQ(shapeOf(e), (Shape{2, 3}));
  EXPECT_EQ(e.scalar_type(), ScalarType::Float);
  EXPECT_TRUE(e.is_cpu());
  EXPECT_TRUE(e.is_contiguous());
  EXPECT_EQ(opcore::empty({4}, ScalarType::Long).scalar_type(), ScalarType::Long);
  EXPECT_THAT(errorOf([] { opcore::empty({2, -1}); }), HasSubstr("negative dimension"));
}

TEST(FactoryTest, ZerosOnesAndFull) {
  Tensor z = opcore::zeros({2, 2});
  EXPECT_EQ(z.scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(z), Each(0.0f));
  Tensor o = opcore::ones({3}, ScalarType::Int);
  EXPECT_THAT(toVector<int32_t>(o), ElementsAre(1, 1, 1));
  Tensor f = opcore::full({2}, 2.5, ScalarType::Double);
  EXPECT_THAT(toVector<double>(f), ElementsAre(2.5, 2.5));
}

TEST(FactoryTest, FullInfersDtypeFromTheValue) {
  EXPECT_EQ(opcore::full({1}, true).scalar_type(), ScalarType::Bool);
  EXPECT_EQ(opcore::full({1}, 3).scalar_type(), ScalarType::Long);
  EXPECT_EQ(opcore::full({1}, 3.0).scalar_type(), ScalarType::Float);
  EXPECT_EQ(opcore::full({}, 7).item<int64_t>(), 7);
}

TEST(FactoryTest, FullRejectsValuesThatOverflowTheDtype) {
  EXPECT_THAT(errorOf([] { opcore::full({1}, int64_t{1} << 40, ScalarType::Int); }),
              HasSubstr("value cannot be converted to type int32_t without overflow"));
}

TEST(FactoryTest, ArangeOfIntegersIsLong) {
  Tensor a = opcore::arange(5);
  EXPECT_EQ(a.scalar_type(), ScalarType::Long);
  EXPECT_THAT(toVector<int64_t>(a), ElementsAre(0, 1, 2, 3, 4));
  EXPECT_THAT(toVector<int64_t>(opcore::arange(1, 10, 3)), ElementsAre(1, 4, 7));
  EXPECT_THAT(toVector<int64_t>(opcore::arange(5, 0, -2)), ElementsAre(5, 3, 1));
  EXPECT_EQ(opcore::arange(3, 3).numel(), 0);
}

TEST(FactoryTest, ArangeWithFloatsIsFloat) {
  Tensor a = opcore::arange(0, 1, 0.25);
  EXPECT_EQ(a.scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(a), ElementsAre(0, 0.25, 0.5, 0.75));
  EXPECT_EQ(opcore::arange(0.5, 2.0).numel(), 2);  // ceil(1.5)
  Tensor d = opcore::arange(3, ScalarType::Double);
  EXPECT_THAT(toVector<double>(d), ElementsAre(0, 1, 2));
}

TEST(FactoryTest, ArangeErrors) {
  EXPECT_THAT(errorOf([] { opcore::arange(0, 5, 0); }), HasSubstr("step must be nonzero"));
  EXPECT_THAT(errorOf([] { opcore::arange(0, 5, -1); }),
              HasSubstr("upper bound and larger bound inconsistent with step sign"));
}

TEST(FactoryTest, ArangeOutResizes) {
  Tensor out = opcore::empty({0}, ScalarType::Int);
  opcore::arange_out(out, 2, 6);
  EXPECT_THAT(toVector<int32_t>(out), ElementsAre(2, 3, 4, 5));
}

TEST(FactoryTest, FillWritesEveryElementOfAStridedView) {
  Tensor base = opcore::zeros({3, 3});
  Tensor column = base.t().select(0, 1);  // base[:, 1]
  column.fill_(4);
  EXPECT_THAT(toVector<float>(base), ElementsAre(0, 4, 0, 0, 4, 0, 0, 4, 0));
  Tensor b = opcore::empty({2}, ScalarType::Bool);
  opcore::fill_(b, 2.0);
  EXPECT_THAT(toVector<bool>(b), ElementsAre(true, true));
}

TEST(FactoryTest, CopyBroadcastsAndConverts) {
  Tensor dst = opcore::zeros({2, 3}, ScalarType::Int);
  dst.copy_(fromVector<double>({1.9, -2.9, 3}));
  EXPECT_THAT(toVector<int32_t>(dst), ElementsAre(1, -2, 3, 1, -2, 3));
  Tensor flags = opcore::empty({3}, ScalarType::Bool);
  flags.copy_(fromVector<float>({0, 0.5, -1}));
  EXPECT_THAT(toVector<bool>(flags), ElementsAre(false, true, true));
  EXPECT_THAT(errorOf([&] { dst.copy_(opcore::ones({4})); }),
              HasSubstr("The size of tensor a (3) must match the size of tensor b (4)"));
  EXPECT_THAT(errorOf([&] { fromVector<float>({1, 2, 3}).copy_(opcore::ones({2, 3})); }),
              HasSubstr("output with shape [3] doesn't match the broadcast shape [2, 3]"));
}

TEST(FactoryTest, CopyFromAnOverlappingView) {
  Tensor a = fromVector<float>({1, 2, 3, 4}, {2, 2});
  a.copy_(a.t());
  EXPECT_THAT(toVector<float>(a), ElementsAre(1, 3, 2, 4));
  Tensor& same = a.copy_(a);
  EXPECT_TRUE(same.is_same(a));
  EXPECT_THAT(toVector<float>(a), ElementsAre(1, 3, 2, 4));
}

TEST(FactoryTest, CopyIntoATransposedDestination) {
  Tensor base = opcore::zeros({2, 3}, ScalarType::Long);
  base.t().copy_(fromVector<int64_t>({1, 2, 3, 4, 5, 6}, {3, 2}));
  EXPECT_THAT(toVector<int64_t>(base), ElementsAre(1, 3, 5, 2, 4, 6));
}

}  // namespace
}  // namespace opcore

// Tests of the view operators (view, transpose, t, expand, unsqueeze, squeeze), reshape and
// contiguous: shapes, strides, storage sharing, -1 inference, Meta tensors and errors.
#include <opcore/ops/arange.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/reshape.h>
#include <opcore/ops/squeeze.h>
#include <opcore/ops/t.h>
#include <opcore/ops/transpose.h>
#include <opcore/ops/unsqueeze.h>
#include <opcore/ops/zeros.h>
#include "TestUtil.h"

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

TEST(ViewTest, ViewSharesStorageWithItsBase) {
  Tensor base = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor v = base.view({3, 2});
  EXPECT_EQ(shapeOf(v), (Shape{3, 2}));
  EXPECT_EQ(v.data_ptr(), base.data_ptr());
  v.fill_(0);
  EXPECT_THAT(toVector<float>(base), ElementsAre(0, 0, 0, 0, 0, 0));
  v.view({6}).add_(fromVector<float>({1, 2, 3, 4, 5, 6}));
  EXPECT_THAT(toVector<float>(base), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(ViewTest, ViewInfersMinusOne) {
  Tensor base = opcore::arange(24).view({2, 3, 4});
  EXPECT_EQ(shapeOf(base.view({-1, 4})), (Shape{6, 4}));
  EXPECT_EQ(shapeOf(base.view({4, -1})), (Shape{4, 6}));
  EXPECT_EQ(shapeOf(base.view({-1})), (Shape{24}));
  EXPECT_THAT(errorOf([&] { base.view({-1, -1}); }), HasSubstr("only one dimension can be inferred"));
  EXPECT_THAT(errorOf([&] { base.view({5, -1}); }), HasSubstr("shape '[5, -1]' is invalid for input of size 24"));
  EXPECT_THAT(errorOf([&] { base.view({2, 5}); }), HasSubstr("shape '[2, 5]' is invalid for input of size 24"));
}

TEST(ViewTest, ViewOfNonContiguousTensor) {
  Tensor base = opcore::arange(24).view({2, 3, 4});
  Tensor tr = base.transpose(0, 1);  // [3, 2, 4]: the last dimension is still contiguous
  Tensor v = tr.view({3, 2, 2, 2});
  EXPECT_EQ(v.data_ptr(), base.data_ptr());
  EXPECT_EQ(v.strides().vec(), (Shape{4, 12, 2, 1}));
  // Row j of tr holds 12 i + 4 j + k for i < 2, k < 4: it sums to 60 + 32 j.
  EXPECT_THAT(toVector<int64_t>(v.reshape({3, 8}).sum({1})), ElementsAre(60, 92, 124));
  EXPECT_THAT(errorOf([&] { base.transpose(1, 2).view({24}); }),
              HasSubstr("view([24]): the tensor's strides cannot express this shape without copying"));
}

TEST(ViewTest, TransposeSwapsSizesAndStrides) {
  Tensor a = opcore::zeros({2, 3, 4});
  Tensor t = opcore::transpose(a, 0, -1);
  EXPECT_EQ(shapeOf(t), (Shape{4, 3, 2}));
  EXPECT_EQ(t.strides().vec(), (Shape{1, 4, 12}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_THAT(errorOf([&] { a.transpose(0, 3); }), HasSubstr("dimension out of range"));
}

TEST(ViewTest, TOfMatricesVectorsAndScalars) {
  Tensor m = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(shapeOf(m.t()), (Shape{3, 2}));
  EXPECT_THAT(toVector<float>(m.t()), ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_EQ(shapeOf(opcore::t(fromVector<float>({1, 2}))), (Shape{2}));
  EXPECT_EQ(shapeOf(opcore::ones({}).t()), Shape{});
  EXPECT_THAT(errorOf([] { opcore::ones({1, 2, 3}).t(); }),
              HasSubstr("t() expects a tensor with <= 2 dimensions, but self is 3D"));
}

TEST(ViewTest, ExpandBroadcastsWithoutCopying) {
  Tensor col = fromVector<float>({1, 2}, {2, 1});
  Tensor e = col.expand({2, 3});
  EXPECT_EQ(shapeOf(e), (Shape{2, 3}));
  EXPECT_EQ(e.strides().vec(), (Shape{1, 0}));
  EXPECT_THAT(toVector<float>(e), ElementsAre(1, 1, 1, 2, 2, 2));
  Tensor lead = col.expand({4, -1, 3});
  EXPECT_EQ(shapeOf(lead), (Shape{4, 2, 3}));
  EXPECT_EQ(lead.strides()[0], 0);
  col.fill_(7);
  EXPECT_THAT(toVector<float>(e), ElementsAre(7, 7, 7, 7, 7, 7));
}

TEST(ViewTest, ExpandErrors) {
  Tensor a = opcore::ones({2, 3});
  EXPECT_THAT(errorOf([&] { a.expand({2, 4}); }),
              HasSubstr("The expanded size of the tensor (4) must match the existing size (3) at "
                        "non-singleton dimension 1"));
  EXPECT_THAT(errorOf([&] { a.expand({3}); }),
              HasSubstr("the number of sizes provided (1) must be greater or equal to the number of "
                        "dimensions in the tensor (2)"));
  EXPECT_THAT(errorOf([&] { a.expand({-1, 2, 3}); }),
              HasSubstr("The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"));
}

TEST(ViewTest, WritingToAnExpandedTensorIsAnError) {
  Tensor e = opcore::ones({1, 3}).expand({2, 3});
  EXPECT_THAT(errorOf([&] { e.add_(1); }),
              HasSubstr("cannot write into a tensor whose elements overlap in memory"));
}

TEST(ViewTest, UnsqueezeAndSqueeze) {
  Tensor a = fromVector<float>({1, 2, 3});
  EXPECT_EQ(shapeOf(a.unsqueeze(0)), (Shape{1, 3}));
  EXPECT_EQ(shapeOf(a.unsqueeze(1)), (Shape{3, 1}));
  EXPECT_EQ(shapeOf(a.unsqueeze(-1)), (Shape{3, 1}));
  EXPECT_TRUE(a.unsqueeze(1).is_contiguous());
  EXPECT_EQ(shapeOf(opcore::unsqueeze(opcore::ones({}), 0)), (Shape{1}));
  Tensor b = opcore::zeros({2, 1, 3});
  EXPECT_EQ(shapeOf(b.squeeze(1)), (Shape{2, 3}));
  EXPECT_EQ(shapeOf(b.squeeze(0)), (Shape{2, 1, 3}));  // not size 1: unchanged
  EXPECT_EQ(shapeOf(opcore::squeeze(b, -2)), (Shape{2, 3}));
  EXPECT_THAT(errorOf([&] { a.unsqueeze(2); }), HasSubstr("dimension out of range"));
  b.squeeze(1).fill_(5);
  EXPECT_THAT(toVector<float>(b), ::testing::Each(5.0f));
}

TEST(ViewTest, ReshapeViewsWhenPossibleAndCopiesOtherwise) {
  Tensor base = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor r = base.reshape({3, -1});
  EXPECT_EQ(r.data_ptr(), base.data_ptr());
  Tensor c = opcore::reshape(base.t(), {6});
  EXPECT_NE(c.data_ptr(), base.data_ptr());
  EXPECT_THAT(toVector<float>(c), ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_THAT(errorOf([&] { base.reshape({4, -1}); }), HasSubstr("shape '[4, -1]' is invalid for input of size 6"));
}

TEST(ViewTest, ContiguousAndClone) {
  Tensor base = fromVector<float>({1, 2, 3, 4}, {2, 2});
  EXPECT_TRUE(base.contiguous().is_same(base));
  Tensor c = base.t().contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_THAT(toVector<float>(c), ElementsAre(1, 3, 2, 4));
  Tensor k = base.clone();
  EXPECT_NE(k.data_ptr(), base.data_ptr());
  k.fill_(0);
  EXPECT_THAT(toVector<float>(base), ElementsAre(1, 2, 3, 4));
}

TEST(ViewTest, MetaTensorsHaveShapesButNoData) {
  Tensor m = opcore::empty({2, 3}, ScalarType::Float, std::nullopt, Device(DeviceType::Meta));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.data_ptr(), nullptr);
  Tensor v = m.t().unsqueeze(0).expand({4, 3, 2});
  EXPECT_TRUE(v.is_meta());
  EXPECT_EQ(shapeOf(v), (Shape{4, 3, 2}));
  EXPECT_EQ(shapeOf(m.view({-1})), (Shape{6}));
  EXPECT_EQ(shapeOf(opcore::reshape(m, {3, 2})), (Shape{3, 2}));
  EXPECT_EQ(shapeOf(m.squeeze(0)), (Shape{2, 3}));
}

TEST(ViewTest, ToConvertsDtypeAndReturnsSelfWhenNothingChanges) {
  Tensor f = fromVector<float>({1.5, -2.5});
  EXPECT_TRUE(f.to(ScalarType::Float).is_same(f));
  EXPECT_FALSE(f.to(ScalarType::Float, /*non_blocking=*/false, /*copy=*/true).is_same(f));
  EXPECT_THAT(toVector<int64_t>(f.to(ScalarType::Long)), ElementsAre(1, -2));
  EXPECT_THAT(toVector<bool>(f.to(ScalarType::Bool)), ElementsAre(true, true));
  EXPECT_TRUE(f.to(Device(DeviceType::CPU)).is_same(f));
  Tensor d = f.to(Device(DeviceType::CPU), ScalarType::Double);
  EXPECT_THAT(toVector<double>(d), ElementsAre(1.5, -2.5));
  Tensor meta = f.to(Device(DeviceType::Meta));
  EXPECT_TRUE(meta.is_meta());
  EXPECT_EQ(shapeOf(meta), (Shape{2}));
}

}  // namespace
}  // namespace opcore

// Tests of the layout and memory-format operators (empty_strided, empty_like, contiguous with
// a memory format) and of set_ with a Storage argument.
#include <opcore/ops/arange.h>
#include <opcore/ops/empty_like.h>
#include <opcore/ops/empty_strided.h>
#include <opcore/ops/ones_like.h>
#include <opcore/ops/randint_like.h>
#include <opcore/ops/zeros_like.h>
#include <opcore/ops/set.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/zeros.h>

#include "TestUtil.h"

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

TEST(MemoryFormatTest, EmptyStridedHasTheGivenStridesOverJustEnoughMemory) {
  Tensor t = opcore::empty_strided({2, 3}, {1, 2});
  EXPECT_EQ(shapeOf(t), (Shape{2, 3}));
  EXPECT_EQ(t.strides().vec(), (Shape{1, 2}));
  EXPECT_EQ(t.storage()->nbytes(), 6 * sizeof(float));
  EXPECT_FALSE(t.is_contiguous());
  Tensor gaps = opcore::empty_strided({2, 2}, {10, 3}, ScalarType::Double);
  EXPECT_EQ(gaps.storage()->nbytes(), (1 + 10 + 3) * sizeof(double));
  EXPECT_EQ(opcore::empty_strided({2, 0}, {1, 1}).storage()->nbytes(), 0u);
  Tensor m = opcore::empty_strided({4}, {2}, std::nullopt, Layout::Strided, Device(DeviceType::Meta));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.strides().vec(), (Shape{2}));
  EXPECT_THAT(errorOf([] { opcore::empty_strided({2}, {1, 1}); }), HasSubstr("empty_strided: got 1 sizes but 2 strides"));
  EXPECT_THAT(errorOf([] { opcore::empty_strided({2}, {-1}); }), HasSubstr("empty_strided: negative stride -1"));
  EXPECT_THAT(errorOf([] { opcore::empty_strided({-2}, {1}); }), HasSubstr("empty_strided: negative dimension -2"));
  EXPECT_THAT(errorOf([] { opcore::empty_strided({2}, {1}, Layout::SparseCsr); }),
              HasSubstr("empty_strided: only the strided layout is supported, got SparseCsr"));
}

TEST(MemoryFormatTest, EmptyLikePreservesDenseStridesAndTakesOverrides) {
  Tensor base = opcore::arange(24).view({2, 3, 4});
  Tensor tr = base.transpose(0, 2);  // dense, not contiguous
  Tensor like = opcore::empty_like(tr);
  EXPECT_EQ(shapeOf(like), shapeOf(tr));
  EXPECT_EQ(like.strides().vec(), tr.strides().vec());
  EXPECT_EQ(like.scalar_type(), ScalarType::Long);
  EXPECT_NE(like.storage().get(), base.storage().get());
  Tensor contiguous = opcore::empty_like(tr, ScalarType::Float, std::nullopt, std::nullopt, std::nullopt, MemoryFormat::Contiguous);
  EXPECT_TRUE(contiguous.is_contiguous());
  EXPECT_EQ(contiguous.scalar_type(), ScalarType::Float);
  // Not dense (a slice with gaps): preserve falls back to contiguous.
  Tensor sliced = base.select(2, 0);  // strides [12, 4]
  EXPECT_TRUE(opcore::empty_like(sliced).is_contiguous());
  Tensor nchw = opcore::empty({2, 3, 4, 5});
  Tensor nhwc = opcore::empty_like(nchw, std::nullopt, std::nullopt, std::nullopt, std::nullopt, MemoryFormat::ChannelsLast);
  EXPECT_EQ(nhwc.strides().vec(), (Shape{60, 1, 15, 3}));
  EXPECT_TRUE(nhwc.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(opcore::empty_like(nchw, std::nullopt, std::nullopt, Device(DeviceType::Meta)).is_meta());
  EXPECT_THAT(errorOf([&] { opcore::empty_like(nchw, Layout::Sparse); }),
              HasSubstr("empty_like: only the strided layout is supported, got Sparse"));
}

// The *_like factories lay out their results as empty_like does; the new_* methods take self's
// dtype and device, and lay theirs out contiguously (or as given).
TEST(MemoryFormatTest, LikeAndNewFactoriesFollowSelf) {
  const Tensor tr = opcore::arange(24).view({2, 3, 4}).transpose(0, 2);
  const Tensor zeros = opcore::zeros_like(tr);
  EXPECT_EQ(zeros.strides().vec(), tr.strides().vec());
  EXPECT_EQ(zeros.scalar_type(), ScalarType::Long);
  EXPECT_EQ(opcore::sum(zeros).item<int64_t>(), 0);
  const Tensor ones = opcore::ones_like(tr, TensorOptions().dtype(ScalarType::Double), MemoryFormat::Contiguous);
  EXPECT_TRUE(ones.is_contiguous());
  EXPECT_EQ(opcore::sum(ones).item<double>(), 24.0);
  const Tensor drawn = opcore::randint_like(tr, 2, 5);
  EXPECT_EQ(drawn.strides().vec(), tr.strides().vec());
  EXPECT_GE(drawn.min().item<int64_t>(), 2);
  EXPECT_LT(drawn.max().item<int64_t>(), 5);

  const Tensor full = tr.new_full({2, 3}, 7);
  EXPECT_EQ(shapeOf(full), (Shape{2, 3}));
  EXPECT_TRUE(full.is_contiguous());
  EXPECT_EQ(full.scalar_type(), ScalarType::Long);
  EXPECT_EQ(opcore::sum(full).item<int64_t>(), 42);
  EXPECT_EQ(tr.new_zeros({4}, TensorOptions().dtype(ScalarType::Float)).scalar_type(), ScalarType::Float);
  EXPECT_EQ(opcore::sum(tr.new_ones({5})).item<int64_t>(), 5);
  EXPECT_TRUE(tr.new_empty({3}, TensorOptions().device(Device(DeviceType::Meta))).is_meta());
  EXPECT_EQ(tr.new_empty_strided({2, 3}, {1, 2}).strides().vec(), (Shape{1, 2}));
  EXPECT_THAT(errorOf([&] { tr.new_zeros({2}, TensorOptions().layout(Layout::Sparse)); }),
              HasSubstr("only the strided layout is supported, got Sparse"));
}

TEST(MemoryFormatTest, ContiguousInEachFormat) {
  Tensor x = opcore::arange(24).view({1, 2, 3, 4});  // N=1, C=2, H=3, W=4
  EXPECT_TRUE(x.contiguous().is_same(x));
  EXPECT_TRUE(x.contiguous(MemoryFormat::Contiguous).is_same(x));
  Tensor nhwc = x.contiguous(MemoryFormat::ChannelsLast);
  EXPECT_FALSE(nhwc.is_same(x));
  EXPECT_EQ(shapeOf(nhwc), (Shape{1, 2, 3, 4}));
  EXPECT_EQ(nhwc.strides().vec(), (Shape{24, 1, 8, 2}));
  EXPECT_EQ(toVector<int64_t>(nhwc), toVector<int64_t>(x)) << "same values, another layout";
  // In memory, the channels are innermost: c0 c1 of pixel (0, 0), then of pixel (0, 1), ...
  const int64_t* raw = static_cast<const int64_t*>(nhwc.data_ptr());
  EXPECT_THAT(std::vector<int64_t>(raw, raw + 6), ElementsAre(0, 12, 1, 13, 2, 14));
  EXPECT_TRUE(nhwc.contiguous(MemoryFormat::ChannelsLast).is_same(nhwc));
  Tensor back = nhwc.contiguous();
  EXPECT_TRUE(back.is_contiguous());
  EXPECT_EQ(toVector<int64_t>(back), toVector<int64_t>(x));
  Tensor meta = opcore::empty({2, 3, 4, 5}, std::nullopt, std::nullopt, Device(DeviceType::Meta)).contiguous(MemoryFormat::ChannelsLast);
  EXPECT_EQ(meta.strides().vec(), (Shape{60, 1, 15, 3}));
  Tensor five = opcore::zeros({1, 2, 1, 2, 2}).contiguous(MemoryFormat::ChannelsLast3d);
  EXPECT_TRUE(five.is_contiguous(MemoryFormat::ChannelsLast3d));
  EXPECT_THAT(errorOf([&] { x.contiguous(MemoryFormat::Preserve); }),
              HasSubstr("contiguous: preserve_format names no layout"));
  EXPECT_THAT(errorOf([] { opcore::zeros({2, 3}).t().contiguous(MemoryFormat::ChannelsLast); }),
              HasSubstr("ChannelsLast needs a 4-D tensor, got sizes [3, 2]"));
}

TEST(MemoryFormatTest, SetStorageMakesAOneDimensionalViewOfAllOfIt) {
  Tensor source = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor t = opcore::empty({0});
  Tensor& r = t.set_(source.storage());
  EXPECT_EQ(&r, &t);
  EXPECT_EQ(shapeOf(t), (Shape{6}));
  EXPECT_EQ(t.storage().get(), source.storage().get());
  EXPECT_THAT(toVector<float>(t), ElementsAre(1, 2, 3, 4, 5, 6));
  t.fill_(7);
  EXPECT_THAT(toVector<float>(source), Each(7.0f)) << "shared with every tensor over the storage";
  // As many elements of self's dtype as fit.
  Tensor doubles = opcore::empty({0}, ScalarType::Double);
  opcore::set_(doubles, fromVector<float>({1, 2, 3}).storage());
  EXPECT_EQ(shapeOf(doubles), (Shape{1}));
  Tensor m = opcore::empty({0}, std::nullopt, std::nullopt, Device(DeviceType::Meta));
  m.set_(opcore::empty({5}, std::nullopt, std::nullopt, Device(DeviceType::Meta)).storage());
  EXPECT_EQ(shapeOf(m), (Shape{5}));
  EXPECT_THAT(errorOf([&] { t.set_(Storage()); }), HasSubstr("set_: the source storage is undefined"));
  EXPECT_THAT(errorOf([&] { m.set_(source.storage()); }), HasSubstr("set_: expected a storage on meta, got one on cpu"));
}

}  // namespace
}  // namespace opcore

// Sizes whose element or byte counts overflow int64_t are errors naming the sizes, wherever
// sizes are computed: factories, views, expand, empty_strided, out= resizing, arange, and
// metadata set directly (Note [Size arithmetic] in runtime/opcore/core/TensorImpl.cpp).
// Before the checks each of these gave a tensor whose storage was smaller than its elements.
#include <opcore/core/TensorImpl.h>
#include <opcore/ops/add.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/empty_strided.h>
#include <opcore/ops/expand.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/reshape.h>
#include <opcore/ops/view.h>
#include "TestUtil.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(SizeOverflowTest, FactoriesRejectElementCountsBeyondInt64) {
  EXPECT_THAT(errorOf([] { opcore::empty({int64_t{1} << 32, int64_t{1} << 32}); }),
              HasSubstr("sizes [4294967296, 4294967296] have more elements than int64_t can count"));
  // Products that wrap around to small positive or negative counts.
  EXPECT_THAT(errorOf([] { opcore::empty({7, 0x6DB6DB6DB6DB6DB7}); }), HasSubstr("more elements than int64_t"));
  EXPECT_THAT(errorOf([] { opcore::empty({kMax, 2}); }), HasSubstr("more elements than int64_t"));
  EXPECT_THAT(errorOf([] { opcore::ones({int64_t{1} << 32, int64_t{1} << 32}); }),
              HasSubstr("more elements than int64_t"));
}

TEST(SizeOverflowTest, FactoriesRejectByteCountsBeyondInt64) {
  EXPECT_THAT(errorOf([] { opcore::empty({int64_t{1} << 61}, ScalarType::Double); }),
              HasSubstr("sizes [2305843009213693952]: 2305843009213693952 elements of 8 bytes need more bytes"));
  EXPECT_THAT(errorOf([] { opcore::ones({int64_t{1} << 61}, ScalarType::Double); }),
              HasSubstr("need more bytes than int64_t can count"));
  // Within int64_t, but more than any machine has: the allocator's error, not a crash.
  EXPECT_THAT(errorOf([] { opcore::empty({int64_t{1} << 60}, ScalarType::Float); }),
              HasSubstr("out of memory"));
}

TEST(SizeOverflowTest, EmptyTensorsWithHugeDimensionsAreFine) {
  Tensor e = opcore::empty({int64_t{1} << 40, int64_t{1} << 40, 0});
  EXPECT_EQ(e.numel(), 0);
  EXPECT_EQ(shapeOf(e), (Shape{int64_t{1} << 40, int64_t{1} << 40, 0}));
  EXPECT_TRUE(e.is_contiguous());
  // Sizes that overflow before a 0 still make an empty tensor, as long as strides fit.
  EXPECT_EQ(opcore::empty({int64_t{1} << 32, int64_t{1} << 32, 0}).numel(), 0);
  // A negative size after a 0 is still an error.
  EXPECT_THAT(errorOf([] { opcore::empty({0, -1}); }), HasSubstr("negative dimension -1 in sizes [0, -1]"));
  // A 0 in front: the outer stride is the product of the inner sizes, which overflows.
  EXPECT_THAT(errorOf([] { opcore::empty({0, int64_t{1} << 40, int64_t{1} << 40}); }),
              HasSubstr("the contiguous strides overflow int64_t"));
}

TEST(SizeOverflowTest, ViewsRejectOverflowingShapes) {
  Tensor t = opcore::empty({4});
  EXPECT_THAT(errorOf([&] { t.view({int64_t{1} << 32, int64_t{1} << 32}); }),
              HasSubstr("is invalid for input of size 4"));
  // 2^32 * 2^32 wraps to exactly 0: not mistaken for an empty shape.
  EXPECT_THAT(errorOf([&] { t.view({-1, int64_t{1} << 32, int64_t{1} << 32}); }),
              HasSubstr("is invalid for input of size 4"));
  EXPECT_THAT(errorOf([&] { t.reshape({kMax, 2}); }), HasSubstr("is invalid for input of size 4"));
  Tensor empty = opcore::empty({0});
  EXPECT_EQ(shapeOf(empty.view({int64_t{1} << 32, int64_t{1} << 32, 0})),
            (Shape{int64_t{1} << 32, int64_t{1} << 32, 0}));
}

TEST(SizeOverflowTest, ExpandRejectsOverflowingShapes) {
  Tensor s = opcore::ones({1, 1});
  EXPECT_THAT(errorOf([&] { s.expand({int64_t{1} << 32, int64_t{1} << 32}); }),
              HasSubstr("more elements than int64_t"));
  // Each input fits; their broadcast does not.
  Tensor a = s.expand({int64_t{1} << 32, 1});
  Tensor b = s.expand({1, int64_t{1} << 32});
  EXPECT_EQ(a.numel(), int64_t{1} << 32);
  EXPECT_THAT(errorOf([&] { opcore::add(a, b); }), HasSubstr("more elements than int64_t"));
}

TEST(SizeOverflowTest, EmptyStridedRejectsOverflowingExtents) {
  EXPECT_THAT(errorOf([] { opcore::empty_strided({3}, {kMax}); }),
              HasSubstr("empty_strided: size [3] with stride [9223372036854775807] reaches more elements"));
  EXPECT_THAT(errorOf([] { opcore::empty_strided({3, 3}, {kMax / 2, kMax / 2}); }),
              HasSubstr("reaches more elements than int64_t can count"));
  EXPECT_THAT(errorOf([] { opcore::empty_strided({2}, {int64_t{1} << 61}, ScalarType::Double); }),
              HasSubstr("need more bytes than int64_t can count"));
}

TEST(SizeOverflowTest, OutArgumentsRejectOverflowingSizes) {
  Tensor out = opcore::empty({2});
  Tensor s = opcore::ones({1, 1});
  Tensor a = s.expand({int64_t{1} << 32, 1});
  Tensor b = s.expand({1, int64_t{1} << 32});
  EXPECT_THAT(errorOf([&] { opcore::add_out(out, a, b); }), HasSubstr("more elements than int64_t"));
  EXPECT_EQ(shapeOf(out), (Shape{2}));  // unchanged
}

TEST(SizeOverflowTest, ArangeRejectsRangesBeyondInt64) {
  EXPECT_THAT(errorOf([] { opcore::arange(kMin, kMax); }),
              HasSubstr("arange: the range -9223372036854775808 -> 9223372036854775807 has more elements"));
  EXPECT_THAT(errorOf([] { opcore::arange(0.0, 1e300, 1.0); }), HasSubstr("arange: invalid number of elements"));
}

TEST(SizeOverflowTest, MetadataBeyondTheStorageIsRejectedAndLeavesTheTensorAsItWas) {
  Tensor t = opcore::empty({2, 3});
  TensorImpl* impl = t.unsafeGetTensorImpl();
  const std::vector<int64_t> one{1}, two{2}, huge{kMax}, negative{-1};
  EXPECT_THAT(errorOf([&] { impl->setSizesAndStrides(std::vector<int64_t>{4, 3}, std::vector<int64_t>{3, 1}, 0); }),
              HasSubstr("sizes [4, 3], strides [3, 1] and storage offset 0 reach 48 bytes, beyond the "
                        "storage's 24 bytes"));
  EXPECT_THAT(errorOf([&] { impl->setSizesAndStrides(one, one, 6); }), HasSubstr("reach 28 bytes"));
  EXPECT_THAT(errorOf([&] { impl->setSizesAndStrides(one, one, kMax); }),
              HasSubstr("reach more bytes than int64_t can count"));
  EXPECT_THAT(errorOf([&] { impl->setSizesAndStrides(two, huge, 0); }),
              HasSubstr("reach more bytes than int64_t can count"));
  EXPECT_THAT(errorOf([&] { impl->setSizesAndStrides(two, negative, 0); }), HasSubstr("negative stride -1"));
  EXPECT_THAT(errorOf([&] { impl->setSizesAndStrides(one, one, -1); }), HasSubstr("negative storage offset -1"));
  EXPECT_EQ(shapeOf(t), (Shape{2, 3}));
  EXPECT_EQ(t.strides().vec(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(t.storage_offset(), 0);
  // Within the storage: accepted.
  impl->setSizesAndStrides(one, one, 5);
  EXPECT_EQ(t.storage_offset(), 5);
}

}  // namespace
}  // namespace opcore

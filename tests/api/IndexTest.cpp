// Tests of advanced indexing, index.Tensor: integer and Bool indices, None, broadcasting,
// adjacent and separated indexed dimensions, negative indices, non-contiguous inputs, errors.
#include <opcore/ops/arange.h>
#include <opcore/ops/index.h>

#include "TestUtil.h"

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

Tensor longs(const std::vector<int64_t>& v, std::vector<int64_t> sizes) { return fromVector<int64_t>(v, sizes); }
Tensor longs(const std::vector<int64_t>& v) { return fromVector<int64_t>(v); }

TEST(IndexTest, OneLongIndexGathersRows) {
  Tensor x = fromVector<float>({10, 11, 12, 13, 14});
  Tensor r = opcore::index(x, {longs({4, 0, 0, 2})});
  EXPECT_EQ(shapeOf(r), (Shape{4}));
  EXPECT_THAT(toVector<float>(r), ElementsAre(14, 10, 10, 12));
  EXPECT_NE(r.storage().get(), x.storage().get()) << "advanced indexing copies";
  // The method, negative indices, and an Int index tensor.
  EXPECT_THAT(toVector<float>(x.index({longs({-1, -5})})), ElementsAre(14, 10));
  EXPECT_THAT(toVector<float>(x.index({fromVector<int32_t>({1, 3})})), ElementsAre(11, 13));
  // A 2-D index gives a 2-D result; rows of a matrix come whole.
  Tensor m = opcore::arange(6).view({3, 2});
  Tensor rows = m.index({longs({2, 0, 1, 1}, {2, 2})});
  EXPECT_EQ(shapeOf(rows), (Shape{2, 2, 2}));
  EXPECT_THAT(toVector<int64_t>(rows), ElementsAre(4, 5, 0, 1, 2, 3, 2, 3));
}

TEST(IndexTest, NoneTakesAWholeDimensionAndAdjacentIndicesStayInPlace) {
  Tensor x = opcore::arange(24).view({2, 3, 4});
  // x[:, [2, 0]] -> [2, 2, 4]
  Tensor r = x.index({std::nullopt, longs({2, 0})});
  EXPECT_EQ(shapeOf(r), (Shape{2, 2, 4}));
  EXPECT_THAT(toVector<int64_t>(r), ElementsAre(8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15));
  // x[:, [0, 2], [1, 3]] -> pairs (0, 1) and (2, 3): [2, 2]
  Tensor pairs = x.index({std::nullopt, longs({0, 2}), longs({1, 3})});
  EXPECT_EQ(shapeOf(pairs), (Shape{2, 2}));
  EXPECT_THAT(toVector<int64_t>(pairs), ElementsAre(1, 11, 13, 23));
}

TEST(IndexTest, SeparatedIndicesPutTheBroadcastShapeFirst) {
  Tensor x = opcore::arange(24).view({2, 3, 4});
  // x[[1, 0], :, [3]]: the [2] and [1] indices broadcast to [2]; then the 3 of dimension 1.
  Tensor r = x.index({longs({1, 0}), std::nullopt, longs({3})});
  EXPECT_EQ(shapeOf(r), (Shape{2, 3}));
  EXPECT_THAT(toVector<int64_t>(r), ElementsAre(15, 19, 23, 3, 7, 11));
}

TEST(IndexTest, IndexTensorsBroadcastTogether) {
  Tensor x = opcore::arange(12).view({3, 4});
  // rows [[0], [2]] x columns [1, 3] -> [2, 2]
  Tensor r = x.index({longs({0, 2}, {2, 1}), longs({1, 3})});
  EXPECT_EQ(shapeOf(r), (Shape{2, 2}));
  EXPECT_THAT(toVector<int64_t>(r), ElementsAre(1, 3, 9, 11));
  EXPECT_THAT(errorOf([&] { x.index({longs({0, 1}), longs({0, 1, 2})}); }),
              HasSubstr("index: shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]"));
}

TEST(IndexTest, BoolMasksSelectTheirTruePositions) {
  Tensor x = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor mask = fromVector<bool>({true, false, true, false, true, false}, {2, 3});
  EXPECT_THAT(toVector<float>(x.index({mask})), ElementsAre(1, 3, 5));
  Tensor rows = fromVector<bool>({false, true});
  Tensor r = x.index({rows});
  EXPECT_EQ(shapeOf(r), (Shape{1, 3}));
  EXPECT_THAT(toVector<float>(r), ElementsAre(4, 5, 6));
  Tensor cols = fromVector<bool>({true, true, false});
  EXPECT_THAT(toVector<float>(x.index({std::nullopt, cols})), ElementsAre(1, 2, 4, 5));
  EXPECT_EQ(shapeOf(x.index({fromVector<bool>({false, false})})), (Shape{0, 3}));
  EXPECT_THAT(errorOf([&] { x.index({fromVector<bool>({true, false, true})}); }),
              HasSubstr("index: the shape of the mask [3] at index 0 does not match the shape of the indexed tensor "
                        "[2, 3] at dimension 0"));
}

TEST(IndexTest, WorksOnNonContiguousInputsOfEveryDtype) {
  Tensor x = opcore::arange(6).view({2, 3}).t();  // [[0, 3], [1, 4], [2, 5]]
  EXPECT_THAT(toVector<int64_t>(x.index({longs({2, 0})})), ElementsAre(2, 5, 0, 3));
  Tensor flags = fromVector<bool>({true, false, true});
  EXPECT_THAT(toVector<bool>(flags.index({longs({1, 2})})), ElementsAre(false, true));
  Tensor d = fromVector<double>({0.5, 1.5});
  EXPECT_THAT(toVector<double>(d.index({longs({1})})), ElementsAre(1.5));
  EXPECT_EQ(shapeOf(d.index({longs({}, {0})})), (Shape{0}));
  // No index at all: a copy.
  Tensor copy = d.index({});
  EXPECT_THAT(toVector<double>(copy), ElementsAre(0.5, 1.5));
  EXPECT_NE(copy.storage().get(), d.storage().get());
}

TEST(IndexTest, Errors) {
  Tensor x = opcore::arange(6).view({2, 3});
  EXPECT_THAT(errorOf([&] { x.index({longs({2})}); }), HasSubstr("index 2 is out of bounds for dimension 0 with size 2"));
  // As PyTorch: the dimension among the indexed ones (its kernel moves them to the front).
  EXPECT_THAT(errorOf([&] { x.index({std::nullopt, longs({-4})}); }),
              HasSubstr("index -4 is out of bounds for dimension 0 with size 3"));
  EXPECT_THAT(errorOf([&] { x.index({longs({0}), longs({0}), longs({0})}); }),
              HasSubstr("index: too many indices for a tensor of 2 dimensions"));
  EXPECT_THAT(errorOf([&] { x.index({fromVector<float>({0})}); }),
              HasSubstr("index: tensors used as indices must be Long, Int or Bool tensors, got Float"));
  EXPECT_THAT(errorOf([&] { x.index({scalarTensor(true)}); }), HasSubstr("0-dimensional Bool index"));
  Tensor meta_index = opcore::empty({1}, ScalarType::Long, std::nullopt, Device(DeviceType::Meta));
  EXPECT_THAT(errorOf([&] { opcore::index(x, {meta_index}); }),
              HasSubstr("indices should be either on cpu or on the same device as the indexed tensor (cpu)"));
}

}  // namespace
}  // namespace opcore

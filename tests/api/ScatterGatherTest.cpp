// Tests of gather, scatter (src, value, reduce), scatter_add, scatter_reduce, index_select and
// index_add (issue #33): values, deterministic repeated places, large threaded inputs against
// a serial loop, and PyTorch's errors (an index out of range is an IndexError).
#include <opcore/ops/arange.h>
#include <opcore/ops/gather.h>
#include <opcore/ops/index_add.h>
#include <opcore/ops/index_select.h>
#include <opcore/ops/scatter.h>
#include <opcore/ops/scatter_add.h>
#include <opcore/ops/scatter_reduce.h>
#include <opcore/ops/zeros.h>

#include "TestUtil.h"

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

Tensor longs(const std::vector<int64_t>& v, std::vector<int64_t> sizes) { return fromVector<int64_t>(v, sizes); }
Tensor longs(const std::vector<int64_t>& v) { return fromVector<int64_t>(v); }

// The next state of a 64-bit linear congruential generator (Knuth's MMIX constants).
uint64_t nextState(uint64_t& state) { return state = state * 6364136223846793005ULL + 1442695040888963407ULL; }

TEST(ScatterGatherTest, GatherReadsAlongTheDimension) {
  Tensor x = opcore::arange(12).view({3, 4});
  Tensor r = opcore::gather(x, 1, longs({0, 3, 3, 1, 0, 2}, {2, 3}));
  EXPECT_EQ(shapeOf(r), (Shape{2, 3}));
  EXPECT_THAT(toVector<int64_t>(r), ElementsAre(0, 3, 3, 5, 4, 6));
  EXPECT_THAT(toVector<int64_t>(x.gather(0, longs({2, 0}, {1, 2}))), ElementsAre(8, 1));
}

TEST(ScatterGatherTest, ScatterWritesAndTheLastOfRepeatedPlacesWins) {
  Tensor z = opcore::zeros({2, 4}, kLong);
  Tensor src = opcore::arange(1, 7).view({2, 3});
  Tensor r = opcore::scatter(z, 1, longs({3, 0, 3, 1, 1, 1}, {2, 3}), src);
  EXPECT_THAT(toVector<int64_t>(r), ElementsAre(2, 0, 0, 3, 0, 6, 0, 0));
  EXPECT_THAT(toVector<int64_t>(z), Each(0)) << "the functional form leaves self alone";
  z.scatter_(1, longs({2}, {1, 1}), 9);
  EXPECT_THAT(toVector<int64_t>(z), ElementsAre(0, 0, 9, 0, 0, 0, 0, 0));
  Tensor m = opcore::scatter(opcore::arange(1, 5), 0, longs({0, 0}), opcore::arange(2, 4), "multiply");
  EXPECT_THAT(toVector<int64_t>(m), ElementsAre(6, 2, 3, 4));
}

// A functional scatter copies self into each row of its result just before scattering that
// row when the index reaches every row (ScatterGather.cpp's startsRowByRow), and copies all of
// self first otherwise: both start every row from self, for dense and transposed selfs, against
// the in-place form (which never copies).
TEST(ScatterGatherTest, ScatterResultsStartFromSelfInEveryRow) {
  const Tensor dense = opcore::arange(12).view({3, 4}).to(kFloat);
  const Tensor transposed = opcore::arange(12).view({4, 3}).to(kFloat).t();
  const Tensor src = opcore::arange(100, 106).view({3, 2}).to(kFloat);
  Tensor r = opcore::scatter_add(dense, 1, longs({3, 3, 0, 2, 1, 1}, {3, 2}), src);
  EXPECT_THAT(toVector<float>(r), ElementsAre(0, 1, 2, 204, 106, 5, 109, 7, 8, 218, 10, 11));
  for (const Tensor& self : {dense, transposed}) {
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{3, 2}, std::vector<int64_t>{2, 2}}) {
      const Tensor index = longs({3, 3, 0, 2, 1, 1}).narrow(0, 0, shape[0] * shape[1]).view(shape);
      const Tensor part = src.narrow(0, 0, shape[0]);
      Tensor expected = self.clone();
      expected.scatter_add_(1, index, part);
      EXPECT_EQ(toVector<float>(opcore::scatter_add(self, 1, index, part)), toVector<float>(expected))
          << "index rows " << shape[0] << (self.is_contiguous() ? ", dense" : ", transposed");
      expected = self.clone();
      expected.scatter_(1, index, 7.0);
      EXPECT_EQ(toVector<float>(opcore::scatter(self, 1, index, 7.0)), toVector<float>(expected));
    }
  }
}

TEST(ScatterGatherTest, ScatterAddIsDeterministicAndMatchesASerialLoop) {
  // 512 rows of 4096 places with 4096 random indices each: threads take whole rows, and the
  // float sums come out bit for bit as a serial loop's, on any thread count.
  const int64_t rows = 512, cols = 4096;
  std::vector<int64_t> index(static_cast<size_t>(rows * cols));
  std::vector<float> src(index.size());
  uint64_t state = 12345;
  for (size_t i = 0; i < index.size(); ++i) {
    const uint64_t r = nextState(state);
    index[i] = static_cast<int64_t>((r >> 33) % 64);  // few places: many repeats
    src[i] = static_cast<float>((r >> 11) % 1000) / 7.0f;
  }
  std::vector<float> expected(index.size(), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) expected[r * cols + index[r * cols + j]] += src[r * cols + j];
  }
  Tensor out = opcore::scatter_add(opcore::zeros({rows, cols}), 1, longs(index, {rows, cols}),
                                   fromVector<float>(src, {rows, cols}));
  EXPECT_EQ(toVector<float>(out), expected);
  {
    ThreadCount one(1);
    Tensor serial = opcore::scatter_add(opcore::zeros({rows, cols}), 1, longs(index, {rows, cols}),
                                        fromVector<float>(src, {rows, cols}));
    EXPECT_EQ(toVector<float>(serial), expected);
  }
}

// Rows of 4096 floats, which gather and an in-place scatter_add_ walk in pieces while they
// request the next row's lines (Note [Prefetching the indexed row]), against serial loops; an
// index out of range in a later piece of a later row is still found and named.
TEST(ScatterGatherTest, LongRowsWalkedInPiecesMatchASerialLoop) {
  const int64_t rows = 64, cols = 4096;
  std::vector<int64_t> index(static_cast<size_t>(rows * cols));
  std::vector<float> values(index.size());
  uint64_t state = 777;
  for (size_t i = 0; i < index.size(); ++i) {
    index[i] = static_cast<int64_t>((nextState(state) >> 33) % cols);
    values[i] = static_cast<float>(i % 1009);
  }
  std::vector<float> gathered(index.size()), added(values);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      gathered[r * cols + j] = values[r * cols + index[r * cols + j]];
      added[r * cols + index[r * cols + j]] += values[r * cols + j];
    }
  }
  const Tensor x = fromVector<float>(values, {rows, cols});
  const Tensor idx = longs(index, {rows, cols});
  EXPECT_EQ(toVector<float>(opcore::gather(x, 1, idx)), gathered);
  Tensor y = x.clone();
  y.scatter_add_(1, idx, x);
  EXPECT_EQ(toVector<float>(y), added);
  index[40 * cols + 3000] = cols + 5;
  const Tensor bad = longs(index, {rows, cols});
  EXPECT_THAT(errorOf([&] { opcore::gather(x, 1, bad); }),
              HasSubstr("index 4101 is out of bounds for dimension 1 with size 4096"));
  EXPECT_THAT(errorOf([&] { x.clone().scatter_add_(1, bad, x); }), HasSubstr("index 4101 is out of bounds"));
}

TEST(ScatterGatherTest, ScatterReduceTwoIncludesSelfOrNot) {
  Tensor x = fromVector<float>({1, 2, 3});
  Tensor src = fromVector<float>({4, 6, 8});
  Tensor index = longs({0, 0, 2});
  EXPECT_THAT(toVector<float>(opcore::scatter_reduce(x, 0, index, src, "mean")), ElementsAre(11.0f / 3, 2, 5.5f));
  EXPECT_THAT(toVector<float>(opcore::scatter_reduce(x, 0, index, src, "mean", false)), ElementsAre(5, 2, 8));
  EXPECT_THAT(toVector<float>(opcore::scatter_reduce(x, 0, index, src, "amax", false)), ElementsAre(6, 2, 8));
  EXPECT_THAT(toVector<float>(opcore::scatter_reduce(x, 0, index, src, "prod")), ElementsAre(24, 2, 24));
  Tensor ints = fromVector<int64_t>({-7, 0});
  EXPECT_THAT(toVector<int64_t>(opcore::scatter_reduce(ints, 0, longs({0}), fromVector<int64_t>({0}), "mean")),
              ElementsAre(-4, 0))
      << "integer means round down, as PyTorch's floor division";
  EXPECT_THAT(errorOf([&] { opcore::scatter_reduce(x, 0, index, src, "max"); }),
              HasSubstr("reduce argument must be either sum, prod, mean, amax or amin, got max"));
}

TEST(ScatterGatherTest, IndexSelectAndIndexAdd) {
  Tensor x = opcore::arange(12).view({3, 4});
  EXPECT_THAT(toVector<int64_t>(x.index_select(0, longs({2, 0}))), ElementsAre(8, 9, 10, 11, 0, 1, 2, 3));
  EXPECT_THAT(toVector<int64_t>(x.t().index_select(1, fromVector<int32_t>({1}))), ElementsAre(4, 5, 6, 7));
  Tensor r = opcore::index_add(opcore::zeros({3}, kLong), 0, longs({2, 2, 0}), fromVector<int64_t>({1, 2, 3}), 10);
  EXPECT_THAT(toVector<int64_t>(r), ElementsAre(30, 0, 30));
}

TEST(ScatterGatherTest, IndicesOutOfRangeAreIndexErrors) {
  Tensor x = opcore::arange(12.0).view({3, 4});
  EXPECT_THROW(opcore::gather(x, 0, longs({3}, {1, 1})), IndexError);
  EXPECT_THAT(errorOf([&] { opcore::gather(x, 0, longs({-1}, {1, 1})); }),
              HasSubstr("index -1 is out of bounds for dimension 0 with size 3"));
  EXPECT_THROW(opcore::scatter(x, 1, longs({4}, {1, 1}), 1.0), IndexError);
  EXPECT_THROW(opcore::scatter_add(x, 1, longs({4}, {1, 1}), x), IndexError);
  EXPECT_THROW(x.index_select(0, longs({5})), IndexError);
  EXPECT_THROW(opcore::index_add(x, 0, longs({3}), opcore::zeros({1, 4})), IndexError);
  EXPECT_THROW(opcore::gather(x, 2, longs({0}, {1, 1})), IndexError) << "dim out of range";
}

TEST(ScatterGatherTest, ShapeAndDtypeErrorsAreLocated) {
  Tensor x = opcore::arange(12.0).view({3, 4});
  EXPECT_THAT(errorOf([&] { opcore::gather(x, 0, fromVector<int32_t>({0}, {1, 1})); }),
              HasSubstr("gather(): Expected dtype int64 for index"));
  EXPECT_THAT(errorOf([&] { opcore::gather(x, 0, longs({0})); }),
              HasSubstr("Index tensor must have the same number of dimensions as input tensor"));
  EXPECT_THAT(errorOf([&] { opcore::scatter(x, 0, longs({0}, {1, 1}), opcore::zeros({1, 1}, kLong)); }),
              HasSubstr("scatter(): Expected self.dtype to be equal to src.dtype"));
  EXPECT_THAT(errorOf([&] { opcore::scatter_add(x, 0, longs({0, 0, 0, 0, 0}, {1, 5}), opcore::zeros({1, 5})); }),
              HasSubstr("to be smaller than self [3, 4] apart from dimension 0"));
  EXPECT_THAT(errorOf([&] { x.index_select(0, longs({0}, {1, 1})); }), HasSubstr("Index is supposed to be a vector"));
  EXPECT_THAT(errorOf([&] { opcore::index_add(x, 0, longs({0}), opcore::zeros({1, 3})); }),
              HasSubstr("Source/destination tensor must have same slice shapes"));
}

}  // namespace
}  // namespace opcore

// The shape operators of issue #33 through the C++ API: values of cat, stack, flip, roll,
// tril/triu, repeat and constant_pad_nd on strided and mixed-dtype inputs, views that share
// storage, Meta results, and PyTorch's errors (IndexError for dimensions out of range).
#include <opcore/opcore.h>
#include "TestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using opcore::Tensor;
using ::testing::HasSubstr;
using opcore::testing::toVector;

TEST(ShapeTest, CatJoinsStridedInputsAndPromotes) {
  Tensor a = opcore::arange(6).view({2, 3});
  Tensor b = opcore::arange(6).view({3, 2}).t().to(opcore::kFloat);
  Tensor r = opcore::cat({a, b}, 1);
  EXPECT_EQ(r.scalar_type(), opcore::kFloat);
  EXPECT_EQ(r.toString(), "tensor([[0., 1., 2., 0., 2., 4.],\n        [3., 4., 5., 1., 3., 5.]])");
  Tensor out = opcore::empty({0}, opcore::kDouble);
  opcore::cat_out(out, {a, opcore::empty({0})}, 0);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 3}));
}

TEST(ShapeTest, CatErrorsAreTorchs) {
  Tensor a = opcore::ones({2, 3});
  try {
    opcore::cat({a, opcore::ones({2, 4})}, 0);
    FAIL() << "no error";
  } catch (const opcore::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("Sizes of tensors must match except in dimension 0. Expected size 3 but got "
                                    "size 4 for tensor number 1 in the list."));
  }
  EXPECT_THROW(opcore::cat({a}, 2), opcore::IndexError);
  EXPECT_THROW(opcore::cat({opcore::ones({})}, 0), opcore::Error);
}

TEST(ShapeTest, FlipRollAndTriangles) {
  Tensor x = opcore::arange(6).view({2, 3});
  EXPECT_EQ(opcore::flip(x, {0, 1}).toString(), "tensor([[5, 4, 3],\n        [2, 1, 0]])");
  EXPECT_EQ(opcore::roll(x, {1}, {1}).toString(), "tensor([[2, 0, 1],\n        [5, 3, 4]])");
  EXPECT_EQ(opcore::roll(x, {-1}).toString(), "tensor([[1, 2, 3],\n        [4, 5, 0]])");
  EXPECT_EQ(opcore::tril(x.t()).toString(), "tensor([[0, 0],\n        [1, 4],\n        [2, 5]])");
  Tensor y = opcore::ones({3, 3}, opcore::kBool);
  y.triu_(1);
  EXPECT_EQ(y.sum().item<int64_t>(), 3);
}

// permute(...).contiguous() of every element size the transposed copy handles (Note
// [Transposed copies] in kernels/cpu/Loops.cpp), against the elements read through the permuted
// view's strides: edges that fill no whole tile, batches of several bands per thread (the next
// band's tile is prefetched across matrices), and a source that starts off a cache line.
TEST(ShapeTest, PermutedCopiesMatchTheElementwiseLoop) {
  const std::vector<std::vector<int64_t>> perms = {{0, 2, 1}, {2, 0, 1}, {1, 2, 0}, {2, 1, 0}, {1, 0, 2}};
  const std::vector<std::vector<int64_t>> shapes = {{3, 70, 131}, {5, 300, 260}};
  for (opcore::ScalarType dtype : {opcore::kBool, opcore::kByte, opcore::kShort, opcore::kHalf, opcore::kFloat,
                                   opcore::kInt, opcore::kLong, opcore::kDouble}) {
    for (const auto& shape : shapes) {
      const int64_t n = shape[0] * shape[1] * shape[2];
      for (int64_t skip : {0, 3}) {  // 3 elements in: 3 to 24 bytes off the cache line
        const Tensor values = opcore::arange(n + skip).remainder(dtype == opcore::kBool ? 2 : 97).to(dtype);
        const Tensor x = opcore::slice(values, 0, skip).view(shape);
        for (const auto& perm : perms) {
          const Tensor y = x.permute(perm).contiguous();
          ASSERT_TRUE(y.is_contiguous());
          EXPECT_EQ(toVector<double>(y.to(opcore::kDouble)), toVector<double>(x.to(opcore::kDouble).permute(perm)))
              << dtype << " " << shape[1] << "x" << shape[2] << " skipping " << skip << ", permuted as " << perm[0]
              << perm[1] << perm[2];
        }
      }
    }
  }
}

// Transposed copies with 2 to 4 columns into dense rows, or 2 to 4 rows out of dense columns
// (Note [Zipped copies] in kernels/cpu/Loops.cpp: pixel_shuffle's and pixel_unshuffle's), of
// every element size, long enough to be cut into pieces among threads.
TEST(ShapeTest, ZippedCopiesMatchTheElementwiseLoop) {
  for (opcore::ScalarType dtype : {opcore::kBool, opcore::kShort, opcore::kFloat, opcore::kDouble}) {
    for (int64_t k : {2, 3, 4}) {
      for (const std::vector<int64_t>& shape : {std::vector<int64_t>{3, k, 9001}, std::vector<int64_t>{3, 9001, k}}) {
        const Tensor values = opcore::arange(3 * 9001 * k).remainder(dtype == opcore::kBool ? 2 : 97).to(dtype);
        const Tensor x = values.view(shape);
        const Tensor y = x.permute({0, 2, 1}).contiguous();
        EXPECT_EQ(toVector<double>(y.to(opcore::kDouble)), toVector<double>(x.to(opcore::kDouble).permute({0, 2, 1})))
            << dtype << " " << shape[1] << "x" << shape[2];
      }
    }
  }
}

// pixel_shuffle's and pixel_unshuffle's copies themselves: zips and unzips of short rows in a
// batch of several dimensions, which an unzip walks in the source's order (Note [Zipped
// copies]), so that one thread's consecutive pieces cross every batch dimension.
TEST(ShapeTest, ZippedCopiesOfShortRowsInDeepBatches) {
  const std::vector<int64_t> shape = {3, 5, 2, 7, 3, 9, 2};  // (n, c, r, r', h, w, r'')
  const int64_t n = 3 * 5 * 2 * 7 * 3 * 9 * 2;
  const Tensor x = opcore::arange(n).remainder(89).to(opcore::kFloat).view(shape);
  const Tensor expected = x.to(opcore::kDouble);
  const std::vector<std::vector<int64_t>> perms = {{0, 1, 4, 2, 5, 6, 3}, {0, 1, 2, 6, 4, 3, 5}};
  for (const std::vector<int64_t>& perm : perms) {
    const Tensor y = x.permute(perm).contiguous();
    EXPECT_EQ(toVector<double>(y.to(opcore::kDouble)), toVector<double>(expected.permute(perm)))
        << perm[3] << perm[4] << perm[5] << perm[6];
  }
}

// Copies larger than half the last-level cache: a zip (streamed through its buffer), an unzip
// and a dense copy (streamed, in pieces among the threads), each into a fresh result and into a
// destination one element off the allocation's start; and a cat whose pieces start anywhere.
TEST(ShapeTest, LargeZippedAndDenseCopiesIntoAlignedAndMisalignedDestinations) {
  const int64_t n = 5'000'001;  // 40 MB of floats as 2 x n
  const Tensor x = opcore::arange(2 * n, opcore::kFloat).view({2, n});
  for (const Tensor& expected : {x, x.t(), x.t().contiguous().t()}) {
    const Tensor fresh = expected.contiguous();
    Tensor storage = opcore::empty({2 * n + 1}, opcore::kFloat);
    Tensor shifted = opcore::slice(storage, 0, 1).view(expected.sizes());
    shifted.copy_(expected);
    for (const Tensor& y : {fresh, shifted}) {
      EXPECT_TRUE(y.eq(expected).all().item<bool>()) << expected.sizes() << " " << expected.strides();
    }
  }
  const Tensor flat = x.view({-1});
  const Tensor joined =
      opcore::cat({opcore::slice(flat, 0, 0, 3), opcore::slice(flat, 0, 3, n), opcore::slice(flat, 0, n)});
  EXPECT_TRUE(joined.eq(flat).all().item<bool>());
}

// A result larger than half the last-level cache (counted as at most 64 MiB) takes streaming
// stores when they are aligned (destination rows of 3 x 1056 elements: a multiple of 64 bytes,
// as the AVX-512 steps need; an odd number of them, so that the last piece of each strip has
// steps and a remainder): a fresh contiguous result (aligned) and one copied into a destination
// one element off the allocation's start (not), for 2-, 4- and 8-byte elements (those with
// block stores).
TEST(ShapeTest, LargePermutedCopiesIntoAlignedAndMisalignedDestinations) {
  for (opcore::ScalarType dtype : {opcore::kShort, opcore::kFloat, opcore::kDouble}) {
    // 35.5 MB, above the threshold on any machine (at most 32 MiB)
    const std::vector<int64_t> shape = {3, 1056, 11208 / static_cast<int64_t>(opcore::elementSize(dtype)) + 1};
    const int64_t n = shape[0] * shape[1] * shape[2];
    const int64_t values = dtype == opcore::kShort ? 30011 : n;  // the elements are their indices modulo this
    const Tensor x = opcore::arange(n).remainder(values).to(dtype).view(shape);
    const Tensor expected = x.permute({2, 0, 1});
    const Tensor fresh = expected.contiguous();
    Tensor storage = opcore::empty({n + 1}, dtype);
    Tensor shifted = opcore::slice(storage, 0, 1).view({shape[2], shape[0], shape[1]});
    shifted.copy_(expected);
    for (const Tensor& y : {fresh, shifted}) {
      // Element k of the result is x's element at the permuted position: compare as indices.
      const Tensor i = opcore::arange(shape[2]).view({-1, 1, 1}), j = opcore::arange(shape[0]).view({1, -1, 1}),
                   k = opcore::arange(shape[1]).view({1, 1, -1});
      const Tensor source_index = (j * shape[1] + k) * shape[2] + i;
      EXPECT_TRUE(y.eq(source_index.remainder(values).to(dtype)).all().item<bool>()) << dtype;
    }
  }
}

// Copies of views whose rows are short (Note [Short-row copies] in kernels/cpu/Loops.cpp), of
// each element size, against the elements read through the view's strides: rows of 1
// to 15 elements (2 to 120 bytes: each length the two overlapping moves cover, and the longer
// rows that the path leaves alone), one row dimension and several (a convolution's windows, as
// Convolution.cpp views them), and enough rows to be split among threads mid-dimension.
TEST(ShapeTest, ShortRowCopiesMatchTheirViews) {
  for (opcore::ScalarType dtype : {opcore::kBool, opcore::kShort, opcore::kFloat, opcore::kDouble}) {
    const Tensor values = opcore::arange(200000).remainder(dtype == opcore::kBool ? 2 : 97).to(dtype);
    for (int64_t row = 1; row <= 15; ++row) {
      // [rows, row] out of [rows, row + 3]: one row dimension, 50k rows (threaded).
      const int64_t rows = 200000 / (row + 3);
      const Tensor slice = opcore::slice(values, 0, 0, rows * (row + 3)).view({rows, row + 3}).narrow(1, 1, row);
      // A convolution's windows of a [7, 40, 9, row + 2] image, 3x3 kernel, rows of `row` outputs
      // (threaded from 2 elements a row).
      const int64_t width = row + 2;
      const Tensor image = opcore::slice(values, 0, 0, 7 * 40 * 9 * width).view({7, 40, 9, width});
      const Tensor windows = image.as_strided({40, 3, 3, 7, 7, row}, {9 * width, width, 1, 40 * 9 * width, width, 1});
      for (const Tensor& view : {slice, windows}) {
        const Tensor y = view.contiguous();
        ASSERT_TRUE(y.is_contiguous());
        EXPECT_EQ(toVector<double>(y.to(opcore::kDouble)), toVector<double>(view.to(opcore::kDouble)))
            << dtype << ", rows of " << row << ", " << view.sizes();
      }
    }
  }
}

TEST(ShapeTest, RepeatAndPad) {
  Tensor x = opcore::arange(2);
  EXPECT_EQ(x.repeat({2, 2}).toString(), "tensor([[0, 1, 0, 1],\n        [0, 1, 0, 1]])");
  EXPECT_EQ(opcore::constant_pad_nd(x, {1, -1}, 7).toString(), "tensor([7, 0])");
}

TEST(ShapeTest, ViewsShareStorage) {
  Tensor x = opcore::zeros({2, 3, 4});
  Tensor p = x.permute({2, 0, 1});
  EXPECT_EQ(p.strides(), (std::vector<int64_t>{1, 12, 4}));
  p.select(0, 1).fill_(1);
  EXPECT_EQ(x.sum().item<double>(), 6.0);
  std::vector<Tensor> pieces = opcore::split(x, 1, 1);
  ASSERT_EQ(pieces.size(), 3u);
  pieces[2].fill_(2);
  EXPECT_EQ(x.sum().item<double>(), 20.0);  // 6 ones, 2 of them overwritten by the 8 twos
  EXPECT_EQ(opcore::diagonal(x, 1, 1, 2).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_THROW(opcore::diagonal(opcore::ones({3}), 0, 0, 1), opcore::IndexError);
}

TEST(ShapeTest, MetaTensorsGetShapes) {
  Tensor m = opcore::empty({2, 3}, opcore::kFloat, std::nullopt, opcore::Device(opcore::DeviceType::Meta));
  EXPECT_EQ(opcore::cat({m, m}, 1).sizes(), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(opcore::flip(m, {0}).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(opcore::roll(m, {1}, {0}).device().type(), opcore::DeviceType::Meta);
  EXPECT_EQ(opcore::tril(m).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(opcore::stack({m, m}, 0).sizes(), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(m.repeat({2, 1}).sizes(), (std::vector<int64_t>{4, 3}));
}

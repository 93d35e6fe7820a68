// Tests of mm, bmm, matmul, addmm and linear: values, every rank combination of matmul, batch
// broadcasting, strided inputs and PyTorch's error messages.
#include <opcore/ops/addmm.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/bmm.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/full.h>
#include <opcore/ops/linear.h>
#include <opcore/ops/matmul.h>
#include <opcore/ops/mm.h>
#include <opcore/ops/ones.h>
#include "TestUtil.h"

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

TEST(LinearTest, MultipliesMatrices) {
  Tensor a = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = fromVector<float>({7, 8, 9, 10, 11, 12}, {3, 2});
  Tensor c = opcore::mm(a, b);
  EXPECT_EQ(shapeOf(c), (Shape{2, 2}));
  EXPECT_THAT(toVector<float>(c), ElementsAre(58, 64, 139, 154));
  EXPECT_THAT(toVector<float>(a.mm(b)), ElementsAre(58, 64, 139, 154));
}

// beta * self + alpha * (mat1 @ mat2), self a bias row broadcast over the rows; in place into
// self; beta = 0 ignores a NaN self; linear through addmm (2-D and a folded 3-D input) and
// through matmul (no bias).
TEST(LinearTest, AddmmAndLinear) {
  Tensor a = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = fromVector<float>({7, 8, 9, 10, 11, 12}, {3, 2});
  Tensor bias = fromVector<float>({1, -1}, {2});
  EXPECT_THAT(toVector<float>(opcore::addmm(bias, a, b)), ElementsAre(59, 63, 140, 153));
  EXPECT_THAT(toVector<float>(opcore::addmm(bias, a, b, 2, 0.5)), ElementsAre(31, 30, 71.5, 75));
  Tensor acc = opcore::ones({2, 2});
  EXPECT_TRUE(acc.addmm_(a, b, 3, 1).is_same(acc));
  EXPECT_THAT(toVector<float>(acc), ElementsAre(61, 67, 142, 157));
  EXPECT_THAT(toVector<float>(opcore::addmm(opcore::full({2, 1}, NAN), a, b, 0)), ElementsAre(58, 64, 139, 154));
  EXPECT_THROW(opcore::ones({2}).addmm_(a, b), Error);  // self must already have the result's shape

  Tensor weight = b.t();  // [out 2, in 3]
  EXPECT_THAT(toVector<float>(opcore::linear(a, weight, bias)), ElementsAre(59, 63, 140, 153));
  EXPECT_THAT(toVector<float>(opcore::linear(a, weight)), ElementsAre(58, 64, 139, 154));
  Tensor batch = opcore::linear(a.view({2, 1, 3}), weight, bias);
  EXPECT_EQ(shapeOf(batch), (Shape{2, 1, 2}));
  EXPECT_THAT(toVector<float>(batch), ElementsAre(59, 63, 140, 153));
  EXPECT_THAT(errorOf([&] { opcore::linear(a, opcore::ones({2, 4})); }),
              HasSubstr("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)"));
}

TEST(LinearTest, MultipliesTransposedAndIntegralMatrices) {
  Tensor a = fromVector<int64_t>({1, 3, 5, 2, 4, 6}, {3, 2}).t();  // [[1, 5, 4], [3, 2, 6]]
  Tensor b = fromVector<int64_t>({1, 0, 0, 1, 1, 1}, {3, 2});
  Tensor c = opcore::mm(a, b);
  EXPECT_EQ(c.scalar_type(), ScalarType::Long);
  EXPECT_THAT(toVector<int64_t>(c), ElementsAre(5, 9, 9, 8));
}

TEST(LinearTest, MatchesANaiveProductOnLargerShapes) {
  const int64_t n = 37, k = 150, m = 530;  // not multiples of the block sizes
  Tensor a = opcore::arange(n * k, ScalarType::Double).view({n, k}).div(n * k);
  Tensor b = opcore::arange(k * m, ScalarType::Double).view({k, m}).div(k * m);
  std::vector<double> c = toVector<double>(opcore::mm(a, b));
  std::vector<double> av = toVector<double>(a), bv = toVector<double>(b);
  for (int64_t i = 0; i < n; i += 7) {
    for (int64_t j = 0; j < m; j += 13) {
      double expected = 0;
      for (int64_t p = 0; p < k; ++p) expected += av[i * k + p] * bv[p * m + j];
      EXPECT_NEAR(c[i * m + j], expected, 1e-9 * (1 + expected)) << i << "," << j;
    }
  }
}

TEST(LinearTest, MmOut) {
  Tensor a = fromVector<float>({1, 2, 3, 4}, {2, 2});
  Tensor out = opcore::empty({0});
  opcore::mm_out(out, a, a);
  EXPECT_THAT(toVector<float>(out), ElementsAre(7, 10, 15, 22));
  opcore::mm_out(a, a, a);  // out aliases both inputs
  EXPECT_THAT(toVector<float>(a), ElementsAre(7, 10, 15, 22));
}

TEST(LinearTest, MmOutIntoAnInputOfAnotherShape) {
  Tensor a = fromVector<float>({1, 2, 3}, {1, 3});
  opcore::mm_out(a, a.t(), a);  // [3, 1] x [1, 3]
  EXPECT_EQ(shapeOf(a), (Shape{3, 3}));
  EXPECT_THAT(toVector<float>(a), ElementsAre(1, 2, 3, 2, 4, 6, 3, 6, 9));
}

TEST(LinearTest, MmOutIntoItsSecondOperandOrATransposedView) {
  Tensor a = fromVector<float>({1, 2, 3, 4}, {2, 2});
  Tensor b = fromVector<float>({0, 1, 1, 0}, {2, 2});
  opcore::mm_out(b, a, b);  // out aliases mat2 only: [[1, 2], [3, 4]] with its columns swapped
  EXPECT_THAT(toVector<float>(b), ElementsAre(2, 1, 4, 3));
  Tensor storage = opcore::empty({2, 2});
  Tensor out_t = storage.t();
  opcore::mm_outf(a, a, out_t);  // a non-contiguous out keeps its strides
  EXPECT_EQ(out_t.strides().vec(), (Shape{1, 2}));
  EXPECT_THAT(toVector<float>(out_t), ElementsAre(7, 10, 15, 22));
  EXPECT_THAT(toVector<float>(storage), ElementsAre(7, 15, 10, 22));
}

TEST(LinearTest, MmOutIntoARowOfItsOwnOperand) {
  Tensor x = fromVector<float>({1, 2, 3, 4}, {2, 2});
  Tensor row = x.select(0, 0).unsqueeze(0);  // [1, 2] viewed as [1, 2]: shares x's memory
  opcore::mm_out(row, row, x);              // [1, 2] x [[1, 2], [3, 4]] = [7, 10]
  EXPECT_THAT(toVector<float>(x), ElementsAre(7, 10, 3, 4));
}

TEST(LinearTest, MmOutChecksTheOutTensorBeforeWritingIt) {
  Tensor a = fromVector<float>({1, 2, 3, 4}, {2, 2});
  Tensor wrong_dtype = opcore::empty({2, 2}, ScalarType::Double);
  EXPECT_THAT(errorOf([&] { opcore::mm_out(wrong_dtype, a, a); }),
              HasSubstr("aten::mm.out: Expected out tensor to have dtype Float, but got Double instead"));
  Tensor meta_out = opcore::empty({2, 2}, ScalarType::Float, std::nullopt, Device(DeviceType::Meta));
  EXPECT_THAT(errorOf([&] { opcore::mm_out(meta_out, a, a); }),
              HasSubstr("aten::mm.out: expected out on cpu, but it is on meta"));
  Tensor small = fromVector<float>({5});
  EXPECT_THAT(errorOf([&] { opcore::mm_out(small, a, opcore::ones({3, 1})); }),
              HasSubstr("mat1 and mat2 shapes cannot be multiplied (2x2 and 3x1)"));
  EXPECT_EQ(shapeOf(small), (Shape{1})) << "a failed check leaves out alone";
  EXPECT_THAT(toVector<float>(small), ElementsAre(5));
  opcore::mm_out(small, a, a);  // a wrong shape is fine: out is resized
  EXPECT_EQ(shapeOf(small), (Shape{2, 2}));
  EXPECT_THAT(toVector<float>(small), ElementsAre(7, 10, 15, 22));
}

TEST(LinearTest, MmErrors) {
  Tensor a = opcore::ones({2, 3});
  Tensor b = opcore::ones({4, 5});
  EXPECT_THAT(errorOf([&] { opcore::mm(a, b); }),
              HasSubstr("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"));
  EXPECT_THAT(errorOf([&] { opcore::mm(opcore::ones({3}), b); }), HasSubstr("self must be a matrix"));
  EXPECT_THAT(errorOf([&] { opcore::mm(a, opcore::ones({3}, ScalarType::Double).view({3, 1})); }),
              HasSubstr("expected mat1 and mat2 to have the same dtype, but got: Float != Double"));
  Tensor flags = opcore::empty({2, 2}, ScalarType::Bool);
  EXPECT_THAT(errorOf([&] { opcore::mm(flags, flags); }), HasSubstr("\"mm\" not implemented for 'Bool'"));
  EXPECT_THAT(errorOf([&] { opcore::mm(opcore::empty({2, 3}, ScalarType::Float, std::nullopt, Device(DeviceType::Meta)), opcore::ones({3, 2})); }),
              HasSubstr("mm: expected all tensors to be on the same device, but found at least two devices, meta and cpu"));
}

TEST(LinearTest, BatchedProduct) {
  Tensor a = fromVector<float>({1, 2, 3, 4, 1, 0, 0, 1}, {2, 2, 2});
  Tensor b = fromVector<float>({1, 1, 1, 1, 2, 3, 4, 5}, {2, 2, 2});
  Tensor c = opcore::bmm(a, b);
  EXPECT_EQ(shapeOf(c), (Shape{2, 2, 2}));
  EXPECT_THAT(toVector<float>(c), ElementsAre(3, 3, 7, 7, 2, 3, 4, 5));
  EXPECT_THAT(errorOf([&] { opcore::bmm(a, opcore::ones({2, 3, 2})); }),
              HasSubstr("Expected size for first two dimensions of batch2 tensor to be: [2, 2] but got: [2, 3]."));
  EXPECT_THAT(errorOf([&] { opcore::bmm(opcore::ones({2, 2}), b); }), HasSubstr("batch1 must be a 3D tensor"));
}

TEST(LinearTest, MatmulOfVectors) {
  Tensor v = fromVector<float>({1, 2, 3});
  Tensor d = opcore::matmul(v, v);
  EXPECT_EQ(shapeOf(d), Shape{});
  EXPECT_EQ(d.item<float>(), 14);
  EXPECT_THAT(errorOf([&] { opcore::matmul(v, opcore::ones({4})); }),
              HasSubstr("inconsistent tensor size, expected tensor [3] and src [4] to have the same "
                        "number of elements, but got 3 and 4 elements respectively"));
}

TEST(LinearTest, MatmulOfMatrixAndVector) {
  Tensor m = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor mv = opcore::matmul(m, fromVector<float>({1, 0, -1}));
  EXPECT_EQ(shapeOf(mv), (Shape{2}));
  EXPECT_THAT(toVector<float>(mv), ElementsAre(-2, -2));
  Tensor vm = opcore::matmul(fromVector<float>({1, -1}), m);
  EXPECT_EQ(shapeOf(vm), (Shape{3}));
  EXPECT_THAT(toVector<float>(vm), ElementsAre(-3, -3, -3));
  EXPECT_THAT(toVector<float>(m.matmul(m.t())), ElementsAre(14, 32, 32, 77));
}

TEST(LinearTest, MatmulFoldsBatchIntoRows) {
  Tensor a = opcore::arange(12, ScalarType::Float).view({2, 2, 3});
  Tensor b = fromVector<float>({1, 0, 0, 1, 1, 1}, {3, 2});
  Tensor c = opcore::matmul(a, b);  // rows [r0, r1, r2] -> [r0 + r2, r1 + r2]
  EXPECT_EQ(shapeOf(c), (Shape{2, 2, 2}));
  EXPECT_THAT(toVector<float>(c), ElementsAre(2, 3, 8, 9, 14, 15, 20, 21));
  Tensor cv = opcore::matmul(a, fromVector<float>({1, 1, 1}));
  EXPECT_EQ(shapeOf(cv), (Shape{2, 2}));
  EXPECT_THAT(toVector<float>(cv), ElementsAre(3, 12, 21, 30));
}

TEST(LinearTest, MatmulBroadcastsBatchDimensions) {
  Tensor a = opcore::ones({3, 1, 2, 4});
  Tensor b = opcore::ones({5, 4, 6});
  Tensor c = opcore::matmul(a, b);
  EXPECT_EQ(shapeOf(c), (Shape{3, 5, 2, 6}));
  EXPECT_THAT(toVector<float>(c), ::testing::Each(FloatEq(4)));
  Tensor vb = opcore::matmul(fromVector<float>({1, 2, 3, 4}), b);
  EXPECT_EQ(shapeOf(vb), (Shape{5, 6}));
  EXPECT_THAT(toVector<float>(vb), ::testing::Each(FloatEq(10)));
  Tensor mb = opcore::matmul(opcore::ones({2, 4}), b);
  EXPECT_EQ(shapeOf(mb), (Shape{5, 2, 6}));
  Tensor bv = opcore::matmul(b.transpose(1, 2), fromVector<float>({1, 1, 1, 1}));
  EXPECT_EQ(shapeOf(bv), (Shape{5, 6}));
}

TEST(LinearTest, MatmulErrors) {
  Tensor s = opcore::ones({});
  EXPECT_THAT(errorOf([&] { opcore::matmul(s, opcore::ones({2, 2})); }),
              HasSubstr("both arguments to matmul need to be at least 1D, but they are 0D and 2D"));
  EXPECT_THAT(errorOf([&] { opcore::matmul(opcore::ones({2, 2, 3}), opcore::ones({2, 4, 2})); }),
              HasSubstr("Expected size for first two dimensions of batch2 tensor"));
  EXPECT_THAT(errorOf([&] { opcore::matmul(opcore::ones({2, 2, 3}), opcore::ones({3, 3, 2})); }),
              HasSubstr("must match the size of tensor b (3) at non-singleton dimension 0"));
}

}  // namespace
}  // namespace opcore

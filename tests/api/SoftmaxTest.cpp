// Tests of the softmax family of issue #34 where the operator table (tests/python/opinfo.py)
// does not reach: rows long enough for the vectorized loops and both threads along the last
// and another dimension, against sums in double; the same bits on 1 and 2 threads;
// half_to_float; 0-dim and empty inputs; meta tensors; and the errors.
#include <opcore/ops/_log_softmax.h>
#include <opcore/ops/_log_softmax_backward_data.h>
#include <opcore/ops/_softmax.h>
#include <opcore/ops/_softmax_backward_data.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/log_softmax.h>
#include <opcore/ops/softmax.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/transpose.h>
#include "TestUtil.h"

#include <cmath>
#include <cstring>
#include <random>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

std::vector<float> randomFloats(int64_t n, uint32_t seed, float scale) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0F, scale);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(gen);
  return v;
}

bool sameBits(const Tensor& a, const Tensor& b) {
  return a.numel() == b.numel() && a.scalar_type() == b.scalar_type() &&
         std::memcmp(a.data_ptr(), b.data_ptr(), static_cast<size_t>(a.numel() * a.element_size())) == 0;
}

// softmax (or log_softmax) of the [rows, cols] row-major `x` along dim (0 or 1), in double.
std::vector<double> reference(const std::vector<float>& x, int64_t rows, int64_t cols, int64_t dim, bool log) {
  std::vector<double> out(x.size());
  const int64_t count = dim == 1 ? rows : cols, len = dim == 1 ? cols : rows;
  for (int64_t s = 0; s < count; ++s) {
    auto at = [&](int64_t k) { return static_cast<size_t>(dim == 1 ? s * cols + k : k * cols + s); };
    double m = -INFINITY, sum = 0;
    for (int64_t k = 0; k < len; ++k) m = std::max(m, static_cast<double>(x[at(k)]));
    for (int64_t k = 0; k < len; ++k) sum += std::exp(x[at(k)] - m);
    for (int64_t k = 0; k < len; ++k) {
      out[at(k)] = log ? x[at(k)] - m - std::log(sum) : std::exp(x[at(k)] - m) / sum;
    }
  }
  return out;
}

void expectClose(const Tensor& actual, const std::vector<double>& expected, double rtol, double atol) {
  const std::vector<float> a = toVector<float>(actual);
  ASSERT_EQ(a.size(), expected.size());
  int bad = 0;
  for (size_t i = 0; i < a.size() && bad < 5; ++i) {
    if (!(std::abs(a[i] - expected[i]) <= atol + rtol * std::abs(expected[i]))) {
      ADD_FAILURE() << "at " << i << ": " << a[i] << " vs " << expected[i];
      ++bad;
    }
  }
}

TEST(SoftmaxTest, SmallValues) {
  const Tensor x = fromVector<float>({1, 2, 3, 0, 0, 0}, {2, 3});
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0), s = e1 + e2 + e3;
  EXPECT_THAT(toVector<float>(opcore::softmax(x, 1)),
              Pointwise(FloatNear(1e-6F), std::vector<float>{float(e1 / s), float(e2 / s), float(e3 / s), 1.0F / 3,
                                                             1.0F / 3, 1.0F / 3}));
  EXPECT_THAT(toVector<float>(x.log_softmax(-1)),
              Pointwise(FloatNear(1e-6F), std::vector<float>{float(1 - std::log(s)), float(2 - std::log(s)),
                                                             float(3 - std::log(s)), float(-std::log(3.0)),
                                                             float(-std::log(3.0)), float(-std::log(3.0))}));
  // along dim 0: columns (1, 0), (2, 0), (3, 0)
  const std::vector<float> col = toVector<float>(opcore::softmax(x, 0));
  EXPECT_NEAR(col[0], std::exp(1.0) / (std::exp(1.0) + 1), 1e-6);
  EXPECT_NEAR(col[5], 1 / (std::exp(3.0) + 1), 1e-6);
}

TEST(SoftmaxTest, LongRowsAlongEveryDimensionMatchDouble) {
  const int64_t rows = 300, cols = 1031;  // odd lengths: vector tails and partial column blocks
  const std::vector<float> v = randomFloats(rows * cols, 7, 4.0F);
  const Tensor x = fromVector<float>(v, {rows, cols});
  for (int64_t dim : {0, 1}) {
    expectClose(opcore::softmax(x, dim), reference(v, rows, cols, dim, false), 1e-5, 1e-7);
    expectClose(opcore::log_softmax(x, dim), reference(v, rows, cols, dim, true), 1e-5, 1e-5);
  }
  // a non-contiguous input is the same as its contiguous copy
  const Tensor xt = fromVector<float>(v, {cols, rows}).transpose(0, 1);
  expectClose(opcore::softmax(xt, 1), reference(toVector<float>(xt), rows, cols, 1, false), 1e-5, 1e-7);
}

TEST(SoftmaxTest, SameBitsOnOneAndTwoThreads) {
  const std::vector<float> v = randomFloats(64 * 4096, 3, 3.0F);
  const Tensor x = fromVector<float>(v, {64, 4096});
  for (int64_t dim : {0, 1}) {
    Tensor one, two, log_one, log_two;
    {
      ThreadCount threads(1);
      one = opcore::softmax(x, dim);
      log_one = opcore::log_softmax(x, dim);
    }
    {
      ThreadCount threads(2);
      two = opcore::softmax(x, dim);
      log_two = opcore::log_softmax(x, dim);
    }
    EXPECT_TRUE(sameBits(one, two)) << "dim " << dim;
    EXPECT_TRUE(sameBits(log_one, log_two)) << "dim " << dim;
  }
}

TEST(SoftmaxTest, HalfToFloatGivesTheFloatResultOfTheRoundedInput) {
  const Tensor x = fromVector<float>(randomFloats(6 * 40, 5, 2.0F), {6, 40});
  for (ScalarType reduced : {ScalarType::Half, ScalarType::BFloat16}) {
    const Tensor r = x.to(reduced);
    for (int64_t dim : {0, 1}) {
      const Tensor f = opcore::_softmax(r, dim, true);
      EXPECT_EQ(f.scalar_type(), ScalarType::Float);
      EXPECT_TRUE(sameBits(f, opcore::_softmax(r.to(ScalarType::Float), dim, false)));
      const Tensor lf = opcore::_log_softmax(r, dim, true);
      EXPECT_TRUE(sameBits(lf, opcore::_log_softmax(r.to(ScalarType::Float), dim, false)));
      // the reduced result is the float one rounded once
      EXPECT_TRUE(sameBits(opcore::_softmax(r, dim, false), f.to(reduced)));
      // the gradient of a half_to_float softmax comes back in the input's dtype
      const Tensor g = opcore::_softmax_backward_data(f, f, dim, reduced);
      EXPECT_EQ(g.scalar_type(), reduced);
    }
  }
  EXPECT_THAT(errorOf([&] { opcore::_softmax(x, 1, true); }), HasSubstr("Half and BFloat16"));
}

TEST(SoftmaxTest, ZeroDimAndEmpty) {
  const Tensor s = scalarTensor<float>(2.5F);
  EXPECT_EQ(opcore::softmax(s, 0).item<float>(), 1.0F);
  EXPECT_EQ(opcore::log_softmax(s, -1).item<float>(), 0.0F);
  EXPECT_EQ(opcore::softmax(s, 0).dim(), 0);
  EXPECT_THROW(opcore::softmax(s, 1), IndexError);
  EXPECT_THROW(opcore::log_softmax(s, -2), IndexError);
  for (const Shape& shape : {Shape{0, 3}, Shape{3, 0}}) {
    const Tensor e = opcore::empty(shape, ScalarType::Float);
    EXPECT_EQ(shapeOf(opcore::softmax(e, 1)), shape);
    EXPECT_EQ(shapeOf(opcore::log_softmax(e, 0)), shape);
  }
}

TEST(SoftmaxTest, BackwardMatchesTheFormulas) {
  const Tensor y = fromVector<double>({0.2, 0.3, 0.5, 0.1, 0.6, 0.3}, {2, 3});
  const Tensor g = fromVector<double>({1, -2, 0.5, 3, 0, -1}, {2, 3});
  // softmax: y * (g - sum(g * y)) along the row; dots -0.15 and 0
  EXPECT_THAT(toVector<double>(opcore::_softmax_backward_data(g, y, 1, ScalarType::Double)),
              Pointwise(DoubleNear(1e-12), std::vector<double>{0.23, -0.555, 0.325, 0.3, 0.0, -0.3}));
  // log_softmax: g - exp(y) * sum(g)
  const std::vector<double> lg = toVector<double>(opcore::_log_softmax_backward_data(g, y, 1, ScalarType::Double));
  EXPECT_NEAR(lg[0], 1 - std::exp(0.2) * -0.5, 1e-12);
  EXPECT_NEAR(lg[5], -1 - std::exp(0.3) * 2, 1e-12);
  // along dim 0 the same numbers, transposed
  const std::vector<double> col = toVector<double>(
      opcore::_softmax_backward_data(g.transpose(0, 1), y.transpose(0, 1), 0, ScalarType::Double));
  EXPECT_NEAR(col[0], 0.23, 1e-12);
  EXPECT_NEAR(col[1], 0.3, 1e-12);
}

TEST(SoftmaxTest, OutArgumentsAndMetaTensors) {
  const Tensor x = fromVector<float>(randomFloats(12, 9, 1.0F), {3, 4});
  Tensor out = opcore::empty({4, 3}, ScalarType::Float).transpose(0, 1);  // non-contiguous
  opcore::softmax_out(out, x, 1);
  EXPECT_TRUE(sameBits(out.contiguous(), opcore::softmax(x, 1)));
  Tensor wrong = opcore::empty({3, 4}, ScalarType::Double);
  EXPECT_THROW(opcore::_softmax_out(wrong, x, 1, false), Error);
  const Tensor m = opcore::empty({4, 5}, ScalarType::BFloat16, std::nullopt, Device(DeviceType::Meta));
  const Tensor r = opcore::_softmax(m, 0, true);
  EXPECT_EQ(r.device().type(), DeviceType::Meta);
  EXPECT_EQ(r.scalar_type(), ScalarType::Float);
  EXPECT_EQ(shapeOf(opcore::_log_softmax_backward_data(m, m, 1, ScalarType::BFloat16)), (Shape{4, 5}));
}

TEST(SoftmaxTest, Errors) {
  const Tensor l = fromVector<int64_t>({1, 2, 3}, {1, 3});
  EXPECT_THAT(errorOf([&] { opcore::softmax(l, 1); }),
              HasSubstr("\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"));
  EXPECT_THAT(errorOf([&] { opcore::log_softmax(l, 0); }),
              HasSubstr("\"log_softmax_kernel_impl\" not implemented for 'Long'"));
  EXPECT_THROW(opcore::softmax(l, 1), NotImplementedError);
  const Tensor x = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_THROW(opcore::softmax(x, 2), IndexError);
  EXPECT_THAT(errorOf([&] { opcore::_softmax_backward_data(x, x.narrow(0, 0, 1), 1, ScalarType::Float); }),
              HasSubstr("Expected tensor for argument #1 'grad' to have same size as tensor for argument #2 "
                        "'output'; but [2, 3] does not equal [1, 3] (while checking arguments for softmax_backward)"));
  EXPECT_THAT(errorOf([&] { opcore::_log_softmax_backward_data(x, x.to(ScalarType::Double), 1, ScalarType::Float); }),
              HasSubstr("expected scalar type Float but found Double"));
  // dtype= converts first: an integral tensor is fine with a floating dtype
  EXPECT_EQ(opcore::softmax(l, 1, ScalarType::Double).scalar_type(), ScalarType::Double);
}

}  // namespace
}  // namespace opcore

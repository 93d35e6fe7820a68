// Tests of the unary pointwise operators: neg, exp, log, sqrt, sigmoid, tanh, relu / relu_,
// including integral-to-float promotion, out= forms, strided inputs and errors.
#include <opcore/ops/empty.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/log.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/neg.h>
#include <opcore/ops/relu.h>
#include <opcore/ops/sigmoid.h>
#include <opcore/ops/sqrt.h>
#include <opcore/ops/tanh.h>
#include "TestUtil.h"

#include <cmath>
#include <limits>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

MATCHER(NearlyEqual, "") { return std::fabs(std::get<0>(arg) - std::get<1>(arg)) < 1e-5; }

TEST(UnaryOpsTest, NegKeepsDtype) {
  EXPECT_THAT(toVector<float>(opcore::neg(fromVector<float>({1, -2, 0}))), ElementsAre(-1, 2, 0));
  Tensor i = opcore::neg(fromVector<int32_t>({3, -4}));
  EXPECT_EQ(i.scalar_type(), ScalarType::Int);
  EXPECT_THAT(toVector<int32_t>(i), ElementsAre(-3, 4));
}

TEST(UnaryOpsTest, NegOfBoolIsAnError) {
  EXPECT_THAT(errorOf([] { opcore::neg(fromVector<bool>({true})); }),
              HasSubstr("neg: negation is not defined on bool tensors"));
}

TEST(UnaryOpsTest, FloatFunctionsMatchTheMathLibrary) {
  Tensor x = fromVector<float>({0.5f, 1.0f, 2.0f});
  EXPECT_THAT(toVector<float>(opcore::exp(x)),
              Pointwise(NearlyEqual(), std::vector<float>{std::exp(0.5f), std::exp(1.0f), std::exp(2.0f)}));
  EXPECT_THAT(toVector<float>(opcore::log(x)),
              Pointwise(NearlyEqual(), std::vector<float>{std::log(0.5f), 0.0f, std::log(2.0f)}));
  EXPECT_THAT(toVector<float>(opcore::sqrt(fromVector<float>({4, 9, 2}))),
              Pointwise(NearlyEqual(), std::vector<float>{2, 3, std::sqrt(2.0f)}));
  EXPECT_THAT(toVector<float>(opcore::tanh(x)),
              Pointwise(NearlyEqual(), std::vector<float>{std::tanh(0.5f), std::tanh(1.0f), std::tanh(2.0f)}));
  EXPECT_THAT(toVector<float>(opcore::sigmoid(fromVector<float>({0, 2, -2}))),
              Pointwise(NearlyEqual(), std::vector<float>{0.5f, 0.880797f, 0.119203f}));
}

TEST(UnaryOpsTest, IntegralAndBoolInputsGiveDefaultFloat) {
  Tensor e = opcore::exp(fromVector<int64_t>({0, 1}));
  EXPECT_EQ(e.scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(e), ElementsAre(1.0f, FloatNear(2.7182817f, 1e-6)));
  Tensor s = opcore::sqrt(fromVector<int32_t>({16}));
  EXPECT_EQ(s.scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(s), ElementsAre(4));
  Tensor b = opcore::sigmoid(fromVector<bool>({false}));
  EXPECT_EQ(b.scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(b), ElementsAre(0.5));
}

TEST(UnaryOpsTest, DoubleInputStaysDouble) {
  Tensor d = opcore::log(fromVector<double>({1, std::exp(1.0)}));
  EXPECT_EQ(d.scalar_type(), ScalarType::Double);
  EXPECT_THAT(toVector<double>(d), ElementsAre(0, 1));
}

TEST(UnaryOpsTest, SpecialValues) {
  std::vector<float> v = toVector<float>(opcore::log(fromVector<float>({0, -1})));
  EXPECT_EQ(v[0], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_TRUE(std::isnan(toVector<float>(opcore::sqrt(fromVector<float>({-1})))[0]));
}

TEST(UnaryOpsTest, OutVariants) {
  Tensor x = fromVector<float>({1, 4, 9});
  Tensor out = opcore::empty({0});
  opcore::sqrt_out(out, x);
  EXPECT_EQ(shapeOf(out), (std::vector<int64_t>{3}));
  EXPECT_THAT(toVector<float>(out), ElementsAre(1, 2, 3));
  Tensor dout = opcore::empty({3}, ScalarType::Double);
  opcore::neg_outf(x, dout);
  EXPECT_THAT(toVector<double>(dout), ElementsAre(-1, -4, -9));
  Tensor iout = opcore::empty({3}, ScalarType::Long);
  EXPECT_THAT(errorOf([&] { opcore::exp_out(iout, fromVector<int64_t>({1, 2, 3})); }),
              HasSubstr("result type Float can't be cast to the desired output type Long"));
  opcore::exp_out(x, x);  // in place through out=
  EXPECT_THAT(toVector<float>(x)[0], FloatNear(std::exp(1.0f), 1e-5));
}

TEST(UnaryOpsTest, TransposedInputs) {
  Tensor a = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}).t();  // [[1, 4], [2, 5], [3, 6]]
  EXPECT_THAT(toVector<float>(opcore::neg(a)), ElementsAre(-1, -4, -2, -5, -3, -6));
  EXPECT_THAT(toVector<float>(opcore::sqrt(opcore::mul(a, a))), ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_THAT(toVector<float>(opcore::log(opcore::exp(a))),
              Pointwise(NearlyEqual(), std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_THAT(toVector<float>(opcore::tanh(a))[1], FloatNear(std::tanh(4.0f), 1e-6));
  EXPECT_THAT(toVector<float>(opcore::sigmoid(a))[2], FloatNear(1 / (1 + std::exp(-2.0f)), 1e-6));
  EXPECT_THAT(toVector<float>(opcore::relu(opcore::neg(a))), ElementsAre(0, 0, 0, 0, 0, 0));
}

TEST(UnaryOpsTest, Relu) {
  Tensor x = fromVector<float>({-1, 0, 2.5, -0.5});
  EXPECT_THAT(toVector<float>(opcore::relu(x)), ElementsAre(0, 0, 2.5, 0));
  EXPECT_THAT(toVector<float>(x), ElementsAre(-1, 0, 2.5, -0.5));  // functional: x unchanged
  Tensor i = fromVector<int64_t>({-3, 3});
  EXPECT_THAT(toVector<int64_t>(i.relu()), ElementsAre(0, 3));
  EXPECT_TRUE(std::isnan(toVector<float>(opcore::relu(fromVector<float>({NAN})))[0]));
}

TEST(UnaryOpsTest, ReluInPlaceWritesThroughAView) {
  Tensor base = fromVector<float>({-1, 2, -3, 4}, {2, 2});
  Tensor col = base.t();
  Tensor& r = opcore::relu_(col);
  EXPECT_TRUE(r.is_same(col));
  EXPECT_THAT(toVector<float>(base), ElementsAre(0, 2, 0, 4));
}

TEST(UnaryOpsTest, MethodVariants) {
  Tensor x = fromVector<float>({1, 4});
  EXPECT_THAT(toVector<float>(x.neg()), ElementsAre(-1, -4));
  EXPECT_THAT(toVector<float>(x.sqrt()), ElementsAre(1, 2));
  EXPECT_THAT(toVector<float>(x.log())[0], 0);
  EXPECT_THAT(toVector<float>(x.exp())[0], FloatNear(std::exp(1.0f), 1e-6));
  EXPECT_THAT(toVector<float>(x.sigmoid())[0], FloatNear(0.7310586f, 1e-6));
  EXPECT_THAT(toVector<float>(x.tanh())[0], FloatNear(std::tanh(1.0f), 1e-6));
  x.relu_();
  EXPECT_THAT(toVector<float>(x), ElementsAre(1, 4));
}

}  // namespace
}  // namespace opcore

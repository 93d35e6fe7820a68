// Tests of the unary pointwise operators of issue #33 (kernels/cpu/UnaryOps.cpp): SLEEF's vector
// functions against the exact value (VecMathTest, run once per instruction set), and values,
// dtypes, in-place and out= forms, meta tensors and PyTorch's errors (UnaryMathTest).
#include <opcore/ops/abs.h>
#include <opcore/ops/acos.h>
#include <opcore/ops/acosh.h>
#include <opcore/ops/asin.h>
#include <opcore/ops/asinh.h>
#include <opcore/ops/atan.h>
#include <opcore/ops/atanh.h>
#include <opcore/ops/bitwise_not.h>
#include <opcore/ops/ceil.h>
#include <opcore/ops/cos.h>
#include <opcore/ops/cosh.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/erf.h>
#include <opcore/ops/erfinv.h>
#include <opcore/ops/exp2.h>
#include <opcore/ops/expm1.h>
#include <opcore/ops/floor.h>
#include <opcore/ops/frac.h>
#include <opcore/ops/isfinite.h>
#include <opcore/ops/isinf.h>
#include <opcore/ops/isnan.h>
#include <opcore/ops/log10.h>
#include <opcore/ops/log1p.h>
#include <opcore/ops/log2.h>
#include <opcore/ops/logical_not.h>
#include <opcore/ops/nan_to_num.h>
#include <opcore/ops/neg.h>
#include <opcore/ops/reciprocal.h>
#include <opcore/ops/round.h>
#include <opcore/ops/rsqrt.h>
#include <opcore/ops/sgn.h>
#include <opcore/ops/sin.h>
#include <opcore/ops/sinh.h>
#include <opcore/ops/tan.h>
#include <opcore/ops/trunc.h>
#include "TestUtil.h"

#include <cmath>
#include <complex>
#include <limits>
#include <string>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)
using ::testing::_;
using ::testing::IsNan;
using ::testing::ThrowsMessage;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Distance in units in the last place of `want` (0 for two NaNs or equal values).
template <typename T>
double ulps(T got, T want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : INFINITY;
  if (got == want) return 0;
  if (std::isinf(want) || std::isinf(got)) {
    const T big = std::numeric_limits<T>::max();
    return (std::isinf(want) && std::abs(got) == big) || (std::isinf(got) && std::abs(want) == big) ? 1 : INFINITY;
  }
  const T spacing = std::nextafter(std::abs(want), std::numeric_limits<T>::infinity()) - std::abs(want);
  return std::abs(double(got) - double(want)) / double(spacing);
}

// op over a sweep of [lo, hi] plus the special values, against the exact value (computed in long
// double and rounded), within 1 ulp.
template <typename T, typename Op, typename Ref>
void checkExact(const std::string& name, const Op& op, const Ref& exact, double lo, double hi) {
  std::vector<T> values;
  const int64_t n = 100001;
  for (int64_t i = 0; i < n; ++i) values.push_back(static_cast<T>(lo + (hi - lo) * double(i) / double(n - 1)));
  const std::vector<T> specials = {
      T(0), -T(0), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
      std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::min(),
      std::numeric_limits<T>::max(), std::numeric_limits<T>::lowest(), T(1), T(-1), T(0.5)};
  // the special values apart: with a huge one, a block goes through std:: (Note [Bounded SLEEF
  // functions]), glibc's functions for double being within 2 ulp
  for (const auto& [inputs, max_ulps] : {std::pair{values, 1.0}, std::pair{specials, 2.0}}) {
    const std::vector<T> got = toVector<T>(op(fromVector<T>(inputs)));
    for (size_t i = 0; i < inputs.size(); ++i) {
      const T want = static_cast<T>(exact(static_cast<long double>(inputs[i])));
      ASSERT_LE(ulps<T>(got[i], want), max_ulps) << name << "(" << inputs[i] << ") = " << got[i] << ", exactly " << want;
    }
  }
}

#define OPCORE_CHECK_EXACT(T, fn, lo, hi)                                                             \
  checkExact<T>(#fn, [](const Tensor& x) { return opcore::fn(x); },                                 \
                [](long double v) { return std::fn(v); }, lo, hi)

template <typename T>
void checkSleefFunctions() {
  OPCORE_CHECK_EXACT(T, sin, -100, 100);
  OPCORE_CHECK_EXACT(T, cos, -100, 100);
  OPCORE_CHECK_EXACT(T, tan, -10, 10);
  OPCORE_CHECK_EXACT(T, asin, -1.1, 1.1);
  OPCORE_CHECK_EXACT(T, acos, -1.1, 1.1);
  OPCORE_CHECK_EXACT(T, atan, -100, 100);
  OPCORE_CHECK_EXACT(T, sinh, -90, 90);
  OPCORE_CHECK_EXACT(T, cosh, -90, 90);
  OPCORE_CHECK_EXACT(T, asinh, -1e6, 1e6);
  OPCORE_CHECK_EXACT(T, acosh, 0.5, 1e6);
  OPCORE_CHECK_EXACT(T, atanh, -1.1, 1.1);
  OPCORE_CHECK_EXACT(T, erf, -6, 6);
  OPCORE_CHECK_EXACT(T, expm1, -20, 90);
  OPCORE_CHECK_EXACT(T, log10, -1, 1e6);
  OPCORE_CHECK_EXACT(T, log1p, -1.5, 1e6);
  OPCORE_CHECK_EXACT(T, log2, -1, 1e6);
  OPCORE_CHECK_EXACT(T, exp2, -160, 130);
}
#undef OPCORE_CHECK_EXACT

TEST(VecMathTest, UnaryFamilyFloatFunctionsAreWithinOneUlpOfTheExactValue) { checkSleefFunctions<float>(); }
TEST(VecMathTest, UnaryFamilyDoubleFunctionsAreWithinOneUlpOfTheExactValue) { checkSleefFunctions<double>(); }

// SLEEF's asinh, acosh, log1p, sinh and cosh overflow above their bound; those rows go through std::
// (Note [Bounded SLEEF functions] in kernels/cpu/UnaryOps.cpp).
TEST(VecMathTest, HugeInputsOfTheBoundedFunctionsStayFinite) {
  const float big = std::numeric_limits<float>::max();
  EXPECT_FLOAT_EQ(opcore::asinh(fromVector<float>({big})).data_ptr<float>()[0], std::asinh(big));
  EXPECT_FLOAT_EQ(opcore::acosh(fromVector<float>({big, 2.f})).data_ptr<float>()[0], std::acosh(big));
  EXPECT_FLOAT_EQ(opcore::log1p(fromVector<float>({1.f, big})).data_ptr<float>()[1], std::log1p(big));
  for (float v : {88.8f, 89.4f, -89.41f}) {
    EXPECT_FLOAT_EQ(opcore::sinh(fromVector<float>({v})).data_ptr<float>()[0], std::sinh(v)) << v;
    EXPECT_FLOAT_EQ(opcore::cosh(fromVector<float>({v})).data_ptr<float>()[0], std::cosh(v)) << v;
  }
  for (double v : {709.5, 710.4, -710.47}) {
    EXPECT_NEAR(opcore::sinh(fromVector<double>({v})).data_ptr<double>()[0] / std::sinh(v), 1.0, 1e-15) << v;
    EXPECT_NEAR(opcore::cosh(fromVector<double>({v})).data_ptr<double>()[0] / std::cosh(v), 1.0, 1e-15) << v;
  }
  const double dbig = std::numeric_limits<double>::max();
  EXPECT_DOUBLE_EQ(opcore::asinh(fromVector<double>({-dbig})).data_ptr<double>()[0], std::asinh(-dbig));
}

TEST(UnaryMathTest, IntegralInputsGiveTheDefaultFloatDtype) {
  Tensor x = fromVector<int32_t>({0, 1, 2});
  for (Tensor r : {opcore::sin(x), opcore::acosh(x), opcore::erf(x), opcore::log1p(x), opcore::rsqrt(x),
                   opcore::reciprocal(x), opcore::exp2(x), opcore::erfinv(x)}) {
    EXPECT_EQ(r.scalar_type(), ScalarType::Float);
  }
  EXPECT_THAT(toVector<float>(opcore::exp2(x)), ElementsAre(1, 2, 4));
  EXPECT_THAT(toVector<float>(opcore::reciprocal(x)), ElementsAre(kInf, 1, 0.5));
}

TEST(UnaryMathTest, RoundingKeepsTheDtypeAndRoundsHalvesToEven) {
  Tensor x = fromVector<float>({-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.7});
  EXPECT_THAT(toVector<float>(opcore::round(x)), ElementsAre(-2, -2, -0, 0, 2, 2, 3, -3));
  EXPECT_THAT(toVector<float>(opcore::floor(x)), ElementsAre(-3, -2, -1, 0, 1, 2, 2, -3));
  EXPECT_THAT(toVector<float>(opcore::ceil(x)), ElementsAre(-2, -1, -0, 1, 2, 3, 3, -2));
  EXPECT_THAT(toVector<float>(opcore::trunc(x)), ElementsAre(-2, -1, -0, 0, 1, 2, 2, -2));
  EXPECT_THAT(toVector<float>(opcore::frac(x)),
              ElementsAre(-0.5, -0.5, -0.5, 0.5, 0.5, 0.5, FloatNear(0.7f, 1e-6f), FloatNear(-0.7f, 1e-6f)));
  Tensor i = fromVector<int64_t>({-3, 7});
  EXPECT_EQ(opcore::floor(i).scalar_type(), ScalarType::Long);
  EXPECT_THAT(toVector<int64_t>(opcore::round(i)), ElementsAre(-3, 7));
  EXPECT_THAT(toVector<double>(opcore::round(fromVector<double>({1.2345, 1250.0, -0.125}), 2)),
              ElementsAre(1.23, 1250.0, -0.12));
  EXPECT_THAT(toVector<double>(opcore::round(fromVector<double>({1250.0, 1350.0}), -2)), ElementsAre(1200, 1400));
}

TEST(UnaryMathTest, RoundingRefusesComplexBoolAndFracIntegers) {
  Tensor z = opcore::empty({2}, ScalarType::ComplexFloat);
  EXPECT_THAT([&] { opcore::ceil(z); }, ThrowsMessage<Error>(HasSubstr("ceil is not supported for complex inputs")));
  EXPECT_THAT([&] { opcore::trunc(z); }, ThrowsMessage<Error>(HasSubstr("trunc is not supported for complex inputs")));
  EXPECT_THROW(opcore::round(z), NotImplementedError);
  EXPECT_THAT([&] { opcore::floor(opcore::empty({2}, ScalarType::Bool)); },
              ThrowsMessage<NotImplementedError>(HasSubstr("\"floor\" not implemented for 'Bool'")));
  EXPECT_THAT([&] { opcore::frac(fromVector<int32_t>({1})); },
              ThrowsMessage<NotImplementedError>(HasSubstr("\"frac\" not implemented for 'Int'")));
  EXPECT_THAT([&] { opcore::round(fromVector<int32_t>({1}), 1); },
              ThrowsMessage<NotImplementedError>(HasSubstr("\"round\" not implemented for 'Int'")));
  EXPECT_THAT([&] { opcore::erf(z); }, ThrowsMessage<NotImplementedError>(HasSubstr("'ComplexFloat'")));
}

TEST(UnaryMathTest, ErfinvInvertsErf) {
  Tensor y = fromVector<double>({-0.999, -0.5, 0.0, 0.3, 0.7, 0.71, 0.99999});
  const std::vector<double> x = toVector<double>(opcore::erfinv(y));
  const std::vector<double> ys = toVector<double>(y);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(std::erf(x[i]), ys[i], 1e-15) << ys[i];
  EXPECT_THAT(toVector<float>(opcore::erfinv(fromVector<float>({1, -1, 1.5, kNaN}))),
              ElementsAre(kInf, -kInf, IsNan(), IsNan()));
}

TEST(UnaryMathTest, SgnOfComplexIsTheUnitDirection) {
  Tensor z = opcore::empty({3}, ScalarType::ComplexDouble);
  auto* p = z.data_ptr<complex<double>>();
  p[0] = {3, 4};
  p[1] = {0, 0};
  p[2] = {-2, 0};
  const auto r = toVector<complex<double>>(opcore::sgn(z));
  EXPECT_EQ(r[0], complex<double>(0.6, 0.8));
  EXPECT_EQ(r[1], complex<double>(0, 0));
  EXPECT_EQ(r[2], complex<double>(-1, 0));
  EXPECT_THAT(toVector<float>(opcore::sgn(fromVector<float>({-3, 0, 2, kNaN}))), ElementsAre(-1, 0, 1, IsNan()));
  EXPECT_THAT(toVector<bool>(opcore::sgn(fromVector<bool>({true, false}))), ElementsAre(true, false));
}

TEST(UnaryMathTest, PredicatesGiveBool) {
  Tensor x = fromVector<float>({1, kNaN, kInf, -kInf, 0});
  EXPECT_THAT(toVector<bool>(opcore::isnan(x)), ElementsAre(false, true, false, false, false));
  EXPECT_THAT(toVector<bool>(opcore::isinf(x)), ElementsAre(false, false, true, true, false));
  EXPECT_THAT(toVector<bool>(opcore::isfinite(x)), ElementsAre(true, false, false, false, true));
  EXPECT_THAT(toVector<bool>(opcore::logical_not(x)), ElementsAre(false, false, false, false, true));
  Tensor i = fromVector<int8_t>({0, 5, -1});
  EXPECT_THAT(toVector<bool>(opcore::isfinite(i)), ElementsAre(true, true, true));
  EXPECT_THAT(toVector<int8_t>(opcore::bitwise_not(i)), ElementsAre(-1, -6, 0));
  EXPECT_THAT(toVector<bool>(opcore::bitwise_not(fromVector<bool>({true, false}))), ElementsAre(false, true));
  EXPECT_THAT([&] { opcore::bitwise_not(x); },
              ThrowsMessage<NotImplementedError>(HasSubstr("\"bitwise_not\" not implemented for 'Float'")));
  // logical_not.out writes 1 and 0 in out's dtype; logical_not_ keeps self's dtype
  Tensor out = opcore::empty({0}, ScalarType::Float);
  opcore::logical_not_out(out, i);
  EXPECT_THAT(toVector<float>(out), ElementsAre(1, 0, 0));
  i.logical_not_();
  EXPECT_THAT(toVector<int8_t>(i), ElementsAre(1, 0, 0));
}

TEST(UnaryMathTest, NanToNum) {
  Tensor x = fromVector<float>({kNaN, kInf, -kInf, 1.5});
  EXPECT_THAT(toVector<float>(opcore::nan_to_num(x)),
              ElementsAre(0, std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(), 1.5));
  EXPECT_THAT(toVector<float>(opcore::nan_to_num(x, 2.0, 3.0, -4.0)), ElementsAre(2, 3, -4, 1.5));
  EXPECT_THAT(toVector<float>(opcore::nan_to_num(x, std::nullopt, 1e300)), ElementsAre(0, kInf, _, 1.5));
  x.nan_to_num_(1.0);
  EXPECT_EQ(x.data_ptr<float>()[0], 1.0f);
  Tensor out = opcore::empty({0}, ScalarType::Double);
  EXPECT_THAT([&] { opcore::nan_to_num_out(out, x); },
              ThrowsMessage<Error>(HasSubstr("nan_to_num: dtype of out: Double should be same as input: Float")));
}

TEST(UnaryMathTest, InPlaceForms) {
  Tensor x = fromVector<float>({0.5, -0.25});
  x.sin_().asin_();
  EXPECT_THAT(toVector<float>(x), ElementsAre(0.5, -0.25));
  opcore::neg_(x);
  opcore::abs_(x);
  EXPECT_THAT(toVector<float>(x), ElementsAre(0.5, 0.25));
  Tensor i = fromVector<int32_t>({1});
  EXPECT_THAT([&] { i.cos_(); }, ThrowsMessage<Error>(HasSubstr("can't be cast")));
  Tensor z = opcore::empty({1}, ScalarType::ComplexFloat);
  EXPECT_THAT([&] { opcore::abs_(z); },
              ThrowsMessage<Error>(HasSubstr("In-place abs is not supported for complex tensors.")));
}

TEST(UnaryMathTest, MetaTensorsGetShapeAndDtype) {
  Tensor m = opcore::empty({2, 3}, ScalarType::Int, std::nullopt, Device(DeviceType::Meta));
  EXPECT_EQ(opcore::tan(m).scalar_type(), ScalarType::Float);
  EXPECT_EQ(opcore::isnan(m).scalar_type(), ScalarType::Bool);
  EXPECT_EQ(opcore::isinf(m).sizes().vec(), std::vector<int64_t>({2, 3}));
  EXPECT_EQ(opcore::logical_not(m).scalar_type(), ScalarType::Bool);
  EXPECT_EQ(opcore::nan_to_num(m).scalar_type(), ScalarType::Int);
  EXPECT_TRUE(opcore::isfinite(m).is_meta());
  EXPECT_EQ(opcore::round(m).scalar_type(), ScalarType::Int);
}

}  // namespace
}  // namespace opcore

// The binary and ternary pointwise operators of issue #33 from C++: the values PyTorch gives,
// its integer semantics (remainder and floor-division signs, integer powers, shifts out of
// range, division by zero) and its errors. tests/python/opinfo_binary.py checks every dtype
// against torch.
#include <opcore/opcore.h>

#include "TestUtil.h"

#include <cmath>
#include <functional>
#include <limits>
#include <string>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

Tensor longs(const std::vector<int64_t>& values) { return fromVector<int64_t>(values); }

std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

Tensor onMeta(std::vector<int64_t> sizes, ScalarType dtype) {
  return opcore::empty(sizes, dtype, std::nullopt, Device(DeviceType::Meta));
}

TEST(PointwiseBinaryTest, RemainderTakesTheDivisorsSignAndFmodTheDividends) {
  const Tensor a = longs({5, -5, 5, -5}), b = longs({3, 3, -3, -3});
  EXPECT_THAT(toVector<int64_t>(opcore::remainder(a, b)), ElementsAre(2, 1, -1, -2));
  EXPECT_THAT(toVector<int64_t>(opcore::fmod(a, b)), ElementsAre(2, -2, 2, -2));
  EXPECT_THAT(toVector<int64_t>(opcore::floor_divide(a, b)), ElementsAre(1, -2, -2, 1));
  EXPECT_THAT(toVector<int64_t>(opcore::remainder(a, 3)), ElementsAre(2, 1, 2, 1));
  EXPECT_THAT(toVector<int64_t>(opcore::remainder(7, b)), ElementsAre(1, 1, -2, -2));
  EXPECT_THAT(toVector<float>(opcore::remainder(fromVector<float>({-1.5f, 1.5f}), 1.0)), ElementsAre(0.5f, 0.5f));
}

TEST(PointwiseBinaryTest, IntegerDivisionByZeroRaises) {
  const Tensor a = longs({1, 2}), divisor = longs({1, 0});
  EXPECT_THAT(messageOf([&] { opcore::remainder(a, divisor); }), HasSubstr("ZeroDivisionError"));
  EXPECT_THAT(messageOf([&] { opcore::fmod(a, divisor); }), HasSubstr("ZeroDivisionError"));
  EXPECT_THAT(messageOf([&] { opcore::floor_divide(a, divisor); }), HasSubstr("ZeroDivisionError"));
  // Floats divide by zero as IEEE does.
  EXPECT_TRUE(std::isnan(toVector<float>(opcore::fmod(fromVector<float>({1.0f}), 0.0))[0]));
}

TEST(PointwiseBinaryTest, IntegerPowers) {
  EXPECT_THAT(toVector<int64_t>(opcore::pow(longs({5, -5, 1, -1}), longs({-2, -3, -2, -3}))),
              ElementsAre(0, 0, 1, -1));
  EXPECT_THAT(toVector<int64_t>(opcore::pow(longs({2, 3}), 10)), ElementsAre(1024, 59049));
  EXPECT_THAT(toVector<int64_t>(opcore::pow(2, longs({0, 1, 62}))), ElementsAre(1, 2, int64_t{1} << 62));
  EXPECT_THAT(messageOf([&] { opcore::pow(longs({2}), -1); }), HasSubstr("Integers to negative integer powers"));
  // int32 wraps on overflow, as PyTorch's does: 3^21 = 10460353203.
  EXPECT_THAT(toVector<int32_t>(opcore::pow(fromVector<int32_t>({3}), 21)),
              ElementsAre(static_cast<int32_t>(static_cast<uint32_t>(10460353203ULL))));
}

TEST(PointwiseBinaryTest, ShiftsOutOfRangeAreDefined) {
  const Tensor a = fromVector<int32_t>({1, -8});
  EXPECT_THAT(toVector<int32_t>(opcore::bitwise_left_shift(a, 40)), ElementsAre(0, 0));
  EXPECT_THAT(toVector<int32_t>(opcore::bitwise_right_shift(a, 40)), ElementsAre(0, -1));
  EXPECT_THAT(toVector<int32_t>(opcore::bitwise_right_shift(a, -1)), ElementsAre(0, -1));
  EXPECT_THAT(toVector<int32_t>(opcore::bitwise_left_shift(a, 2)), ElementsAre(4, -32));
  EXPECT_THROW(opcore::bitwise_left_shift(fromVector<float>({1.0f}), 1), NotImplementedError);
}

TEST(PointwiseBinaryTest, MaximumPropagatesNanAndRefusesComplex) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor a = fromVector<double>({nan, 1.0, 3.0}), b = fromVector<double>({0.0, nan, 2.0});
  const std::vector<double> m = toVector<double>(opcore::maximum(a, b));
  EXPECT_TRUE(std::isnan(m[0]));
  EXPECT_TRUE(std::isnan(m[1]));
  EXPECT_EQ(m[2], 3.0);
  EXPECT_EQ(toVector<double>(opcore::minimum(a, b))[2], 2.0);
  EXPECT_THAT(messageOf([&] { opcore::maximum(a.to(kComplexDouble), b); }),
              HasSubstr("maximum not implemented for complex tensors."));
}

TEST(PointwiseBinaryTest, ClampPromotesAndNeedsABound) {
  const Tensor x = longs({-2, -1, 0, 1, 2});
  EXPECT_THAT(toVector<int64_t>(opcore::clamp(x, -1, 1)), ElementsAre(-1, -1, 0, 1, 1));
  EXPECT_EQ(opcore::clamp(x, 0.5).scalar_type(), kFloat);
  EXPECT_THAT(toVector<int64_t>(x.clamp_min(1)), ElementsAre(1, 1, 1, 1, 2));
  EXPECT_THAT(toVector<int64_t>(x.clamp_max(longs({0}))), ElementsAre(-2, -1, 0, 0, 0));
  EXPECT_THAT(toVector<int64_t>(opcore::clamp(x, 2, 0)), ElementsAre(0, 0, 0, 0, 0));  // max wins
  EXPECT_THAT(messageOf([&] { opcore::clamp(x, std::optional<Scalar>(), std::optional<Scalar>()); }),
              HasSubstr("At least one of 'min' or 'max' must not be None"));
  EXPECT_THAT(messageOf([&] { opcore::clamp(x.to(kComplexFloat), 1); }), HasSubstr("clamp is not supported for complex"));
}

TEST(PointwiseBinaryTest, LerpAddcmulAddcdiv) {
  const Tensor a = fromVector<float>({0, 0, 0}), b = fromVector<float>({4, 4, 4});
  EXPECT_THAT(toVector<float>(opcore::lerp(a, b, 0.25)), ElementsAre(1, 1, 1));
  EXPECT_THAT(toVector<float>(opcore::lerp(a, b, 1.0)), ElementsAre(4, 4, 4));
  EXPECT_THAT(toVector<float>(opcore::addcmul(a, b, b, 0.5)), ElementsAre(8, 8, 8));
  EXPECT_THAT(toVector<float>(opcore::addcdiv(a, b, b, 2)), ElementsAre(2, 2, 2));
  EXPECT_THAT(messageOf([&] { opcore::addcdiv(a, longs({1}), longs({2})); }),
              HasSubstr("Integer division with addcdiv is no longer supported"));
  EXPECT_THAT(messageOf([&] { opcore::lerp(a, b.to(kDouble), 0.5); }),
              HasSubstr("expected dtype Float for `end` but got dtype Double"));
  Tensor c = fromVector<float>({1, 1, 1});
  c.addcmul_(b, b);
  EXPECT_THAT(toVector<float>(c), ElementsAre(17, 17, 17));
}

TEST(PointwiseBinaryTest, LogicalAndBitwise) {
  const Tensor a = fromVector<double>({0.0, 2.0, -1.0});
  const Tensor b = longs({1, 0, 3});
  EXPECT_THAT(toVector<bool>(opcore::logical_and(a, b)), ElementsAre(false, false, true));
  EXPECT_THAT(toVector<bool>(opcore::logical_xor(a, b)), ElementsAre(true, true, false));
  Tensor c = a.clone();
  c.logical_or_(b);  // keeps its dtype
  EXPECT_THAT(toVector<double>(c), ElementsAre(1.0, 1.0, 1.0));
  EXPECT_THAT(toVector<int64_t>(opcore::bitwise_xor(longs({12, 10}), 6)), ElementsAre(10, 12));
  EXPECT_THAT(toVector<int64_t>(opcore::bitwise_and(7, longs({12, 10}))), ElementsAre(4, 2));
  EXPECT_THROW(opcore::bitwise_or(a, a), NotImplementedError);
}

TEST(PointwiseBinaryTest, WhereWithNumbersAndDivWithAMode) {
  const Tensor cond = fromVector<bool>({true, false});
  EXPECT_EQ(opcore::where(cond, 1, 2.5).scalar_type(), kFloat);
  EXPECT_THAT(toVector<int64_t>(opcore::where(cond, 1, 2)), ElementsAre(1, 2));
  EXPECT_THAT(toVector<int64_t>(opcore::where(cond, longs({7, 8}), 0)), ElementsAre(7, 0));
  Tensor out = opcore::empty({0}, kLong);
  opcore::where_out(out, cond, longs({7, 8}), longs({1, 2}));
  EXPECT_THAT(toVector<int64_t>(out), ElementsAre(7, 2));
  EXPECT_THAT(toVector<int64_t>(opcore::div(longs({5, -5}), 2, "floor")), ElementsAre(2, -3));
  EXPECT_THAT(toVector<int64_t>(opcore::div(longs({5, -5}), 2, "trunc")), ElementsAre(2, -2));
}

TEST(PointwiseBinaryTest, StructuredOperatorsWorkOnMeta) {
  const Tensor a = onMeta({2, 3}, kFloat), b = onMeta({3}, kLong);
  EXPECT_EQ(shapeOf(opcore::pow(a, b)), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(opcore::atan2(b, b).scalar_type(), kFloat);
  EXPECT_EQ(opcore::addcmul(a, b, b).scalar_type(), kFloat);
  EXPECT_EQ(opcore::clamp(b, 0.5).scalar_type(), kFloat);
}

}  // namespace
}  // namespace opcore

// Tests of the dtype system: c10's numbering, Half and BFloat16 conversions (exhaustively over
// all 65536 bit patterns), complex<T>, PyTorch's promotion table and can_cast, and Scalar
// holding complex values.
#include <opcore/core/Error.h>
#include <opcore/core/Scalar.h>
#include <opcore/core/ScalarType.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>

namespace opcore {
namespace {

TEST(DtypeTest, NumbersAndNamesAreC10s) {
  // The numbers c10 (and so DLPack, PyTorch's files and ExecuTorch) give each dtype.
  const std::pair<ScalarType, int> numbers[] = {
      {kByte, 0}, {kChar, 1}, {kShort, 2}, {kInt, 3}, {kLong, 4}, {kHalf, 5}, {kFloat, 6}, {kDouble, 7},
      {kComplexHalf, 8}, {kComplexFloat, 9}, {kComplexDouble, 10}, {kBool, 11}, {ScalarType::QInt8, 12},
      {ScalarType::QUInt8, 13}, {ScalarType::QInt32, 14}, {kBFloat16, 15}};
  for (const auto& [type, number] : numbers) EXPECT_EQ(static_cast<int>(type), number) << type;
  EXPECT_STREQ(toString(kByte), "Byte");
  EXPECT_STREQ(toString(kComplexFloat), "ComplexFloat");
  EXPECT_STREQ(toString(kBFloat16), "BFloat16");
  EXPECT_EQ(elementSize(kShort), 2u);
  EXPECT_EQ(elementSize(kHalf), 2u);
  EXPECT_EQ(elementSize(kBFloat16), 2u);
  EXPECT_EQ(elementSize(kComplexFloat), 8u);
  EXPECT_EQ(elementSize(kComplexDouble), 16u);
  static_assert(std::is_same_v<ScalarTypeToCppType<kHalf>, Half>);
  static_assert(std::is_same_v<ScalarTypeToCppType<kByte>, uint8_t>);
  static_assert(std::is_same_v<ScalarTypeToCppType<kComplexDouble>, complex<double>>);
  static_assert(CppTypeToScalarType<int8_t>::value == kChar);
  static_assert(CppTypeToScalarType<BFloat16>::value == kBFloat16);
  static_assert(sizeof(complex<float>) == 8 && alignof(complex<double>) == 16);
}

TEST(DtypeTest, CategoriesMatchC10) {
  EXPECT_TRUE(isFloatingType(kHalf) && isFloatingType(kBFloat16) && !isFloatingType(kComplexFloat));
  EXPECT_TRUE(isComplexType(kComplexDouble) && !isComplexType(kDouble));
  EXPECT_TRUE(isIntegralType(kByte, false) && !isIntegralType(kBool, false) && isIntegralType(kBool, true));
  EXPECT_FALSE(isSignedType(kByte));
  EXPECT_TRUE(isSignedType(kChar));
  EXPECT_FALSE(isSupportedScalarType(kComplexHalf));
  EXPECT_FALSE(isSupportedScalarType(ScalarType::QInt8));
  EXPECT_EQ(toRealValueType(kComplexFloat), kFloat);
  EXPECT_EQ(toComplexType(kDouble), kComplexDouble);
}

float bitsAsFloat(uint32_t u) { return std::bit_cast<float>(u); }

TEST(DtypeTest, HalfRoundsToNearestEven) {
  EXPECT_EQ(Half(0.1f).x, 0x2e66);
  EXPECT_EQ(static_cast<float>(Half(0.1f)), 0.0999755859375f);
  EXPECT_EQ(Half(1.0f).x, 0x3c00);
  EXPECT_EQ(Half(-0.0f).x, 0x8000);
  EXPECT_EQ(Half(1.0f + 0x1p-11f).x, 0x3c00);         // a tie: to the even 1.0
  EXPECT_EQ(Half(1.0f + 3 * 0x1p-11f).x, 0x3c02);     // a tie: to the even 1 + 2^-9
  EXPECT_EQ(Half(1.0f + 0x1p-11f + 0x1p-20f).x, 0x3c01);  // above the tie: up
  EXPECT_EQ(Half(65504.0f).x, 0x7bff);                // the largest half
  EXPECT_EQ(Half(65519.0f).x, 0x7bff);                // below the midpoint to 2^16: down
  EXPECT_EQ(Half(65520.0f).x, 0x7c00);                // the midpoint: to even, which is inf
  EXPECT_EQ(Half(1e10f).x, 0x7c00);
  EXPECT_EQ(Half(-std::numeric_limits<float>::infinity()).x, 0xfc00);
  EXPECT_EQ(Half(0x1p-24f).x, 0x0001);                // the smallest subnormal
  EXPECT_EQ(Half(0x1p-25f).x, 0x0000);                // half of it: a tie, to even 0
  EXPECT_EQ(Half(3 * 0x1p-25f).x, 0x0002);            // 1.5 units: a tie, to even 2
  EXPECT_EQ(Half(0x1p-14f - 0x1p-25f).x, 0x0400);     // rounds up into the normals
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(DtypeTest, EveryHalfConvertsToFloatAndBackExactly) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const Half h(static_cast<uint16_t>(bits), Half::from_bits());
    const float f = h;
    const uint32_t exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
    if (exponent == 0x1f && mantissa != 0) {
      ASSERT_TRUE(std::isnan(f)) << bits;
      continue;
    }
    // The value the bits denote, computed independently.
    const double magnitude = exponent == 0x1f ? INFINITY
                             : exponent == 0  ? std::ldexp(static_cast<double>(mantissa), -24)
                                              : std::ldexp(1024.0 + mantissa, static_cast<int>(exponent) - 25);
    ASSERT_EQ(static_cast<double>(f), (bits & 0x8000) ? -magnitude : magnitude) << bits;
    ASSERT_EQ(Half(f).x, bits) << bits;
  }
}

TEST(DtypeTest, HalfOfEveryFloatNearAHalfIsTheNearestHalf) {
  // Between each pair of neighbouring positive halves, probe floats just below, at and just
  // above the midpoint: the result is the nearer one, the even one on the tie.
  for (uint32_t bits = 0; bits < 0x7bff; ++bits) {
    const float lo = Half(static_cast<uint16_t>(bits), Half::from_bits());
    const float hi = Half(static_cast<uint16_t>(bits + 1), Half::from_bits());
    const float mid = lo + (hi - lo) / 2;  // exact in float
    ASSERT_EQ(Half(std::nextafter(mid, 0.0f)).x, bits);
    ASSERT_EQ(Half(std::nextafter(mid, INFINITY)).x, bits + 1);
    ASSERT_EQ(Half(mid).x, (bits % 2 == 0) ? bits : bits + 1);
  }
}

TEST(DtypeTest, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(BFloat16(1.0f / 3).x, 0x3eab);
  EXPECT_EQ(static_cast<float>(BFloat16(1.0f / 3)), 0.333984375f);
  EXPECT_EQ(BFloat16(bitsAsFloat(0x3f808000)).x, 0x3f80);  // a tie: to even
  EXPECT_EQ(BFloat16(bitsAsFloat(0x3f818000)).x, 0x3f82);  // a tie: to even
  EXPECT_EQ(BFloat16(bitsAsFloat(0x3f808001)).x, 0x3f81);  // above the tie: up
  EXPECT_EQ(BFloat16(bitsAsFloat(0x7f7fffff)).x, 0x7f80);  // float's max rounds to inf
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::quiet_NaN()).x, 0x7fc0);
  EXPECT_EQ(BFloat16(bitsAsFloat(0x7f800001)).x, 0x7fc0);  // a signalling NaN stays a NaN
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const BFloat16 b(static_cast<uint16_t>(bits), BFloat16::from_bits());
    const float f = b;
    ASSERT_EQ(std::bit_cast<uint32_t>(f), bits << 16);
    if (!std::isnan(f)) ASSERT_EQ(BFloat16(f).x, bits);
  }
}

TEST(DtypeTest, NumericLimitsAreIeee) {
  using HL = std::numeric_limits<Half>;
  using BL = std::numeric_limits<BFloat16>;
  EXPECT_EQ(static_cast<float>(HL::max()), 65504.0f);
  EXPECT_EQ(static_cast<float>(HL::lowest()), -65504.0f);
  EXPECT_EQ(static_cast<float>(HL::min()), 0x1p-14f);
  EXPECT_EQ(static_cast<float>(HL::epsilon()), 0x1p-10f);
  EXPECT_EQ(static_cast<float>(HL::denorm_min()), 0x1p-24f);
  EXPECT_TRUE(std::isinf(static_cast<float>(HL::infinity())));
  EXPECT_TRUE(std::isnan(static_cast<float>(HL::quiet_NaN())));
  EXPECT_EQ(HL::digits, 11);
  EXPECT_EQ(static_cast<float>(BL::max()), bitsAsFloat(0x7f7f0000));
  EXPECT_EQ(static_cast<float>(BL::min()), std::numeric_limits<float>::min());
  EXPECT_EQ(static_cast<float>(BL::epsilon()), 0x1p-7f);
  EXPECT_EQ(BL::digits, 8);
}

TEST(DtypeTest, ReducedFloatArithmeticComputesInFloatAndRoundsOnce) {
  const Half a = 1.5f, b = 2.25f;
  static_assert(std::is_same_v<decltype(a + b), Half>);
  static_assert(std::is_same_v<decltype(a * 2.0f), float>);
  static_assert(std::is_same_v<decltype(a * 2.0), double>);
  static_assert(std::is_same_v<decltype(a + 1), Half>);
  static_assert(std::is_same_v<decltype(BFloat16(1.0f) - BFloat16(2.0f)), BFloat16>);
  EXPECT_EQ(static_cast<float>(a + b), 3.75f);
  EXPECT_EQ(static_cast<float>(a * b), 3.375f);
  EXPECT_EQ(static_cast<float>(-a), -1.5f);
  EXPECT_TRUE(a < b && a != b && a == 1.5f);
  Half c = a;
  c += b;
  EXPECT_EQ(static_cast<float>(c), 3.75f);
  // 1 + 2^-11 is not a half: the sum rounds (to even) once.
  EXPECT_EQ((Half(1.0f) + Half(0x1p-11f)).x, 0x3c00);
}

TEST(DtypeTest, ComplexArithmeticIsStdComplexs) {
  const complex<float> z(1, 2), w(3, -1);
  EXPECT_EQ(z + w, complex<float>(4, 1));
  EXPECT_EQ(z - w, complex<float>(-2, 3));
  EXPECT_EQ(z * z, complex<float>(-3, 4));
  const std::complex<float> q = std::complex<float>(1, 2) / std::complex<float>(3, -1);
  EXPECT_EQ(z / w, complex<float>(q));
  EXPECT_EQ(conj(z), complex<float>(1, -2));
  EXPECT_FLOAT_EQ(abs(z), std::sqrt(5.0f));
  EXPECT_FLOAT_EQ(arg(complex<float>(0, 1)), static_cast<float>(M_PI / 2));
  EXPECT_TRUE(static_cast<bool>(complex<double>(0, 1)));
  EXPECT_FALSE(static_cast<bool>(complex<double>(0, 0)));
  std::ostringstream os;
  os << complex<double>(1, -2.5);
  EXPECT_EQ(os.str(), "(1-2.5j)");
}

TEST(DtypeTest, ConvertValueKeepsTheRealPartOfComplexValues) {
  EXPECT_EQ(convertValue<float>(complex<double>(2.5, 7)), 2.5f);
  EXPECT_EQ(convertValue<bool>(complex<float>(0, 1)), true);
  EXPECT_EQ(convertValue<complex<float>>(3), complex<float>(3, 0));
  EXPECT_EQ(convertValue<complex<double>>(complex<float>(1, 2)), complex<double>(1, 2));
  EXPECT_EQ(convertValue<uint8_t>(Half(7.0f)), 7);
  EXPECT_EQ(convertValue<Half>(int64_t{2049}).x, Half(2048.0f).x);  // 2049 is not a half: even
}

// The supported dtypes, for the exhaustive properties below.
constexpr ScalarType kSupported[] = {kByte, kChar, kShort, kInt, kLong, kHalf, kFloat, kDouble,
                                     kComplexFloat, kComplexDouble, kBool, kBFloat16};

TEST(DtypeTest, PromotionFollowsPyTorchsTable) {
  // Cases from PyTorch's table (torch.promote_types).
  EXPECT_EQ(promoteTypes(kByte, kChar), kShort);
  EXPECT_EQ(promoteTypes(kByte, kShort), kShort);
  EXPECT_EQ(promoteTypes(kByte, kInt), kInt);
  EXPECT_EQ(promoteTypes(kByte, kBool), kByte);
  EXPECT_EQ(promoteTypes(kChar, kBool), kChar);
  EXPECT_EQ(promoteTypes(kLong, kHalf), kHalf);
  EXPECT_EQ(promoteTypes(kLong, kBFloat16), kBFloat16);
  EXPECT_EQ(promoteTypes(kHalf, kBFloat16), kFloat);
  EXPECT_EQ(promoteTypes(kHalf, kFloat), kFloat);
  EXPECT_EQ(promoteTypes(kBFloat16, kDouble), kDouble);
  EXPECT_EQ(promoteTypes(kComplexFloat, kDouble), kComplexDouble);
  EXPECT_EQ(promoteTypes(kComplexFloat, kFloat), kComplexFloat);
  EXPECT_EQ(promoteTypes(kComplexFloat, kLong), kComplexFloat);
  EXPECT_EQ(promoteTypes(kComplexFloat, kBFloat16), kComplexFloat);
  EXPECT_EQ(promoteTypes(kComplexDouble, kHalf), kComplexDouble);
  EXPECT_EQ(promoteTypes(kBool, kComplexFloat), kComplexFloat);
  // Properties of the whole table.
  for (ScalarType a : kSupported) {
    EXPECT_EQ(promoteTypes(a, a), a);
    EXPECT_EQ(promoteTypes(a, kBool), a) << a;
    for (ScalarType b : kSupported) {
      const ScalarType r = promoteTypes(a, b);
      EXPECT_EQ(r, promoteTypes(b, a)) << a << " " << b;
      EXPECT_TRUE(canCast(a, r) && canCast(b, r)) << a << " " << b << " -> " << r;
    }
  }
}

TEST(DtypeTest, PromotingAnUnsupportedDtypeIsRefused) {
  try {
    promoteTypes(ScalarType::QInt8, kFloat);
    FAIL() << "expected an error";
  } catch (const NotImplementedError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("opcore's tensors cannot hold dtype QInt8 (number 12)"));
  }
}

TEST(DtypeTest, CanCastIsPyTorchs) {
  EXPECT_TRUE(canCast(kLong, kFloat));
  EXPECT_TRUE(canCast(kFloat, kHalf));
  EXPECT_TRUE(canCast(kFloat, kComplexFloat));
  EXPECT_TRUE(canCast(kBool, kByte));
  EXPECT_TRUE(canCast(kByte, kChar));
  EXPECT_FALSE(canCast(kFloat, kLong));
  EXPECT_FALSE(canCast(kBFloat16, kByte));
  EXPECT_FALSE(canCast(kComplexFloat, kDouble));
  EXPECT_FALSE(canCast(kInt, kBool));
  EXPECT_FALSE(canCast(kHalf, kBool));
}

TEST(DtypeTest, ScalarHoldsComplexValues) {
  const Scalar s = complex<double>(1.5, -2);
  EXPECT_TRUE(s.isComplex());
  EXPECT_FALSE(s.isFloatingPoint());
  EXPECT_EQ(s.type(), kComplexDouble);
  EXPECT_EQ(s.toComplexDouble(), complex<double>(1.5, -2));
  EXPECT_EQ(s.to<complex<float>>(), complex<float>(1.5f, -2.0f));
  EXPECT_EQ(s.toDouble(), 1.5);
  EXPECT_TRUE(s.toBool());
  EXPECT_EQ(Scalar(2.5).toComplexDouble(), complex<double>(2.5, 0));
  EXPECT_EQ(Scalar(Half(0.5f)).toDouble(), 0.5);
  EXPECT_TRUE(Scalar(Half(0.5f)).isFloatingPoint());
  std::ostringstream os;
  os << s;
  EXPECT_EQ(os.str(), "(1.5-2j)");
}

}  // namespace
}  // namespace opcore

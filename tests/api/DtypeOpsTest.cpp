// The operators over every dtype: conversions between each pair, integer wrap-around, Half
// and BFloat16 computed in float and rounded once, reductions accumulated in float, complex
// arithmetic, printing, and PyTorch's errors for dtypes an operator does not take.
#include <opcore/ops/abs.h>
#include <opcore/ops/add.h>
#include <opcore/ops/angle.h>
#include <opcore/ops/conj.h>
#include <opcore/ops/conj_physical.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/div.h>
#include <opcore/ops/eq.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/imag.h>
#include <opcore/ops/lt.h>
#include <opcore/ops/max.h>
#include <opcore/ops/mean.h>
#include <opcore/ops/mm.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/neg.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/rand.h>
#include <opcore/ops/real.h>
#include <opcore/ops/relu.h>
#include <opcore/ops/sign.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/tanh.h>
#include <opcore/ops/view_as_complex.h>
#include <opcore/ops/view_as_real.h>
#include <opcore/ops/where.h>
#include <opcore/ops/zeros.h>
#include "TestUtil.h"

#include <cmath>
#include <complex>
#include <random>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

// Whether a and b hold equal values everywhere.
bool allEqual(const Tensor& a, const Tensor& b) {
  for (bool e : toVector<bool>(opcore::eq(a, b))) {
    if (!e) return false;
  }
  return true;
}

constexpr ScalarType kEveryDtype[] = {kByte, kChar, kShort, kInt, kLong, kHalf, kFloat, kDouble,
                                      kComplexFloat, kComplexDouble, kBool, kBFloat16};

TEST(DtypeOpsTest, EveryDtypeConvertsToEveryOther) {
  for (ScalarType from : kEveryDtype) {
    const Tensor src = opcore::arange(4).to(from);  // 0, 1, 2, 3 (bool: F, T, T, T)
    EXPECT_EQ(src.scalar_type(), from);
    for (ScalarType to : kEveryDtype) {
      const Tensor dst = src.to(to);
      ASSERT_EQ(dst.scalar_type(), to);
      for (int64_t i = 0; i < 4; ++i) {
        const int64_t expected = (from == kBool || to == kBool) ? (i != 0) : i;
        EXPECT_EQ(dst.select(0, i).item<complex<double>>(), complex<double>(static_cast<double>(expected), 0))
            << from << " -> " << to << " at " << i;
      }
    }
  }
}

TEST(DtypeOpsTest, ComplexToRealKeepsTheRealPart) {
  Tensor z = opcore::empty({2}, kComplexFloat);
  z.data_ptr<complex<float>>()[0] = {1.5f, 2.0f};
  z.data_ptr<complex<float>>()[1] = {0.0f, -1.0f};
  EXPECT_THAT(toVector<double>(z.to(kDouble)), ElementsAre(1.5, 0.0));
  EXPECT_THAT(toVector<bool>(z.to(kBool)), ElementsAre(true, true));
}

TEST(DtypeOpsTest, IntegerArithmeticWrapsAsPyTorchs) {
  const Tensor a = fromVector<uint8_t>({200, 255, 0}), b = fromVector<uint8_t>({100, 1, 1});
  EXPECT_THAT(toVector<uint8_t>(opcore::add(a, b)), ElementsAre(44, 0, 1));
  EXPECT_THAT(toVector<uint8_t>(opcore::sub(b, a)), ElementsAre(156, 2, 1));
  EXPECT_THAT(toVector<uint8_t>(opcore::mul(a, b)), ElementsAre(32, 255, 0));
  const Tensor c = fromVector<int8_t>({100, -128}), d = fromVector<int8_t>({100, -1});
  EXPECT_THAT(toVector<int8_t>(opcore::add(c, d)), ElementsAre(-56, 127));
  EXPECT_THAT(toVector<int16_t>(opcore::add(fromVector<int16_t>({32767}), 1)), ElementsAre(-32768));
  // uint8 and int8 promote to int16, which holds both.
  EXPECT_THAT(toVector<int16_t>(opcore::add(a, c.slice(0, 0, 1).expand({3}))), ElementsAre(300, 355, 100));
  // Floor division of unsigned values, and by zero.
  EXPECT_THAT(toVector<uint8_t>(opcore::div(a, b, "floor")), ElementsAre(2, 255, 0));
  EXPECT_THAT(errorOf([&] { opcore::div(a, opcore::zeros({3}, kByte), "trunc"); }), HasSubstr("ZeroDivisionError"));
}

// Random values of a 16-bit float type, in [-4, 4).
template <typename T>
Tensor randomReduced(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  Tensor t = opcore::empty({n}, CppTypeToScalarType<T>::value);
  for (int64_t i = 0; i < n; ++i) t.data_ptr<T>()[i] = T(dist(gen));
  return t;
}

template <typename T>
void expectArithmeticRoundsOnce() {
  const int64_t n = 1000;
  const Tensor a = randomReduced<T>(n, 1), b = randomReduced<T>(n, 2);
  const float alpha = 0.3f;
  const Tensor sum = opcore::add(a, b, alpha), product = opcore::mul(a, b), quotient = opcore::div(a, b);
  ASSERT_EQ(sum.scalar_type(), CppTypeToScalarType<T>::value);
  for (int64_t i = 0; i < n; ++i) {
    const float x = a.data_ptr<T>()[i], y = b.data_ptr<T>()[i];
    // The float result, rounded once; alpha itself is first rounded to T, as in PyTorch.
    ASSERT_EQ(sum.data_ptr<T>()[i].x, T(x + static_cast<float>(T(alpha)) * y).x) << i;
    ASSERT_EQ(product.data_ptr<T>()[i].x, T(x * y).x) << i;
    ASSERT_EQ(quotient.data_ptr<T>()[i].x, T(x / y).x) << i;
  }
}

TEST(DtypeOpsTest, HalfArithmeticComputesInFloatAndRoundsOnce) { expectArithmeticRoundsOnce<Half>(); }
TEST(DtypeOpsTest, BFloat16ArithmeticComputesInFloatAndRoundsOnce) { expectArithmeticRoundsOnce<BFloat16>(); }

TEST(DtypeOpsTest, ReducedPrecisionFunctionsAreTheFloatOnesRounded) {
  for (ScalarType dtype : {kHalf, kBFloat16}) {
    const Tensor x = opcore::rand({3000}).mul(8.0).sub(4.0).to(dtype);
    EXPECT_TRUE(allEqual(opcore::exp(x), opcore::exp(x.to(kFloat)).to(dtype))) << dtype;
    EXPECT_TRUE(allEqual(opcore::tanh(x), opcore::tanh(x.to(kFloat)).to(dtype))) << dtype;
    EXPECT_EQ(opcore::exp(x).scalar_type(), dtype);
    // Strided input goes through the gathered path, with the same results.
    const Tensor strided = x.view({1000, 3}).select(1, 1);
    EXPECT_TRUE(allEqual(opcore::exp(strided), opcore::exp(strided.contiguous())));
  }
}

TEST(DtypeOpsTest, ReducedPrecisionSumsAccumulateInFloat) {
  // 10000 ones: a 16-bit accumulator would stop at 2048 (Half) or 256 (BFloat16).
  EXPECT_EQ(opcore::sum(opcore::ones({10000}, kBFloat16)).item<float>(), static_cast<float>(BFloat16(10000.0f)));
  EXPECT_EQ(opcore::sum(opcore::ones({10000}, kHalf)).item<float>(), 10000.0f);
  EXPECT_EQ(opcore::sum(opcore::ones({10000}, kHalf)).scalar_type(), kHalf);
  const Tensor rows = opcore::ones({4, 3000}, kBFloat16);
  EXPECT_THAT(toVector<float>(opcore::sum(rows, {1}).to(kFloat)), Each(static_cast<float>(BFloat16(3000.0f))));
  // Integer sums are int64, as in PyTorch.
  EXPECT_EQ(opcore::sum(fromVector<uint8_t>({200, 200})).item<int64_t>(), 400);
  EXPECT_EQ(opcore::sum(fromVector<uint8_t>({200, 200})).scalar_type(), kLong);
}

TEST(DtypeOpsTest, MeansOfHalfAreComputedInFloatAndOfComplexAllowed) {
  const Tensor h = fromVector<Half>({Half(1.0f), Half(2.0f), Half(2.0f)});
  EXPECT_EQ(opcore::mean(h).scalar_type(), kHalf);
  EXPECT_EQ(opcore::mean(h).item<float>(), static_cast<float>(Half(5.0f / 3.0f)));
  const Tensor z = fromVector<complex<double>>({{1, 2}, {3, -4}});
  EXPECT_EQ(opcore::mean(z).item<complex<double>>(), complex<double>(2, -1));
  EXPECT_THAT(errorOf([] { opcore::mean(opcore::ones({2}, kByte)); }),
              HasSubstr("Input dtype must be either a floating point or complex dtype. Got: Byte"));
}

TEST(DtypeOpsTest, ReducedPrecisionMatrixProductsRoundOnce) {
  const Tensor a = opcore::rand({17, 33}).to(kBFloat16), b = opcore::rand({33, 9}).to(kBFloat16);
  const Tensor c = opcore::mm(a, b);
  ASSERT_EQ(c.scalar_type(), kBFloat16);
  EXPECT_TRUE(allEqual(c, opcore::mm(a.to(kFloat), b.to(kFloat)).to(kBFloat16)));
  EXPECT_THAT(toVector<uint8_t>(opcore::mm(fromVector<uint8_t>({16, 16}, {1, 2}), fromVector<uint8_t>({8, 8}, {2, 1}))),
              ElementsAre(0));  // 256 wraps to 0
}

TEST(DtypeOpsTest, ComplexArithmeticMatchesStdComplex) {
  const std::vector<complex<double>> xs = {{1, 2}, {-0.5, 3}, {0, -1}}, ys = {{3, -1}, {2, 2}, {-1, 0.25}};
  const Tensor x = fromVector<complex<double>>(xs), y = fromVector<complex<double>>(ys);
  const Tensor sum = opcore::add(x, y, 2), product = opcore::mul(x, y), quotient = opcore::div(x, y);
  for (size_t i = 0; i < xs.size(); ++i) {
    const std::complex<double> a = xs[i], b = ys[i];
    EXPECT_EQ(toVector<complex<double>>(sum)[i], complex<double>(a + 2.0 * b));
    EXPECT_EQ(toVector<complex<double>>(product)[i], complex<double>(a * b));
    EXPECT_EQ(toVector<complex<double>>(quotient)[i], complex<double>(a / b));
  }
  EXPECT_EQ(opcore::sum(x).item<complex<double>>(), complex<double>(0.5, 4));
  EXPECT_THAT(toVector<bool>(opcore::eq(x, x)), Each(true));
  EXPECT_EQ(opcore::exp(x).select(0, 0).item<complex<double>>(), complex<double>(std::exp(std::complex<double>(1, 2))));
  // complex64 with a float64 tensor is complex128; with a complex Scalar a float tensor is complex64.
  EXPECT_EQ(opcore::add(x.to(kComplexFloat), opcore::ones({3}, kDouble)).scalar_type(), kComplexDouble);
  EXPECT_EQ(opcore::mul(opcore::ones({3}), Scalar(complex<double>(0, 1))).scalar_type(), kComplexFloat);
  EXPECT_EQ(opcore::mul(opcore::ones({3}, kDouble), Scalar(complex<double>(0, 1))).scalar_type(), kComplexDouble);
}

TEST(DtypeOpsTest, ResultTypesFollowPyTorchsCategories) {
  const Tensor u8 = opcore::ones({2}, kByte), i8 = opcore::ones({2}, kChar), f16 = opcore::ones({2}, kHalf);
  EXPECT_EQ(opcore::add(u8, i8).scalar_type(), kShort);
  EXPECT_EQ(opcore::add(u8, 1000).scalar_type(), kByte);          // a Python int does not widen
  EXPECT_THAT(toVector<uint8_t>(opcore::add(u8, 1000)), Each(233));  // and wraps, as in PyTorch
  EXPECT_EQ(opcore::add(u8, 2.5).scalar_type(), kFloat);          // a float makes the default float
  EXPECT_EQ(opcore::add(f16, 2.5).scalar_type(), kHalf);
  EXPECT_EQ(opcore::add(f16, opcore::ones({}, kDouble)).scalar_type(), kHalf);  // zero-dim: same category
  EXPECT_EQ(opcore::add(u8, opcore::ones({}, kDouble)).scalar_type(), kDouble);  // zero-dim: higher category
  EXPECT_EQ(opcore::add(f16, opcore::ones({2}, kBFloat16)).scalar_type(), kFloat);
  EXPECT_EQ(opcore::div(u8, u8).scalar_type(), kFloat);
}

TEST(DtypeOpsTest, FactoriesFillAndSelectInEveryDtype) {
  EXPECT_THAT(toVector<float>(opcore::arange(0, 2, 0.5, kHalf).to(kFloat)), ElementsAre(0, 0.5, 1, 1.5));
  Tensor h = opcore::empty({3}, kBFloat16);
  h.fill_(1.25);
  EXPECT_THAT(toVector<float>(h.to(kFloat)), Each(1.25f));
  Tensor z = opcore::empty({2}, kComplexFloat);
  z.fill_(Scalar(complex<double>(1, -1)));
  EXPECT_THAT(toVector<complex<float>>(z), Each(complex<float>(1, -1)));
  const Tensor cond = fromVector<bool>({true, false});
  EXPECT_THAT(toVector<float>(opcore::where(cond, opcore::ones({2}, kHalf), opcore::zeros({2}, kHalf)).to(kFloat)),
              ElementsAre(1, 0));
  Tensor values = fromVector<Half>({Half(1.0f), Half(NAN), Half(3.0f)}, {1, 3});
  auto [v, i] = opcore::max(values, 1);
  EXPECT_TRUE(std::isnan(v.item<float>()));
  EXPECT_EQ(i.item<int64_t>(), 1);
  EXPECT_THAT(toVector<uint8_t>(opcore::relu(fromVector<uint8_t>({0, 7}))), ElementsAre(0, 7));
  EXPECT_THAT(toVector<float>(opcore::neg(fromVector<BFloat16>({BFloat16(2.0f)})).to(kFloat)), ElementsAre(-2));
}

TEST(DtypeOpsTest, AbsAngleSignAndConjugate) {
  const Tensor z = fromVector<complex<float>>({{3, 4}, {0, -2}, {-1, 0}});
  const Tensor magnitude = opcore::abs(z);
  EXPECT_EQ(magnitude.scalar_type(), kFloat);
  EXPECT_THAT(toVector<float>(magnitude), ElementsAre(5, 2, 1));
  EXPECT_THAT(toVector<float>(opcore::angle(z)),
              ElementsAre(FloatEq(std::atan2(4.0f, 3.0f)), FloatEq(-M_PI / 2), FloatEq(M_PI)));
  EXPECT_THAT(toVector<complex<float>>(opcore::conj(z)), ElementsAre(complex<float>(3, -4), complex<float>(0, 2),
                                                                     complex<float>(-1, -0.0f)));
  EXPECT_THAT(toVector<int8_t>(opcore::abs(fromVector<int8_t>({-5, 3}))), ElementsAre(5, 3));
  EXPECT_THAT(toVector<float>(opcore::abs(fromVector<Half>({Half(-1.5f)})).to(kFloat)), ElementsAre(1.5f));
  const Tensor reals = fromVector<double>({-2, 0, 3, NAN});
  const std::vector<double> angles = toVector<double>(opcore::angle(reals));
  EXPECT_EQ(angles[0], M_PI);
  EXPECT_EQ(angles[1], 0);
  EXPECT_EQ(angles[2], 0);
  EXPECT_TRUE(std::isnan(angles[3]));
  EXPECT_EQ(opcore::angle(fromVector<int32_t>({-1})).scalar_type(), kFloat);
  const std::vector<double> signs = toVector<double>(opcore::sign(reals));
  EXPECT_THAT(std::vector<double>(signs.begin(), signs.begin() + 3), ElementsAre(-1, 0, 1));
  EXPECT_TRUE(std::isnan(signs[3]));
  EXPECT_THAT(toVector<uint8_t>(opcore::sign(fromVector<uint8_t>({0, 9}))), ElementsAre(0, 1));
  // conj of a real tensor is the tensor itself; conj_physical always a new one.
  EXPECT_TRUE(opcore::conj(reals).is_same(reals));
  EXPECT_FALSE(opcore::conj_physical(reals).is_same(reals));
  Tensor w = z.clone();
  opcore::conj_physical_(w);
  EXPECT_EQ(w.select(0, 0).item<complex<double>>(), complex<double>(3, -4));
  EXPECT_THAT(errorOf([&] { opcore::sign(z); }),
              HasSubstr("Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead."));
  EXPECT_THAT(errorOf([] { opcore::abs(opcore::ones({2}, kBool)); }), HasSubstr("\"abs\" not implemented for 'Bool'"));
}

TEST(DtypeOpsTest, RealImagAndViewAsRealAreViews) {
  Tensor z = fromVector<complex<double>>({{1, 2}, {3, 4}, {5, 6}, {7, 8}}, {2, 2});
  const Tensor pairs = opcore::view_as_real(z);
  EXPECT_EQ(pairs.scalar_type(), kDouble);
  EXPECT_EQ(shapeOf(pairs), (Shape{2, 2, 2}));
  EXPECT_EQ(pairs.strides().vec(), (Shape{4, 2, 1}));
  EXPECT_THAT(toVector<double>(pairs), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
  Tensor re = opcore::real(z), im = opcore::imag(z);
  EXPECT_THAT(toVector<double>(re), ElementsAre(1, 3, 5, 7));
  EXPECT_THAT(toVector<double>(im), ElementsAre(2, 4, 6, 8));
  im.fill_(0);  // writes through to z
  EXPECT_EQ(z.select(0, 0).select(0, 1).item<complex<double>>(), complex<double>(3, 0));
  // A column of z (stride 2 in complex elements) and back.
  const Tensor column = z.select(1, 1);
  EXPECT_EQ(opcore::view_as_real(column).strides().vec(), (Shape{4, 1}));
  EXPECT_TRUE(allEqual(opcore::view_as_complex(opcore::view_as_real(column)), column));
  EXPECT_EQ(opcore::view_as_complex(opcore::view_as_real(column)).storage_offset(), 1);
  const Tensor reals = fromVector<float>({1, 2, 3, 4}, {2, 2});
  EXPECT_THAT(toVector<complex<float>>(opcore::view_as_complex(reals)), ElementsAre(complex<float>(1, 2), complex<float>(3, 4)));
  EXPECT_TRUE(opcore::real(reals).is_same(reals));
  EXPECT_THAT(errorOf([&] { opcore::imag(reals); }), HasSubstr("imag is not implemented for tensors with non-complex dtypes."));
  EXPECT_THAT(errorOf([&] { opcore::view_as_real(reals); }), HasSubstr("view_as_real is only supported for complex tensors"));
  EXPECT_THAT(errorOf([&] { opcore::view_as_complex(reals.t()); }), HasSubstr("Tensor must have a last dimension with stride 1"));
  EXPECT_THAT(errorOf([&] { opcore::view_as_complex(fromVector<float>({1, 2, 3})); }),
              HasSubstr("Tensor must have a last dimension of size 2"));
  EXPECT_THAT(errorOf([&] { opcore::view_as_complex(opcore::ones({2}, kHalf)); }),
              HasSubstr("view_as_complex is only supported for float and double tensors, but got a tensor of scalar type: Half"));
  EXPECT_THAT(errorOf([&] { opcore::view_as_complex(fromVector<float>({1, 2, 3, 4, 5, 6}, {3, 2}).slice(0, 0, 3, 1).view({6}).slice(0, 1, 5).view({2, 2})); }),
              HasSubstr("Tensor must have a storage_offset divisible by 2"));
}

TEST(DtypeOpsTest, PrintsNewDtypesLikePyTorch) {
  EXPECT_EQ(opcore::arange(0, 2, 0.5, kHalf).toString(), "tensor([0.0000, 0.5000, 1.0000, 1.5000], dtype=Half)");
  EXPECT_EQ(opcore::ones({2}, kBFloat16).toString(), "tensor([1., 1.], dtype=BFloat16)");
  EXPECT_EQ(fromVector<uint8_t>({1, 200}).toString(), "tensor([  1, 200], dtype=Byte)");
  const Tensor z = fromVector<complex<float>>({{1, 2}, {0, -1}});
  EXPECT_EQ(z.toString(), "tensor([1.+2.j, 0.-1.j])");
  EXPECT_EQ(fromVector<complex<double>>({{0.5, 1}}).toString(), "tensor([0.5000+1.0000j], dtype=ComplexDouble)");
}

TEST(DtypeOpsTest, UnsupportedDtypesGetPyTorchsErrors) {
  EXPECT_THAT(errorOf([] { opcore::relu(opcore::ones({2}, kBool)); }), HasSubstr("\"relu\" not implemented for 'Bool'"));
  const Tensor z = opcore::ones({2}, kComplexFloat);
  EXPECT_THAT(errorOf([&] { opcore::lt(z, z); }), HasSubstr("\"lt\" not implemented for 'ComplexFloat'"));
  EXPECT_THAT(errorOf([&] { opcore::max(z, 0); }), HasSubstr("\"max\" not implemented for 'ComplexFloat'"));
  EXPECT_THAT(errorOf([&] { opcore::div(z, z, "floor"); }), HasSubstr("\"div\" not implemented for 'ComplexFloat'"));
  EXPECT_THAT(errorOf([] { opcore::empty({2}, ScalarType::QInt8); }),
              HasSubstr("opcore's tensors cannot hold dtype QInt8 (number 12)"));
  EXPECT_THAT(errorOf([] { opcore::empty({2}, kComplexHalf); }), HasSubstr("cannot hold dtype ComplexHalf"));
  // An in-place integer operation with a float or complex result.
  Tensor l = opcore::ones({2}, kLong);
  EXPECT_THAT(errorOf([&] { l.add_(opcore::ones({2}, kHalf)); }),
              HasSubstr("result type Half can't be cast to the desired output type Long"));
  Tensor f = opcore::ones({2});
  EXPECT_THAT(errorOf([&] { f.mul_(z); }), HasSubstr("result type ComplexFloat can't be cast to the desired output type Float"));
  EXPECT_THAT(errorOf([&] { opcore::add(l, l, Scalar(complex<double>(0, 1))); }),
              HasSubstr("For non-complex input tensors, argument alpha must not be a complex number."));
  EXPECT_THAT(errorOf([&] { opcore::add(fromVector<uint8_t>({1}), fromVector<uint8_t>({1}), 256); }),
              HasSubstr("value cannot be converted to type uint8_t without overflow"));
}

}  // namespace
}  // namespace opcore

// Tests of the activation operators of issue #34 (kernels/cpu/Activation.cpp): values against
// the formulas, the vectorized rows against the scalar element functions, the out= and in-place
// forms, meta tensors, and PyTorch's errors (dtypes, approximate strings).
#include <opcore/ops/elu.h>
#include <opcore/ops/elu_backward.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/hardtanh.h>
#include <opcore/ops/hardtanh_backward.h>
#include <opcore/ops/leaky_relu.h>
#include <opcore/ops/leaky_relu_backward.h>
#include <opcore/ops/gelu.h>
#include <opcore/ops/gelu_backward.h>
#include <opcore/ops/sigmoid.h>
#include <opcore/ops/sigmoid_backward.h>
#include <opcore/ops/silu.h>
#include <opcore/ops/silu_backward.h>
#include <opcore/ops/tanh.h>
#include <opcore/ops/tanh_backward.h>

#include "../../kernels/common/pointwise/Activation.h"
#include "TestUtil.h"

#include <cmath>
#include <vector>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)
namespace pw = ::opcore::native::pointwise;

// n values spread over [-6, 6], with the extremes a kernel must get right.
std::vector<double> spread(int64_t n) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = -6.0 + 12.0 * static_cast<double>(i) / static_cast<double>(n - 1);
  v[0] = 0.0;
  v[1] = -0.0;
  v[2] = INFINITY;
  v[3] = 20.0;
  v[4] = -20.0;
  return v;
}

TEST(ActivationTest, SigmoidAndTanhBackward) {
  Tensor g = fromVector<double>({1.0, 2.0, -1.0});
  Tensor y = fromVector<double>({0.5, 0.25, 0.0});
  EXPECT_THAT(toVector<double>(opcore::sigmoid_backward(g, y)), ElementsAre(0.25, 2 * 0.25 * 0.75, 0.0));
  EXPECT_THAT(toVector<double>(opcore::tanh_backward(g, y)), ElementsAre(0.75, 2 * (1 - 0.0625), -1.0));
  // broadcast, and the result type of the two (float32 with float64 is float64)
  Tensor r = opcore::sigmoid_backward(scalarTensor<float>(2.0f), fromVector<double>({0.5, 0.5}, {2, 1}));
  EXPECT_EQ(r.scalar_type(), ScalarType::Double);
  EXPECT_EQ(shapeOf(r), (std::vector<int64_t>{2, 1}));
  Tensor out = opcore::empty({3}, ScalarType::Double);
  EXPECT_TRUE(opcore::tanh_backward_out(out, g, y).is_same(out));
  EXPECT_THAT(toVector<double>(out), ElementsAre(0.75, 2 * (1 - 0.0625), -1.0));
  // complex: grad * conj(y * (1 - y))
  Tensor z = opcore::empty({1}, ScalarType::ComplexDouble);
  z.data_ptr<complex<double>>()[0] = complex<double>(0.5, 1.0);
  const complex<double> w = opcore::sigmoid_backward(z, z).data_ptr<complex<double>>()[0];
  const complex<double> want = complex<double>(0.5, 1.0) * conj((complex<double>(1) - complex<double>(0.5, 1.0)) *
                                                                complex<double>(0.5, 1.0));
  EXPECT_DOUBLE_EQ(w.real(), want.real());
  EXPECT_DOUBLE_EQ(w.imag(), want.imag());
}

TEST(ActivationTest, BackwardDtypesAsPyTorch) {
  Tensor i = opcore::empty({2}, ScalarType::Long);
  EXPECT_THAT([&] { opcore::sigmoid_backward(i, i); },
              ThrowsMessage<NotImplementedError>(HasSubstr("\"sigmoid_backward_cpu\" not implemented for 'Long'")));
  Tensor h = opcore::empty({2}, ScalarType::Half);
  EXPECT_NO_THROW(opcore::sigmoid_backward(h, h));  // Half: sigmoid's yes, tanh's no, as in PyTorch
  EXPECT_THAT([&] { opcore::tanh_backward(h, h); },
              ThrowsMessage<NotImplementedError>(HasSubstr("\"tanh_backward_cpu\" not implemented for 'Half'")));
}

TEST(ActivationTest, GeluBothApproximations) {
  Tensor x = fromVector<double>({-1.0, 0.0, 0.5, 2.0});
  std::vector<double> exact = toVector<double>(opcore::gelu(x));
  std::vector<double> tanh = toVector<double>(opcore::gelu(x, "tanh"));
  const double xs[] = {-1.0, 0.0, 0.5, 2.0};
  for (int i = 0; i < 4; ++i) {
    const double v = xs[i];
    EXPECT_NEAR(exact[i], v * 0.5 * (1 + std::erf(v / std::sqrt(2.0))), 1e-15);
    EXPECT_NEAR(tanh[i], 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))), 1e-15);
  }
  EXPECT_NEAR(exact[0], -0.15865525393145707, 1e-15);  // torch.nn.functional.gelu(-1.0)
  EXPECT_THAT([&] { opcore::gelu(x, "tahn"); },
              ThrowsMessage<Error>(HasSubstr("approximate argument must be either none or tanh.")));
  EXPECT_THAT([&] { opcore::gelu_backward(x, x, "exact"); },
              ThrowsMessage<Error>(HasSubstr("approximate argument must be either none or tanh.")));
  EXPECT_THAT([&] { opcore::gelu(opcore::empty({2}, ScalarType::Half)); },
              ThrowsMessage<NotImplementedError>(HasSubstr("\"GeluKernelImpl\" not implemented for 'Half'")));
  EXPECT_THAT([&] { opcore::gelu_backward(opcore::empty({2}, ScalarType::Int), opcore::empty({2}, ScalarType::Int)); },
              ThrowsMessage<NotImplementedError>(HasSubstr("\"GeluBackwardKernelImpl\" not implemented for 'Int'")));
  // in place, and on meta tensors (shape and dtype only)
  Tensor y = x.clone();
  EXPECT_TRUE(opcore::gelu_(y, "tanh").is_same(y));
  EXPECT_EQ(toVector<double>(y), tanh);
  Tensor m = opcore::gelu(opcore::empty({3, 4}, ScalarType::Float, std::nullopt, Device(DeviceType::Meta)), "tanh");
  EXPECT_EQ(shapeOf(m), (std::vector<int64_t>{3, 4}));
}

// The vectorized rows (SLEEF, in blocks, two threads) agree with the scalar element functions of
// pointwise/Activation.h on every element, contiguous or not, within a few ulp.
TEST(ActivationTest, VectorizedRowsMatchTheElementFunctions) {
  const int64_t n = 70001;
  const std::vector<double> v = spread(n);
  std::vector<float> vf(v.begin(), v.end());
  for (bool tanh : {false, true}) {
    const char* approximate = tanh ? "tanh" : "none";
    Tensor x = fromVector<float>(vf);
    Tensor g = fromVector<float>(std::vector<float>(n, 1.5f));
    const std::vector<float> y = toVector<float>(opcore::gelu(x, approximate));
    const std::vector<float> dy = toVector<float>(opcore::gelu_backward(g, x, approximate));
    const std::vector<float> ys = toVector<float>(opcore::silu(x));
    const std::vector<float> dys = toVector<float>(opcore::silu_backward(g, x));
    // equal within tol, or both NaN (gelu_backward(inf) is NaN, as PyTorch's: inf * pdf(inf))
    auto near = [](float got, float want, float tol) {
      return (std::isnan(got) && std::isnan(want)) || std::fabs(got - want) <= tol || got == want;
    };
    for (int64_t i = 0; i < n; ++i) {
      const float xi = vf[i];
      ASSERT_TRUE(near(y[i], pw::geluOf(xi, tanh), 4e-6f * (1 + std::fabs(xi)))) << xi << " " << y[i];
      ASSERT_TRUE(near(dy[i], pw::geluBackwardOf(1.5f, xi, tanh), 1e-5f)) << xi << " " << dy[i];
      if (!tanh) {
        ASSERT_TRUE(near(ys[i], pw::siluOf(xi), 4e-6f * (1 + std::fabs(xi)))) << xi << " " << ys[i];
        ASSERT_TRUE(near(dys[i], pw::siluBackwardOf(1.5f, xi), 1e-5f)) << xi << " " << dys[i];
      }
    }
    // a strided view gives the same values as the contiguous tensor
    Tensor wide = fromVector<double>(v, {n, 1}).expand({n, 2}).contiguous().transpose(0, 1).select(0, 1);
    std::vector<double> strided = toVector<double>(opcore::gelu(wide, approximate));
    std::vector<double> dense = toVector<double>(opcore::gelu(fromVector<double>(v), approximate));
    EXPECT_EQ(strided, dense);
  }
}

TEST(ActivationTest, Silu) {
  Tensor x = fromVector<double>({-2.0, 0.0, 1.0});
  std::vector<double> y = toVector<double>(opcore::silu(x));
  EXPECT_NEAR(y[0], -2.0 / (1 + std::exp(2.0)), 1e-15);
  EXPECT_EQ(y[1], 0.0);
  EXPECT_NEAR(y[2], 1.0 / (1 + std::exp(-1.0)), 1e-15);
  const double s = 1 / (1 + std::exp(2.0));
  EXPECT_NEAR(toVector<double>(opcore::silu_backward(fromVector<double>({2.0, 1.0, 1.0}), x))[0],
              2.0 * s * (1 + -2.0 * (1 - s)), 1e-15);
  Tensor b = fromVector<double>({-2.0, 0.0, 1.0}).to(ScalarType::BFloat16);
  EXPECT_EQ(opcore::silu_(b).scalar_type(), ScalarType::BFloat16);
  EXPECT_THAT([&] { opcore::silu(opcore::empty({2}, ScalarType::Half)); },
              ThrowsMessage<NotImplementedError>(HasSubstr("\"silu_cpu\" not implemented for 'Half'")));
  EXPECT_THAT([&] { opcore::silu_backward(opcore::empty({2}, ScalarType::Bool), opcore::empty({2}, ScalarType::Bool)); },
              ThrowsMessage<NotImplementedError>(HasSubstr("\"silu_backward_cpu\" not implemented for 'Bool'")));
}

TEST(ActivationTest, LeakyReluHardtanhElu) {
  Tensor x = fromVector<double>({-2.0, -0.5, 0.0, 0.5, 2.0});
  EXPECT_THAT(toVector<double>(opcore::leaky_relu(x, 0.1)), ElementsAre(-0.2, -0.05, 0.0, 0.5, 2.0));
  EXPECT_THAT(toVector<double>(opcore::hardtanh(x)), ElementsAre(-1.0, -0.5, 0.0, 0.5, 1.0));
  EXPECT_THAT(toVector<double>(opcore::hardtanh_backward(fromVector<double>({1, 1, 1, 1, 1}), x, -1.0, 1.0)),
              ElementsAre(0.0, 1.0, 1.0, 1.0, 0.0));
  std::vector<double> e = toVector<double>(opcore::elu(x, 0.5, 2.0, 1.5));
  EXPECT_NEAR(e[0], 2.0 * 0.5 * std::expm1(-3.0), 1e-15);
  EXPECT_EQ(e[4], 4.0);
  std::vector<double> de =
      toVector<double>(opcore::elu_backward(fromVector<double>({1, 1, 1, 1, 1}), 0.5, 2.0, 1.5, false, x));
  EXPECT_NEAR(de[0], 1.5 * 0.5 * 2.0 * std::exp(-3.0), 1e-15);
  EXPECT_EQ(de[4], 2.0);
  EXPECT_THAT(toVector<double>(opcore::leaky_relu_backward(fromVector<double>({1, 1, 1, 1, 1}), x, 0.1, false)),
              ElementsAre(0.1, 0.1, 0.1, 1.0, 1.0));
  // integers keep their dtype and take the limits as integers
  EXPECT_THAT(toVector<int64_t>(opcore::hardtanh(fromVector<int64_t>({-5, 0, 5}), -2.5, 3.9)), ElementsAre(-2, 0, 3));
  EXPECT_THAT([&] { opcore::hardtanh(fromVector<uint8_t>({1})); },
              ThrowsMessage<Error>(HasSubstr("cannot do hardtanh on an unsigned type with negative limits")));
  EXPECT_THAT([&] { opcore::hardtanh(opcore::empty({1}, ScalarType::Half)); },
              ThrowsMessage<NotImplementedError>(HasSubstr("\"clamp_scalar_cpu\" not implemented for 'Half'")));
  EXPECT_THAT([&] { opcore::leaky_relu_backward(x, x, -0.1, true); },
              ThrowsMessage<Error>(HasSubstr("In-place leakyReLu backward calculation is triggered with a negative slope")));
  EXPECT_THAT([&] { opcore::elu(opcore::empty({1}, ScalarType::Half)); },
              ThrowsMessage<NotImplementedError>(HasSubstr("\"elu_cpu\" not implemented for 'Half'")));
  Tensor m = opcore::hardtanh(opcore::empty({2, 3}, ScalarType::Float, std::nullopt, Device(DeviceType::Meta)));
  EXPECT_EQ(shapeOf(m), (std::vector<int64_t>{2, 3}));
}

}  // namespace
}  // namespace opcore

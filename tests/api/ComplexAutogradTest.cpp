// Autograd through complex tensors (Note [Complex gradients] in runtime/opcore/autograd/Formulas.h):
// gradcheck and gradgradcheck of every complex-capable differentiable operator on complex128
// inputs, mixed real and complex operands, real<->complex conversions, gradients computed by
// hand, and in-place changes through a real view of a complex tensor.
#include <opcore/TensorOperators.h>
#include <opcore/autograd/Gradcheck.h>
#include <opcore/ops/abs.h>
#include <opcore/ops/angle.h>
#include <opcore/ops/conj.h>
#include <opcore/ops/conj_physical.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/imag.h>
#include <opcore/ops/log.h>
#include <opcore/ops/mean.h>
#include <opcore/ops/mm.h>
#include <opcore/ops/neg.h>
#include <opcore/ops/real.h>
#include <opcore/ops/sigmoid.h>
#include <opcore/ops/sqrt.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/tanh.h>
#include <opcore/ops/view_as_complex.h>
#include <opcore/ops/view_as_real.h>
#include <opcore/ops/zeros.h>

#include "TestUtil.h"

#include <cmath>
#include <complex>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)
using autograd::DifferentiableFn;
using autograd::variable_list;
using cd = complex<double>;

const Scalar kI = Scalar(cd(0.0, 1.0));

// A complex128 input, both parts uniform in [low, high).
Tensor complexInput(IntArrayRef sizes, Generator& g, double low = -1.0, double high = 1.0) {
  return autograd::uniformInput(sizes, low, high, g, kComplexDouble);
}

Tensor realInput(IntArrayRef sizes, Generator& g, double low = -1.0, double high = 1.0) {
  return autograd::uniformInput(sizes, low, high, g);
}

// gradcheck and gradgradcheck of fn.
void checkBoth(const DifferentiableFn& fn, const variable_list& inputs) {
  autograd::gradcheck(fn, inputs);
  autograd::gradgradcheck(fn, inputs);
}

class ComplexAutogradTest : public ::testing::Test {
 protected:
  Generator g = Generator::create(Device(kCPU), 31);
};

TEST_F(ComplexAutogradTest, ComplexTensorsCanRequireGrad) {
  Tensor z = opcore::zeros({2}, kComplexFloat);
  EXPECT_TRUE(z.requires_grad_().requires_grad());
  Tensor w = z * 2;
  EXPECT_TRUE(w.requires_grad());
  EXPECT_NE(w.grad_fn(), nullptr);
  Tensor i = opcore::zeros({2}, kLong);
  EXPECT_THAT(errorOf([&] { i.requires_grad_(); }),
              HasSubstr("only Tensors of floating point and complex dtype can require gradients"));
  // A complex scalar has no implicit gradient, as in PyTorch; a real function of it does.
  EXPECT_THAT(errorOf([&] { opcore::sum(w).backward(); }),
              HasSubstr("grad can be implicitly created only for real scalar outputs"));
  opcore::sum(opcore::abs(w)).backward();
  EXPECT_EQ(z.grad().scalar_type(), kComplexFloat);
}

TEST_F(ComplexAutogradTest, BinaryOperators) {
  const variable_list inputs{complexInput({2, 3}, g), complexInput({3}, g, 0.5, 1.5)};
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::add(x[0], x[1], cd(2.0, -0.5))}; },
            inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::sub(x[0], x[1], cd(0.5, 1.0))}; },
            inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {x[0] * x[1]}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {x[0] / x[1]}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {x[0] * cd(1.5, -2.0)}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {x[0] / cd(1.5, -2.0)}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {x[0] + kI}; }, inputs);
}

TEST_F(ComplexAutogradTest, MixedRealAndComplexOperands) {
  // The real operand's gradient is the real part (handle_r_to_c).
  const variable_list inputs{realInput({2, 3}, g), complexInput({2, 3}, g, 0.5, 1.5)};
  checkBoth([](const variable_list& x) -> variable_list { return {x[0] * x[1]}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {x[0] / x[1]}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {x[1] / x[0]}; },
            {realInput({2, 3}, g, 0.5, 1.5), complexInput({2, 3}, g)});
  checkBoth([](const variable_list& x) -> variable_list { return {x[0] + x[1]}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {x[0] - x[1]}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {x[0] * kI}; }, {realInput({3}, g)});
}

TEST_F(ComplexAutogradTest, UnaryOperators) {
  const variable_list inputs{complexInput({2, 3}, g)};
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::neg(x[0])}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::exp(x[0])}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::tanh(x[0])}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::sigmoid(x[0])}; }, inputs);
  // In the right half plane, away from the branch cut of log and sqrt.
  const variable_list right{complexInput({2, 3}, g, 0.5, 2.0)};
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::log(x[0])}; }, right);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::sqrt(x[0])}; }, right);
}

TEST_F(ComplexAutogradTest, RealValuedFunctionsOfComplexTensors) {
  const variable_list inputs{complexInput({2, 3}, g, 0.25, 1.0)};
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::abs(x[0])}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::angle(x[0])}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::real(x[0])}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::imag(x[0])}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::view_as_real(x[0])}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::view_as_complex(x[0])}; },
            {realInput({2, 3, 2}, g)});
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::conj(x[0])}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::conj_physical(x[0])}; }, inputs);
}

TEST_F(ComplexAutogradTest, ReductionsAndMatrixProducts) {
  const variable_list inputs{complexInput({2, 3}, g)};
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::sum(x[0])}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::sum(x[0], {1})}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::mean(x[0])}; }, inputs);
  checkBoth([](const variable_list& x) -> variable_list { return {opcore::mm(x[0], x[1])}; },
            {complexInput({2, 3}, g), complexInput({3, 4}, g)});
}

TEST_F(ComplexAutogradTest, ConversionsBetweenRealAndComplex) {
  checkBoth([](const variable_list& x) -> variable_list { return {x[0].to(kComplexDouble)}; }, {realInput({3}, g)});
  // complex -> real keeps the real part: its gradient is grad with a zero imaginary part.
  checkBoth([](const variable_list& x) -> variable_list { return {x[0].to(kDouble)}; }, {complexInput({3}, g)});
}

TEST_F(ComplexAutogradTest, GradientOfARealChainThroughComplexIsComputedByHand) {
  // sum(real(exp(i x))) = sum(cos(x)): the gradient is -sin(x).
  Tensor x = realInput({4}, g, -3.0, 3.0).requires_grad_();
  opcore::sum(opcore::real(opcore::exp(x.to(kComplexDouble) * kI))).backward();
  ASSERT_EQ(x.grad().scalar_type(), kDouble);
  const std::vector<double> xs = toVector<double>(x.detach());
  const std::vector<double> grads = toVector<double>(x.grad());
  for (size_t k = 0; k < xs.size(); ++k) EXPECT_NEAR(grads[k], -std::sin(xs[k]), 1e-12) << "element " << k;
}

TEST_F(ComplexAutogradTest, GradientIsTheConjugateWirtingerDerivative) {
  // L = sum |z|^2 = sum x^2 + y^2: dL/dx + i dL/dy = 2z, as in PyTorch.
  Tensor z = complexInput({3}, g).requires_grad_();
  opcore::sum(opcore::abs(z) * opcore::abs(z)).backward();
  ASSERT_EQ(z.grad().scalar_type(), kComplexDouble);
  const std::vector<cd> zs = toVector<cd>(z.detach());
  const std::vector<cd> grads = toVector<cd>(z.grad());
  for (size_t k = 0; k < zs.size(); ++k) {
    EXPECT_NEAR(grads[k].real(), 2 * zs[k].real(), 1e-12) << "element " << k;
    EXPECT_NEAR(grads[k].imag(), 2 * zs[k].imag(), 1e-12) << "element " << k;
  }
  // L = sum real(c * z) for c = 2 - 3i: dL/dx = 2, dL/dy = 3, so the gradient is conj(c).
  Tensor w = complexInput({2}, g).requires_grad_();
  opcore::sum(opcore::real(w * cd(2.0, -3.0))).backward();
  for (const cd& v : toVector<cd>(w.grad())) {
    EXPECT_EQ(v.real(), 2.0);
    EXPECT_EQ(v.imag(), 3.0);
  }
}

TEST_F(ComplexAutogradTest, InPlaceChangeThroughARealView) {
  // Doubling the real part in place through real(w): the view has another dtype than w.
  const DifferentiableFn fn = [](const variable_list& x) -> variable_list {
    Tensor w = x[0] * 1;
    opcore::real(w).mul_(2);
    return {w * w};
  };
  autograd::gradcheck(fn, {complexInput({2, 3}, g)});
  // A real view read after its complex base changed in place.
  const DifferentiableFn later = [](const variable_list& x) -> variable_list {
    Tensor w = x[0] * 1;
    Tensor im = opcore::imag(w);
    w.mul_(kI);
    return {im * 3};
  };
  autograd::gradcheck(later, {complexInput({2, 3}, g)});
}

TEST_F(ComplexAutogradTest, GradcheckReportsTheWrongPart) {
  // A function whose backward drops the imaginary part of the gradient (detached imag).
  const DifferentiableFn wrong = [](const variable_list& x) -> variable_list {
    return {opcore::real(x[0]) + opcore::imag(x[0]).detach()};
  };
  EXPECT_THAT(errorOf([&] { autograd::gradcheck(wrong, {complexInput({2}, g)}); }),
              HasSubstr("d output[0] / d imag(input[0])"));
  EXPECT_THAT(errorOf([&] { autograd::gradcheck(wrong, {opcore::zeros({2}, kComplexFloat)}); }),
              HasSubstr("finite differences need Double or ComplexDouble inputs"));
}

}  // namespace
}  // namespace opcore

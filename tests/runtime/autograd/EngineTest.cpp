// The engine, end to end through the generated autograd kernels: backward and grad, gradient
// accumulation, retain_graph, create_graph, hooks, and the errors PyTorch users know.
#include <opcore/TensorOperators.h>
#include <opcore/autograd/Engine.h>
#include <opcore/autograd/GradMode.h>
#include <opcore/autograd/Node.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/remainder.h>
#include <opcore/ops/scatter.h>
#include <opcore/ops/max.h>

#include "../../api/TestUtil.h"

namespace opcore {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::errorOf;
using testing::fromVector;
using testing::leaf;
using testing::toVector;

TEST(EngineTest, BackwardOfAProductAndSumAccumulatesIntoLeaves) {
  Tensor a = leaf({2.0, 3.0});
  Tensor b = leaf({5.0, 7.0});
  Tensor y = ((a * b) + a).sum();  // dy/da = b + 1, dy/db = a
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_EQ(y.grad_fn()->name(), "SumBackward0");
  y.backward();
  EXPECT_THAT(toVector<double>(a.grad()), ElementsAre(6.0, 8.0));
  EXPECT_THAT(toVector<double>(b.grad()), ElementsAre(2.0, 3.0));
  EXPECT_FALSE(a.grad().requires_grad());
}

TEST(EngineTest, GradientsAccumulateAcrossBackwardCallsUntilReset) {
  Tensor a = leaf({1.0, 2.0});
  (a * 3.0).sum().backward();
  (a * a).sum().backward();  // + 2a
  EXPECT_THAT(toVector<double>(a.grad()), ElementsAre(5.0, 7.0));
  a.mutable_grad() = Tensor();
  (a * 3.0).sum().backward();
  EXPECT_THAT(toVector<double>(a.grad()), ElementsAre(3.0, 3.0));
}

TEST(EngineTest, BroadcastingIsUndoneInTheGradient) {
  Tensor a = fromVector<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  a.requires_grad_();
  Tensor b = leaf({1.0, 10.0, 100.0});
  (a * b).sum().backward();
  EXPECT_THAT(toVector<double>(b.grad()), ElementsAre(5.0, 7.0, 9.0));
  EXPECT_THAT(toVector<double>(a.grad()), ElementsAre(1, 10, 100, 1, 10, 100));
}

TEST(EngineTest, NoGradAndInferenceModeRecordNothing) {
  Tensor a = leaf({1.0});
  {
    autograd::NoGradGuard no_grad;
    EXPECT_FALSE((a * 2.0).requires_grad());
    autograd::EnableGradGuard enable;
    EXPECT_TRUE((a * 2.0).requires_grad());
  }
  {
    autograd::InferenceMode inference;
    EXPECT_TRUE(autograd::InferenceMode::is_enabled());
    Tensor y = a * 2.0;
    EXPECT_FALSE(y.requires_grad());
    const uint32_t before = y._version();
    y.mul_(2.0);
    EXPECT_EQ(y._version(), before) << "inference mode skips version counting";
  }
  EXPECT_FALSE(autograd::InferenceMode::is_enabled());
  EXPECT_TRUE((a * 2.0).requires_grad());
}

TEST(EngineTest, BackwardOnANonScalarNeedsAGradient) {
  Tensor a = leaf({1.0, 2.0});
  Tensor y = a * 2.0;
  EXPECT_THAT(errorOf([&] { y.backward(); }), HasSubstr("grad can be implicitly created only for scalar outputs"));
  y.backward(fromVector<double>({1.0, 0.5}));
  EXPECT_THAT(toVector<double>(a.grad()), ElementsAre(2.0, 1.0));
  EXPECT_THAT(errorOf([&] { (a * 2.0).backward(fromVector<double>({1.0})); }), HasSubstr("mismatch in shape"));
}

TEST(EngineTest, BackwardOnATensorWithoutGraphIsAnError) {
  Tensor c = fromVector<double>({1.0});
  EXPECT_THAT(errorOf([&] { c.backward(); }), HasSubstr("does not require grad and does not have a grad_fn"));
}

TEST(EngineTest, ASecondBackwardNeedsRetainGraph) {
  Tensor a = leaf({3.0});
  Tensor y = (a * a).sum();
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  EXPECT_THAT(toVector<double>(a.grad()), ElementsAre(12.0));
  EXPECT_THAT(errorOf([&] { y.backward(); }), HasSubstr("Trying to backward through the graph a second time"));
}

TEST(EngineTest, GradReturnsGradientsWithoutTouchingDotGrad) {
  Tensor a = leaf({2.0});
  Tensor b = leaf({5.0});
  Tensor y = (a * b).sum();
  auto grads = autograd::grad({y}, {a, b});
  EXPECT_THAT(toVector<double>(grads[0]), ElementsAre(5.0));
  EXPECT_THAT(toVector<double>(grads[1]), ElementsAre(2.0));
  EXPECT_FALSE(a.grad().defined());
  Tensor unused = leaf({1.0});
  Tensor z = (a * 2.0).sum();
  EXPECT_THAT(errorOf([&] { autograd::grad({z}, {a, unused}, {}, true); }), HasSubstr("appears to not have been used"));
  auto partial = autograd::grad({z}, {a, unused}, {}, true, false, /*allow_unused=*/true);
  EXPECT_THAT(toVector<double>(partial[0]), ElementsAre(2.0));
  EXPECT_FALSE(partial[1].defined());
}

TEST(EngineTest, CreateGraphGivesHigherOrderGradients) {
  Tensor x = leaf({2.0});
  Tensor y = (x * x * x).sum();  // y = x^3
  Tensor dy = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];  // 3x^2
  EXPECT_THAT(toVector<double>(dy), ElementsAre(12.0));
  EXPECT_TRUE(dy.requires_grad());
  Tensor d2y = autograd::grad({dy.sum()}, {x}, {}, std::nullopt, true)[0];  // 6x
  EXPECT_THAT(toVector<double>(d2y), ElementsAre(12.0));
  Tensor d3y = autograd::grad({d2y.sum()}, {x})[0];  // 6
  EXPECT_THAT(toVector<double>(d3y), ElementsAre(6.0));
}

TEST(EngineTest, FormulasUsingTheResultAreDifferentiable) {
  Tensor x = leaf({0.5});
  Tensor dy = autograd::grad({x.exp().sum()}, {x}, {}, std::nullopt, true)[0];
  Tensor d2y = autograd::grad({dy.sum()}, {x})[0];
  EXPECT_THAT(toVector<double>(d2y)[0], DoubleNear(std::exp(0.5), 1e-12));
}

TEST(EngineTest, HooksSeeAndReplaceGradients) {
  Tensor a = leaf({1.0, 2.0});
  std::vector<double> seen;
  a.register_hook([&](const Tensor& g) {
    seen = toVector<double>(g);
    return g * 10.0;
  });
  Tensor mid = a * 2.0;
  const unsigned id = mid.register_hook([](const Tensor& g) { return g + 1.0; });
  mid.sum().backward(Tensor(), true);
  EXPECT_THAT(seen, ElementsAre(4.0, 4.0));  // (1 + 1) * 2
  EXPECT_THAT(toVector<double>(a.grad()), ElementsAre(40.0, 40.0));
  mid.remove_hook(id);
  a.mutable_grad() = Tensor();
  mid.sum().backward();
  EXPECT_THAT(toVector<double>(a.grad()), ElementsAre(20.0, 20.0));
}

TEST(EngineTest, RetainGradKeepsANonLeafGradient) {
  Tensor a = leaf({1.0, 2.0});
  Tensor mid = a * 3.0;
  mid.retain_grad();
  EXPECT_TRUE(mid.retains_grad());
  (mid * mid).sum().backward();
  EXPECT_THAT(toVector<double>(mid.grad()), ElementsAre(6.0, 12.0));
  EXPECT_THAT(toVector<double>(a.grad()), ElementsAre(18.0, 36.0));
}

TEST(EngineTest, DetachCutsTheGraph) {
  Tensor a = leaf({2.0});
  Tensor d = (a * 2.0).detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  Tensor y = (a * d).sum();
  y.backward();
  EXPECT_THAT(toVector<double>(a.grad()), ElementsAre(4.0));
}

TEST(EngineTest, RequiresGradIsForFloatingLeaves) {
  Tensor i = fromVector<int64_t>({1, 2});
  EXPECT_THAT(errorOf([&] { i.requires_grad_(); }), HasSubstr("only Tensors of floating point and complex dtype"));
  Tensor a = leaf({1.0});
  Tensor y = a * 2.0;
  EXPECT_THAT(errorOf([&] { y.requires_grad_(false); }), HasSubstr("only change requires_grad flags of leaf variables"));
  a.requires_grad_(false);
  EXPECT_FALSE((a * 2.0).requires_grad());
}

TEST(EngineTest, MixedDtypesGetGradientsOfTheirOwnDtype) {
  Tensor f = testing::fromVector<float>({1.0f, 2.0f});
  f.requires_grad_();
  Tensor d = leaf({3.0, 4.0});
  (f * d).sum().backward();
  EXPECT_EQ(f.grad().scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(f.grad()), ElementsAre(3.0f, 4.0f));
}

TEST(EngineTest, MultiOutputOperatorsGiveGradientsToTheDifferentiableOutput) {
  Tensor x = fromVector<double>({1, 5, 3, 4, 2, 6}, {2, 3});
  x.requires_grad_();
  auto [values, indices] = opcore::max(x, 1);
  EXPECT_TRUE(values.requires_grad());
  EXPECT_FALSE(indices.requires_grad());
  values.sum().backward();
  EXPECT_THAT(toVector<double>(x.grad()), ElementsAre(0, 1, 0, 0, 0, 1));
}

TEST(EngineTest, AMissingDerivativeFailsOnlyWhenAGradientIsNeeded) {
  Tensor x = fromVector<double>({1, 2, 3, 4});
  Tensor i = opcore::arange(4).remainder(2);
  Tensor src = fromVector<double>({5, 6, 7, 8});
  EXPECT_EQ(opcore::scatter(x, 0, i, src, "add").numel(), 4) << "runs without gradients";
  x.requires_grad_();
  Tensor y = opcore::scatter(x, 0, i, src, "add");  // scatter.reduce: no derivative, as in PyTorch
  EXPECT_TRUE(y.requires_grad());
  EXPECT_THAT(errorOf([&] { y.sum().backward(); }), HasSubstr("derivative for aten::scatter.reduce is not implemented"));
}

TEST(EngineTest, OutOverloadsRefuseInputsThatRequireGrad) {
  Tensor a = leaf({1.0});
  Tensor out = fromVector<double>({0.0});
  EXPECT_THAT(errorOf([&] { opcore::add_out(out, a, a); }),
              HasSubstr("functions with out=... arguments don't support automatic differentiation"));
  autograd::NoGradGuard no_grad;
  opcore::add_out(out, a, a);
  EXPECT_THAT(toVector<double>(out), ElementsAre(2.0));
}

TEST(EngineTest, LongChainsRunAndAreFreedWithoutRecursion) {
  Tensor x = leaf({1.5});
  Tensor y = x;
  // log saves its input, so every node also holds the one before it through a saved tensor.
  for (int i = 0; i < 50000; ++i) y = y.log().exp();
  y.sum().backward(Tensor(), /*retain_graph=*/true);  // discovery and execution are iterative
  EXPECT_NEAR(toVector<double>(x.grad())[0], 1.0, 1e-9);
  y = Tensor();  // frees 100000 nodes; recursion would overflow the stack
}

}  // namespace
}  // namespace opcore

// Operators defined in C++ rather than in the YAML: without an autograd kernel they run
// through the Autograd fallback (their backward names them as not implemented); with a
// hand-written one and a Node subclass they are differentiable like generated operators.
#include <opcore/TensorOperators.h>
#include <opcore/autograd/Fallback.h>
#include <opcore/autograd/KernelSupport.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/library/Library.h>

#include "../../api/TestUtil.h"

namespace opcore {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::fromVector;
using testing::toVector;

Tensor twiceCpu(const Tensor& self) { return self * 2.0; }

// d(self^3)/d(self) = 3 self^2, saved as self.
class CubeBackward final : public autograd::Node {
 public:
  autograd::variable_list apply(autograd::variable_list&& grads) override {
    const Tensor self = self_.unpack();
    return {grads[0] * self * self * 3.0};
  }
  std::string name() const override { return "CubeBackward"; }
  void releaseVariables() override { self_.reset(); }
  autograd::SavedVariable self_;
};

Tensor cubeCpu(const Tensor& self) { return self * self * self; }

Tensor cubeAutograd(DispatchKeySet ks, const Tensor& self) {
  std::shared_ptr<CubeBackward> grad_fn;
  if (autograd::computeRequiresGrad(self)) {
    grad_fn = std::make_shared<CubeBackward>();
    grad_fn->setNextEdges(autograd::collectNextEdges(self));
    grad_fn->self_ = autograd::SavedVariable(self, false);
  }
  Tensor result = [&] {
    autograd::AutoDispatchBelowADInplaceOrView guard;
    static const auto op = Dispatcher::singleton().findSchemaOrThrow("agt::cube", "").typed<Tensor(const Tensor&)>();
    return op.redispatch(ks & kAfterAutogradKeySet, self);
  }();
  if (grad_fn) autograd::setHistory(result, grad_fn);
  return result;
}

OPCORE_LIBRARY(agt, m) {
  m.def("twice(Tensor self) -> Tensor");
  m.def("cube(Tensor self) -> Tensor");
}
OPCORE_LIBRARY_IMPL(agt, CPU, m) {
  m.impl("twice", OPCORE_FN(twiceCpu));
  m.impl("cube", OPCORE_FN(cubeCpu));
}
OPCORE_LIBRARY_IMPL(agt, Autograd, m) { m.impl("cube", OPCORE_FN(cubeAutograd)); }

Tensor call(const char* name, const Tensor& t) {
  return Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Tensor(const Tensor&)>().call(t);
}

TEST(CustomOpTest, WithoutAnAutogradKernelBackwardNamesTheOperator) {
  Tensor x = fromVector<double>({1.0, 2.0});
  EXPECT_THAT(toVector<double>(call("agt::twice", x)), ElementsAre(2.0, 4.0));
  x.requires_grad_();
  Tensor y = call("agt::twice", x);
  EXPECT_THAT(toVector<double>(y), ElementsAre(2.0, 4.0));
  ASSERT_TRUE(y.requires_grad());
  EXPECT_EQ(y.grad_fn()->name(), "NotImplemented");
  try {
    y.backward(fromVector<double>({1.0, 1.0}));
    ADD_FAILURE() << "backward through agt::twice should fail";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("derivative for agt::twice is not implemented"));
  }
}

std::string backwardError(const Tensor& y) {
  try {
    y.backward(fromVector<double>({1.0, 1.0}));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A selective build records the operators it keeps for inference only (their RegisterSchema.cpp);
// backward() through one gives that reason instead of asking for a formula, until it is
// deregistered.
TEST(CustomOpTest, AnOperatorRecordedAsInferenceOnlySaysSo) {
  Tensor x = fromVector<double>({1.0, 2.0});
  x.requires_grad_();
  {
    RegistrationHandleRAII handle = autograd::registerInferenceOnly({"agt::twice"}, "built for inference");
    const std::string error = backwardError(call("agt::twice", x));
    EXPECT_THAT(error, HasSubstr("derivative for agt::twice is not implemented (built for inference)"));
    EXPECT_THAT(error, Not(HasSubstr("derivatives.yaml")));
  }
  EXPECT_THAT(backwardError(call("agt::twice", x)),
              HasSubstr("derivative for agt::twice is not implemented; add a formula for it to yaml/derivatives.yaml"));
}

TEST(CustomOpTest, AHandWrittenAutogradKernelIsDifferentiable) {
  Tensor x = fromVector<double>({1.0, 2.0});
  x.requires_grad_();
  Tensor y = call("agt::cube", x);
  ASSERT_TRUE(y.requires_grad());
  EXPECT_EQ(y.grad_fn()->name(), "CubeBackward");
  y.backward(fromVector<double>({1.0, 1.0}));
  EXPECT_THAT(toVector<double>(x.grad()), ElementsAre(3.0, 12.0));
}

// Note [Borrowed IValues]: a generated autograd kernel served by its boxed adapter saves the
// borrowed inputs it needs (a copy owns them), and the boxed Autograd fallback sees owning
// values; both record the graph as an unboxed call does.
TEST(CustomOpTest, BoxedCallsWithBorrowedArgumentsRecordTheGraph) {
  Tensor a = fromVector<double>({1.0, 2.0}), b = fromVector<double>({3.0, 4.0});
  a.requires_grad_();
  b.requires_grad_();
  Stack stack;
  stack.push_back(IValue::borrow(a));
  stack.push_back(IValue::borrow(b));
  Dispatcher::singleton().findSchemaOrThrow("aten::mul", "Tensor").callBoxed(stack);
  ASSERT_EQ(stack.size(), 1u);
  const Tensor y(std::move(stack[0]).toTensorBase());
  stack.clear();
  EXPECT_THAT(toVector<double>(y), ElementsAre(3.0, 8.0));
  ASSERT_TRUE(y.requires_grad());
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  y.backward(fromVector<double>({1.0, 1.0}));
  EXPECT_THAT(toVector<double>(a.grad()), ElementsAre(3.0, 4.0));
  EXPECT_THAT(toVector<double>(b.grad()), ElementsAre(1.0, 2.0));

  stack.push_back(IValue::borrow(a));
  Dispatcher::singleton().findSchemaOrThrow("agt::twice", "").callBoxed(stack);
  ASSERT_EQ(stack.size(), 1u);
  const Tensor z(stack[0].toTensorBase());
  EXPECT_THAT(toVector<double>(z), ElementsAre(2.0, 4.0));
  EXPECT_EQ(z.grad_fn()->name(), "NotImplemented");
}

}  // namespace
}  // namespace opcore

// The checks the generated gradcheck tests rely on (runtime/opcore/autograd/Gradcheck.h) must
// fail when their condition does not hold, or the generated tests would pass vacuously.
#include <opcore/TensorOperators.h>
#include <opcore/autograd/Gradcheck.h>

#include "../../api/TestUtil.h"

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)
using autograd::DifferentiableFn;
using autograd::variable_list;

TEST(GradcheckSupportTest, InputsAreBuiltAsAsked) {
  Generator g = Generator::create(Device(kCPU), 3);
  Tensor u = autograd::uniformInput({2, 3}, 0.5, 2.0, g);
  EXPECT_EQ(u.scalar_type(), kDouble);
  for (double v : toVector<double>(u)) {
    EXPECT_GE(v, 0.5);
    EXPECT_LT(v, 2.0);
  }
  Tensor l = autograd::inputFromValues<int64_t>({4, 5, 6}, {3});
  EXPECT_EQ(l.scalar_type(), kLong);
  EXPECT_THAT(toVector<int64_t>(l), ElementsAre(4, 5, 6));
  EXPECT_THAT(errorOf([] { autograd::inputFromValues<double>({1.0}, {2}); }),
              HasSubstr("inputFromValues: 1 values for sizes [2]"));
}

TEST(GradcheckSupportTest, CheckNoGradientsReportsAnOutputThatRequiresGrad) {
  const variable_list inputs{autograd::inputFromValues<double>({1.0, 2.0}, {2})};
  const DifferentiableFn doubles = [](const variable_list& x) -> variable_list { return {x[0] * 2}; };
  EXPECT_EQ(autograd::checkNoGradients(doubles, inputs), "output 0 requires grad");
  const DifferentiableFn compares = [](const variable_list& x) -> variable_list { return {x[0].gt(1.5)}; };
  EXPECT_EQ(autograd::checkNoGradients(compares, inputs), "");
}

TEST(GradcheckSupportTest, CheckNotImplementedReportsABackwardThatWorks) {
  const variable_list inputs{autograd::inputFromValues<double>({1.0, 2.0}, {2})};
  const DifferentiableFn doubles = [](const variable_list& x) -> variable_list { return {x[0] * 2}; };
  EXPECT_EQ(autograd::checkNotImplemented(doubles, inputs), "backward did not throw");
  const DifferentiableFn none = [](const variable_list&) -> variable_list { return {}; };
  EXPECT_EQ(autograd::checkNotImplemented(none, inputs), "the function returned no output");
}

TEST(GradcheckSupportTest, InplaceAppliesOnlyWhenTheResultFitsSelf) {
  const variable_list same{autograd::inputFromValues<double>({1.0, 2.0}, {2}),
                           autograd::inputFromValues<double>({3.0, 4.0}, {2})};
  const variable_list broadcast{autograd::inputFromValues<double>({1.0}, {1}),
                                autograd::inputFromValues<double>({3.0, 4.0}, {2})};
  const DifferentiableFn add = [](const variable_list& x) -> variable_list { return {x[0] + x[1]}; };
  EXPECT_TRUE(autograd::inplaceApplies(add, same));
  EXPECT_FALSE(autograd::inplaceApplies(add, broadcast));
}

}  // namespace
}  // namespace opcore

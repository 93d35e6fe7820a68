// In-place operations and views under autograd: version counters, the leaf and saved-tensor
// errors, history rebasing, and in-place changes through views (CopySlices).
#include <opcore/TensorOperators.h>
#include <opcore/autograd/GradMode.h>
#include <opcore/autograd/Node.h>
#include <opcore/ops/zeros.h>

#include "../../api/TestUtil.h"

namespace opcore {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::errorOf;
using testing::fromVector;
using testing::leaf;
using testing::toVector;

TEST(InplaceTest, InPlaceOperationsBumpTheVersionSharedWithViews) {
  Tensor t = fromVector<double>({1, 2, 3, 4}, {2, 2});
  Tensor v = t.select(0, 1);
  const uint32_t before = t._version();
  t.add_(1.0);
  EXPECT_EQ(t._version(), before + 1);
  EXPECT_EQ(v._version(), t._version());
  v.mul_(2.0);
  EXPECT_EQ(t._version(), before + 2);
  Tensor out = fromVector<double>({0, 0, 0, 0}, {2, 2});
  opcore::add_out(out, t, t);
  EXPECT_EQ(out._version(), 1u) << "out= arguments are written in place too";
}

// The in-place comparisons have entries of their own in derivatives.yaml: they give self a
// zero gradient, as in PyTorch, instead of leaving it the history of its old values.
TEST(InplaceTest, InPlaceComparisonsCutTheGradient) {
  Tensor a = leaf({1.0, 2.0, 3.0});
  Tensor y = a * fromVector<double>({2.0, 2.0, 2.0});
  y.gt_(3.0);
  EXPECT_THAT(toVector<double>(y), ElementsAre(0, 1, 1));
  ASSERT_TRUE(y.requires_grad());
  EXPECT_EQ(y.grad_fn()->name(), "GtBackward3");
  y.sum().backward();
  EXPECT_THAT(toVector<double>(a.grad()), ElementsAre(0, 0, 0));
  EXPECT_THAT(errorOf([&] { a.eq_(fromVector<double>({1.0, 0.0, 3.0})); }),
              HasSubstr("a leaf Variable that requires grad is being used in an in-place operation."));
  EXPECT_FALSE(opcore::lt(a, 2.0).requires_grad()) << "the functional comparisons are not differentiable";
}

TEST(InplaceTest, ALeafThatRequiresGradCannotBeChangedInPlace) {
  Tensor a = leaf({1.0});
  EXPECT_THAT(errorOf([&] { a.add_(1.0); }), HasSubstr("a leaf Variable that requires grad is being used in an in-place operation."));
  EXPECT_THAT(errorOf([&] { a.view({1}).mul_(2.0); }), HasSubstr("a view of a leaf Variable that requires grad"));
  autograd::NoGradGuard no_grad;  // what optimizers do
  a.sub_(fromVector<double>({0.5}));
  EXPECT_THAT(toVector<double>(a), ElementsAre(0.5));
}

TEST(InplaceTest, ModifyingASavedTensorIsCaughtAtBackward) {
  Tensor a = leaf({2.0});
  Tensor b = a * 1.0;
  Tensor y = (b * b).sum();  // saves b
  b.add_(1.0);
  EXPECT_THAT(errorOf([&] { y.backward(); }),
              HasSubstr("one of the variables needed for gradient computation has been modified by an inplace operation"));
  EXPECT_THAT(errorOf([&] { y.backward(); }), HasSubstr("is at version 1; expected version 0 instead"));
}

TEST(InplaceTest, InPlaceOperationsRebaseHistory) {
  Tensor a = leaf({2.0, 3.0});
  Tensor b = a * 1.0;
  b.mul_(a);  // b = a * a
  EXPECT_EQ(b.grad_fn()->name(), "MulBackward0");
  b.mul_(3.0);  // b = 3 a^2
  EXPECT_EQ(b.grad_fn()->name(), "MulBackward1");
  b.sum().backward();
  EXPECT_THAT(toVector<double>(a.grad()), ElementsAre(12.0, 18.0));
}

TEST(InplaceTest, AnInPlaceChangeThroughAViewReachesTheBase) {
  Tensor w = leaf({10.0, 20.0});
  Tensor base = opcore::zeros({2, 2}, ScalarType::Double);
  Tensor row = base.select(0, 1);
  EXPECT_FALSE(base.requires_grad());
  row.copy_(w);  // base = [[0, 0], w]
  EXPECT_TRUE(base.requires_grad());
  EXPECT_EQ(base.grad_fn()->name(), "CopySlices");
  EXPECT_TRUE(row.requires_grad());
  Tensor other = base.select(0, 0);
  EXPECT_TRUE(other.requires_grad()) << "another view of the same base sees the change";
  (base * fromVector<double>({1, 2, 3, 4}, {2, 2})).sum().backward();
  EXPECT_THAT(toVector<double>(w.grad()), ElementsAre(3.0, 4.0));
}

TEST(InplaceTest, AnInPlaceOperationOnAViewIsDifferentiatedThroughTheView) {
  Tensor x = leaf({1.0, 2.0, 3.0, 4.0});
  Tensor y = x * 1.0;
  Tensor part = y.view({2, 2}).select(0, 0);  // y[0:2]
  part.mul_(fromVector<double>({3.0, 4.0}));  // y[0:2] *= [3, 4]
  y.sum().backward();
  EXPECT_THAT(toVector<double>(x.grad()), ElementsAre(3.0, 4.0, 1.0, 1.0));
}

}  // namespace
}  // namespace opcore

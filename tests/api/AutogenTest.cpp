// The overloads generated from `autogen:` (Note [Generated overloads] in gen/model/autogen.py),
// run through the C++ API: functional forms of in-place operators leave their input alone,
// out= forms resize and cast into `out` like hand-written out= overloads (also when `out` is
// an input), random ones draw what their in-place source draws, and autograd treats them like
// declared overloads.
#include <opcore/autograd/Node.h>
#include <opcore/core/Generator.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/ops/add.h>
#include <opcore/ops/clone.h>
#include <opcore/ops/div.h>
#include <opcore/ops/empty_like.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/normal.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/uniform.h>
#include <opcore/ops/zeros.h>

#include "TestUtil.h"

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)
using ::opcore::testing::leaf;

TEST(AutogenTest, FunctionalFormOfAnInPlaceOperatorLeavesItsInputAlone) {
  Tensor a = fromVector<float>({1, 2, 3, 4}, {2, 2});
  Tensor r = opcore::fill(a, 5);
  EXPECT_THAT(toVector<float>(r), ElementsAre(5, 5, 5, 5));
  EXPECT_EQ(shapeOf(r), shapeOf(a));
  EXPECT_THAT(toVector<float>(a), ElementsAre(1, 2, 3, 4));
  EXPECT_NE(r.data_ptr(), a.data_ptr());
}

TEST(AutogenTest, OutFormResizesAndReturnsOut) {
  Tensor a = fromVector<float>({1, 2, 3});
  Tensor out = opcore::empty({0});
  Tensor& same = opcore::fill_out(out, a, 7);
  EXPECT_EQ(&same, &out);
  EXPECT_EQ(shapeOf(out), std::vector<int64_t>({3}));
  EXPECT_THAT(toVector<float>(out), ElementsAre(7, 7, 7));
  EXPECT_THAT(toVector<float>(a), ElementsAre(1, 2, 3));
  opcore::fill_outf(a, -1, out);
  EXPECT_THAT(toVector<float>(out), ElementsAre(-1, -1, -1));
}

TEST(AutogenTest, ScalarOutOverloadsMatchTheFunctionalOnes) {
  Tensor a = fromVector<float>({1, 2, 4});
  Tensor out = opcore::empty({3});
  EXPECT_THAT(toVector<float>(opcore::add_out(out, a, 2, 3)), ElementsAre(7, 8, 10));
  EXPECT_THAT(toVector<float>(opcore::sub_out(out, a, 1)), ElementsAre(0, 1, 3));
  EXPECT_THAT(toVector<float>(opcore::mul_out(out, a, 0.5)), ElementsAre(0.5, 1, 2));
  // An integer tensor divided by a Scalar gives floats, cast into a float64 out.
  Tensor ints = fromVector<int64_t>({1, 2, 3});
  Tensor doubles = opcore::empty({3}, ScalarType::Double);
  EXPECT_THAT(toVector<double>(opcore::div_out(doubles, ints, 2)), ElementsAre(0.5, 1, 1.5));
}

TEST(AutogenTest, OutMayBeAnInput) {
  Tensor a = fromVector<float>({1, 2, 3});
  opcore::add_out(a, a, 10);
  EXPECT_THAT(toVector<float>(a), ElementsAre(11, 12, 13));
  Tensor b = fromVector<float>({1, 2, 3, 4}, {2, 2});
  Tensor row = b.select(0, 0);
  opcore::mul_out(row, row, 3);  // a view into b
  EXPECT_THAT(toVector<float>(b), ElementsAre(3, 6, 3, 4));
}

TEST(AutogenTest, OutOfTheWrongTypeOrDeviceIsAnError) {
  Tensor a = fromVector<float>({1.5, 2.5});
  Tensor longs = opcore::empty({2}, ScalarType::Long);
  EXPECT_THAT(errorOf([&] { opcore::fill_out(longs, a, 1); }),
              HasSubstr("aten::fill.Scalar_out: result type Float can't be cast to the desired output type Long"));
  Tensor meta = opcore::empty({2}, ScalarType::Float, std::nullopt, Device(DeviceType::Meta));
  EXPECT_THAT(errorOf([&] { opcore::clone_out(meta, a); }),
              HasSubstr("aten::clone.out: expected out on cpu, but it is on meta"));
}

TEST(AutogenTest, CloneAndEmptyLikeOut) {
  Tensor a = fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor out = opcore::empty({1}, ScalarType::Double);
  opcore::clone_out(out, a.t());
  EXPECT_EQ(shapeOf(out), std::vector<int64_t>({3, 2}));
  EXPECT_THAT(toVector<double>(out), ElementsAre(1, 4, 2, 5, 3, 6));
  Tensor like = opcore::empty({0});
  opcore::empty_like_out(like, a);
  EXPECT_EQ(shapeOf(like), std::vector<int64_t>({2, 3}));
}

TEST(AutogenTest, RandomFormsDrawWhatTheirInPlaceSourceDraws) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 11);
  Tensor a = opcore::zeros({8}, ScalarType::Double);
  Tensor drawn = opcore::uniform(a, -2, 2, g);
  EXPECT_THAT(toVector<double>(a), Each(0.0));
  g.set_current_seed(11);
  Tensor expected = opcore::zeros({8}, ScalarType::Double);
  expected.uniform_(-2, 2, g);
  EXPECT_EQ(toVector<double>(drawn), toVector<double>(expected));

  Tensor out = opcore::empty({0}, ScalarType::Double);
  g.set_current_seed(11);
  opcore::uniform_out(out, a, -2, 2, g);
  EXPECT_EQ(toVector<double>(out), toVector<double>(expected));

  g.set_current_seed(3);
  opcore::normal_out(out, a, 1, 0.5, g);
  g.set_current_seed(3);
  expected.normal_(1, 0.5, g);
  EXPECT_EQ(toVector<double>(out), toVector<double>(expected));
}

TEST(AutogenTest, AutogradUsesTheFunctionalFormulasAndRefusesOut) {
  Tensor x = leaf({1, 2, 3});
  Tensor y = opcore::fill(x, 4);
  ASSERT_TRUE(y.requires_grad());
  EXPECT_EQ(y.grad_fn()->name(), "FillBackward0");
  opcore::mul(y, x).sum().backward();
  EXPECT_THAT(toVector<double>(x.grad()), ElementsAre(4, 4, 4)) << "d(fill(x) * x)/dx = 4, through x only";
  Tensor out = opcore::empty({3}, ScalarType::Double);
  EXPECT_THAT(errorOf([&] { opcore::fill_out(out, x, 1); }), HasSubstr("don't support automatic differentiation"));
}

TEST(AutogenTest, GeneratedKernelsAreCompositeExplicitAutograd) {
  for (const char* name : {"fill.Scalar", "fill.Scalar_out", "uniform", "clone.out"}) {
    auto op = Dispatcher::singleton().findSchema(OperatorName::parse(std::string("aten::") + name));
    ASSERT_TRUE(op.has_value()) << name;
    EXPECT_TRUE(op->hasKernelForDispatchKey(DispatchKey::CompositeExplicitAutograd)) << name;
    EXPECT_FALSE(op->hasKernelForDispatchKey(DispatchKey::CPU)) << name;
  }
}

}  // namespace
}  // namespace opcore

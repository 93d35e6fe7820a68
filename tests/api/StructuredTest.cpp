// Structured kernels (Note [Structured kernels] in gen/api/structured.py): the functional,
// in-place and out= overloads of a `structured: True` operator share one meta function and
// one impl kernel through generated wrappers, and get a Meta registration for free.
#include <opcore/ops/add.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/neg.h>
#include <opcore/ops/ones.h>
#include <opcore/core/Structured.h>
#include <opcore/dispatch/Dispatcher.h>
#include "TestUtil.h"

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;

bool hasKernel(const char* name, const char* overload, DispatchKey key) {
  return Dispatcher::singleton().findSchemaOrThrow(name, overload).hasKernelForDispatchKey(key);
}

TEST(StructuredTest, DelegatesAreRegisteredAtTheOutOverloadsBackendsAndMeta) {
  for (const char* overload : {"Tensor", "out"}) {
    EXPECT_TRUE(hasKernel("aten::add", overload, DispatchKey::CPU)) << overload;
    EXPECT_TRUE(hasKernel("aten::add", overload, DispatchKey::Meta)) << overload;
    EXPECT_FALSE(hasKernel("aten::add", overload, DispatchKey::CompositeExplicitAutograd)) << overload;
  }
  EXPECT_TRUE(hasKernel("aten::add_", "Tensor", DispatchKey::CPU));
  EXPECT_TRUE(hasKernel("aten::exp", "", DispatchKey::Meta));
#ifdef OPCORE_WITH_CUDA
  EXPECT_TRUE(hasKernel("aten::add", "Tensor", DispatchKey::CUDA));  // add.out has a CUDA impl
  EXPECT_FALSE(hasKernel("aten::exp", "", DispatchKey::CUDA));       // exp.out has none
#endif
}

TEST(StructuredTest, FunctionalInPlaceAndOutAgree) {
  Tensor a = fromVector<float>({1, 2, 3}), b = fromVector<float>({10, 20, 30});
  Tensor functional = opcore::add(a, b, 2);
  Tensor out = opcore::empty({0});
  opcore::add_out(out, a, b, 2);
  Tensor inplace = fromVector<float>({1, 2, 3});
  inplace.add_(b, 2);
  for (const Tensor& t : {functional, out, inplace}) EXPECT_THAT(toVector<float>(t), ElementsAre(21, 42, 63));
}

TEST(StructuredTest, MetaFunctionChecksRunBeforeAnyOutputIsTouched) {
  Tensor out = fromVector<float>({7, 7});
  EXPECT_THAT(errorOf([&] { opcore::add_out(out, opcore::ones({2}), opcore::ones({3})); }),
              HasSubstr("must match the size"));
  EXPECT_EQ(shapeOf(out), (Shape{2}));
  EXPECT_THAT(toVector<float>(out), ElementsAre(7, 7));
  EXPECT_THAT(errorOf([] { opcore::neg(opcore::empty({2}, ScalarType::Bool)); }),
              HasSubstr("neg: negation is not defined on bool tensors"));
}

TEST(StructuredTest, OutputPreparationErrorsNameTheOverload) {
  Tensor meta_out = opcore::empty({2}, ScalarType::Float, Device(DeviceType::Meta));
  EXPECT_THAT(errorOf([&] { opcore::add_out(meta_out, opcore::ones({2}), opcore::ones({2})); }),
              HasSubstr("aten::add.out: expected out on cpu, but it is on meta"));
  Tensor long_self = opcore::empty({2}, ScalarType::Long);
  EXPECT_THAT(errorOf([&] { long_self.add_(opcore::ones({2})); }),
              HasSubstr("aten::add_.Tensor: result type Float can't be cast to the desired output type Long"));
}

TEST(StructuredTest, PrepareOutResizesUnlessOutSharesMemoryWithAnInput) {
  TensorSpec spec{{2, 2}, ScalarType::Float, Device(DeviceType::CPU)};
  Tensor out = opcore::empty({0});
  Tensor other = opcore::empty({3});
  detail::prepareOut("test", out, spec, {&other});
  EXPECT_EQ(shapeOf(out), (Shape{2, 2}));
  Tensor aliased = opcore::empty({3});
  detail::prepareOut("test", aliased, spec, {&aliased});
  EXPECT_EQ(shapeOf(aliased), (Shape{3})) << "resizing now would lose the input's values";
}

TEST(StructuredTest, MakeOutputAllocatesTheSpec) {
  Tensor t = detail::makeOutput({{2, 3}, ScalarType::Double, Device(DeviceType::Meta)});
  EXPECT_TRUE(t.isMeta());
  EXPECT_EQ(shapeOf(t), (Shape{2, 3}));
  EXPECT_EQ(t.scalarType(), ScalarType::Double);
}

}  // namespace
}  // namespace opcore

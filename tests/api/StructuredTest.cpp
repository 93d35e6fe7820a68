// Structured kernels (Note [Structured kernels] in gen/api/structured.py): the functional,
// in-place and out= overloads of a `structured: True` operator share one meta function and
// one impl kernel through generated wrappers, and get a Meta registration for free.
#include <opcore/ops/add.h>
#include <opcore/ops/add_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/mul_native.h>
#include <opcore/ops/neg.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/sum.h>
#include <opcore/core/Structured.h>
#include <opcore/core/TensorImpl.h>
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
#endif
  // add.out has no PrivateUse1 kernel in opcore's YAML (a backend of one's own brings its
  // own: docs/backends.md), so neither has its delegate.
  EXPECT_FALSE(hasKernel("aten::add", "out", DispatchKey::PrivateUse1));
  EXPECT_FALSE(hasKernel("aten::add", "Tensor", DispatchKey::PrivateUse1));
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
  Tensor meta_out = opcore::empty({2}, ScalarType::Float, std::nullopt, Device(DeviceType::Meta));
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

TEST(StructuredTest, ReductionsGetMetaForFreeToo) {
  Tensor m = opcore::empty({2, 3}, ScalarType::Int, std::nullopt, Device(DeviceType::Meta));
  Tensor rows = opcore::sum(m, IntArrayRef{1}, /*keepdim=*/true);
  EXPECT_TRUE(rows.is_meta());
  EXPECT_EQ(shapeOf(rows), (Shape{2, 1}));
  EXPECT_EQ(rows.scalar_type(), ScalarType::Long);  // integral sums are Long
  EXPECT_EQ(shapeOf(opcore::sum(m)), Shape{});
}

// A float tensor that says it is on cuda:<index> and owns no memory: enough for meta
// functions and output checks, which read metadata only, on a machine without a GPU.
Tensor onCuda(IntArrayRef sizes, DeviceIndex index = 0) {
  const Device device(DeviceType::CUDA, index);
  // Its storage claims the bytes the sizes need, as a Meta tensor's does.
  const auto nbytes = static_cast<size_t>(checkedNumel(sizes)) * sizeof(float);
  auto storage = makeIntrusive<StorageImpl>(DataPtr(nullptr, nullptr, device), nbytes);
  auto impl = makeIntrusive<TensorImpl>(std::move(storage), ScalarType::Float, device);
  impl->setSizesContiguous(sizes);
  return Tensor(TensorBase(std::move(impl)));
}

// Note [Devices of structured kernels] in gen/emit/structured.py: the generated CUDA wrappers
// of structured kernels check no devices; the meta function gives the result's device,
// letting a 0-dim CPU tensor join CUDA tensors as a wrapped scalar does.
TEST(StructuredTest, MetaFunctionsLetA0DimCpuTensorJoinAnotherDevice) {
  const Device gpu0(DeviceType::CUDA, 0);
  for (const TensorSpec& spec : {meta::add(scalarTensor<float>(2), onCuda({2, 3}), 1).out,
                                 meta::add(onCuda({2, 3}), scalarTensor<double>(2), 1).out,
                                 meta::mul(onCuda({2, 1}), onCuda({3})).out}) {
    EXPECT_EQ(spec.device, gpu0);
    EXPECT_EQ(spec.sizes, (Shape{2, 3}));
    EXPECT_EQ(spec.dtype, ScalarType::Float);
  }
  EXPECT_EQ(meta::add(onCuda({2}, 1), scalarTensor<float>(2), 1).out.device, Device(DeviceType::CUDA, 1));
}

TEST(StructuredTest, MetaFunctionsRejectOtherDeviceMixes) {
  EXPECT_THAT(errorOf([] { meta::add(onCuda({2}), fromVector<float>({1, 2}), 1); }),
              HasSubstr("add: expected all tensors to be on the same device, but found at least two "
                        "devices, cuda:0 and cpu"));
  EXPECT_THAT(errorOf([] { meta::mul(onCuda({2}, 0), onCuda({2}, 1)); }),
              HasSubstr("mul: expected all tensors to be on the same device, but found at least two "
                        "devices, cuda:0 and cuda:1"));
  // A CUDA 0-dim tensor is no wrapped scalar on the CPU.
  EXPECT_THAT(errorOf([] { meta::mul(fromVector<float>({1, 2}), onCuda({})); }),
              HasSubstr("devices, cpu and cuda:0"));
}

TEST(StructuredTest, OutAndInPlaceTensorsMustBeOnTheMetaFunctionsDevice) {
  const TensorSpec spec = meta::add(scalarTensor<float>(2), onCuda({2}), 1).out;
  Tensor cpu_out = opcore::empty({2});
  EXPECT_THAT(errorOf([&] { detail::prepareOut("aten::add.out", cpu_out, spec, {}); }),
              HasSubstr("aten::add.out: expected out on cuda:0, but it is on cpu"));
  EXPECT_THAT(errorOf([&] { detail::checkInplace("aten::add_.Tensor", scalarTensor<float>(2), spec); }),
              HasSubstr("aten::add_.Tensor: expected self on cuda:0, but it is on cpu"));
  Tensor gpu_out = onCuda({2});
  EXPECT_NO_THROW(detail::prepareOut("aten::add.out", gpu_out, spec, {}));
}

TEST(StructuredTest, MakeOutputAllocatesTheSpec) {
  Tensor t = detail::makeOutput({{2, 3}, ScalarType::Double, Device(DeviceType::Meta)});
  EXPECT_TRUE(t.is_meta());
  EXPECT_EQ(shapeOf(t), (Shape{2, 3}));
  EXPECT_EQ(t.scalar_type(), ScalarType::Double);
}

}  // namespace
}  // namespace opcore

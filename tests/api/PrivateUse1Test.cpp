// Tensors on an out-of-tree backend's device (PrivateUse1): the example backend
// (examples/backend, host memory) is loaded for each test and unloaded after it. It names the
// device "npu", has its own add, mul and mm, and runs what it lacks through the CPU fallback.
#include "TestUtil.h"

#include <opcore/Tensor.h>
#include <opcore/core/CachingHostAllocator.h>
#include <opcore/core/DeviceGuard.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/library/Library.h>
#include <opcore/ops/add.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/cat.h>
#include <opcore/ops/div.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/empty_like.h>
#include <opcore/ops/empty_strided.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/zeros.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <string>
#include <vector>

namespace opcore {
namespace {

using ::testing::HasSubstr;
using testing::errorOf;
using testing::toVector;

const Device kNpu0(DeviceType::PrivateUse1, 0);

std::vector<std::string>* g_warnings = nullptr;
void recordWarning(const std::string& msg) { g_warnings->push_back(msg); }

class PrivateUse1Test : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = dlopen(OPCORE_TEST_BACKEND_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(backend_, nullptr) << dlerror();
    live_bytes_ = reinterpret_cast<int64_t (*)()>(dlsym(backend_, "npu_live_bytes"));
    allocations_ = reinterpret_cast<int64_t (*)()>(dlsym(backend_, "npu_allocations"));
    ASSERT_NE(live_bytes_, nullptr);
    ASSERT_NE(allocations_, nullptr);
  }
  void TearDown() override {
    if (backend_ != nullptr) dlclose(backend_);
  }
  static Tensor values(int64_t n) { return opcore::arange(n).to(ScalarType::Float); }

  void* backend_ = nullptr;
  int64_t (*live_bytes_)() = nullptr;
  int64_t (*allocations_)() = nullptr;
};

TEST_F(PrivateUse1Test, TheBackendNamesItsDevices) {
  EXPECT_STREQ(toString(DeviceType::PrivateUse1), "npu");
  EXPECT_EQ(Device(DeviceType::PrivateUse1, 1).str(), "npu:1");
  EXPECT_EQ(parseDeviceType("npu"), DeviceType::PrivateUse1);
  EXPECT_EQ(parseDeviceType("privateuseone"), DeviceType::PrivateUse1);
  EXPECT_EQ(parseDeviceType("xpu"), std::nullopt);
  EXPECT_TRUE(is_privateuse1_backend_registered());
  register_privateuse1_backend("npu");  // the same name again: a library loaded twice
  try {
    register_privateuse1_backend("xpu");
    FAIL() << "PrivateUse1 was renamed twice";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("PrivateUse1 is already named 'npu'"));
  }
}

TEST_F(PrivateUse1Test, TensorsMoveToTheDeviceAndBackWithTheirValues) {
  const Tensor a = values(6).view({2, 3});
  const Tensor d = a.to(kNpu0);
  EXPECT_EQ(d.device(), kNpu0);
  EXPECT_TRUE(d.key_set().has(DispatchKey::PrivateUse1));
  EXPECT_EQ(toVector<float>(d.to(Device(DeviceType::CPU))), toVector<float>(a));
  // A strided source keeps its values; a tensor made while device 1 is current lives there.
  EXPECT_EQ(toVector<float>(a.t().to(kNpu0).to(Device(DeviceType::CPU))), toVector<float>(a.t()));
  {
    DeviceGuard guard(Device(DeviceType::PrivateUse1, 1));
    EXPECT_EQ(a.to(Device(DeviceType::PrivateUse1)).device(), Device(DeviceType::PrivateUse1, 1));
  }
  EXPECT_EQ(a.to(Device(DeviceType::PrivateUse1)).device(), kNpu0);
}

TEST_F(PrivateUse1Test, TheBackendKeepsTheCurrentStreamOfEachDevice) {
  const DeviceGuardImpl* impl = deviceGuardImpl(DeviceType::PrivateUse1);
  ASSERT_NE(impl, nullptr);
  EXPECT_EQ(currentStream(Device(DeviceType::PrivateUse1)), Stream(kNpu0));
  const Stream previous = impl->exchangeStream(Stream(kNpu0, 3));
  EXPECT_EQ(previous, Stream(kNpu0));
  EXPECT_EQ(currentStream(kNpu0), Stream(kNpu0, 3));
  EXPECT_EQ(currentStream(Device(DeviceType::PrivateUse1, 1)).id, 0);
  impl->exchangeStream(previous);
  EXPECT_EQ(currentStream(kNpu0).id, 0);
  EXPECT_EQ(currentStream(Device(DeviceType::CPU)), Stream(Device(DeviceType::CPU)));
}

TEST_F(PrivateUse1Test, NativeKernelsAndTheCpuFallbackComputeAsTheCpuDoes) {
  const Tensor a = values(6), b = values(6).add(Scalar(1.0));
  const Tensor da = a.to(kNpu0), db = b.to(kNpu0);
  const Tensor sum = opcore::add(da, db);  // the backend's kernel
  EXPECT_EQ(sum.device(), kNpu0);
  EXPECT_EQ(toVector<float>(sum.to(Device(DeviceType::CPU))), toVector<float>(opcore::add(a, b)));
  const Tensor quotient = opcore::div(da, db);  // the CPU fallback
  EXPECT_EQ(quotient.device(), kNpu0);
  EXPECT_EQ(toVector<float>(quotient.to(Device(DeviceType::CPU))), toVector<float>(opcore::div(a, b)));
  Tensor dc = a.to(kNpu0);
  Tensor& same = dc.div_(Scalar(2.0));  // written back into the device tensor, which is returned
  EXPECT_EQ(same.unsafeGetTensorImpl(), dc.unsafeGetTensorImpl());
  EXPECT_EQ(toVector<float>(dc.to(Device(DeviceType::CPU))), toVector<float>(a.div(Scalar(2.0))));
  const Tensor total = opcore::sum(da);
  EXPECT_EQ(total.device(), kNpu0);
  EXPECT_EQ(total.to(Device(DeviceType::CPU)).item<float>(), 15.0f);

  // Tensors on two of the backend's devices are refused, naming both; a CPU scalar is the CPU
  // kernel's to take.
  const Tensor on_npu1 = b.to(Device(DeviceType::PrivateUse1, 1));
  EXPECT_THAT(errorOf([&] { opcore::div(da, on_npu1); }),
              HasSubstr("aten::div.Tensor: expected all tensors to be on the same device, but found at least two "
                        "devices, npu:0 (argument 'self') and npu:1 (argument 'other')"));
  EXPECT_THAT(errorOf([&] { opcore::cat({da, on_npu1}); }),
              HasSubstr("found at least two devices, npu:0 (argument 'tensors') and npu:1 (argument 'tensors')"));
  EXPECT_EQ(toVector<float>(opcore::div(da, testing::scalarTensor(2.0f)).to(Device(DeviceType::CPU))),
            toVector<float>(a.div(Scalar(2.0))));
}

TEST_F(PrivateUse1Test, TheFallbackWarnsOncePerOperator) {
  std::vector<std::string> warnings;
  g_warnings = &warnings;
  const detail::WarningHandler previous = detail::setWarningHandler(&recordWarning);
  const Tensor da = values(4).to(kNpu0);
  opcore::sub(da, da);
  opcore::sub(da, da);
  detail::setWarningHandler(previous);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("the operator 'aten::sub.Tensor' is not implemented for npu; it runs on the CPU"));
}

TEST_F(PrivateUse1Test, AutogradRunsOnTheDevice) {
  Tensor x = values(4).to(kNpu0);
  x.requires_grad_();
  opcore::sum(opcore::mul(x, x)).backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().device(), kNpu0);
  EXPECT_EQ(toVector<float>(x.grad().to(Device(DeviceType::CPU))), toVector<float>(values(4).mul(Scalar(2.0))));
}

TEST_F(PrivateUse1Test, AGradientGoesBackToTheDeviceItsInputCameFrom) {
  Tensor x = values(4);
  x.requires_grad_();
  opcore::sum(opcore::mul(x.to(kNpu0), x.to(kNpu0, ScalarType::Double))).backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_TRUE(x.grad().is_cpu());
  EXPECT_EQ(x.grad().scalar_type(), ScalarType::Float);
  EXPECT_EQ(toVector<float>(x.grad()), toVector<float>(values(4).mul(Scalar(2.0))));
  // A copy_ into a device tensor sends its source's gradient back to the source's device too.
  Tensor y = values(3);
  y.requires_grad_();
  Tensor d = opcore::zeros({3}, TensorOptions().device(kNpu0).dtype(ScalarType::Double));
  d.copy_(y);
  opcore::sum(d).backward();
  EXPECT_TRUE(y.grad().is_cpu());
  EXPECT_EQ(y.grad().scalar_type(), ScalarType::Float);
}

// The tensors a backward formula makes (masks, positions) are made on the gradient's device:
// npu's mul, which these reach, refuses a CPU operand as a CUDA kernel does.
TEST_F(PrivateUse1Test, BackwardFormulasMakeTheirTensorsOnTheDevice) {
  Tensor x = values(6).view({2, 3}).to(kNpu0);
  x.requires_grad_();
  opcore::sum(x.select(0, 1)).backward();
  EXPECT_EQ(x.grad().device(), kNpu0);
  EXPECT_THAT(toVector<float>(x.grad().to(Device(DeviceType::CPU))), ::testing::ElementsAre(0, 0, 0, 1, 1, 1));
  Tensor w = testing::fromVector<float>({2, 0, 3}, {3}).to(kNpu0);  // a zero: each position apart
  w.requires_grad_();
  w.prod(0).backward();
  EXPECT_THAT(toVector<float>(w.grad().to(Device(DeviceType::CPU))), ::testing::ElementsAre(0, 6, 0));
  Tensor c = testing::fromVector<float>({2, 0, 3}, {3}).to(kNpu0);
  c.requires_grad_();
  opcore::sum(c.cumprod(0)).backward();  // d/dc of 2 + 0 + 0
  EXPECT_THAT(toVector<float>(c.grad().to(Device(DeviceType::CPU))), ::testing::ElementsAre(1, 8, 0));
}

// The backend pins host memory (examples/backend/NpuDevice.cpp): pin_memory() copies into it, and
// a non-blocking copy from the device lands in it.
TEST_F(PrivateUse1Test, PinnedMemoryComesFromTheBackendsHostAllocator) {
  const Tensor a = values(6).view({2, 3});
  EXPECT_FALSE(a.is_pinned());
  const Tensor p = a.pin_memory(kNpu0);
  EXPECT_TRUE(p.is_cpu());
  EXPECT_TRUE(p.is_pinned(kNpu0));
  EXPECT_FALSE(p.is_pinned(Device(DeviceType::CUDA)));
  EXPECT_EQ(toVector<float>(p), toVector<float>(a));
  EXPECT_TRUE(p.pin_memory(kNpu0).is_same(p));  // pinned already: itself
  const Tensor t = a.t().pin_memory(kNpu0);     // dense: its strides kept
  EXPECT_EQ(t.strides(), a.t().strides());
  EXPECT_EQ(toVector<float>(t), toVector<float>(a.t()));
  const Tensor every_other = a.slice(1, 0, 3, 2).pin_memory(kNpu0);  // not dense: made contiguous
  EXPECT_TRUE(every_other.is_contiguous());
  EXPECT_EQ(toVector<float>(every_other), toVector<float>(a.slice(1, 0, 3, 2)));

  const Tensor d = a.to(kNpu0);
  EXPECT_FALSE(d.is_pinned());
  EXPECT_THAT(errorOf([&] { d.pin_memory(); }), HasSubstr("cannot pin a tensor on npu:0: only dense CPU tensors"));
  const Tensor back = d.to(Device(DeviceType::CPU), std::nullopt, /*non_blocking=*/true);
  EXPECT_TRUE(back.is_pinned(kNpu0));
  EXPECT_EQ(toVector<float>(back), toVector<float>(a));
  EXPECT_FALSE(d.to(Device(DeviceType::CPU)).is_pinned());  // a blocking copy: pageable memory

  // A pinned storage that grows stays pinned, its bytes kept (resize_), as does an out= tensor's.
  Tensor grown = a.pin_memory(kNpu0);
  grown.resize_({4, 5});
  EXPECT_TRUE(grown.is_pinned(kNpu0));
  EXPECT_EQ(toVector<float>(grown.view({-1}).slice(0, 0, 6)), toVector<float>(a.view({-1})));
  Tensor out = values(1).pin_memory(kNpu0);
  opcore::add_out(out, a, a);
  EXPECT_TRUE(out.is_pinned(kNpu0));
  EXPECT_EQ(toVector<float>(out), toVector<float>(a.mul(Scalar(2.0))));

  // Autograd flows through the copy.
  Tensor x = values(3);
  x.requires_grad_();
  opcore::sum(opcore::mul(x.pin_memory(kNpu0), x)).backward();
  EXPECT_EQ(toVector<float>(x.grad()), toVector<float>(values(3).mul(Scalar(2.0))));
}

TEST_F(PrivateUse1Test, FactoriesPinWhenAsked) {
  if (hostAllocator(DeviceType::CUDA) != nullptr) GTEST_SKIP() << "a GPU is present: CUDA pins by default";
  const Tensor e = opcore::empty({4, 5}, TensorOptions().pinned_memory(true));
  EXPECT_TRUE(e.is_pinned(kNpu0));
  EXPECT_EQ(e.sizes(), (std::vector<int64_t>{4, 5}));
  const Tensor s = opcore::empty_strided({2, 3}, {1, 2}, TensorOptions().pinned_memory(true));
  EXPECT_TRUE(s.is_pinned());
  EXPECT_EQ(s.strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(opcore::empty_like(values(3), TensorOptions().pinned_memory(true)).is_pinned());
  EXPECT_THAT(errorOf([] { opcore::empty({2}, TensorOptions().device(kNpu0).pinned_memory(true)); }),
              HasSubstr("only dense CPU tensors can be pinned, not a tensor on npu"));
  EXPECT_THAT(errorOf([] { opcore::empty({2}, TensorOptions().device(Device(DeviceType::Meta)).pinned_memory(true)); }),
              HasSubstr("only dense CPU tensors can be pinned, not a tensor on meta"));
}

TEST_F(PrivateUse1Test, ViewOperatorsAndCopiesDoNotFallBack) {
  Library lib(Library::DEF, "npu_test", std::nullopt, __FILE__, __LINE__);
  lib.def("alias_of(Tensor(a) self) -> Tensor(a)");
  Library cpu(Library::IMPL, "npu_test", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("alias_of", [](const Tensor& self) { return self; });
  const auto op = Dispatcher::singleton().findSchemaOrThrow("npu_test::alias_of", "").typed<Tensor(const Tensor&)>();
  try {
    op.call(values(2).to(kNpu0));
    FAIL() << "a view operator fell back to the CPU";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("'npu_test::alias_of' is a view operator with no kernel for this backend"));
  }
}

TEST_F(PrivateUse1Test, TheAllocatorCountsWhatTensorsHold) {
  const int64_t live = live_bytes_(), allocations = allocations_();
  {
    const Tensor d = values(256).to(kNpu0);
    EXPECT_EQ(live_bytes_(), live + 1024);
    EXPECT_EQ(allocations_(), allocations + 1);
    const Tensor product = opcore::mul(d, d);
    EXPECT_EQ(live_bytes_(), live + 2048);
  }
  EXPECT_EQ(live_bytes_(), live);
}

// Every operator's registrations and the fallbacks, as text.
std::string dispatcherState() {
  Dispatcher& dispatcher = Dispatcher::singleton();
  std::string state = dispatcher.dumpFallbacks();
  for (const std::string& name : dispatcher.allOperatorNames()) {
    state += dispatcher.findSchema(OperatorName::parse(name))->dumpState();
  }
  return state;
}

TEST_F(PrivateUse1Test, DlcloseRemovesTheBackend) {
  ASSERT_EQ(live_bytes_(), 0) << "an earlier test left tensors on the device";
  const OperatorHandle copy = Dispatcher::singleton().findSchemaOrThrow("aten::copy_", "");
  EXPECT_TRUE(copy.hasKernelForDispatchKey(DispatchKey::PrivateUse1));
  EXPECT_THAT(Dispatcher::singleton().dumpFallbacks(), HasSubstr("registered at NpuDevice.cpp"));
  ASSERT_EQ(dlclose(backend_), 0);
  backend_ = nullptr;
  EXPECT_EQ(dlopen(OPCORE_TEST_BACKEND_PATH, RTLD_NOW | RTLD_NOLOAD), nullptr) << "the backend is still mapped";
  EXPECT_FALSE(copy.hasKernelForDispatchKey(DispatchKey::PrivateUse1));
  EXPECT_EQ(deviceGuardImpl(DeviceType::PrivateUse1), nullptr);
  try {
    values(2).to(kNpu0);
    FAIL() << "a tensor was made on the device of an unloaded backend";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("PrivateUse1"));
  }

  // Loaded and unloaded once more, it leaves the dispatcher exactly as it found it.
  const std::string unloaded = dispatcherState();
  EXPECT_THAT(unloaded, ::testing::Not(HasSubstr("NpuDevice.cpp")));
  EXPECT_THAT(unloaded, ::testing::Not(HasSubstr("RegisterNPU.cpp")));
  void* again = dlopen(OPCORE_TEST_BACKEND_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(again, nullptr) << dlerror();
  EXPECT_THAT(dispatcherState(), HasSubstr("RegisterNPU.cpp"));
  ASSERT_EQ(dlclose(again), 0);
  EXPECT_EQ(dispatcherState(), unloaded);
  Dispatcher::singleton().checkInvariants();
}

}  // namespace
}  // namespace opcore

// Tensors on an out-of-tree backend's device (PrivateUse1): the example backend
// (examples/backend, host memory) is loaded for each test and unloaded after it. It names the
// device "npu", has its own add, mul and mm, and runs what it lacks through the CPU fallback.
#include "TestUtil.h"

#include <opcore/Tensor.h>
#include <opcore/core/DeviceGuard.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/library/Library.h>
#include <opcore/ops/add.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/div.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/sum.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <string>
#include <vector>

namespace opcore {
namespace {

using ::testing::HasSubstr;
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

// DeviceGuard and the same-device check that generated CUDA wrappers run first. A fake
// DeviceGuardImpl stands in for the CUDA runtime, so these run without a GPU.
#include <opcore/core/DeviceGuard.h>
#include <opcore/core/Empty.h>
#include <opcore/core/Error.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace opcore {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FakeGuardImpl final : public DeviceGuardImpl {
 public:
  DeviceIndex currentDevice() const override { return current; }
  void setDevice(DeviceIndex index) const override {
    current = index;
    sets.push_back(index);
  }
  mutable DeviceIndex current = 0;
  mutable std::vector<int> sets;
};

// Installs a fake for CUDA for one test and puts back whatever was there (the real one in
// CUDA builds).
class DeviceGuardTest : public ::testing::Test {
 protected:
  void SetUp() override { previous_ = setDeviceGuardImpl(DeviceType::CUDA, &fake_); }
  void TearDown() override { setDeviceGuardImpl(DeviceType::CUDA, previous_); }
  FakeGuardImpl fake_;
  const DeviceGuardImpl* previous_ = nullptr;
};

TEST_F(DeviceGuardTest, SwitchesToTheDeviceAndRestoresThePreviousOne) {
  {
    DeviceGuard guard(Device(DeviceType::CUDA, 1));
    EXPECT_EQ(fake_.current, 1);
    {
      DeviceGuard inner(Device(DeviceType::CUDA, 2));
      EXPECT_EQ(fake_.current, 2);
    }
    EXPECT_EQ(fake_.current, 1);
  }
  EXPECT_EQ(fake_.current, 0);
  EXPECT_THAT(fake_.sets, ElementsAre(1, 2, 1, 0));
}

TEST_F(DeviceGuardTest, DoesNothingWhenAlreadyCurrentOrWithoutIndexOrImpl) {
  { DeviceGuard same(Device(DeviceType::CUDA, 0)); }
  { DeviceGuard current(Device(DeviceType::CUDA)); }  // index -1: the current device
  { DeviceGuard cpu(Device(DeviceType::CPU, 0)); }    // CPU has no DeviceGuardImpl
  EXPECT_TRUE(fake_.sets.empty());
}

TEST(DeviceCheckTest, NamesTheOperatorAndBothArguments) {
  TensorBase cpu = detail::emptyCpu({2}, ScalarType::Float);
  TensorBase meta = detail::empty({2}, ScalarType::Float, Device(DeviceType::Meta));
  TensorBase undefined;
  EXPECT_NO_THROW(detail::checkSameDevice("aten::add.out", {{"self", &cpu}, {"other", &cpu}, {"x", &undefined}}));
  try {
    detail::checkSameDevice("aten::add.out", {{"self", &cpu}, {"other", &cpu}, {"out", &meta}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(std::string(e.what()),
                HasSubstr("aten::add.out: expected all tensors to be on the same device, but found at least "
                          "two devices, cpu (argument 'self') and meta (argument 'out')"));
  }
}

}  // namespace
}  // namespace opcore

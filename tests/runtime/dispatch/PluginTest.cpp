// Loading and unloading a plugin library (tests/plugin/TestPlugin.cpp) adds and removes
// exactly its operators, kernels and fallbacks.
#include "DispatchTestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>

namespace opcore {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace ::opcore::dispatch_test;

bool isDefined(const std::string& name) {
  const auto names = Dispatcher::singleton().allOperatorNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(PluginTest, DlcloseRemovesEverythingThePluginRegistered) {
  auto neg = opNamed("aten::neg");
  const std::string neg_state = neg.dumpState();
  const std::string fallbacks = Dispatcher::singleton().dumpFallbacks();
  ASSERT_FALSE(isDefined("plugin_ops::triple"));

  void* plugin = dlopen(OPCORE_TEST_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(plugin, nullptr) << dlerror();
  EXPECT_TRUE(isDefined("plugin_ops::triple"));
  EXPECT_EQ(callOp("plugin_ops::triple", detail::emptyCpu({2, 5}, ScalarType::Float)), 30);
  EXPECT_TRUE(neg.hasKernelForDispatchKey(DispatchKey::PrivateUse1));
  EXPECT_THAT(neg.dumpState(), HasSubstr("PrivateUse1: [registered at TestPlugin.cpp:"));
  EXPECT_THAT(Dispatcher::singleton().dumpFallbacks(), HasSubstr("PrivateUse1: [registered at TestPlugin.cpp:"));

  ASSERT_EQ(dlclose(plugin), 0) << dlerror();
  EXPECT_EQ(dlopen(OPCORE_TEST_PLUGIN_PATH, RTLD_NOW | RTLD_NOLOAD), nullptr) << "the plugin is still mapped";
  EXPECT_FALSE(isDefined("plugin_ops::triple"));
  EXPECT_FALSE(Dispatcher::singleton().findSchema({"plugin_ops::triple", ""}).has_value());
  EXPECT_EQ(neg.dumpState(), neg_state);
  EXPECT_FALSE(neg.hasKernelForDispatchKey(DispatchKey::PrivateUse1));
  EXPECT_EQ(Dispatcher::singleton().dumpFallbacks(), fallbacks);
  Dispatcher::singleton().checkInvariants();

  // The namespace can be claimed again: the plugin loads a second time.
  plugin = dlopen(OPCORE_TEST_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(plugin, nullptr) << dlerror();
  EXPECT_EQ(callOp("plugin_ops::triple", cpuTensor()), 3);
  ASSERT_EQ(dlclose(plugin), 0);
  EXPECT_FALSE(isDefined("plugin_ops::triple"));
}

}  // namespace
}  // namespace opcore

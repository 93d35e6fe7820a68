// Ties the generator to the runtime: every operator in yaml/native_functions.yaml (declared, or
// generated from `autogen:`) is defined with the dispatcher, with the same schema text, and
// every generated kernel registration belongs to a defined operator.
#include <opcore/ops/full.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/mul_native.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/library/Library.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace opcore {
namespace {

TEST(RegistrationTest, EveryYamlOperatorIsDefinedWithItsSchema) {
  std::ifstream in(std::string(OPCORE_SOURCE_DIR) + "/yaml/native_functions.yaml");
  ASSERT_TRUE(in.good());
  int count = 0;
  for (std::string line; std::getline(in, line);) {
    const std::string autogen = "  autogen: ";
    if (line.rfind(autogen, 0) == 0) {  // generated overloads: `autogen: fill.Scalar, fill.Scalar_out`
      std::stringstream names(line.substr(autogen.size()));
      for (std::string n; std::getline(names, n, ',');) {
        n.erase(0, n.find_first_not_of(' '));
        EXPECT_TRUE(Dispatcher::singleton().findSchema(OperatorName::parse("aten::" + n)).has_value())
            << "aten::" << n << " (autogen) is not registered";
        ++count;
      }
      continue;
    }
    const std::string prefix = "- func: ";
    if (line.rfind(prefix, 0) != 0) continue;
    const std::string schema = line.substr(prefix.size());
    OperatorName name = OperatorName::parse(schema.substr(0, schema.find('(')));
    name.name = "aten::" + name.name;
    auto op = Dispatcher::singleton().findSchema(name);
    ASSERT_TRUE(op.has_value()) << name.str() << " is not registered";
    EXPECT_EQ(op->schema().str(), "aten::" + schema);
    ++count;
  }
  size_t aten_ops = 0;
  for (const std::string& n : Dispatcher::singleton().allOperatorNames()) aten_ops += n.rfind("aten::", 0) == 0;
  EXPECT_EQ(static_cast<size_t>(count), aten_ops) << "an aten operator is registered that the YAML does not declare";
}

TEST(RegistrationTest, NoKernelIsRegisteredForAnUndefinedOperator) {
  EXPECT_THAT(Dispatcher::singleton().findDanglingImpls(), ::testing::IsEmpty());
}

TEST(RegistrationTest, CompositeAndBackendKernelsLandAtTheirKeys) {
  auto add_out = *Dispatcher::singleton().findSchema({"aten::add", "out"});
  EXPECT_TRUE(add_out.hasKernelForDispatchKey(DispatchKey::CPU));
  auto mean = *Dispatcher::singleton().findSchema({"aten::mean", ""});
  EXPECT_TRUE(mean.hasKernelForDispatchKey(DispatchKey::CompositeImplicitAutograd));
  EXPECT_THAT(mean.dumpComputedTable(), ::testing::HasSubstr("CPU: composite implicit from CompositeImplicitAutograd"));
  auto view = *Dispatcher::singleton().findSchema({"aten::view", ""});
  EXPECT_TRUE(view.hasKernelForDispatchKey(DispatchKey::CPU));
  EXPECT_TRUE(view.hasKernelForDispatchKey(DispatchKey::Meta));
#ifdef OPCORE_WITH_CUDA
  EXPECT_TRUE(view.hasKernelForDispatchKey(DispatchKey::CUDA));  // RegisterCUDA.cpp is built
#else
  EXPECT_FALSE(view.hasKernelForDispatchKey(DispatchKey::CUDA));  // RegisterCUDA.cpp is not built
#endif
  add_out.checkInvariants();
  mean.checkInvariants();
}

// The generated opcore::redispatch:: functions (ops/<op>_native.h) dispatch on the caller's key set.
TEST(RegistrationTest, GeneratedRedispatchUsesTheGivenKeySet) {
  Library pu1(Library::IMPL, "aten", DispatchKey::PrivateUse1, __FILE__, __LINE__);
  pu1.impl("mul.Tensor", [](const Tensor& self, const Tensor&) { return self; });
  Tensor a = opcore::full({2}, 3.0), b = opcore::full({2}, 4.0);
  Tensor on_pu1 = opcore::redispatch::mul(DispatchKeySet(DispatchKey::PrivateUse1), a, b);
  EXPECT_TRUE(on_pu1.is_same(a)) << "the PrivateUse1 kernel ran although the tensors are on the CPU";
  Tensor on_cpu = opcore::redispatch::mul(DispatchKeySet(DispatchKey::CPU), a, b);
  EXPECT_EQ(on_cpu.data_ptr<float>()[1], 12.0f);
}

}  // namespace
}  // namespace opcore

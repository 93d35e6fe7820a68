// Tests of the dispatcher: registration, the computed dispatch table rule by rule, RAII
// deregistration in every order, thread-local key sets, redispatch and error messages.
#include "DispatchTestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace opcore {
namespace {

using ::testing::HasSubstr;
using namespace ::opcore::dispatch_test;

TEST(DispatcherTest, CallsTheKernelOfTheTensorsBackend) {
  auto def = defLib("dt1");
  def.def("f(Tensor self) -> int");
  auto cpu = implLib("dt1", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));
  auto meta = implLib("dt1", DispatchKey::Meta);
  meta.impl("f", OPCORE_FN(returnsTwo));
  EXPECT_EQ(callOp("dt1::f", cpuTensor()), 1);
  EXPECT_EQ(callOp("dt1::f", metaTensor()), 2);
}

TEST(DispatcherTest, MissingKernelNamesOperatorKeyAndRegisteredKeys) {
  auto def = defLib("dt2");
  def.def("f(Tensor self) -> int");
  auto cpu = implLib("dt2", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));
  const std::string msg = errorOf([] { callOp("dt2::f", metaTensor()); });
  EXPECT_THAT(msg, HasSubstr("could not run 'dt2::f'"));
  EXPECT_THAT(msg, HasSubstr("no kernel is registered for dispatch key Meta"));
  EXPECT_THAT(msg, HasSubstr("has kernels for: [CPU]"));
}

TEST(DispatcherTest, CompositeExplicitAutogradServesEveryBackend) {
  auto def = defLib("dt3");
  def.def("f(Tensor self) -> int");
  auto comp = implLib("dt3", DispatchKey::CompositeExplicitAutograd);
  comp.impl("f", OPCORE_FN(returnsThree));
  EXPECT_EQ(callOp("dt3::f", cpuTensor()), 3);
  EXPECT_EQ(callOp("dt3::f", metaTensor()), 3);
  auto cpu = implLib("dt3", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));
  EXPECT_EQ(callOp("dt3::f", cpuTensor()), 1) << "a backend's own kernel wins over a composite";
  EXPECT_EQ(callOp("dt3::f", metaTensor()), 3);
}

TEST(DispatcherTest, ComputedTableNamesTheRuleForEachKey) {
  auto def = defLib("dt4");
  def.def("f(Tensor self) -> int");
  auto implicit = implLib("dt4", DispatchKey::CompositeImplicitAutograd, 100);
  implicit.impl("f", OPCORE_FN(returnsTwo));
  auto cpu = implLib("dt4", DispatchKey::CPU, 200);
  cpu.impl("f", OPCORE_FN(returnsOne));
  auto op = *Dispatcher::singleton().findSchema({"dt4::f", ""});
  // The autograd runtime's fallbacks come from autograd/Fallback.cpp; their line numbers are
  // that file's business.
  const std::string table =
      std::regex_replace(op.dumpComputedTable(), std::regex(R"(Fallback\.cpp:[0-9]+)"), "Fallback.cpp:<line>");
  EXPECT_EQ(table,
            "Undefined: composite implicit from CompositeImplicitAutograd [registered at DispatcherTest.cpp:100]\n"
            "CPU: kernel from CPU [registered at DispatcherTest.cpp:200]\n"
            "CUDA: composite implicit from CompositeImplicitAutograd [registered at DispatcherTest.cpp:100]\n"
            "Meta: composite implicit from CompositeImplicitAutograd [registered at DispatcherTest.cpp:100]\n"
            "PrivateUse1: composite implicit from CompositeImplicitAutograd [registered at DispatcherTest.cpp:100]\n"
            "ADInplaceOrView: fallback (fallthrough) from ADInplaceOrView [registered at Fallback.cpp:<line>]\n"
            "AutogradOther: composite implicit from CompositeImplicitAutograd [registered at DispatcherTest.cpp:100]\n"
            "AutogradCPU: fallback from AutogradCPU [registered at Fallback.cpp:<line>]\n"
            "AutogradCUDA: composite implicit from CompositeImplicitAutograd [registered at DispatcherTest.cpp:100]\n"
            "AutogradMeta: composite implicit from CompositeImplicitAutograd [registered at DispatcherTest.cpp:100]\n"
            "AutogradPrivateUse1: composite implicit from CompositeImplicitAutograd [registered at DispatcherTest.cpp:100]\n")
      << "AutogradCPU must not use the composite: CPU has its own kernel";
  auto autograd = implLib("dt4", DispatchKey::Autograd, 300);
  autograd.impl("f", OPCORE_FN(returnsThree));
  EXPECT_THAT(op.dumpComputedTable(),
              HasSubstr("AutogradCPU: autograd alias from Autograd [registered at DispatcherTest.cpp:300]\n"));
  op.checkInvariants();
}

TEST(DispatcherTest, RedispatchUsesTheGivenKeySet) {
  auto def = defLib("dt5");
  def.def("f(Tensor self) -> int");
  auto cpu = implLib("dt5", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));
  auto meta = implLib("dt5", DispatchKey::Meta);
  meta.impl("f", OPCORE_FN(returnsTwo));
  auto op = Dispatcher::singleton().findSchemaOrThrow("dt5::f", "").typed<UnaryFn>();
  EXPECT_EQ(op.redispatch(DispatchKeySet(DispatchKey::Meta), cpuTensor()), 2);
}

TEST(DispatcherTest, ThreadLocalGuardsIncludeAndExcludeKeys) {
  auto def = defLib("dt6");
  def.def("f(Tensor self) -> int");
  auto cpu = implLib("dt6", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));
  auto ag = implLib("dt6", DispatchKey::AutogradCPU);
  // An autograd kernel that redispatches below autograd, as generated autograd kernels will.
  ag.impl("f", [](DispatchKeySet ks, const TensorBase& t) -> int64_t {
    static auto op = Dispatcher::singleton().findSchemaOrThrow("dt6::f", "").typed<UnaryFn>();
    return 10 + op.redispatch(ks & kAfterAutogradKeySet, t);
  });
  EXPECT_EQ(callOp("dt6::f", cpuTensor()), 1);
  {
    IncludeDispatchKeyGuard include(DispatchKeySet(DispatchKey::AutogradCPU));
    EXPECT_EQ(callOp("dt6::f", cpuTensor()), 11);
    {
      ExcludeDispatchKeyGuard exclude(DispatchKeySet(DispatchKey::AutogradCPU));
      EXPECT_EQ(callOp("dt6::f", cpuTensor()), 1);
    }
    EXPECT_EQ(callOp("dt6::f", cpuTensor()), 11);
  }
  EXPECT_EQ(callOp("dt6::f", cpuTensor()), 1);
  EXPECT_TRUE(tlsLocalDispatchKeySet().included.empty());
}

TEST(DispatcherTest, FactoriesWithoutTensorsUseTheirDeviceOrTheCpu) {
  using FactoryFn = int64_t(std::optional<Device>);
  auto def = defLib("dt7");
  def.def("make(*, Device? device=None) -> int");
  auto cpu = implLib("dt7", DispatchKey::CPU);
  cpu.impl("make", [](std::optional<Device>) -> int64_t { return 1; });
  auto meta = implLib("dt7", DispatchKey::Meta);
  meta.impl("make", [](std::optional<Device>) -> int64_t { return 2; });
  auto op = Dispatcher::singleton().findSchemaOrThrow("dt7::make", "").typed<FactoryFn>();
  EXPECT_EQ(op.call(std::nullopt), 1);
  EXPECT_EQ(op.call(Device(DeviceType::Meta)), 2);
}

TEST(DispatcherTest, StatefulLambdaKernelsKeepTheirState) {
  auto def = defLib("dt8");
  def.def("f(Tensor self) -> int");
  auto cpu = implLib("dt8", DispatchKey::CPU);
  auto counter = std::make_shared<int64_t>(0);
  cpu.impl("f", [counter](const TensorBase&) { return ++*counter; });
  EXPECT_EQ(callOp("dt8::f", cpuTensor()), 1);
  EXPECT_EQ(callOp("dt8::f", cpuTensor()), 2);
}

TEST(DispatcherTest, DuplicateDefShowsBothRegistrationSites) {
  auto first = Library(Library::FRAGMENT, "dt9", std::nullopt, "first.cpp", 11);
  first.def("f(Tensor self) -> int");
  auto second = Library(Library::FRAGMENT, "dt9", std::nullopt, "second.cpp", 22);
  const std::string msg = errorOf([&] { second.def("f(Tensor self, int x) -> int"); });
  EXPECT_THAT(msg, HasSubstr("operator 'dt9::f' is defined twice"));
  EXPECT_THAT(msg, HasSubstr("registered at first.cpp:11"));
  EXPECT_THAT(msg, HasSubstr("registered at second.cpp:22"));
}

TEST(DispatcherTest, OneLibraryPerNamespace) {
  auto first = Library(Library::DEF, "dt10", std::nullopt, "a.cpp", 1);
  const std::string msg = errorOf([] { Library(Library::DEF, "dt10", std::nullopt, "b.cpp", 2); });
  EXPECT_THAT(msg, HasSubstr("only one OPCORE_LIBRARY block may define namespace 'dt10'"));
  EXPECT_THAT(msg, HasSubstr("a.cpp:1"));
  EXPECT_THAT(msg, HasSubstr("OPCORE_LIBRARY_FRAGMENT"));
}

TEST(DispatcherTest, ImplBeforeDefIsDanglingUntilDefined) {
  auto cpu = implLib("dt11", DispatchKey::CPU);
  cpu.impl("g", OPCORE_FN(returnsOne));
  auto dangling = Dispatcher::singleton().findDanglingImpls();
  EXPECT_NE(std::find(dangling.begin(), dangling.end(), "dt11::g"), dangling.end());
  EXPECT_FALSE(Dispatcher::singleton().findSchema({"dt11::g", ""}).has_value());
  auto def = defLib("dt11");
  def.def("g(Tensor self) -> int");
  EXPECT_EQ(callOp("dt11::g", cpuTensor()), 1);
  dangling = Dispatcher::singleton().findDanglingImpls();
  EXPECT_EQ(std::find(dangling.begin(), dangling.end(), "dt11::g"), dangling.end());
}

TEST(DispatcherTest, MismatchedSignaturesAreRejected) {
  auto def = defLib("dt12");
  def.def("f(Tensor self) -> int");
  auto cpu = implLib("dt12", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));
  auto meta = implLib("dt12", DispatchKey::Meta);
  const std::string reg = errorOf([&] { meta.impl("f", [](const TensorBase&, int64_t) -> int64_t { return 0; }); });
  EXPECT_THAT(reg, HasSubstr("mismatched kernel signature for operator 'dt12::f' at dispatch key Meta"));
  const std::string typed = errorOf([] {
    Dispatcher::singleton().findSchemaOrThrow("dt12::f", "").typed<double(const TensorBase&)>();
  });
  EXPECT_THAT(typed, HasSubstr("wrong C++ signature for operator 'dt12::f' in typed<>()"));
}

TEST(DispatcherTest, UnknownOperatorIsANamedError) {
  EXPECT_THAT(errorOf([] { Dispatcher::singleton().findSchemaOrThrow("dt13::nope", "x"); }),
              HasSubstr("could not find schema for operator 'dt13::nope.x'"));
}

TEST(DispatcherTest, AHandleOutlivingItsDefinitionReportsItInsteadOfReadingFreedMemory) {
  std::optional<OperatorHandle> op;
  {
    auto def = defLib("dt16");
    def.def("f(Tensor self) -> int");
    op = opNamed("dt16::f");
    EXPECT_EQ(op->schema().str(), "dt16::f(Tensor self) -> int");
  }
  EXPECT_FALSE(op->hasSchema());
  EXPECT_THAT(errorOf([&] { op->schema(); }),
              HasSubstr("operator 'dt16::f' has no schema: it is not defined (never, or no longer"));
  EXPECT_EQ(op->operatorName().str(), "dt16::f");
  // Defined again, the same handle sees the new schema.
  auto again = defLib("dt16");
  again.def("f(Tensor self, int n) -> int");
  EXPECT_EQ(op->schema().str(), "dt16::f(Tensor self, int n) -> int");
}

void registerMismatchedKernel(Library& m) {
  m.impl("f", [](const TensorBase&, double) { return int64_t{0}; });
}

TEST(DispatcherTest, AFailingStaticRegistrationPrintsItsSiteAndTheErrorBeforeAborting) {
  auto def = defLib("dt17");
  def.def("f(Tensor self) -> int");
  // What an OPCORE_LIBRARY_IMPL block at namespace scope runs during static initialization.
  EXPECT_DEATH(detail::LibraryInit(Library::IMPL, &registerMismatchedKernel, "dt17", DispatchKey::CPU,
                                   "BadKernels.cpp", 12),
               "opcore: the registration block at BadKernels.cpp:12 failed during static initialization: "
               ".*does not match the operator's schema");
}

TEST(DispatcherTest, AFailingRegistrationUnderALoadScopeIsRecordedAndRegistersNothing) {
  auto def = defLib("dt18");
  def.def("f(Tensor self) -> int");
  const std::string before = Dispatcher::singleton().findSchemaOrThrow("dt18::f", "").dumpState();
  LibraryLoadScope scope;
  // A block that registers one kernel, then fails on the next (Note [Loading an operator library]).
  detail::LibraryInit(Library::IMPL, [](Library& m) {
    m.impl("f", OPCORE_FN(returnsOne));
    registerMismatchedKernel(m);
  }, "dt18", DispatchKey::CPU, "BadKernels.cpp", 30);
  EXPECT_THAT(scope.error(), HasSubstr("the registration block at BadKernels.cpp:30 failed: "));
  EXPECT_THAT(scope.error(), HasSubstr("mismatched kernel signature for operator 'dt18::f'"));
  EXPECT_EQ(Dispatcher::singleton().findSchemaOrThrow("dt18::f", "").dumpState(), before);
}

TEST(DispatcherTest, DroppingARegistrationRestoresThePreviousKernel) {
  auto def = defLib("dt14");
  def.def("f(Tensor self) -> int");
  auto older = implLib("dt14", DispatchKey::CPU);
  older.impl("f", OPCORE_FN(returnsOne));
  {
    auto newer = implLib("dt14", DispatchKey::CPU);
    newer.impl("f", OPCORE_FN(returnsTwo));
    EXPECT_EQ(callOp("dt14::f", cpuTensor()), 2);
  }
  EXPECT_EQ(callOp("dt14::f", cpuTensor()), 1);
}

// Every order of registration, and every order of removal, gives the same state.
TEST(DispatcherTest, StateIsIndependentOfRegistrationOrder) {
  struct Step {
    DispatchKey key;
    int64_t (*fn)(const TensorBase&);
    uint32_t line;
  };
  const std::vector<Step> steps = {{DispatchKey::CPU, returnsOne, 1},
                                   {DispatchKey::CompositeExplicitAutograd, returnsTwo, 2},
                                   {DispatchKey::CompositeImplicitAutograd, returnsThree, 3},
                                   {DispatchKey::Autograd, returnsTwo, 4}};
  auto def = defLib("dt15");
  def.def("f(Tensor self) -> int");
  auto op = *Dispatcher::singleton().findSchema({"dt15::f", ""});
  const std::string empty_state = op.dumpState();

  std::vector<size_t> order(steps.size());
  std::iota(order.begin(), order.end(), 0);
  std::string reference_state, reference_table;
  do {
    std::vector<size_t> removal(steps.size());
    std::iota(removal.begin(), removal.end(), 0);
    do {
      std::vector<std::unique_ptr<Library>> libs(steps.size());
      for (size_t i : order) {
        libs[i] = std::make_unique<Library>(Library::IMPL, "dt15", steps[i].key, "order.cpp", steps[i].line);
        libs[i]->impl("f", steps[i].fn);
        op.checkInvariants();
      }
      if (reference_state.empty()) {
        reference_state = op.dumpState();
        reference_table = op.dumpComputedTable();
      }
      ASSERT_EQ(op.dumpState(), reference_state);
      ASSERT_EQ(op.dumpComputedTable(), reference_table);
      ASSERT_EQ(callOp("dt15::f", cpuTensor()), 1);
      ASSERT_EQ(callOp("dt15::f", metaTensor()), 2);
      for (size_t i : removal) {
        libs[i].reset();
        op.checkInvariants();
      }
      ASSERT_EQ(op.dumpState(), empty_state);
    } while (std::next_permutation(removal.begin(), removal.end()));
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_THAT(reference_table, HasSubstr("Meta: composite explicit from CompositeExplicitAutograd"));
  EXPECT_THAT(reference_table, HasSubstr("AutogradCPU: autograd alias from Autograd"));
  EXPECT_THAT(reference_table, HasSubstr("AutogradMeta: autograd alias from Autograd"));
}

// A selective build records the operators it left out (Note [Selective builds] in
// gen/emit/selection.py): looking one up says so; the record goes with its handle.
TEST(DispatcherTest, AnExcludedOperatorSaysTheBuildLeftItOut) {
  Dispatcher& d = Dispatcher::singleton();
  {
    RegistrationHandleRAII excluded = d.registerExcluded({"test::gone.out", "test::gone.Tensor"}, "not in ops.txt");
    EXPECT_EQ(d.excludedReason("test::gone.out"), "not in ops.txt");
    EXPECT_EQ(d.excludedReason("test::gone"), "not in ops.txt");  // any of its overloads
    EXPECT_EQ(d.excludedReason("test::gon"), "");
    try {
      d.findSchemaOrThrow("test::gone", "Tensor");
      FAIL() << "found an excluded operator";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("operator 'test::gone.Tensor' was excluded from this build: "
                                                 "not in ops.txt"));
    }
  }
  EXPECT_EQ(d.excludedReason("test::gone.out"), "");
  try {
    d.findSchemaOrThrow("test::gone", "Tensor");
    FAIL() << "found an operator that was never defined";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("could not find schema for operator 'test::gone.Tensor'"));
  }
}

}  // namespace
}  // namespace opcore

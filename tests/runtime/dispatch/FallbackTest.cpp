// Dispatcher-wide fallbacks and fallthrough kernels: precedence against an operator's own
// kernels, per-backend fallthrough masks, alias fallbacks, and their removal.
#include "DispatchTestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace opcore {
namespace {

using ::testing::HasSubstr;
using namespace ::opcore::dispatch_test;

Library fallbackLib(DispatchKey k, uint32_t line = __builtin_LINE()) {
  return Library(Library::IMPL, "_", k, "fallbacks.cpp", line);
}

// A boxed fallback that answers 50 + the number of arguments, for any operator.
void countingFallback(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  const size_t n = op.schema().arguments().size();
  stack->resize(stack->size() - n);
  stack->emplace_back(static_cast<int64_t>(50 + n));
}

TEST(FallbackTest, AFallbackServesOperatorsWithoutAKernelForItsKey) {
  auto def = defLib("fb1");
  def.def("f(Tensor self) -> int");
  auto cpu = implLib("fb1", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));
  EXPECT_THAT(errorOf([] { callOp("fb1::f", metaTensor()); }), HasSubstr("dispatch key Meta"));
  {
    auto fb = fallbackLib(DispatchKey::Meta);
    fb.fallback(KernelFunction::makeFromBoxedFunction<&countingFallback>());
    EXPECT_EQ(callOp("fb1::f", metaTensor()), 51) << "unboxed call, boxed fallback";
    EXPECT_EQ(callOp("fb1::f", cpuTensor()), 1) << "the operator's own kernel wins";
    EXPECT_THAT(opNamed("fb1::f").dumpComputedTable(), HasSubstr("Meta: fallback from Meta [registered at fallbacks.cpp:"));
    EXPECT_THAT(Dispatcher::singleton().dumpFallbacks(), HasSubstr("Meta: [registered at fallbacks.cpp:"));
    Dispatcher::singleton().checkInvariants();
  }
  EXPECT_THAT(errorOf([] { callOp("fb1::f", metaTensor()); }), HasSubstr("dispatch key Meta"))
      << "dropping the fallback removes it from every table";
  Dispatcher::singleton().checkInvariants();
}

TEST(FallbackTest, CompositeKernelsWinOverFallbacks) {
  auto def = defLib("fb2");
  def.def("f(Tensor self) -> int");
  auto comp = implLib("fb2", DispatchKey::CompositeExplicitAutograd);
  comp.impl("f", OPCORE_FN(returnsThree));
  auto fb = fallbackLib(DispatchKey::Meta);
  fb.fallback(KernelFunction::makeFromBoxedFunction<&countingFallback>());
  EXPECT_EQ(callOp("fb2::f", metaTensor()), 3);
}

// An autograd kernel that records that it ran, then redispatches below autograd.
int64_t autogradKernel(DispatchKeySet ks, const TensorBase& t) {
  static auto op = opNamed("fb3::f").typed<UnaryFn>();
  return 100 + op.redispatch(ks & kAfterAutogradKeySet, t);
}

TEST(FallbackTest, FallthroughSkipsTheKeyPerOperatorAndPerBackend) {
  auto def = defLib("fb3");
  def.def("f(Tensor self) -> int");
  auto cpu = implLib("fb3", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));
  auto meta = implLib("fb3", DispatchKey::Meta);
  meta.impl("f", OPCORE_FN(returnsTwo));
  IncludeDispatchKeyGuard with_autograd(DispatchKeySet(DispatchKey::AutogradFunctionality));
  // AutogradCPU has a real kernel, AutogradMeta falls through: masks are per backend.
  auto ag_cpu = implLib("fb3", DispatchKey::AutogradCPU);
  ag_cpu.impl("f", OPCORE_FN(autogradKernel));
  auto ag_meta = implLib("fb3", DispatchKey::AutogradMeta);
  ag_meta.impl("f", KernelFunction::makeFallthrough());
  EXPECT_EQ(callOp("fb3::f", cpuTensor()), 101);
  EXPECT_EQ(callOp("fb3::f", metaTensor()), 2);
  auto op = opNamed("fb3::f");
  EXPECT_THAT(op.dumpComputedTable(), HasSubstr("AutogradMeta: kernel (fallthrough) from AutogradMeta"));
  EXPECT_THAT(op.dumpState(), HasSubstr("AutogradMeta: [fallthrough, registered at FallbackTest.cpp:"));
  EXPECT_FALSE(op.hasComputedKernelForDispatchKey(DispatchKey::AutogradMeta));
  EXPECT_TRUE(op.hasComputedKernelForDispatchKey(DispatchKey::AutogradCPU));
  // Boxed calls and redispatch mask the same way.
  Stack stack{metaTensor()};
  op.callBoxed(stack);
  EXPECT_EQ(stack.at(0).toInt(), 2);
  EXPECT_EQ(op.typed<UnaryFn>().redispatch(DispatchKeySet{DispatchKey::Meta, DispatchKey::AutogradMeta}, metaTensor()), 2);
}

TEST(FallbackTest, FallthroughFallbackSkipsTheKeyForEveryOperatorWithoutItsOwnKernel) {
  // Python has no fallback of its own (the autograd runtime registers ADInplaceOrView's).
  auto def = defLib("fb4");
  def.def("plain(Tensor self) -> int");
  def.def("pythonic(Tensor self) -> int");
  auto cpu = implLib("fb4", DispatchKey::CPU);
  cpu.impl("plain", OPCORE_FN(returnsOne));
  cpu.impl("pythonic", OPCORE_FN(returnsOne));
  auto own = implLib("fb4", DispatchKey::Python);
  own.impl("pythonic", OPCORE_FN(returnsThree));
  IncludeDispatchKeyGuard with_python(DispatchKeySet(DispatchKey::Python));
  EXPECT_THAT(errorOf([] { callOp("fb4::plain", cpuTensor()); }), HasSubstr("dispatch key Python"));
  auto fb = fallbackLib(DispatchKey::Python);
  fb.fallback(KernelFunction::makeFallthrough());
  EXPECT_EQ(callOp("fb4::plain", cpuTensor()), 1);
  EXPECT_EQ(callOp("fb4::pythonic", cpuTensor()), 3);
  EXPECT_THAT(opNamed("fb4::plain").dumpComputedTable(), HasSubstr("Python: fallback (fallthrough)"));
}

TEST(FallbackTest, AnAliasFallbackCoversEveryKeyOfTheAlias) {
  auto def = defLib("fb5");
  def.def("f(Tensor self) -> int");
  auto cpu = implLib("fb5", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));
  IncludeDispatchKeyGuard with_autograd(DispatchKeySet(DispatchKey::AutogradFunctionality));
  const char* kAutogradKeys[] = {"AutogradOther", "AutogradCPU", "AutogradCUDA", "AutogradMeta", "AutogradPrivateUse1"};
  // The autograd runtime's own fallback (autograd/Fallback.cpp), registered at the alias,
  // serves every autograd key that has no kernel (the CPU key: below it runs the CPU kernel).
  EXPECT_EQ(callOp("fb5::f", cpuTensor()), 1);
  EXPECT_THAT(opNamed("fb5::f").dumpComputedTable(), HasSubstr("AutogradCPU: fallback from AutogradCPU [registered at Fallback.cpp"));
  {
    // A newer fallback at the alias replaces it on every key, and dropping it restores it.
    auto fb = fallbackLib(DispatchKey::Autograd);
    fb.fallback(KernelFunction::makeFallthrough());
    EXPECT_EQ(callOp("fb5::f", cpuTensor()), 1);
    const std::string table = opNamed("fb5::f").dumpComputedTable();
    for (const char* key : kAutogradKeys) {
      EXPECT_THAT(table, HasSubstr(std::string(key) + ": fallback (fallthrough)"));
    }
  }
  const std::string table = opNamed("fb5::f").dumpComputedTable();
  for (const char* key : kAutogradKeys) {
    EXPECT_THAT(table, HasSubstr(std::string(key) + ": fallback from " + key + " [registered at Fallback.cpp"));
  }
}

TEST(FallbackTest, FallbacksMustBeBoxedAndRegisteredInWildcardBlocks) {
  auto fb = fallbackLib(DispatchKey::CPU);
  EXPECT_THAT(errorOf([&] { fb.fallback(KernelFunction::makeFromUnboxedFunction(OPCORE_FN(returnsOne))); }),
              HasSubstr("is an unboxed kernel; a fallback serves every operator"));
  auto lib = implLib("fb6", DispatchKey::CPU);
  EXPECT_THAT(errorOf([&] { lib.fallback(KernelFunction::makeFallthrough()); }),
              HasSubstr("fallback() outside an OPCORE_LIBRARY_IMPL(_, Key, m) block"));
  EXPECT_THAT(errorOf([&] { fb.impl("f", OPCORE_FN(returnsOne)); }), HasSubstr("register fallbacks only"));
  auto dense = fallbackLib(DispatchKey::Dense);
  EXPECT_THAT(errorOf([&] { dense.fallback(KernelFunction::makeFallthrough()); }),
              HasSubstr("cannot register a fallback at dispatch key Dense"));
}

}  // namespace
}  // namespace opcore

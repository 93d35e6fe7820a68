// Dispatcher-wide fallbacks and fallthrough kernels: precedence against an operator's own
// kernels, per-backend fallthrough masks, alias fallbacks, and their removal.
#include "DispatchTestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace opcore {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
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
  // One fallback per key (Note [One fallback per key]): a second one at the alias, or at one of
  // its keys, boxed or fallthrough, is rejected naming both sites, and changes nothing.
  auto at_alias = fallbackLib(DispatchKey::Autograd);
  EXPECT_THAT(errorOf([&] { at_alias.fallback(KernelFunction::makeFallthrough()); }),
              AllOf(HasSubstr("already has a fallback (registered at Fallback.cpp"),
                    HasSubstr("the new fallback for Autograd (registered at fallbacks.cpp:")));
  auto at_key = fallbackLib(DispatchKey::AutogradPrivateUse1);
  EXPECT_THAT(errorOf([&] { at_key.fallback(KernelFunction::makeFromBoxedFunction<&countingFallback>()); }),
              HasSubstr("dispatch key AutogradPrivateUse1 already has a fallback (registered at Fallback.cpp"));
  const std::string table = opNamed("fb5::f").dumpComputedTable();
  for (const char* key : kAutogradKeys) {
    EXPECT_THAT(table, HasSubstr(std::string(key) + ": fallback from " + key + " [registered at Fallback.cpp"));
  }
  Dispatcher::singleton().checkInvariants();
}

TEST(FallbackTest, ASecondFallbackForAKeyIsRejectedUntilTheFirstIsGone) {
  auto def = defLib("fb7");
  def.def("f(Tensor self) -> int");
  const auto first_line = __LINE__ + 1;
  std::optional<Library> first(fallbackLib(DispatchKey::Meta));
  first->fallback(KernelFunction::makeFromBoxedFunction<&countingFallback>());
  auto second = fallbackLib(DispatchKey::Meta);
  EXPECT_THAT(errorOf([&] { second.fallback(KernelFunction::makeFallthrough()); }),
              HasSubstr("dispatch key Meta already has a fallback (registered at fallbacks.cpp:" +
                        std::to_string(first_line) + "); the new fallback for Meta (registered at fallbacks.cpp:" +
                        std::to_string(first_line + 2) + ") would shadow it"));
  EXPECT_EQ(callOp("fb7::f", metaTensor()), 51) << "the first fallback still serves";
  // An alias covering the key conflicts too: nothing of it is registered.
  auto pu1 = fallbackLib(DispatchKey::PrivateUse1);
  pu1.fallback(KernelFunction::makeFallthrough());
  auto composite = fallbackLib(DispatchKey::CompositeExplicitAutograd);
  EXPECT_THAT(errorOf([&] { composite.fallback(KernelFunction::makeFallthrough()); }),
              HasSubstr("already has a fallback"));
  EXPECT_THAT(Dispatcher::singleton().dumpFallbacks(), Not(HasSubstr("CPU: [fallthrough")));
  first.reset();
  second.fallback(KernelFunction::makeFallthrough());
  EXPECT_THAT(Dispatcher::singleton().dumpFallbacks(), HasSubstr("Meta: [fallthrough, registered at fallbacks.cpp:"));
  Dispatcher::singleton().checkInvariants();
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

// Calls run lock-free while other threads register and deregister kernels, fallbacks and
// operators (Note [Lock-free calls]). Every call must see a consistent table: the result is
// always one a complete table could give, and no call crashes or reports a missing kernel.
#include "DispatchTestUtil.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace opcore {
namespace {

using namespace ::opcore::dispatch_test;

void answerSeven(const OperatorHandle& op, Stack* stack) {
  stack->resize(stack->size() - op.schema().arguments().size());
  stack->emplace_back(int64_t{7});
}

TEST(ConcurrencyTest, CallsSeeConsistentTablesWhileKernelsComeAndGo) {
  auto def = defLib("cc1");
  def.def("f(Tensor self) -> int");
  auto cpu = implLib("cc1", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));
  const auto op = opNamed("cc1::f");
  const auto typed = op.typed<UnaryFn>();
  auto meta_fallback = Library(Library::IMPL, "_", DispatchKey::Meta, "cc.cpp", 1);
  meta_fallback.fallback(KernelFunction::makeFromBoxedFunction<&answerSeven>());

  std::atomic<bool> stop{false};
  std::atomic<int64_t> calls{0}, bad{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t) {
    callers.emplace_back([&] {
      const TensorBase cpu_t = cpuTensor(), meta_t = metaTensor();
      while (!stop.load(std::memory_order_relaxed)) {
        const int64_t r = typed.call(cpu_t);  // 1, or 2 while the override is registered
        Stack stack{meta_t};
        op.callBoxed(stack);  // 7 (the Meta fallback), or 3 while the composite is registered
        const int64_t b = stack.at(0).toInt();
        if ((r != 1 && r != 2) || (b != 3 && b != 7)) bad.fetch_add(1);
        calls.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }

  for (int i = 0; i < 3000; ++i) {
    {
      auto comp = implLib("cc1", DispatchKey::CompositeExplicitAutograd);
      comp.impl("f", OPCORE_FN(returnsThree));
      auto override_cpu = implLib("cc1", DispatchKey::CPU);  // a newer CPU kernel, then removed
      override_cpu.impl("f", OPCORE_FN(returnsTwo));
      auto skip_autograd = implLib("cc1", DispatchKey::AutogradCPU);
      skip_autograd.impl("f", KernelFunction::makeFallthrough());
      auto other = defLib("cc2");  // unrelated operators come and go
      other.def(("g" + std::to_string(i % 7) + "(Tensor self) -> int").c_str());
    }
    if (i % 100 == 0) {  // a fallback change recomputes every operator's table
      auto pu1_fallback = Library(Library::IMPL, "_", DispatchKey::PrivateUse1, "cc.cpp", 2);
      pu1_fallback.fallback(KernelFunction::makeFromBoxedFunction<&answerSeven>());
    }
  }
  stop = true;
  for (auto& t : callers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(calls.load(), 0);
  std::printf("%lld calls during %d registration changes\n", static_cast<long long>(calls.load()), 3000 * 9);
  op.checkInvariants();
  EXPECT_EQ(typed.call(cpuTensor()), 1);
}

}  // namespace
}  // namespace opcore

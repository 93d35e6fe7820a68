// Boxed calling: unboxed kernels serving boxed calls, boxed kernels serving unboxed calls,
// key extraction from the stack, redispatchBoxed and callBoxedForDispatchKey.
#include "DispatchTestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tuple>

namespace opcore {
namespace {

using ::testing::HasSubstr;
using namespace ::opcore::dispatch_test;

int64_t sumArgs(const TensorBase& t, int64_t a, IntArrayRef list, std::optional<double> scale, const Scalar& s) {
  int64_t total = t.numel() + a + s.toLong();
  for (int64_t v : list) total += v;
  return scale ? static_cast<int64_t>(total * *scale) : total;
}

TEST(BoxingTest, UnboxedKernelServesABoxedCall) {
  auto def = defLib("bx1");
  def.def("f(Tensor self, int a, int[] list, float? scale, Scalar s) -> int");
  auto cpu = implLib("bx1", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(sumArgs));
  auto op = opNamed("bx1::f");
  Stack stack{IValue(42), cpuTensor(), 2, std::vector<int64_t>{3, 4}, std::nullopt, Scalar(5)};
  op.callBoxed(stack);
  // The arguments are popped, the result pushed; values below the arguments stay.
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_EQ(stack[0].toInt(), 42);
  EXPECT_EQ(stack[1].toInt(), 1 + 2 + 3 + 4 + 5);
  Stack scaled{cpuTensor(), 2, std::vector<int64_t>{3, 4}, 2.0, Scalar(5)};
  op.callBoxed(scaled);
  EXPECT_EQ(scaled.at(0).toInt(), 30);
}

TEST(BoxingTest, BoxedKernelServesAnUnboxedCall) {
  auto def = defLib("bx2");
  def.def("f(Tensor self, int a) -> int");
  auto cpu = implLib("bx2", DispatchKey::CPU);
  cpu.impl("f", KernelFunction::makeFromBoxedFunctor([](const OperatorHandle& op, Stack* stack) {
             ASSERT_EQ(op.operatorName().str(), "bx2::f");
             const int64_t a = stack->back().toInt();
             const int64_t n = (*stack)[stack->size() - 2].toTensorBase().numel();
             stack->resize(stack->size() - 2);
             stack->emplace_back(100 * a + n);
           }));
  auto op = opNamed("bx2::f").typed<int64_t(const TensorBase&, int64_t)>();
  EXPECT_EQ(op.call(cpuTensor(), 7), 701);
}

TensorBase& fillOut(const TensorBase& self, TensorBase& out) {
  out.dataPtr<float>()[0] = self.dataPtr<float>()[0] + 1;
  return out;
}

TEST(BoxingTest, ReferenceReturnsComeBackAsTheCallersArgument) {
  auto def = defLib("bx3");
  def.def("f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  // A boxed kernel: the unboxed caller gets a reference to its own `out` back.
  auto cpu = implLib("bx3", DispatchKey::CPU);
  cpu.impl("f.out", KernelFunction::makeFromBoxedFunctor([](const OperatorHandle&, Stack* stack) {
             TensorBase out = stack->back().toTensorBase();
             out.dataPtr<float>()[0] = 9;
             stack->resize(stack->size() - 2);
             stack->emplace_back(out);
           }));
  auto op = opNamed("bx3::f", "out").typed<TensorBase&(const TensorBase&, TensorBase&)>();
  TensorBase self = cpuTensor(), out = cpuTensor();
  TensorBase& r = op.call(self, out);
  EXPECT_EQ(&r, &out);
  EXPECT_EQ(out.dataPtr<float>()[0], 9.0f);
}

TEST(BoxingTest, ReferenceReturnsOfUnboxedKernelsAreBoxedAsTheTensor) {
  auto def = defLib("bx4");
  def.def("f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  auto cpu = implLib("bx4", DispatchKey::CPU);
  cpu.impl("f.out", OPCORE_FN(fillOut));
  TensorBase self = cpuTensor(), out = cpuTensor();
  self.dataPtr<float>()[0] = 4;
  Stack stack{self, out};
  opNamed("bx4::f", "out").callBoxed(stack);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_EQ(stack[0].toTensorBase().unsafeGetTensorImpl(), out.unsafeGetTensorImpl());
  EXPECT_EQ(out.dataPtr<float>()[0], 5.0f);
}

std::tuple<TensorBase, int64_t> pairOf(const TensorBase& t, ArrayRef<TensorBase> list) {
  return {t, static_cast<int64_t>(list.size())};
}

TEST(BoxingTest, TuplesAndTensorListsRoundTrip) {
  auto def = defLib("bx5");
  def.def("f(Tensor self, Tensor[] list) -> (Tensor, int)");
  auto cpu = implLib("bx5", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(pairOf));
  TensorBase t = cpuTensor();
  Stack stack{t, std::vector<TensorBase>{t, t, t}};
  opNamed("bx5::f").callBoxed(stack);
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_EQ(stack[0].toTensorBase().unsafeGetTensorImpl(), t.unsafeGetTensorImpl());
  EXPECT_EQ(stack[1].toInt(), 3);

  // And the same op through a boxed kernel, called unboxed.
  auto meta = implLib("bx5", DispatchKey::Meta);
  meta.impl("f", KernelFunction::makeFromBoxedFunctor([](const OperatorHandle&, Stack* s) {
              TensorBase first = (*s)[s->size() - 2].toTensorBase();
              const auto n = static_cast<int64_t>(s->back().toTensorList().size());
              s->resize(s->size() - 2);
              s->emplace_back(first);
              s->emplace_back(n * 10);
            }));
  auto typed = opNamed("bx5::f").typed<std::tuple<TensorBase, int64_t>(const TensorBase&, ArrayRef<TensorBase>)>();
  TensorBase m = metaTensor();
  const std::vector<TensorBase> two{m, m};
  auto [r, n] = typed.call(m, two);
  EXPECT_EQ(r.unsafeGetTensorImpl(), m.unsafeGetTensorImpl());
  EXPECT_EQ(n, 20);
}

TEST(BoxingTest, BoxedKeyExtractionLooksOnlyAtKeyCarryingArguments) {
  auto def = defLib("bx6");
  def.def("f(int a, Tensor? x, Tensor?[] xs, *, Device? device=None) -> int");
  // Boxed kernels that say which backend the stack selected.
  auto cpu = implLib("bx6", DispatchKey::CPU);
  cpu.impl("f", KernelFunction::makeFromBoxedFunctor([](const OperatorHandle&, Stack* s) {
             s->resize(s->size() - 4);
             s->emplace_back(1);
           }));
  auto meta = implLib("bx6", DispatchKey::Meta);
  meta.impl("f", KernelFunction::makeFromBoxedFunctor([](const OperatorHandle&, Stack* s) {
              s->resize(s->size() - 4);
              s->emplace_back(2);
            }));
  auto op = opNamed("bx6::f");
  auto run = [&](Stack stack) {
    op.callBoxed(stack);
    return stack.at(0).toInt();
  };
  EXPECT_THAT(errorOf([&] { run({7, std::nullopt, IValue::list({}), std::nullopt}); }),
              HasSubstr("no kernel is registered for dispatch key Undefined"))
      << "no tensor and no device: only a composite kernel could run";
  EXPECT_EQ(run({7, cpuTensor(), IValue::list({}), std::nullopt}), 1);
  EXPECT_EQ(run({7, metaTensor(), IValue::list({}), std::nullopt}), 2);
  EXPECT_EQ(run({7, std::nullopt, IValue::list({IValue(), metaTensor()}), std::nullopt}), 2);
  EXPECT_EQ(run({7, std::nullopt, IValue::list({}), Device(DeviceType::Meta)}), 2);
}

TEST(BoxingTest, RedispatchBoxedAndCallForAKeyIgnoreTheArgumentsKeys) {
  auto def = defLib("bx7");
  def.def("f(Tensor self) -> int");
  auto cpu = implLib("bx7", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));
  auto comp = implLib("bx7", DispatchKey::CompositeExplicitAutograd);
  comp.impl("f", OPCORE_FN(returnsThree));
  auto op = opNamed("bx7::f");
  Stack stack{cpuTensor()};
  op.redispatchBoxed(DispatchKeySet(DispatchKey::Meta), stack);
  EXPECT_EQ(stack.at(0).toInt(), 3);
  stack = {cpuTensor()};
  op.callBoxedForDispatchKey(DispatchKey::PrivateUse1, stack);
  EXPECT_EQ(stack.at(0).toInt(), 3) << "the computed table's kernel: composite explicit";
  stack = {metaTensor()};
  op.callBoxedForDispatchKey(DispatchKey::CPU, stack);
  EXPECT_EQ(stack.at(0).toInt(), 1);
}

TEST(BoxingTest, BoxedCallErrorsNameTheProblem) {
  auto def = defLib("bx8");
  def.def("f(Tensor self, int a) -> int");
  auto op = opNamed("bx8::f");
  Stack too_short{cpuTensor()};
  EXPECT_THAT(errorOf([&] { op.callBoxed(too_short); }),
              HasSubstr("boxed call with 1 values on the stack, but the operator takes 2 arguments"));
  Stack no_kernel{cpuTensor(), 1};
  EXPECT_THAT(errorOf([&] { op.callBoxed(no_kernel); }),
              HasSubstr("no kernel is registered for dispatch key CPU"));
  auto cpu = implLib("bx8", DispatchKey::CPU);
  cpu.impl("f", [](const TensorBase&, int64_t a) { return a; });
  Stack wrong_type{cpuTensor(), 2.5};
  EXPECT_THAT(errorOf([&] { op.callBoxed(wrong_type); }), HasSubstr("expected Int but got Double"));
}

}  // namespace
}  // namespace opcore

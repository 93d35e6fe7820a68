// Boxed calling: unboxed kernels serving boxed calls, boxed kernels serving unboxed calls,
// key extraction from the stack, redispatchBoxed and callBoxedForDispatchKey.
#include "DispatchTestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace opcore {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace ::opcore::dispatch_test;

std::string str(const IValue& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

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
  out.data_ptr<float>()[0] = self.data_ptr<float>()[0] + 1;
  return out;
}

TEST(BoxingTest, ReferenceReturnsComeBackAsTheCallersArgument) {
  auto def = defLib("bx3");
  def.def("f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  // A boxed kernel: the unboxed caller gets a reference to its own `out` back.
  auto cpu = implLib("bx3", DispatchKey::CPU);
  cpu.impl("f.out", KernelFunction::makeFromBoxedFunctor([](const OperatorHandle&, Stack* stack) {
             TensorBase out = stack->back().toTensorBase();
             out.data_ptr<float>()[0] = 9;
             stack->resize(stack->size() - 2);
             stack->emplace_back(out);
           }));
  auto op = opNamed("bx3::f", "out").typed<TensorBase&(const TensorBase&, TensorBase&)>();
  TensorBase self = cpuTensor(), out = cpuTensor();
  TensorBase& r = op.call(self, out);
  EXPECT_EQ(&r, &out);
  EXPECT_EQ(out.data_ptr<float>()[0], 9.0f);
}

TEST(BoxingTest, ReferenceReturnsOfUnboxedKernelsAreBoxedAsTheTensor) {
  auto def = defLib("bx4");
  def.def("f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  auto cpu = implLib("bx4", DispatchKey::CPU);
  cpu.impl("f.out", OPCORE_FN(fillOut));
  TensorBase self = cpuTensor(), out = cpuTensor();
  self.data_ptr<float>()[0] = 4;
  Stack stack{self, out};
  opNamed("bx4::f", "out").callBoxed(stack);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_EQ(stack[0].toTensorBase().unsafeGetTensorImpl(), out.unsafeGetTensorImpl());
  EXPECT_EQ(out.data_ptr<float>()[0], 5.0f);
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

// Found by fuzz/fuzz_boxed_call (fuzz/regressions/fuzz_boxed_call/redispatch-too-few-values):
// redispatchBoxed skipped callBoxed's check of the stack's size, so a boxed kernel, which may
// index the stack from the top by the schema's argument count, got fewer values than that.
TEST(BoxingTest, RedispatchBoxedChecksTheStackHoldsTheArguments) {
  auto def = defLib("bx_short");
  def.def("f(Tensor self, int a) -> int");
  bool ran = false;
  auto cpu = implLib("bx_short", DispatchKey::CPU);
  cpu.impl("f", KernelFunction::makeFromBoxedFunctor([&ran](const OperatorHandle&, Stack* stack) {
             ran = true;
             stack->resize(stack->size() - 2);
             stack->emplace_back(1);
           }));
  auto op = opNamed("bx_short::f");
  Stack too_short{cpuTensor()};
  EXPECT_THAT(errorOf([&] { op.redispatchBoxed(DispatchKeySet(DispatchKey::CPU), too_short); }),
              HasSubstr("boxed call with 1 values on the stack, but the operator takes 2 arguments"));
  EXPECT_FALSE(ran);
  Stack enough{cpuTensor(), 2};
  op.redispatchBoxed(DispatchKeySet(DispatchKey::CPU), enough);
  EXPECT_TRUE(ran);
  EXPECT_EQ(enough.at(0).toInt(), 1);
}

TEST(BoxingTest, CallForAnAliasKeyRunsTheKernelRegisteredThere) {
  auto def = defLib("bx9");
  def.def("f(Tensor self) -> int");
  auto cpu = implLib("bx9", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));
  auto op = opNamed("bx9::f");
  Stack stack{cpuTensor()};
  EXPECT_THAT(errorOf([&] { op.callBoxedForDispatchKey(DispatchKey::CompositeImplicitAutograd, stack); }),
              HasSubstr("'bx9::f' has no kernel registered at CompositeImplicitAutograd"));
  auto composite = implLib("bx9", DispatchKey::CompositeImplicitAutograd);
  composite.impl("f", OPCORE_FN(returnsTwo));
  stack = {cpuTensor()};
  op.callBoxedForDispatchKey(DispatchKey::CompositeImplicitAutograd, stack);
  EXPECT_EQ(stack.at(0).toInt(), 2) << "the composite kernel, though the table runs CPU's for CPU tensors";
}

TEST(BoxingTest, ADefinitionKeepsItsTagsUntilItGoes) {
  const void* version = nullptr;
  {
    auto def = defLib("bx10");
    def.def("f(Tensor self) -> int", {"pointwise", "core"});
    auto op = opNamed("bx10::f");
    EXPECT_EQ(op.tags(), (std::vector<std::string>{"pointwise", "core"}));
    version = op.tableVersion();
    auto cpu = implLib("bx10", DispatchKey::CPU);
    cpu.impl("f", OPCORE_FN(returnsOne));
    EXPECT_NE(op.tableVersion(), version) << "a registration changes the table's identity";
  }
  auto entry = Dispatcher::singleton().findSchema(OperatorName{"bx10::f", ""});
  EXPECT_FALSE(entry.has_value());
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

// DeviceIndex (int8_t) and SymBool (bool, as SymInt is int64_t): PyTorch's newer schema types.
int64_t pickDevice(const TensorBase&, DeviceIndex index, std::optional<DeviceIndex> fallback, bool flag) {
  return flag ? index : fallback.value_or(-1);
}

TEST(BoxingTest, DeviceIndexAndSymBoolBoxAndCheckTheirRange) {
  auto def = defLib("bx16");
  def.def("f(Tensor self, DeviceIndex index, DeviceIndex? fallback=None, SymBool flag=True) -> int");
  auto cpu = implLib("bx16", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(pickDevice));  // the inferred schema (DeviceIndex, bool) matches
  auto op = opNamed("bx16::f");
  Stack stack{cpuTensor(), 3, std::nullopt, true};
  op.callBoxed(stack);
  EXPECT_EQ(stack.at(0).toInt(), 3);
  Stack fallback{cpuTensor(), 3, 7, false};
  op.callBoxed(fallback);
  EXPECT_EQ(fallback.at(0).toInt(), 7);
  Stack too_big{cpuTensor(), 300, std::nullopt, true};
  EXPECT_THAT(errorOf([&] { op.callBoxed(too_big); }), HasSubstr("a DeviceIndex must be between -128 and 127, but got 300"));
  EXPECT_EQ(op.typed<int64_t(const TensorBase&, DeviceIndex, std::optional<DeviceIndex>, bool)>().call(
                cpuTensor(), DeviceIndex{5}, std::nullopt, true),
            5);
}

TEST(BoxingTest, TooManyValuesThatCannotBeTheArgumentsAreNamedAsSuch) {
  auto def = defLib("bx15");
  def.def("f(Tensor self, int a) -> int");
  auto cpu = implLib("bx15", DispatchKey::CPU);
  cpu.impl("f", [](const TensorBase&, int64_t a) { return a; });
  auto op = opNamed("bx15::f");
  // The arguments are the top two values: here (1, 2), no tensor where `self` should be.
  Stack extra{cpuTensor(), 1, 2};
  EXPECT_THAT(errorOf([&] { op.callBoxed(extra); }),
              HasSubstr("boxed call of 'bx15::f': the operator takes 2 arguments, so they are the top 2 of the 3 "
                        "values on the stack, but argument 0 'self' (Tensor) got Int"));
  // A tensor where an int belongs.
  Stack swapped{1, cpuTensor()};
  EXPECT_THAT(errorOf([&] { op.callBoxed(swapped); }), HasSubstr("argument 0 'self' (Tensor) got Int"));
  // Values below the arguments that fit belong to the caller and stay (Note [Boxed calling convention]).
  Stack below{int64_t{9}, cpuTensor(), 4};
  op.callBoxed(below);
  ASSERT_EQ(below.size(), 2u);
  EXPECT_EQ(below[0].toInt(), 9);
  EXPECT_EQ(below[1].toInt(), 4);
}


// ---- every schema type ------------------------------------------------------------------

// The arguments of an operator taking one value of each type the original tests above do not
// cover, and its returns: the same values, as owning C++ return types.
#define EVERY_TYPE_ARGS                                                                                 \
  "(Layout a, MemoryFormat b, Dimname c, Generator d, Stream e, Storage f, Tensor?[] g, float[] h, "     \
  "Dimname[] i, str[] j, Scalar[] k, bool[] l, float[]? m, Tensor[]? n, Generator? o, MemoryFormat? p)"
#define EVERY_TYPE_RETURNS                                                                              \
  "(Layout, MemoryFormat, Dimname, Generator, Stream, Storage, Tensor?[], float[], Dimname[], str[], "   \
  "Scalar[], bool[], float[]?, Tensor[]?, Generator?, MemoryFormat?)"

using EveryTypeResult =
    std::tuple<Layout, MemoryFormat, Dimname, Generator, Stream, Storage, std::vector<std::optional<TensorBase>>,
               std::vector<double>, std::vector<Dimname>, std::vector<std::string>, std::vector<Scalar>,
               std::vector<bool>, std::optional<std::vector<double>>, std::optional<std::vector<TensorBase>>,
               std::optional<Generator>, std::optional<MemoryFormat>>;
using EveryTypeSig = EveryTypeResult(Layout, MemoryFormat, Dimname, const Generator&, Stream, const Storage&,
                                     ArrayRef<std::optional<TensorBase>>, ArrayRef<double>, DimnameList,
                                     ArrayRef<std::string_view>, ArrayRef<Scalar>, ArrayRef<bool>,
                                     OptionalArrayRef<double>, OptionalArrayRef<TensorBase>,
                                     const std::optional<Generator>&, std::optional<MemoryFormat>);

// An unboxed kernel that returns its arguments.
EveryTypeResult echoEveryType(Layout a, MemoryFormat b, Dimname c, const Generator& d, Stream e, const Storage& f,
                              ArrayRef<std::optional<TensorBase>> g, ArrayRef<double> h, DimnameList i,
                              ArrayRef<std::string_view> j, ArrayRef<Scalar> k, ArrayRef<bool> l,
                              OptionalArrayRef<double> m, OptionalArrayRef<TensorBase> n,
                              const std::optional<Generator>& o, std::optional<MemoryFormat> p) {
  std::optional<std::vector<double>> mv;
  if (m) mv = m->vec();
  std::optional<std::vector<TensorBase>> nv;
  if (n) nv = n->vec();
  return {a, b, c, d, e, f, g.vec(), h.vec(), i.vec(), std::vector<std::string>(j.begin(), j.end()), k.vec(),
          std::vector<bool>(l.begin(), l.end()), mv, nv, o, p};
}

TEST(BoxingTest, EveryTypeThroughABoxedCallOfAnUnboxedKernel) {
  auto def = defLib("bx9");
  def.def("echo" EVERY_TYPE_ARGS " -> " EVERY_TYPE_RETURNS);
  auto cpu = implLib("bx9", DispatchKey::CPU);
  cpu.impl("echo", OPCORE_FN(echoEveryType));
  const TensorBase t = cpuTensor();
  const Generator gen = Generator::create(Device(DeviceType::CPU), 11);
  const Stream stream(Device(DeviceType::CUDA, 0), 3);
  Stack stack{Layout::Sparse,
              MemoryFormat::ChannelsLast,
              Dimname::fromString("N"),
              gen,
              stream,
              t.storage(),
              IValue::list({IValue(t), IValue()}),
              std::vector<double>{0.5, -1.5},
              std::vector<Dimname>{Dimname::fromString("C"), Dimname::wildcard()},
              std::vector<std::string>{"a", "bc"},
              std::vector<Scalar>{1, 2.5, true},
              std::vector<bool>{true, false, true},
              std::nullopt,
              std::vector<TensorBase>{t, t},
              std::nullopt,
              MemoryFormat::Preserve};
  opNamed("bx9::echo").callBoxed(stack);
  ASSERT_EQ(stack.size(), 16u);
  EXPECT_EQ(stack[0].toLayout(), Layout::Sparse);
  EXPECT_EQ(stack[1].toMemoryFormat(), MemoryFormat::ChannelsLast);
  EXPECT_EQ(stack[2].toDimname(), Dimname::fromString("N"));
  EXPECT_EQ(stack[3].toGenerator(), gen);
  EXPECT_EQ(stack[4].toStream(), stream);
  EXPECT_EQ(stack[5].toStorage().get(), t.storage().get());
  ASSERT_EQ(stack[6].toGenericList().size(), 2u);
  EXPECT_TRUE(stack[6].toGenericList()[0].toTensorBase().is_same(t));
  EXPECT_TRUE(stack[6].toGenericList()[1].isNone());
  EXPECT_THAT(stack[7].toDoubleList().vec(), ElementsAre(0.5, -1.5));
  EXPECT_EQ(str(stack[8]), "[C, *]");
  EXPECT_EQ(str(stack[9]), "[\"a\", \"bc\"]");
  EXPECT_EQ(str(stack[10]), "[1, 2.5, True]");
  EXPECT_THAT(stack[11].toBoolList(), ElementsAre(true, false, true));
  EXPECT_TRUE(stack[12].isNone());
  ASSERT_EQ(stack[13].toTensorList().size(), 2u);
  EXPECT_TRUE(stack[13].toTensorList()[1].is_same(t));
  EXPECT_TRUE(stack[14].isNone());
  EXPECT_EQ(stack[15].toMemoryFormat(), MemoryFormat::Preserve);

  // Tensor?[] also takes a TensorList, Scalar[] an IntList; Int values work for the enums.
  Stack other{0, 3, Dimname::wildcard(), gen, Stream(), t.storage(), std::vector<TensorBase>{t},
              std::vector<double>{}, IValue::list({}), IValue::list({}), std::vector<int64_t>{4, 5},
              std::vector<bool>{}, std::vector<double>{2.0}, std::nullopt, gen, std::nullopt};
  opNamed("bx9::echo").callBoxed(other);
  ASSERT_EQ(other.size(), 16u);
  EXPECT_EQ(other[0].toLayout(), Layout::Strided);
  EXPECT_EQ(other[1].toMemoryFormat(), MemoryFormat::ChannelsLast3d);
  EXPECT_TRUE(other[6].toGenericList()[0].toTensorBase().is_same(t));
  EXPECT_EQ(str(other[10]), "[4, 5]");
  EXPECT_THAT(other[12].toDoubleList().vec(), ElementsAre(2.0));
  EXPECT_EQ(other[14].toGenerator(), gen);
  EXPECT_TRUE(other[15].isNone());
}

TEST(BoxingTest, EveryTypeThroughAnUnboxedCallOfABoxedKernel) {
  auto def = defLib("bx10");
  def.def("echo" EVERY_TYPE_ARGS " -> " EVERY_TYPE_RETURNS);
  auto cpu = implLib("bx10", DispatchKey::CPU);
  // The arguments are the returns, in the same order: a boxed echo leaves the stack as it is.
  cpu.impl("echo", KernelFunction::makeFromBoxedFunctor([](const OperatorHandle&, Stack* s) {
             ASSERT_EQ(s->size(), 16u);
             EXPECT_TRUE((*s)[6].isGenericList()) << "Tensor?[] is boxed as a GenericList";
             EXPECT_TRUE((*s)[9].isGenericList()) << "str[] is boxed as a GenericList";
             EXPECT_TRUE((*s)[11].isBoolList());
           }));
  auto op = opNamed("bx10::echo").typed<EveryTypeSig>();
  const TensorBase t = cpuTensor();
  const Generator gen = Generator::create();
  const std::vector<std::optional<TensorBase>> indices{std::nullopt, t};
  const std::vector<Dimname> names{Dimname::fromString("H"), Dimname::fromString("W")};
  const std::vector<std::string_view> strs{"x"};
  const std::vector<Scalar> scalars{7};
  const bool flags[] = {false, true};
  const std::vector<TensorBase> tensors{t};
  const auto [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p] =
      op.call(Layout::SparseCsr, MemoryFormat::Contiguous, Dimname::wildcard(), gen, Stream(Device(DeviceType::CPU), 0),
              t.storage(), indices, {1.0, 2.0}, names, strs, scalars, ArrayRef<bool>(flags, 2), {3.0}, tensors,
              std::nullopt, MemoryFormat::ChannelsLast);
  EXPECT_EQ(a, Layout::SparseCsr);
  EXPECT_EQ(b, MemoryFormat::Contiguous);
  EXPECT_TRUE(c.isWildcard());
  EXPECT_EQ(d, gen);
  EXPECT_EQ(e, Stream());
  EXPECT_EQ(f.get(), t.storage().get());
  ASSERT_EQ(g.size(), 2u);
  EXPECT_FALSE(g[0].has_value());
  EXPECT_TRUE(g[1]->is_same(t));
  EXPECT_THAT(h, ElementsAre(1.0, 2.0));
  EXPECT_THAT(i, ElementsAre(Dimname::fromString("H"), Dimname::fromString("W")));
  EXPECT_THAT(j, ElementsAre("x"));
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].toLong(), 7);
  EXPECT_THAT(l, ElementsAre(false, true));
  ASSERT_TRUE(m.has_value());
  EXPECT_THAT(*m, ElementsAre(3.0));
  ASSERT_TRUE(n.has_value());
  EXPECT_TRUE((*n)[0].is_same(t));
  EXPECT_FALSE(o.has_value());
  EXPECT_EQ(p, MemoryFormat::ChannelsLast);
}

// QScheme (PyTorch's `qscheme(Tensor self) -> QScheme`) as an argument and a return, plain,
// optional and in a list, through both boxing directions.
using QSchemeResult = std::tuple<QScheme, std::optional<QScheme>, std::vector<QScheme>>;

QSchemeResult echoQSchemes(const TensorBase&, QScheme a, std::optional<QScheme> b, ArrayRef<QScheme> c) {
  return {a, b, c.vec()};
}

TEST(BoxingTest, QSchemeThroughABoxedCallOfAnUnboxedKernel) {
  auto def = defLib("bx14");
  def.def("echo(Tensor self, QScheme a, QScheme? b, QScheme[] c) -> (QScheme, QScheme?, QScheme[])");
  auto cpu = implLib("bx14", DispatchKey::CPU);
  cpu.impl("echo", OPCORE_FN(echoQSchemes));
  Stack stack{cpuTensor(), QScheme::PerChannelAffine, std::nullopt,
              std::vector<QScheme>{QScheme::PerTensorSymmetric, QScheme::PerChannelAffineFloatQParams}};
  opNamed("bx14::echo").callBoxed(stack);
  ASSERT_EQ(stack.size(), 3u);
  EXPECT_EQ(stack[0].toQScheme(), QScheme::PerChannelAffine);
  EXPECT_TRUE(stack[1].isNone());
  EXPECT_EQ(str(stack[2]), "[PerTensorSymmetric, PerChannelAffineFloatQParams]");
  // Ints are PyTorch's values, as a Python caller passes them.
  Stack ints{cpuTensor(), 1, 3, IValue::list({IValue(0)})};
  opNamed("bx14::echo").callBoxed(ints);
  EXPECT_EQ(ints[0].toQScheme(), QScheme::PerChannelAffine);
  EXPECT_EQ(ints[1].toQScheme(), QScheme::PerChannelSymmetric);
  EXPECT_EQ(ints[2].toGenericList()[0].toQScheme(), QScheme::PerTensorAffine);
}

TEST(BoxingTest, QSchemeThroughAnUnboxedCallOfABoxedKernel) {
  auto def = defLib("bx15");
  def.def("echo(Tensor self, QScheme a, QScheme? b, QScheme[] c) -> (QScheme, QScheme?, QScheme[])");
  auto cpu = implLib("bx15", DispatchKey::CPU);
  cpu.impl("echo", KernelFunction::makeFromBoxedFunctor([](const OperatorHandle&, Stack* s) {
             ASSERT_EQ(s->size(), 4u);
             EXPECT_TRUE((*s)[1].isQScheme());
             EXPECT_TRUE((*s)[2].isQScheme());
             EXPECT_TRUE((*s)[3].isGenericList()) << "QScheme[] is boxed as a GenericList";
             s->erase(s->begin());  // the returns are the arguments after self
           }));
  auto op = opNamed("bx15::echo").typed<QSchemeResult(const TensorBase&, QScheme, std::optional<QScheme>, ArrayRef<QScheme>)>();
  const std::vector<QScheme> list{QScheme::PerChannelSymmetric};
  const auto [a, b, c] = op.call(cpuTensor(), QScheme::PerTensorAffine, QScheme::PerTensorSymmetric, list);
  EXPECT_EQ(a, QScheme::PerTensorAffine);
  EXPECT_EQ(b, QScheme::PerTensorSymmetric);
  EXPECT_THAT(c, ElementsAre(QScheme::PerChannelSymmetric));
}

TEST(BoxingTest, AGeneratorsDeviceSelectsTheBackend) {
  auto def = defLib("bx11");
  def.def("f(Generator? g, int backend) -> int");
  auto cpu = implLib("bx11", DispatchKey::CPU);
  cpu.impl("f", [](const std::optional<Generator>&, int64_t) -> int64_t { return 1; });
  auto meta = implLib("bx11", DispatchKey::Meta);
  meta.impl("f", [](const std::optional<Generator>&, int64_t) -> int64_t { return 2; });
  auto op = opNamed("bx11::f");
  auto typed = op.typed<int64_t(const std::optional<Generator>&, int64_t)>();
  const Generator meta_gen = Generator::create(Device(DeviceType::Meta));
  EXPECT_EQ(typed.call(meta_gen, 0), 2);
  EXPECT_EQ(typed.call(Generator::create(), 0), 1);
  EXPECT_EQ(typed.call(std::nullopt, 0), 1) << "no tensors and no generator: the CPU";
  Stack stack{meta_gen, 0};
  op.callBoxed(stack);
  EXPECT_EQ(stack.at(0).toInt(), 2);
  stack = {Generator::create(), 0};
  op.callBoxed(stack);
  EXPECT_EQ(stack.at(0).toInt(), 1);
}

// What the last call of the kernels below saw.
size_t g_use_count_seen = 0;

TensorBase observeUseCount(const TensorBase& self) {
  g_use_count_seen = self.use_count();
  return self;
}

TEST(BoxingTest, BorrowedArgumentsReachAnUnboxedKernelWithoutAReference) {
  auto def = defLib("bx12");
  def.def("f(Tensor self) -> Tensor");
  auto cpu = implLib("bx12", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(observeUseCount));
  auto op = opNamed("bx12::f");
  const TensorBase t = cpuTensor();

  // Note [Borrowed IValues]: the kernel's `const Tensor&` is the caller's tensor, unreferenced.
  Stack stack;
  stack.push_back(IValue::borrow(t));
  op.callBoxed(stack);
  EXPECT_EQ(g_use_count_seen, 1u);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_TRUE(stack[0].toTensorBase().is_same(t));
  EXPECT_FALSE(stack[0].isBorrowed()) << "results are owned";
  EXPECT_EQ(t.use_count(), 2u);
  stack.clear();
  EXPECT_EQ(t.use_count(), 1u);

  // An owning push: the kernel sees the stack's reference, moved out of the entry.
  stack.push_back(t);
  op.callBoxed(stack);
  EXPECT_EQ(g_use_count_seen, 2u);
  stack.clear();
  EXPECT_EQ(t.use_count(), 1u);

  // Redispatch and a call for a key take borrowed arguments the same way.
  stack.push_back(IValue::borrow(t));
  op.redispatchBoxed(DispatchKeySet(DispatchKey::CPU), stack);
  EXPECT_EQ(g_use_count_seen, 1u);
  stack.clear();
  stack.push_back(IValue::borrow(t));
  op.callBoxedForDispatchKey(DispatchKey::CPU, stack);
  EXPECT_EQ(g_use_count_seen, 1u);
  stack.clear();
  EXPECT_EQ(t.use_count(), 1u);
}

TensorBase& replaceSelf(TensorBase& self) {
  g_use_count_seen = self.use_count();
  self = detail::emptyCpu({3}, ScalarType::Float);
  return self;
}

TEST(BoxingTest, AMutableTensorParameterGetsItsOwnReferenceFromABorrowedArgument) {
  auto def = defLib("bx13");
  def.def("f_(Tensor(a!) self) -> Tensor(a!)");
  auto cpu = implLib("bx13", DispatchKey::CPU);
  cpu.impl("f_", OPCORE_FN(replaceSelf));
  const TensorBase t = cpuTensor();
  // The kernel assigns to its `Tensor&`: that drops the parameter's own reference, never the
  // caller's (under ASan a wrong release would be a use after free).
  Stack stack;
  stack.push_back(IValue::borrow(t));
  opNamed("bx13::f_").callBoxed(stack);
  EXPECT_EQ(g_use_count_seen, 2u);
  EXPECT_EQ(t.use_count(), 1u);
  EXPECT_EQ(t.numel(), 1);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_EQ(stack[0].toTensorBase().numel(), 3);
}

TEST(BoxingTest, BoxedKernelsAndFallbacksNeverSeeABorrowedArgument) {
  auto def = defLib("bx14");
  def.def("f(Tensor self, Tensor other) -> int");
  // Both kernels keep their arguments past the call, as a boxed kernel may.
  Stack kept;
  const auto keep = [&kept](const OperatorHandle&, Stack* stack) {
    for (size_t i = stack->size() - 2; i < stack->size(); ++i) {
      EXPECT_FALSE((*stack)[i].isBorrowed()) << "argument " << i;
      kept.push_back(std::move((*stack)[i]));
    }
    stack->resize(stack->size() - 2);
    stack->emplace_back(int64_t{7});
  };
  auto cpu = implLib("bx14", DispatchKey::CPU);
  cpu.impl("f", KernelFunction::makeFromBoxedFunctor(keep));
  auto fallback = Library(Library::IMPL, "_", DispatchKey::Meta, "fallbacks.cpp", __LINE__);
  fallback.fallback(KernelFunction::makeFromBoxedFunctor(keep));
  auto op = opNamed("bx14::f");

  for (const bool meta : {false, true}) {
    TensorBase a = meta ? metaTensor() : cpuTensor(), b = meta ? metaTensor() : cpuTensor();
    TensorImpl* a_impl = a.unsafeGetTensorImpl();
    // A value below the arguments belongs to the caller and is left borrowed.
    Stack stack;
    stack.push_back(IValue::borrow(a));
    stack.push_back(IValue::borrow(a));
    stack.push_back(IValue::borrow(b));
    op.callBoxed(stack);
    ASSERT_EQ(stack.size(), 2u);
    EXPECT_TRUE(stack[0].isBorrowed());
    EXPECT_EQ(stack[1].toInt(), 7);
    stack.clear();
    a = TensorBase();
    b = TensorBase();
    ASSERT_EQ(kept.size(), 2u) << (meta ? "fallback" : "kernel");
    EXPECT_EQ(kept[0].toTensorBase().unsafeGetTensorImpl(), a_impl);
    EXPECT_EQ(kept[0].toTensorBase().use_count(), 1u) << "the kept values own the tensors now";
    EXPECT_EQ(kept[1].toTensorBase().use_count(), 1u);
    kept.clear();
  }
}

const TensorBase& passThrough(int64_t, const TensorBase& self) { return self; }
std::tuple<const TensorBase&, int64_t> passThroughPair(int64_t n, const TensorBase& self) { return {self, n}; }

TEST(BoxingTest, AReferenceResultIsBoxedBeforeItsArgumentIsPopped) {
  auto def = defLib("bx15");
  def.def("f(int n, Tensor self) -> Tensor");
  def.def("g(int n, Tensor self) -> (Tensor, int)");
  auto cpu = implLib("bx15", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(passThrough));
  cpu.impl("g", OPCORE_FN(passThroughPair));
  // The stack holds the only reference to the tensor the kernel returns a reference to (under
  // ASan, popping it first would be a use after free).
  Stack stack{IValue(2), IValue(detail::emptyCpu({3}, ScalarType::Float))};
  opNamed("bx15::f").callBoxed(stack);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_EQ(stack[0].toTensorBase().use_count(), 1u);
  EXPECT_EQ(stack[0].toTensorBase().numel(), 3);

  stack = {IValue(5), IValue(2), IValue(detail::emptyCpu({4}, ScalarType::Float))};
  opNamed("bx15::g").callBoxed(stack);
  ASSERT_EQ(stack.size(), 3u);
  EXPECT_EQ(stack[0].toInt(), 5) << "values below the arguments stay";
  EXPECT_EQ(stack[1].toTensorBase().use_count(), 1u);
  EXPECT_EQ(stack[1].toTensorBase().numel(), 4);
  EXPECT_EQ(stack[2].toInt(), 2);
}

}  // namespace
}  // namespace opcore

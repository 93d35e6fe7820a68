// Kernels and typed handles are checked against the operator's schema; schemas can be
// inferred from C++ functions; registration listeners hear about every definition.
#include "DispatchTestUtil.h"

#include <opcore/dispatch/InferSchema.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace opcore {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace ::opcore::dispatch_test;

TEST(InferSchemaTest, SpellsEveryCppTypeInTheSchemaLanguage) {
  EXPECT_EQ(inferSchemaText<TensorBase(const TensorBase&, int64_t)>(), "(Tensor _0, int _1) -> Tensor");
  EXPECT_EQ((inferSchemaText<std::tuple<TensorBase, int64_t>(IntArrayRef, std::optional<double>, const Scalar&,
                                                             ArrayRef<TensorBase>)>()),
            "(int[] _0, float? _1, Scalar _2, Tensor[] _3) -> (Tensor, int)");
  EXPECT_EQ((inferSchemaText<void(std::string_view, ScalarType, std::optional<Device>, std::array<bool, 3>,
                                  OptionalArrayRef<int64_t>, bool)>()),
            "(str _0, ScalarType _1, Device? _2, bool[3] _3, int[]? _4, bool _5) -> ()");
  EXPECT_EQ(inferSchemaText<TensorBase&(TensorBase&)>(), "(Tensor _0) -> Tensor");
}

TEST(InferSchemaTest, SpellsTheOtherSchemaTypes) {
  EXPECT_EQ((inferSchemaText<Stream(Layout, MemoryFormat, Dimname, const Generator&, Stream, const Storage&)>()),
            "(Layout _0, MemoryFormat _1, Dimname _2, Generator _3, Stream _4, Storage _5) -> Stream");
  EXPECT_EQ((inferSchemaText<std::vector<std::string>(ArrayRef<std::optional<TensorBase>>, DimnameList,
                                                      ArrayRef<std::string_view>, ArrayRef<Scalar>, ArrayRef<bool>,
                                                      ArrayRef<double>)>()),
            "(Tensor?[] _0, Dimname[] _1, str[] _2, Scalar[] _3, bool[] _4, float[] _5) -> str[]");
  EXPECT_EQ((inferSchemaText<std::tuple<std::optional<TensorBase>, std::vector<std::optional<TensorBase>>,
                                        std::optional<std::vector<int64_t>>, std::string>(
                 OptionalArrayRef<TensorBase>, OptionalArrayRef<std::optional<int64_t>>, const std::optional<Generator>&,
                 std::optional<Layout>, std::optional<std::array<bool, 2>>)>()),
            "(Tensor[]? _0, int?[]? _1, Generator? _2, Layout? _3, bool[2]? _4) -> (Tensor?, Tensor?[], int[]?, str)");
  EXPECT_EQ((inferSchemaText<std::tuple<QScheme, std::optional<QScheme>, std::vector<QScheme>>(
                 QScheme, std::optional<QScheme>, ArrayRef<QScheme>, OptionalArrayRef<QScheme>)>()),
            "(QScheme _0, QScheme? _1, QScheme[] _2, QScheme[]? _3) -> (QScheme, QScheme?, QScheme[])");
}

TEST(InferSchemaTest, MismatchSeesTheOtherSchemaTypes) {
  const auto declared = FunctionSchema::parse(
      "f(Tensor self, Tensor?[] indices, *, Generator? generator=None, MemoryFormat memory_format=contiguous_format) -> Tensor");
  EXPECT_EQ(schemaMismatch(declared, FunctionSchema::parse(
                                         "g(Tensor _0, Tensor?[] _1, Generator? _2, MemoryFormat _3) -> Tensor")),
            std::nullopt);
  EXPECT_EQ(schemaMismatch(declared, FunctionSchema::parse("g(Tensor _0, Tensor[] _1, Generator? _2, MemoryFormat _3) -> Tensor")),
            "argument 1 is 'Tensor?[]' in the schema but 'Tensor[]' in the kernel");
  EXPECT_EQ(schemaMismatch(declared, FunctionSchema::parse("g(Tensor _0, Tensor?[] _1, Generator _2, MemoryFormat _3) -> Tensor")),
            "argument 2 is 'Generator?' in the schema but 'Generator' in the kernel");
  EXPECT_EQ(schemaMismatch(declared, FunctionSchema::parse("g(Tensor _0, Tensor?[] _1, Generator? _2, Layout _3) -> Tensor")),
            "argument 3 is 'MemoryFormat' in the schema but 'Layout' in the kernel");
  EXPECT_EQ(schemaMismatch(FunctionSchema::parse("qscheme(Tensor self) -> QScheme"),
                           FunctionSchema::parse("g(Tensor _0) -> Layout")),
            "return 0 is 'QScheme' in the schema but 'Layout' in the kernel");
}

TEST(SchemaMatchTest, KernelsWithTheOtherTypesAreCheckedAndInferred) {
  auto def = defLib("sm9");
  def.def("f(Tensor self, Layout? layout=None, *, Dimname dim) -> int");
  auto cpu = implLib("sm9", DispatchKey::CPU);
  EXPECT_THAT(errorOf([&] { cpu.impl("f", [](const TensorBase&, std::optional<MemoryFormat>, Dimname) -> int64_t { return 0; }); }),
              HasSubstr("argument 1 is 'Layout?' in the schema but 'MemoryFormat?' in the kernel"));
  cpu.impl("f", [](const TensorBase&, std::optional<Layout> l, Dimname d) -> int64_t {
    return (l ? 10 : 0) + static_cast<int64_t>(d.name().size());
  });
  auto op = opNamed("sm9::f").typed<int64_t(const TensorBase&, std::optional<Layout>, Dimname)>();
  EXPECT_EQ(op.call(cpuTensor(), Layout::Strided, Dimname::fromString("abc")), 13);
  auto lib = defLib("sm10");
  lib.def("g", [](const Generator& g, Stream s) -> int64_t { return static_cast<int64_t>(g.current_seed()) + s.id; });
  EXPECT_EQ(opNamed("sm10::g").schema().str(), "sm10::g(Generator _0, Stream _1) -> int");
  EXPECT_EQ((opNamed("sm10::g").typed<int64_t(const Generator&, Stream)>().call(Generator::create(Device(DeviceType::CPU), 5),
                                                                                 Stream(Device(DeviceType::CPU), 2))),
            7);
  lib.def("q", [](const TensorBase&) -> QScheme { return QScheme::PerChannelSymmetric; });
  EXPECT_EQ(opNamed("sm10::q").schema().str(), "sm10::q(Tensor _0) -> QScheme");
  EXPECT_EQ(opNamed("sm10::q").typed<QScheme(const TensorBase&)>().call(cpuTensor()), QScheme::PerChannelSymmetric);
}

TEST(InferSchemaTest, MismatchIgnoresAliasesNamesDefaultsSymIntAndIntListSizes) {
  const auto declared =
      FunctionSchema::parse("f(Tensor(a!) self, SymInt[2] size=[1,1], *, int n=3) -> Tensor(a!)");
  EXPECT_EQ(schemaMismatch(declared, FunctionSchema::parse("g(Tensor _0, int[] _1, int _2) -> Tensor")), std::nullopt);
  EXPECT_EQ(schemaMismatch(declared, FunctionSchema::parse("g(Tensor _0, int[] _1) -> Tensor")),
            "the schema has 3 arguments, the kernel 2");
  EXPECT_EQ(schemaMismatch(declared, FunctionSchema::parse("g(Tensor _0, int[] _1, float _2) -> Tensor")),
            "argument 2 is 'int' in the schema but 'float' in the kernel");
  EXPECT_EQ(schemaMismatch(declared, FunctionSchema::parse("g(Tensor _0, int[] _1, int _2) -> (Tensor, Tensor)")),
            "the schema has 1 returns, the kernel 2");
  // bool[N] is a std::array: its size is part of the C++ type.
  EXPECT_NE(schemaMismatch(FunctionSchema::parse("f(bool[3] m) -> ()"), FunctionSchema::parse("g(bool[2] _0) -> ()")),
            std::nullopt);
}

TEST(SchemaMatchTest, AKernelThatDoesNotMatchTheSchemaIsRejectedAtRegistration) {
  auto def = defLib("sm1");
  def.def("f(Tensor self, int n) -> int");
  auto cpu = Library(Library::IMPL, "sm1", DispatchKey::CPU, "kernels.cpp", 7);
  const std::string msg = errorOf([&] { cpu.impl("f", [](const TensorBase&, double) -> int64_t { return 0; }); });
  EXPECT_THAT(msg, HasSubstr("the kernel for 'sm1::f' at dispatch key CPU (registered at kernels.cpp:7) does not "
                             "match the operator's schema: argument 1 is 'int' in the schema but 'float' in the "
                             "kernel"));
  EXPECT_THAT(msg, HasSubstr("the kernel's C++ types mean '(Tensor _0, float _1) -> int'"));
  EXPECT_TRUE(opNamed("sm1::f").dumpState().find("CPU:") == std::string::npos) << "nothing was registered";
}

TEST(SchemaMatchTest, ADefThatContradictsEarlierKernelsIsRejected) {
  auto cpu = implLib("sm2", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));  // impl before def: (Tensor) -> int
  auto def = defLib("sm2");
  EXPECT_THAT(errorOf([&] { def.def("f(Tensor self, Tensor other) -> int"); }),
              HasSubstr("the schema has 2 arguments, the kernel 1"));
  EXPECT_FALSE(Dispatcher::singleton().findSchema({"sm2::f", ""}).has_value());
  def.def("f(Tensor self) -> int");
  EXPECT_EQ(callOp("sm2::f", cpuTensor()), 1);
}

TEST(SchemaMatchTest, TypedRejectsASignatureThatContradictsTheSchemaEvenWithoutKernels) {
  auto def = defLib("sm3");
  def.def("f(Tensor self, int n) -> int");
  auto op = opNamed("sm3::f");
  EXPECT_THAT(errorOf([&] { op.typed<int64_t(const TensorBase&, double)>(); }),
              HasSubstr("wrong C++ signature for operator 'sm3::f' in typed<>()"));
  EXPECT_THAT(errorOf([&] { op.typed<int64_t(const TensorBase&, int64_t)>(); }), "(no error)");
}

int64_t scaleBy(const TensorBase& t, int64_t k) { return t.numel() * k; }

TEST(SchemaMatchTest, DefFromAFunctionInfersTheSchema) {
  auto def = defLib("sm4");
  def.def("scale", OPCORE_FN(scaleBy));
  auto op = opNamed("sm4::scale");
  EXPECT_EQ(op.schema().str(), "sm4::scale(Tensor _0, int _1) -> int");
  EXPECT_TRUE(op.hasKernelForDispatchKey(DispatchKey::CompositeImplicitAutograd));
  EXPECT_EQ((op.typed<int64_t(const TensorBase&, int64_t)>().call(cpuTensor(), 5)), 5);
  EXPECT_THAT(errorOf([&] { def.def("boxed", KernelFunction::makeFallthrough()); }),
              HasSubstr("a boxed kernel has no C++ types to infer a schema from"));
}

struct RecordingListener final : OpRegistrationListener {
  explicit RecordingListener(std::vector<std::string>* log) : log(log) {}
  void onOperatorRegistered(const OperatorHandle& op) override {
    if (op.operatorName().name.rfind("sm5::", 0) == 0) log->push_back("+" + op.operatorName().str());
  }
  void onOperatorDeregistered(const OperatorHandle& op) override {
    if (op.operatorName().name.rfind("sm5::", 0) == 0) log->push_back("-" + op.operatorName().str());
  }
  std::vector<std::string>* log;
};

TEST(SchemaMatchTest, ListenersHearAboutExistingAndNewOperators) {
  std::vector<std::string> log;
  auto early = std::make_unique<Library>(defLib("sm5"));
  early->def("a(Tensor self) -> int");
  auto handle = Dispatcher::singleton().addRegistrationListener(std::make_unique<RecordingListener>(&log));
  EXPECT_THAT(log, ElementsAre("+sm5::a"));
  {
    auto late = defLib("sm5");
    late.def("b.x(Tensor self) -> int");
  }
  early.reset();
  EXPECT_THAT(log, ElementsAre("+sm5::a", "+sm5::b.x", "-sm5::b.x", "-sm5::a"));
  handle.reset();
  auto after = defLib("sm5");
  after.def("c(Tensor self) -> int");
  EXPECT_EQ(log.size(), 4u) << "a removed listener hears nothing";
}

TEST(SchemaMatchTest, AllOperatorNamesListsDefinedOperatorsOnly) {
  auto cpu = implLib("sm6", DispatchKey::CPU);
  cpu.impl("dangling", OPCORE_FN(returnsOne));
  auto def = defLib("sm6");
  def.def("defined(Tensor self) -> int");
  const auto names = Dispatcher::singleton().allOperatorNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "sm6::defined"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "sm6::dangling"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "aten::add.Tensor"), names.end());
}

}  // namespace
}  // namespace opcore

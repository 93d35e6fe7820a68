"""The C++ signatures (gen/api): type mapping, defaults, and the C++ API's shapes."""
from __future__ import annotations

import pytest

from gen.api import cpp, dispatcher, native
from gen.api.types import ApiError, argument_type, default_value, returns_type
from gen.model.schema import Argument, FunctionSchema, SchemaType


def _type(text: str) -> SchemaType:
    return FunctionSchema.parse(f"f({text} x) -> ()").arguments[0].type


@pytest.mark.parametrize("schema_type,cpp_type", [
    ("Tensor", "const Tensor&"),
    ("Tensor(a!)", "Tensor&"),
    ("Tensor(a)", "const Tensor&"),
    ("Tensor?", "const std::optional<Tensor>&"),
    ("Tensor[]", "TensorList"),
    ("Scalar", "const Scalar&"),
    ("Scalar?", "const std::optional<Scalar>&"),
    ("int", "int64_t"),
    ("SymInt", "int64_t"),
    ("int?", "std::optional<int64_t>"),
    ("int[]", "IntArrayRef"),
    ("int[2]", "IntArrayRef"),
    ("SymInt[]", "IntArrayRef"),
    ("int[]?", "OptionalIntArrayRef"),
    ("int[1]?", "OptionalIntArrayRef"),
    ("float", "double"),
    ("float?", "std::optional<double>"),
    ("bool", "bool"),
    ("bool[3]", "std::array<bool, 3>"),
    ("str", "std::string_view"),
    ("str?", "std::optional<std::string_view>"),
    ("ScalarType", "ScalarType"),
    ("ScalarType?", "std::optional<ScalarType>"),
    ("Device", "Device"),
    ("Device?", "std::optional<Device>"),
])
def test_argument_types(schema_type: str, cpp_type: str) -> None:
    assert argument_type(_type(schema_type)) == cpp_type


@pytest.mark.parametrize("schema_type", ["Layout", "MemoryFormat?", "Generator?", "Dimname",
                                         "Storage", "Stream", "Tensor?[]", "Tensor(a!)[]", "float[]"])
def test_unsupported_argument_types(schema_type: str) -> None:
    with pytest.raises(ApiError, match=r"is not supported by the C\+\+ API yet"):
        argument_type(_type(schema_type))


@pytest.mark.parametrize("returns,cpp_type", [
    ("Tensor", "Tensor"),
    ("Tensor(a!)", "Tensor&"),
    ("Tensor(a)", "Tensor"),
    ("(Tensor values, Tensor indices)", "std::tuple<Tensor, Tensor>"),
    ("(Tensor(a!) values, Tensor(b!) indices)", "std::tuple<Tensor&, Tensor&>"),
    ("()", "void"),
    ("Tensor[]", "std::vector<Tensor>"),
    ("int", "int64_t"),
    ("float", "double"),
    ("bool", "bool"),
    ("Scalar", "Scalar"),
    ("(Tensor)", "Tensor"),
])
def test_return_types(returns: str, cpp_type: str) -> None:
    assert returns_type(FunctionSchema.parse(f"f() -> {returns}").returns) == cpp_type


@pytest.mark.parametrize("arg,expr", [
    ("Tensor? x=None", "std::nullopt"),
    ("bool x=True", "true"),
    ("bool x=False", "false"),
    ("int x=-1", "-1"),
    ("float x=1e-05", "1e-05"),
    ("float x=0.5", "0.5"),
    ("float x=inf", "std::numeric_limits<double>::infinity()"),
    ("float x=-inf", "-std::numeric_limits<double>::infinity()"),
    ("int[] x=[0,1]", "{0,1}"),
    ("int[] x=[]", "{}"),
    ("int[2] x=1", "{1,1}"),
    ("int[]? x=[0]", "IntArrayRef{0}"),
    ("bool[3] x=[True,False,True]", "{true,false,true}"),
    ('str x="mean"', '"mean"'),
    ("ScalarType x=long", "ScalarType::Long"),
    ("ScalarType x=float", "ScalarType::Float"),
    ("ScalarType x=double", "ScalarType::Double"),
    ("ScalarType x=int", "ScalarType::Int"),
    ("ScalarType x=bool", "ScalarType::Bool"),
    ("ScalarType? x=long", "ScalarType::Long"),
    ("Scalar x=1", "1"),
    ("Scalar x=True", "true"),
    ("Device x=cpu", "Device(DeviceType::CPU)"),
])
def test_default_values(arg: str, expr: str) -> None:
    parsed: Argument = FunctionSchema.parse(f"f({arg}) -> ()").arguments[0]
    assert default_value(parsed) == expr


def test_unknown_scalar_type_default() -> None:
    arg = FunctionSchema.parse("f(ScalarType x=half) -> ()").arguments[0]
    with pytest.raises(ApiError, match="unknown ScalarType default 'half'"):
        default_value(arg)


ADD = FunctionSchema.parse("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
ADD_ = FunctionSchema.parse("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)")
ADD_OUT = FunctionSchema.parse("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
WHERE = FunctionSchema.parse("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor")


def test_dispatcher_signature() -> None:
    sig = dispatcher.signature(ADD)
    assert dispatcher.struct_name(ADD) == "add_Tensor"
    assert dispatcher.struct_name(ADD_) == "add__Tensor"
    assert sig.type() == "Tensor(const Tensor&, const Tensor&, const Scalar&)"
    assert sig.decl("call") == "Tensor call(const Tensor& self, const Tensor& other, const Scalar& alpha)"
    assert sig.decl("redispatch", keyset=True) == (
        "Tensor redispatch(DispatchKeySet dispatch_key_set, const Tensor& self, const Tensor& other, "
        "const Scalar& alpha)")
    assert sig.call_exprs(keyset=True) == ("dispatch_key_set", "self", "other", "alpha")


def test_function_and_method() -> None:
    assert cpp.function_signature(ADD).decl() == (
        "Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1)")
    method = cpp.method_signature(ADD_)
    assert method.decl() == "Tensor& add_(const Tensor& other, const Scalar& alpha = 1) const"
    assert method.defn("Tensor::") == "Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) const"
    assert method.call_exprs() == ("const_cast<Tensor&>(*this)", "other", "alpha")


def test_self_is_removed_wherever_it_is() -> None:
    method = cpp.method_signature(WHERE)
    assert method.decl() == "Tensor where(const Tensor& condition, const Tensor& other) const"
    assert method.call_exprs() == ("condition", "*this", "other")


def test_out_functions() -> None:
    assert cpp.out_signature(ADD_OUT).decl() == (
        "Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha = 1)")
    assert cpp.outf_signature(ADD_OUT).decl() == (
        "Tensor& add_outf(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out)")
    assert cpp.out_signature(ADD_OUT).call_exprs() == ("self", "other", "alpha", "out")
    assert cpp.redispatch_signature(ADD_OUT).decl() == (
        "Tensor& add_out(DispatchKeySet dispatch_key_set, const Tensor& self, const Tensor& other, "
        "const Scalar& alpha, Tensor& out)")
    other_name = FunctionSchema.parse("sum.IntList_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
    assert cpp.out_signature(other_name).name == "sum_out"
    assert cpp.outf_signature(other_name).name == "sum_outf"


def test_defaults_dropped_before_a_parameter_without_one() -> None:
    func = FunctionSchema.parse("blend(Tensor self, float alpha=0.5, Tensor other, int n=2) -> Tensor")
    assert cpp.function_signature(func).decl() == (
        "Tensor blend(const Tensor& self, double alpha, const Tensor& other, int64_t n = 2)")


def test_native_signature() -> None:
    assert native.signature(ADD_OUT, "add_out_cpu").decl() == (
        "Tensor& add_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out)")


def test_redispatch_has_no_defaults() -> None:
    assert cpp.redispatch_signature(ADD).decl() == (
        "Tensor add(DispatchKeySet dispatch_key_set, const Tensor& self, const Tensor& other, "
        "const Scalar& alpha)")
    assert cpp.redispatch_signature(ADD).call_exprs() == ("dispatch_key_set", "self", "other", "alpha")

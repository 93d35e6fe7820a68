"""The C++ signatures (gen/api): type mapping, defaults, and the C++ API's shapes."""
from __future__ import annotations

import re

import pytest

from genutil import REPO

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


# Every base type in every shape: plain, `?`, `[]`, `[]?`, `?[]` (Note [C++ types of schema types]).
_EVERY_SHAPE = {
    "Tensor": ("const Tensor&", "const std::optional<Tensor>&", "TensorList",
               "OptionalArrayRef<Tensor>", "OptionalTensorList"),
    "Scalar": ("const Scalar&", "const std::optional<Scalar>&", "ArrayRef<Scalar>",
               "OptionalArrayRef<Scalar>", "ArrayRef<std::optional<Scalar>>"),
    "int": ("int64_t", "std::optional<int64_t>", "IntArrayRef", "OptionalIntArrayRef",
            "ArrayRef<std::optional<int64_t>>"),
    "SymInt": ("int64_t", "std::optional<int64_t>", "IntArrayRef", "OptionalIntArrayRef",
               "ArrayRef<std::optional<int64_t>>"),
    "DeviceIndex": ("DeviceIndex", "std::optional<DeviceIndex>", "ArrayRef<DeviceIndex>",
                    "OptionalArrayRef<DeviceIndex>", "ArrayRef<std::optional<DeviceIndex>>"),
    "SymBool": ("bool", "std::optional<bool>", "ArrayRef<bool>", "OptionalArrayRef<bool>",
                "ArrayRef<std::optional<bool>>"),
    "float": ("double", "std::optional<double>", "ArrayRef<double>", "OptionalArrayRef<double>",
              "ArrayRef<std::optional<double>>"),
    "bool": ("bool", "std::optional<bool>", "ArrayRef<bool>", "OptionalArrayRef<bool>",
             "ArrayRef<std::optional<bool>>"),
    "str": ("std::string_view", "std::optional<std::string_view>", "ArrayRef<std::string_view>",
            "OptionalArrayRef<std::string_view>", "ArrayRef<std::optional<std::string_view>>"),
    "ScalarType": ("ScalarType", "std::optional<ScalarType>", "ArrayRef<ScalarType>",
                   "OptionalArrayRef<ScalarType>", "ArrayRef<std::optional<ScalarType>>"),
    "Device": ("Device", "std::optional<Device>", "ArrayRef<Device>", "OptionalArrayRef<Device>",
               "ArrayRef<std::optional<Device>>"),
    "Layout": ("Layout", "std::optional<Layout>", "ArrayRef<Layout>", "OptionalArrayRef<Layout>",
               "ArrayRef<std::optional<Layout>>"),
    "MemoryFormat": ("MemoryFormat", "std::optional<MemoryFormat>", "ArrayRef<MemoryFormat>",
                     "OptionalArrayRef<MemoryFormat>", "ArrayRef<std::optional<MemoryFormat>>"),
    "QScheme": ("QScheme", "std::optional<QScheme>", "ArrayRef<QScheme>", "OptionalArrayRef<QScheme>",
                "ArrayRef<std::optional<QScheme>>"),
    "Dimname": ("Dimname", "std::optional<Dimname>", "DimnameList", "OptionalArrayRef<Dimname>",
                "ArrayRef<std::optional<Dimname>>"),
    "Generator": ("const Generator&", "const std::optional<Generator>&", "ArrayRef<Generator>",
                  "OptionalArrayRef<Generator>", "ArrayRef<std::optional<Generator>>"),
    "Storage": ("const Storage&", "const std::optional<Storage>&", "ArrayRef<Storage>",
                "OptionalArrayRef<Storage>", "ArrayRef<std::optional<Storage>>"),
    "Stream": ("Stream", "std::optional<Stream>", "ArrayRef<Stream>", "OptionalArrayRef<Stream>",
               "ArrayRef<std::optional<Stream>>"),
}
_SHAPES = ("", "?", "[]", "[]?", "?[]")


def test_every_base_type_has_a_row() -> None:
    from gen.model.schema import BASE_TYPES
    assert sorted(_EVERY_SHAPE) == sorted(BASE_TYPES)


@pytest.mark.parametrize("schema_type,cpp_type", [
    (base + shape, cpp) for base, row in _EVERY_SHAPE.items() for shape, cpp in zip(_SHAPES, row)
])
def test_every_base_type_in_every_shape(schema_type: str, cpp_type: str) -> None:
    assert argument_type(_type(schema_type)) == cpp_type


@pytest.mark.parametrize("schema_type,cpp_type", [
    ("Tensor(a!)", "Tensor&"),
    ("Tensor(a!)?", "const std::optional<Tensor>&"),
    ("Tensor(a!)[]", "TensorList"),
    ("Tensor(a -> *)", "const Tensor&"),
    ("Tensor(a|b)", "const Tensor&"),
    ("Tensor(a)[]", "TensorList"),
    ("Tensor[2]", "TensorList"),
    ("float[3]", "ArrayRef<double>"),
    ("Dimname[1]", "DimnameList"),
    ("bool[2]?", "std::optional<std::array<bool, 2>>"),
    ("Tensor?[]?", "OptionalArrayRef<std::optional<Tensor>>"),
    ("int?[2]", "ArrayRef<std::optional<int64_t>>"),
])
def test_sized_mutable_and_nested_shapes(schema_type: str, cpp_type: str) -> None:
    assert argument_type(_type(schema_type)) == cpp_type


@pytest.mark.parametrize("schema_type,cpp_type", [
    ("QScheme", "QScheme"), ("QScheme?", "std::optional<QScheme>"), ("QScheme[]", "std::vector<QScheme>"),
])
def test_qscheme_returns(schema_type: str, cpp_type: str) -> None:
    """PyTorch's `qscheme(Tensor self) -> QScheme` (runtime/opcore/core/QScheme.h)."""
    assert returns_type(FunctionSchema.parse(f"f() -> {schema_type}").returns) == cpp_type


@pytest.mark.parametrize("schema_type", ["int(a)", "Scalar(a!)", "Generator(a)?", "str(a)[]"])
def test_alias_on_a_non_tensor_is_an_error(schema_type: str) -> None:
    with pytest.raises(ApiError, match=r"has an alias annotation, but only tensors can alias or be mutated"):
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
    ("SymInt", "int64_t"),
    ("str", "std::string"),
    ("ScalarType", "ScalarType"),
    ("Device", "Device"),
    ("Layout", "Layout"),
    ("MemoryFormat", "MemoryFormat"),
    ("Dimname", "Dimname"),
    ("Generator", "Generator"),
    ("Storage", "Storage"),
    ("Stream", "Stream"),
    ("Tensor?", "std::optional<Tensor>"),
    ("int?", "std::optional<int64_t>"),
    ("str?", "std::optional<std::string>"),
    ("Tensor(a)[]", "std::vector<Tensor>"),
    ("Tensor?[]", "std::vector<std::optional<Tensor>>"),
    ("int[]", "std::vector<int64_t>"),
    ("SymInt[]", "std::vector<int64_t>"),
    ("float[]", "std::vector<double>"),
    ("bool[]", "std::vector<bool>"),
    ("bool[3]", "std::array<bool, 3>"),
    ("str[]", "std::vector<std::string>"),
    ("Scalar[]", "std::vector<Scalar>"),
    ("Dimname[]", "std::vector<Dimname>"),
    ("int[2]", "std::vector<int64_t>"),
    ("int[]?", "std::optional<std::vector<int64_t>>"),
    ("(Tensor, Tensor[], float)", "std::tuple<Tensor, std::vector<Tensor>, double>"),
])
def test_return_types(returns: str, cpp_type: str) -> None:
    assert returns_type(FunctionSchema.parse(f"f() -> {returns}").returns) == cpp_type


@pytest.mark.parametrize("returns", ["Tensor(a!)[]", "Tensor(a!)?"])
def test_mutable_returns_other_than_a_tensor_are_errors(returns: str) -> None:
    with pytest.raises(ApiError, match=r"only a plain Tensor\(a!\) can be returned by reference"):
        returns_type(FunctionSchema.parse(f"f(Tensor(a!)[] x) -> {returns}").returns)


def test_alias_on_a_non_tensor_return_is_an_error() -> None:
    with pytest.raises(ApiError, match=r"return type int\(a\) has an alias annotation"):
        returns_type(FunctionSchema.parse("f(Tensor(a) x) -> int(a)").returns)


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
    ("Device? x=cuda", "Device(DeviceType::CUDA)"),
    ("Device x=meta", "Device(DeviceType::Meta)"),
    ("Layout x=strided", "Layout::Strided"),
    ("Layout? x=sparse_coo", "Layout::Sparse"),
    ("Layout x=sparse_csr", "Layout::SparseCsr"),
    ("Layout? x=None", "std::nullopt"),
    ("MemoryFormat x=contiguous_format", "MemoryFormat::Contiguous"),
    ("MemoryFormat x=preserve_format", "MemoryFormat::Preserve"),
    ("MemoryFormat? x=channels_last", "MemoryFormat::ChannelsLast"),
    ("MemoryFormat x=channels_last_3d", "MemoryFormat::ChannelsLast3d"),
    ("Generator? x=None", "std::nullopt"),
    ("Dimname? x=None", "std::nullopt"),
    ("Storage? x=None", "std::nullopt"),
    ("Stream? x=None", "std::nullopt"),
    ("Tensor?[] x=[]", "{}"),
    ("Tensor[]? x=None", "std::nullopt"),
    ("str? x=\"floor\"", '"floor"'),
    ("str x='none'", '"none"'),
    ("str? x='say \"hi\"'", '"say \\"hi\\""'),
    ("str x=\"it's\"", '"it\'s"'),
    ("str x=''", '""'),
    ("str x=\"\\\"'\\\\\"", '"\\"\'\\\\"'),
    ("str x='\"\\'\\\\'", '"\\"\'\\\\"'),
    ("int x=Mean", "Reduction::Mean"),
    ("int x=Sum", "Reduction::Sum"),
    ("int? x=Mean", "Reduction::Mean"),
    ("str[] x=[]", "{}"),
    ("float x=nan", "std::numeric_limits<double>::quiet_NaN()"),
    ("float x=-2.5e+3", "-2.5e+3"),
    ("float? x=1e-05", "1e-05"),
    ("float[] x=[0.5,1]", "{0.5,1}"),
    ("float[] x=[-inf,inf]", "{-std::numeric_limits<double>::infinity(),std::numeric_limits<double>::infinity()}"),
    ("float[]? x=[0.5]", "ArrayRef<double>{0.5}"),
    ("float[2]? x=[]", "ArrayRef<double>{}"),
    ("Scalar[] x=[1,2.5]", "{1,2.5}"),
    ("Scalar? x=-1", "-1"),
    ("Scalar x=-inf", "-std::numeric_limits<double>::infinity()"),
    ("bool[] x=[True]", "{true}"),
    ("bool[2]? x=[False,True]", "std::array<bool, 2>{false,true}"),
    ("bool? x=False", "false"),
    ("int? x=0", "0"),
    ("int[1]? x=2", "IntArrayRef{2}"),
    ("SymInt[] x=[1,-1]", "{1,-1}"),
    ("int?[] x=[1]", "{1}"),
    ("int x=9223372036854775807", "9223372036854775807"),
    ("int x=-9223372036854775808", "std::numeric_limits<int64_t>::min()"),
])
def test_default_values(arg: str, expr: str) -> None:
    parsed: Argument = FunctionSchema.parse(f"f({arg}) -> ()").arguments[0]
    assert default_value(parsed) == expr


@pytest.mark.parametrize("arg,message", [
    ("ScalarType x=flaot", "unknown ScalarType default 'flaot' (did you mean 'float'?)"),
    ("Layout x=mkldnn", "unknown Layout default 'mkldnn' (expected one of: strided, sparse_coo, sparse_csr)"),
    ("MemoryFormat x=nhwc", "unknown MemoryFormat default 'nhwc'"),
    ("Device x=tpu", "unknown Device default 'tpu' (expected one of: cpu, cuda, meta)"),
    ("int x=9223372036854775808", "default '9223372036854775808' does not fit in int64_t"),
    ("int[] x=[-9223372036854775809]", "default '-9223372036854775809' does not fit in int64_t"),
    ("float x=1e400", "default '1e400' does not fit in a double"),
])
def test_defaults_without_a_cpp_equivalent(arg: str, message: str) -> None:
    parsed = FunctionSchema.parse(f"f({arg}) -> ()").arguments[0]
    with pytest.raises(ApiError, match=re.escape(message)):
        default_value(parsed)


def test_signatures_with_the_new_types() -> None:
    rand = FunctionSchema.parse("rand(int[] size, *, Generator? generator=None, ScalarType? dtype=None, "
                                "Layout? layout=None, Device? device=None) -> Tensor")
    # The unpacked overload of a factory has no defaults up to its TensorOptions group
    # (Note [TensorOptions overloads]).
    assert cpp.function_signature(rand).decl() == (
        "Tensor rand(IntArrayRef size, const std::optional<Generator>& generator, "
        "std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device)")
    index = FunctionSchema.parse("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor")
    assert cpp.method_signature(index).decl() == "Tensor index(OptionalTensorList indices) const"
    assert dispatcher.signature(index).type() == "Tensor(const Tensor&, OptionalTensorList)"
    contiguous = FunctionSchema.parse(
        "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)")
    assert cpp.method_signature(contiguous).decl() == (
        "Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const")
    names = FunctionSchema.parse("f(Tensor self, Dimname[] names, Stream s, Storage st) -> str[]")
    assert native.signature(names, "f_cpu").decl() == (
        "std::vector<std::string> f_cpu(const Tensor& self, DimnameList names, Stream s, const Storage& st)")


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


def test_std_names() -> None:
    """`std` may name an operator and an argument (PyTorch's std.dim, normal.Tensor_float); the
    dispatcher signature, declared inside namespace opcore::_ops next to a struct `std`, says
    `::std::` (Note [std as an operator name])."""
    std = FunctionSchema.parse("std.correction(Tensor self, int[1]? dim=None, *, int? correction=None, "
                               "bool keepdim=False) -> (Tensor, Tensor)")
    assert dispatcher.struct_name(std) == "std_correction"
    assert dispatcher.signature(std).type() == (
        "::std::tuple<Tensor, Tensor>(const Tensor&, OptionalIntArrayRef, ::std::optional<int64_t>, bool)")
    assert cpp.method_signature(std).decl() == (
        "std::tuple<Tensor, Tensor> std(OptionalIntArrayRef dim = std::nullopt, "
        "std::optional<int64_t> correction = std::nullopt, bool keepdim = false) const")
    normal = FunctionSchema.parse("normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor")
    assert dispatcher.signature(normal).decl("call") == (
        "Tensor call(double mean, const Tensor& std, const ::std::optional<Generator>& generator)")
    assert cpp.function_signature(normal).decl() == (
        "Tensor normal(double mean, const Tensor& std, const std::optional<Generator>& generator = std::nullopt)")


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


@pytest.mark.parametrize("schema, options_decl, call", [
    ("empty(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
     "Tensor empty(IntArrayRef size, TensorOptions options = {})",
     ("size", "options.dtype_opt()", "options.device_opt()")),
    ("empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
     "Tensor empty_like(const Tensor& self, TensorOptions options = {}, "
     "std::optional<MemoryFormat> memory_format = std::nullopt)",
     ("self", "options.dtype_opt()", "options.layout_opt()", "options.device_opt()",
      "options.pinned_memory_opt()", "memory_format")),
    ("arange.start(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
     "Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1, TensorOptions options = {})",
     ("start", "end", "step", "options.dtype_opt()", "options.device_opt()")),
])
def test_factories_get_a_tensor_options_overload(schema: str, options_decl: str, call: tuple[str, ...]) -> None:
    func = FunctionSchema.parse(schema)
    sig = cpp.options_signature(func)
    assert sig is not None
    assert sig.decl() == options_decl
    assert sig.call_exprs() == call
    unpacked = cpp.function_signature(func)
    assert all(b.default is None for b in unpacked.bindings if b.name in ("dtype", "layout", "device"))


@pytest.mark.parametrize("schema, defaulted", [
    # empty_like(self, dtype, layout, device) passes 4 arguments; the options overload takes at most 3.
    ("empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", True),
    ("empty_strided(int[] size, int[] stride, *, ScalarType? dtype=None, Layout? layout=None, "
     "Device? device=None, bool? pin_memory=None) -> Tensor", True),
    # f(size, dtype, device) would pass 3, as f(size, options, memory_format) does: ambiguous.
    ("f(int[] size, *, ScalarType? dtype=None, Device? device=None, bool? pin_memory=None, "
     "MemoryFormat? memory_format=None) -> Tensor", False),
])
def test_pin_memory_keeps_its_default_where_no_call_matches_both_overloads(schema: str, defaulted: bool) -> None:
    unpacked = cpp.function_signature(FunctionSchema.parse(schema))
    pin = next(b for b in unpacked.bindings if b.name == "pin_memory")
    assert (pin.default == "std::nullopt") is defaulted


@pytest.mark.parametrize("schema", [
    "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",                             # no device
    "to(Tensor self, Device? device=None, ScalarType? dtype=None) -> Tensor",            # positional
    "f(int[] size, *, ScalarType dtype, Device? device=None) -> Tensor",                 # not optional
    "g(int[] size, *, ScalarType? dtype=None, int n=0, Device? device=None) -> Tensor",  # not one run
])
def test_other_functions_get_no_tensor_options_overload(schema: str) -> None:
    func = FunctionSchema.parse(schema)
    assert cpp.options_signature(func) is None
    dtype = next(b for b in cpp.function_signature(func).bindings if b.name == "dtype")
    assert dtype.default == ("std::nullopt" if func.arguments[1].type.is_optional else None), "defaults kept"


def test_runtime_methods_are_the_hand_written_members_of_tensor() -> None:
    """RUNTIME_METHODS (the methods no operator may generate) are the members Tensor.h.j2
    declares by hand, before the generated ones."""
    from gen.model.native_function import RUNTIME_METHODS
    template = (REPO / "gen" / "templates" / "Tensor.h.j2").read_text(encoding="utf-8")
    hand_written = template.split("class Tensor : public TensorBase {", 1)[1].split("{% for m in methods %}", 1)[0]
    members = re.findall(r"^  [\w:<>&, ]*?\b(\w+)\(", hand_written, re.MULTILINE)
    assert sorted(set(members) - {"Tensor"}) == sorted(RUNTIME_METHODS)

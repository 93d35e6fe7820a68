"""The Python calling convention (gen/api/python.py) and the generated Python bindings and
their test cases (gen/emit/python_bindings.py, gen/emit/python_tests.py)."""
from __future__ import annotations

from pathlib import Path

from genutil import FIXTURES, REPO, make_yaml_dir

from gen import pipeline
from gen.api import python
from gen.model.schema import BASE_TYPES, Argument, FunctionSchema, SchemaType


def _schema(text: str) -> FunctionSchema:
    return FunctionSchema.parse(text)


def test_every_base_type_is_bound_or_says_why() -> None:
    bound = {"Tensor", "Scalar", "int", "SymInt", "DeviceIndex", "float", "bool", "SymBool", "str", "ScalarType",
             "Device", "Layout", "MemoryFormat"}
    for base in BASE_TYPES:
        arg = Argument(SchemaType(base, None, "?" if base == "Generator" else ""), "x")
        assert (python.accessor(arg) is not None) == (base in bound | {"Generator"}), base
    reason = python.unbound_reason(_schema("f(Tensor self, Dimname dim) -> Tensor"))
    assert reason == "argument 'dim' has type Dimname, which Python cannot pass yet"
    assert python.unbound_reason(_schema("f(Tensor self) -> Storage")) == "it returns Storage, which Python cannot receive yet"
    assert python.unbound_reason(_schema("f(Tensor[] self, int[2]? s, Tensor?[] i) -> Tensor[]")) is None


def test_int_lists_of_every_shape_have_one_accessor() -> None:
    for suffix, accessor in (("[]", "toIntList"), ("[2]", "toIntList"), ("[]?", "toOptionalIntList"), ("[1]?", "toOptionalIntList")):
        assert python.accessor(Argument(SchemaType("SymInt", None, suffix), "x")) == accessor


def test_tensor_overloads_come_before_scalar_ones() -> None:
    spec = pipeline.load_spec(str(REPO / "yaml"))
    groups = python.function_groups(spec.functions)
    assert [str(f.func.name) for f in groups[("", "add")]] == ["add.Tensor", "add.out", "add.Scalar", "add.Scalar_out"]
    methods = python.method_groups(spec.functions)
    assert [str(f.func.name) for f in methods["add_"]] == ["add_.Tensor", "add_.Scalar"]
    assert "add_" not in {name for _, name in groups}  # add_ has no function variant


def test_signature_text_is_what_python_callers_write() -> None:
    spec = pipeline.load_spec(str(REPO / "yaml"))
    by_name = {str(f.func.name): f for f in spec.functions}
    assert python.signature_text(by_name["add.Tensor"], method=False) == \
        "add(input: Tensor, other: Tensor, *, alpha: Number = 1) -> Tensor"
    assert python.signature_text(by_name["add.Tensor"], method=True) == \
        "add(self, other: Tensor, *, alpha: Number = 1) -> Tensor"
    # factories take requires_grad, as torch's do
    assert python.signature_text(by_name["zeros"], method=False) == \
        "zeros(size: Sequence[int], *, dtype: Optional[dtype] = None, layout: Optional[layout] = None, " \
        "device: Optional[DeviceLike] = None, pin_memory: Optional[bool] = None, requires_grad: bool = False) -> Tensor"
    assert python.returned_argument(by_name["add_.Tensor"].func, by_name["add_.Tensor"].func.returns[0]) == 0


def test_bindings_cover_every_bound_overload(tmp_path: Path) -> None:
    generation = pipeline.generate(str(REPO / "yaml"))
    files = dict(generation.files)
    shards = "".join(text for path, text in files.items() if path.startswith("python/PythonFunctions_"))
    spec = pipeline.load_spec(str(REPO / "yaml"))
    for (module, name), fns in python.function_groups(spec.functions).items():
        assert f"PyObject* function_{module + '_' if module else ''}{name}(" in shards
        for f in fns:
            assert f'"aten::{python.python_schema(f.func)}",' in shards
    for name in python.method_groups(spec.functions):
        assert f"PyObject* method_{name}(" in shards
    assert "aten::set_.source_Storage" in shards  # listed as not bound, with the reason
    assert "argument 'source' has type Storage, which Python cannot pass yet" in shards


def test_python_module_functions_go_to_their_submodule(tmp_path: Path) -> None:
    yaml_dir = make_yaml_dir(tmp_path, """
- func: gelu(Tensor self) -> Tensor
  python_module: nn
  dispatch:
    CPU: gelu
""")
    files = dict(pipeline.generate(str(yaml_dir)).files)
    shards = "".join(text for path, text in files.items() if path.startswith("python/PythonFunctions_"))
    assert "PyObject* function_nn_gelu(" in shards
    assert 'table.functions.push_back({"nn", {"gelu",' in shards


def test_binding_test_cases_come_from_the_samples() -> None:
    files = dict(pipeline.generate(str(REPO / "yaml")).files)
    cases = files["tests/test_python_bindings.py"]
    assert "('add.Tensor[1]', 'aten::add', 'Tensor', 'add', 'add', " in cases
    assert "('alpha', ('literal', 2.5), True)" in cases  # keyword-only arguments are passed by keyword
    assert "#   index.Tensor[0]" in cases  # a {cpp: ...} sample cannot be built in Python
    mini = dict(pipeline.generate(str(FIXTURES / "mini")).files)
    compile(mini["tests/test_python_bindings.py"], "test_python_bindings.py", "exec")

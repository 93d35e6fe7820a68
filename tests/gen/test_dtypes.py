"""The generator's one dtype table (gen/model/dtypes.py, Note [Dtype names]): c10's names and
numbers, as runtime/opcore/core/ScalarType.h has them, and every place the YAML names a dtype:
schema defaults (C++ and Python), gradcheck samples, and the bc-check. ExecuTorch's kernel keys
are in test_kernel_keys.py, the located errors in errors/ (test_errors.py)."""
from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest

from genutil import REPO, make_yaml_dir
from gen import pipeline
from gen.api import python
from gen.api.gradcheck import literal, tensor_expression
from gen.api.types import default_value
from gen.model.dtypes import DTYPES, SUPPORTED_DTYPES, by_name, by_schema_default
from gen.model.schema import FunctionSchema

SCALAR_TYPE_H = REPO / "runtime" / "opcore" / "core" / "ScalarType.h"

# c10's ScalarType (c10/core/ScalarType.h), written out here so that a change to either side shows.
C10 = ["Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double", "ComplexHalf", "ComplexFloat",
       "ComplexDouble", "Bool", "QInt8", "QUInt8", "QInt32", "BFloat16"]
SUPPORTED = ["Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double", "ComplexFloat", "ComplexDouble",
             "Bool", "BFloat16"]
# Every spelling of a schema default, as torch's Python attributes (torch.half is torch.float16).
SCHEMA_DEFAULTS = [
    ("uint8", "Byte", "uint8"), ("int8", "Char", "int8"), ("int16", "Short", "int16"), ("short", "Short", "int16"),
    ("int32", "Int", "int32"), ("int", "Int", "int32"), ("int64", "Long", "int64"), ("long", "Long", "int64"),
    ("float16", "Half", "float16"), ("half", "Half", "float16"), ("float32", "Float", "float32"),
    ("float", "Float", "float32"), ("float64", "Double", "float64"), ("double", "Double", "float64"),
    ("complex64", "ComplexFloat", "complex64"), ("cfloat", "ComplexFloat", "complex64"),
    ("complex128", "ComplexDouble", "complex128"), ("cdouble", "ComplexDouble", "complex128"),
    ("bool", "Bool", "bool"), ("bfloat16", "BFloat16", "bfloat16"),
]


def test_the_numbers_are_c10_s() -> None:
    assert [(d.name, d.number) for d in DTYPES[:16]] == list(zip(C10, range(16)))
    assert [d.number for d in DTYPES] == list(range(len(DTYPES)))
    assert [d.name for d in SUPPORTED_DTYPES] == SUPPORTED


def _header() -> str:
    return SCALAR_TYPE_H.read_text(encoding="utf-8")


def test_the_table_is_the_runtime_s_enum() -> None:
    body = re.search(r"enum class ScalarType : int8_t \{(.*?)\};", _header(), re.S).group(1)
    enum = [(name, int(number)) for name, number in re.findall(r"(\w+) = (\d+),", body)]
    assert enum == [(d.name, d.number) for d in DTYPES if d.number < len(enum)]


def test_the_supported_dtypes_and_their_cpp_types_are_the_runtime_s() -> None:
    """OPCORE_FORALL_SCALAR_TYPES lists the dtypes a tensor holds, with their C++ types."""
    forall = _header().split("#define OPCORE_FORALL_SCALAR_TYPES(_)", 1)[1].split("\n\n", 1)[0]
    pairs = re.findall(r"_\(([^,]+(?:,[^,()]+>)?), (\w+)\)", forall)
    assert [(cpp.removeprefix("::"), name) for cpp, name in pairs] == \
        [(d.cpp_type, d.name) for d in sorted(SUPPORTED_DTYPES, key=lambda d: d.number)]


def test_the_item_sizes_are_the_runtime_s() -> None:
    sizes = re.search(r"kSizes\[kNumScalarTypes\] = \{([^}]*)\}", _header()).group(1)
    assert [int(n) for n in sizes.split(",")] == [d.itemsize for d in DTYPES[:16]]


def test_unsupported_dtypes_are_known_but_not_supported() -> None:
    assert [d.name for d in DTYPES[:16] if not d.supported] == ["ComplexHalf", "QInt8", "QUInt8", "QInt32"]
    assert by_name("Float8_e5m2").number == 23 and by_name("UInt64").number == 29
    assert by_name("half") is None and by_name(6) is None


@pytest.mark.parametrize("spelling, name, python_name", SCHEMA_DEFAULTS)
def test_every_spelling_of_a_schema_default_parses_and_renders(spelling: str, name: str, python_name: str) -> None:
    text = f"f(Tensor self, ScalarType dtype={spelling}, ScalarType? other={spelling}) -> Tensor"
    func = FunctionSchema.parse(text)
    assert str(func) == text
    assert [default_value(a) for a in func.arguments[1:]] == [f"ScalarType::{name}"] * 2
    assert python.parameter_texts(func, False)[1:] == [f"dtype: dtype = opcore.{python_name}",
                                                       f"other: Optional[dtype] = opcore.{python_name}"]
    assert by_schema_default(spelling) is by_name(name)


def test_every_supported_dtype_has_a_schema_default() -> None:
    assert sorted({by_schema_default(s).name for s, _, _ in SCHEMA_DEFAULTS}) == sorted(SUPPORTED)


def test_schema_defaults_reach_the_generated_api(tmp_path: Path) -> None:
    entries = "".join(f"- func: cast_{s}(Tensor self, ScalarType dtype={s}) -> Tensor\n"
                      f"  dispatch:\n    CPU: cast_{s}\n" for s, _, _ in SCHEMA_DEFAULTS)
    files = dict(pipeline.generate(str(make_yaml_dir(tmp_path, entries))).files)
    functions = "".join(t for p, t in files.items() if p.endswith(".h"))
    for spelling, name, _ in SCHEMA_DEFAULTS:
        assert f"cast_{spelling}(const Tensor& self, ScalarType dtype = ScalarType::{name})" in functions, spelling


DERIVATIVE = """\
- name: where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
  condition: non_differentiable
  self, other: std::make_tuple(grad, grad)
  samples:
"""


def _samples(tmp_path: Path, sample_lines: str):
    mini = (REPO / "tests" / "gen" / "fixtures" / "mini")
    yaml_dir = make_yaml_dir(tmp_path, (mini / "native_functions.yaml").read_text(encoding="utf-8"),
                             tags=mini / "tags.yaml")
    (yaml_dir / "derivatives.yaml").write_text(DERIVATIVE + sample_lines, encoding="utf-8")
    spec = pipeline.load_spec(str(yaml_dir))
    return next(d for d in spec.derivatives if str(d.name) == "where.self").samples


@pytest.mark.parametrize("dtype, values, expression", [
    ("Byte", "[0, 255]", "inputFromValues<uint8_t>({0, 255}, {2})"),
    ("Char", "[-128, 127]", "inputFromValues<int8_t>({-128, 127}, {2})"),
    ("Short", "[-3, 4]", "inputFromValues<int16_t>({-3, 4}, {2})"),
    ("Int", "[1, 2]", "inputFromValues<int32_t>({1, 2}, {2})"),
    ("Long", "[1, 2]", "inputFromValues<int64_t>({1, 2}, {2})"),
    ("Half", "[1, -0.5]", "inputFromValues<opcore::Half>({1.0, -0.5}, {2})"),
    ("BFloat16", "[1.5, 2]", "inputFromValues<opcore::BFloat16>({1.5, 2.0}, {2})"),
    ("Float", "[1, 2]", "inputFromValues<float>({1.0, 2.0}, {2})"),
    ("Double", "[1, 2]", "inputFromValues<double>({1.0, 2.0}, {2})"),
    ("ComplexFloat", "[1, 2.5]", "inputFromValues<opcore::complex<float>>({1.0, 2.5}, {2})"),
    ("ComplexDouble", "[1, 2.5]", "inputFromValues<opcore::complex<double>>({1.0, 2.5}, {2})"),
    ("Bool", "[true, false]", "inputFromValues<bool>({true, false}, {2})"),
])
def test_sample_values_of_every_dtype(tmp_path: Path, dtype: str, values: str, expression: str) -> None:
    samples = _samples(tmp_path, f"    - {{condition: {{values: {values}, dtype: {dtype}}}, self: [2], other: [2]}}\n")
    assert tensor_expression(samples[0].get("condition")) == expression


def test_a_sample_s_scalar_type_argument_may_be_any_supported_dtype(tmp_path: Path) -> None:
    schema = "cast(Tensor self, ScalarType dtype) -> Tensor"
    yaml_dir = make_yaml_dir(tmp_path, f"- func: {schema}\n  dispatch: {{CPU: cast}}\n")
    samples = "".join(f"    - {{self: [2], dtype: {n}}}\n" for n in SUPPORTED)
    (yaml_dir / "derivatives.yaml").write_text(f"- name: {schema}\n  self: grad\n  samples:\n{samples}",
                                               encoding="utf-8")
    d = pipeline.load_spec(str(yaml_dir)).derivatives[0]
    dtype = d.func.argument("dtype")
    assert [literal(dtype, s.get("dtype")) for s in d.samples] == [f"ScalarType::{n}" for n in SUPPORTED]


def test_a_dtype_default_spelled_another_way_is_no_break(tmp_path: Path) -> None:
    old = "- func: cast(Tensor self, ScalarType dtype=long) -> Tensor\n  dispatch: {CPU: cast}\n"
    old_dir = make_yaml_dir(tmp_path / "old", old)
    for new, broken in (("int64", False), ("long", False), ("int", True)):
        new_dir = make_yaml_dir(tmp_path / new, old.replace("=long", f"={new}"))
        breaks = [str(b) for b in pipeline.bc_check(str(old_dir), str(new_dir), None, datetime.date(2026, 1, 1)).breaks]
        assert bool(breaks) == broken, (new, breaks)

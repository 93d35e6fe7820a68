"""The types fixture (tests/gen/fixtures/types): every schema type in every shape, and every
kind of default, generates. The build compiles what it generates (cmake/TypesCheck.cmake), so
these tests make sure the fixture keeps covering everything the schema language allows."""
from __future__ import annotations

from pathlib import Path

import yaml

from gen.api.types import default_value
from gen.model.schema import BASE_TYPES, SCALAR_ONLY_TYPES, FunctionSchema
from genutil import FIXTURES, run_gen


TYPES = FIXTURES / "types"
ARGUMENT_SHAPES = ("", "?", "[]", "[N]", "[]?", "?[]", "?[]?")
RETURN_SHAPES = ("", "?", "[]", "?[]")


def _schemas() -> list[FunctionSchema]:
    entries = yaml.safe_load((TYPES / "native_functions.yaml").read_text(encoding="utf-8"))
    return [FunctionSchema.parse(e["func"]) for e in entries]


def test_fixture_generates(tmp_path: Path) -> None:
    result = run_gen("--yaml-dir", str(TYPES), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    ops = tmp_path / "out" / "opcore" / "ops"
    assert "OptionalTensorList d" in (ops / "tensor_types.h").read_text(encoding="utf-8")
    assert "const std::optional<Generator>& generator = std::nullopt" in (ops / "fill_random.h").read_text(encoding="utf-8")


def test_std_names_generate(tmp_path: Path) -> None:
    """`std` as an operator (with a method), kernel and argument name: the build compiles the
    result; here, what makes it compile (Note [std as an operator name] in gen/api/types.py)."""
    schemas = _schemas()
    assert any(str(f.name) == "std" for f in schemas)
    assert any(a.name == "std" and a.type.base == "float" for f in schemas for a in f.arguments)
    result = run_gen("--yaml-dir", str(TYPES), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    opcore = tmp_path / "out" / "opcore"
    ops = (opcore / "ops" / "std_ops.h").read_text(encoding="utf-8")
    assert "struct std {" in ops
    assert ("static ::std::tuple<Tensor, ::std::optional<Tensor>> call(const Tensor& self, OptionalIntArrayRef dim, "
            "::std::optional<int64_t> correction, bool keepdim);") in ops
    assert "std::" not in ops.replace("::std::", "")
    assert "_ops::std::call(*this, dim, keepdim)" in (opcore / "Tensor.h").read_text(encoding="utf-8")
    assert "Tensor std(const Tensor& self, OptionalIntArrayRef dim, bool keepdim);" in (
        (opcore / "ops" / "std_native.h").read_text(encoding="utf-8"))
    assert "Tensor normal_like(const Tensor& self, double mean = 0, double std = 1, " in (
        (opcore / "ops" / "normal_like.h").read_text(encoding="utf-8"))


def test_every_base_type_appears_in_every_argument_shape() -> None:
    seen = {(a.type.base, a.type.shape) for f in _schemas() for a in f.arguments}
    missing = [(b, s) for b in BASE_TYPES for s in _shapes(b, ARGUMENT_SHAPES) if (b, s) not in seen]
    assert missing == []


def test_every_base_type_appears_in_every_return_shape() -> None:
    seen = {(r.type.base, r.type.shape) for f in _schemas() for r in f.returns}
    missing = [(b, s) for b in BASE_TYPES for s in _shapes(b, RETURN_SHAPES) if (b, s) not in seen]
    assert missing == []


def _shapes(base: str, shapes: tuple[str, ...]) -> tuple[str, ...]:
    """The shapes `base` takes: DeviceIndex and SymBool have no list form (SCALAR_ONLY_TYPES)."""
    return tuple(s for s in shapes if "[" not in s) if base in SCALAR_ONLY_TYPES else shapes


def test_every_named_default_and_kind_of_default_appears() -> None:
    defaults = {(a.type.base, a.default) for f in _schemas() for a in f.arguments if a.default is not None}
    for expected in [("ScalarType", "long"), ("Layout", "strided"), ("MemoryFormat", "channels_last"),
                     ("MemoryFormat", "preserve_format"), ("Device", "cpu"), ("float", "1e-05"),
                     ("float", "-inf"), ("float", "nan"), ("int", "-9223372036854775808"), ("str", '"mean"'),
                     ("str", "'none'"), ("str", '"\\"\'\\\\"'), ("int", "Mean"), ("int", "Sum"),
                     ("bool", "True"), ("int", "[0,1]"), ("int", "[]"), ("int", "1"), ("bool", "[True,False,True]"),
                     ("Tensor", "None"), ("Generator", "None"), ("Dimname", "None")]:
        assert expected in defaults
    # ... and each has a C++ expression.
    assert all(default_value(a) for f in _schemas() for a in f.arguments if a.default is not None)

"""The operators' one name index and groups (gen/model/operators.py, owned by Spec), and the one
C++ API naming rule (Note [C++ API names] in gen/model/native_function.py)."""
from __future__ import annotations

import ast

import pytest
from genutil import REPO

from gen import pipeline
from gen.model.native_function import CppApiNames, Variant, cpp_api_names
from gen.model.operators import NativeFunctionsGroup
from gen.model.schema import FunctionSchema
from gen.model.spec import Spec


@pytest.fixture(scope="module")
def spec() -> Spec:
    return pipeline.load_spec(str(REPO / "yaml"))


def test_the_spec_indexes_its_functions_once(spec: Spec) -> None:
    assert list(spec.by_name) == [f.name for f in spec.functions]
    assert spec.by_name.get("add.out") is spec.operators["add.out"] and spec.by_name.get("no_such_op") is None
    assert spec.operators is spec.operators and spec.by_name is spec.by_name
    with pytest.raises(TypeError):  # read-only: one index, not a dict to edit
        spec.by_name["x"] = spec.functions[0]  # type: ignore[index]


def test_groups_are_torchgens_functional_inplace_out(spec: Spec) -> None:
    group = spec.group_of(spec.by_name["add_.Tensor"])
    assert group == NativeFunctionsGroup(spec.by_name["add.Tensor"], spec.by_name["add_.Tensor"], spec.by_name["add.out"])
    assert spec.group_of(spec.by_name["add.out"]) is group
    assert sorted(f.name for g in spec.operators.groups for f in (g.functional, g.inplace, g.out)
                  if f is not None) == sorted(f.name for f in spec.functions)


def test_an_inplace_or_out_overload_uses_its_groups_derivatives(spec: Spec) -> None:
    d = spec.derivative_for(spec.by_name["mul.Tensor"])
    assert d is not None and d.name == "mul.Tensor"
    assert spec.derivative_for(spec.by_name["mul_.Tensor"]) is d
    assert spec.derivative_for(spec.by_name["mul.out"]) is d


@pytest.mark.parametrize("schema, variants, names", [
    ("add.Tensor(Tensor self, Tensor other) -> Tensor", {Variant.function, Variant.method},
     CppApiNames(function="add", method="add")),
    ("add.Tensor(Tensor self, Tensor other) -> Tensor", {Variant.method}, CppApiNames(method="add")),
    ("sum.IntList_out(Tensor self, int[1] dim, *, Tensor(a!) out) -> Tensor(a!)", {Variant.function},
     CppApiNames(out="sum_out", outf="sum_outf")),
])
def test_cpp_api_names(schema: str, variants: set, names: CppApiNames) -> None:
    assert cpp_api_names(FunctionSchema.parse(schema), frozenset(variants)) == names


def test_the_naming_rule_is_written_once() -> None:
    """No module but native_function.py spells `_outf` or builds a name index of the functions
    (`{f.name: f for f in ...}`): they ask cpp_api_names() and Spec."""
    offenders = []
    for path in sorted((REPO / "gen").rglob("*.py")):
        if path.name == "native_function.py" or path.name == "operators.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.endswith("_outf"):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}: '_outf'")
            if (isinstance(node, ast.DictComp) and isinstance(node.key, ast.Attribute) and node.key.attr == "name"
                    and isinstance(node.value, ast.Name) and isinstance(node.key.value, ast.Name)
                    and node.key.value.id == node.value.id == "f"):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}: a name index")
    assert offenders == []


def test_operator_groups_are_every_overload_of_one_base_name(spec: Spec) -> None:
    groups = spec.operator_groups
    assert spec.operator_groups is groups  # computed once per Spec
    assert list(groups) == sorted(groups)
    assert {"add.Tensor", "add_.Tensor", "add.out"} <= {f.name for f in groups["add"]}
    assert sorted(f.name for fns in groups.values() for f in fns) == sorted(f.name for f in spec.functions)

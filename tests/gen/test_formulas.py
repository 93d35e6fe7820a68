"""The scanner of derivatives.yaml formulas (gen/model/formulas.py), and its list of helpers
against the header that declares them (runtime/opcore/autograd/Formulas.h)."""
from __future__ import annotations

import re

import pytest
from genutil import REPO

from gen.model.formulas import (FORMULA_HELPERS, RUNTIME_OPERATORS, Name, grads_indices, names_in,
                                not_implemented_reason, property_uses, result_index, unqualified_names, uses)

FORMULAS_H = REPO / "runtime" / "opcore" / "autograd" / "Formulas.h"


def _declared_helpers() -> list[str]:
    """The functions Formulas.h declares in namespace opcore::autograd::formulas, in order."""
    text = FORMULAS_H.read_text(encoding="utf-8")
    body = text.split("namespace opcore::autograd::formulas {", 1)[1].split("}  // namespace", 1)[0]
    code = "\n".join(line for line in body.splitlines() if not line.lstrip().startswith("//"))
    # a return type: a name, maybe with template arguments (std::pair<Tensor, Tensor>)
    return re.findall(r"^(?:\[\[\w+\]\]\s*)?[\w:]+(?:<[^()\n]*>)?\s+(\w+)\(", code, re.MULTILINE)


def test_helpers_are_those_of_formulas_h() -> None:
    declared = _declared_helpers()
    assert "sum_to" in declared and "not_implemented" in declared  # the parse found the header's functions
    assert list(FORMULA_HELPERS) == declared


def test_runtime_operators_are_in_every_build() -> None:
    required = (REPO / "runtime" / "required_operators.txt").read_text(encoding="utf-8").split()
    assert all(f"aten::{name}" in required for name in RUNTIME_OPERATORS)
    assert not set(RUNTIME_OPERATORS) & set(FORMULA_HELPERS), "an operator, not a helper of Formulas.h"


def test_names_skip_literals_and_mark_members() -> None:
    assert names_in('sum_to(grad * other, self.sizes())') == (
        Name("sum_to", 0), Name("grad", 7), Name("other", 14), Name("self", 21), Name("sizes", 26, True))
    assert [n.text for n in unqualified_names('not_implemented("self is x", \'y\')')] == ["not_implemented"]
    assert [n.text for n in unqualified_names("std::get<0>(t)->x + ScalarType::Long + 1e-5 + 0x1Fu")] == \
        ["std", "t", "ScalarType"]
    assert [n.text for n in unqualified_names("a . b :: c -> d")] == ["a"]


def test_uses() -> None:
    assert uses("grad * result", "result")
    assert not uses("grad.result", "result")
    assert not uses('not_implemented("result")', "result")
    assert not uses("results", "result")


@pytest.mark.parametrize("expr,props", [
    ("sum_to(grad, self.sizes())", ["sizes"]),
    ("grad.expand(self.sizes()) / self.dim()", ["sizes", "dim"]),
    ("grad.to(self.scalar_type())", ["scalar_type"]),
    ("grad * self", [None]),
    ("self.sizes(0)", [None]),          # not the property call: the tensor is needed
    ("self . sizes ( )", ["sizes"]),    # spaces between tokens are C++'s business
    ("self_sizes", []),
])
def test_property_uses(expr: str, props: list) -> None:
    assert [u.prop for u in property_uses(expr, "self")] == props


def test_property_use_spans_cover_the_call() -> None:
    expr = "sum_to(grad, self.sizes()) + self.dim()"
    spans = [expr[u.start:u.end] for u in property_uses(expr, "self")]
    assert spans == ["self.sizes()", "self.dim()"]


@pytest.mark.parametrize("expr,reason", [
    ('not_implemented("no index_put yet")', "no index_put yet"),
    ('  not_implemented( "a \\"quoted\\" word" ) ', 'a \\"quoted\\" word'),
    ('not_implemented("x") + grad', None),
    ("not_implemented(reason)", None),
    ("grad", None),
])
def test_not_implemented_reason(expr: str, reason) -> None:
    assert not_implemented_reason(expr) == reason


def test_result_and_grads_indices() -> None:
    assert result_index("result1") == 1 and result_index("result") is None and result_index("results1") is None
    assert grads_indices("grads[0] + grads [ 2 ] * grads.size()") == ((0, 0), (2, 11))

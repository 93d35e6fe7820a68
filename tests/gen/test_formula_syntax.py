"""A derivatives.yaml formula must be exactly one C++ expression (Note [Formula syntax] in
gen/model/formulas.py), checked in one pass whose tokens every later use shares."""
from __future__ import annotations

import re

import pytest
from genutil import FIXTURES, make_yaml_dir

from gen.model.formulas import Expr, ExpressionError, names_in, property_uses, uses


@pytest.mark.parametrize("text", [
    "transpose(grad, dim0, dim1)",
    "grad_input_mask[0] ? grad * other : Tensor()",
    "a ? b ? c : d : e",
    "at::where(self > 0, grad, grad * 0)",
    "apply([&](const Tensor& t) { auto n = t.dim(); return n > 0 ? t : t; }, grad)",  # a lambda's body
    "sum_to(grad, {2, 3})",                                                          # a braced initializer
    "f(x, [](int i) { switch (i) { case 0: return 1; default: return 2; } })",       # labels in a lambda
    'not_implemented("a; b { c } // d /* e */ # f \\" é")',                          # all inside a literal
    "grad * ';' + 1'000 + 0x1Fu + 1e-5 + std::get<0>(t)->x",
    "grad *\n  other",                                                               # lines joined by YAML
])
def test_one_expression_is_accepted(text: str) -> None:
    assert Expr(text) == text


@pytest.mark.parametrize("text,offset,message", [
    ("grad; std::abort()", 4, "';' ends a statement"),
    ("f(grad; x)", 6, "';' ends a statement"),
    ("{grad}", 0, "'{' outside parentheses"),
    ("(grad", 0, "'(' is never closed"),
    ("f(g(grad)", 1, "'(' is never closed"),
    ("grad)", 4, "')' closes nothing"),
    ("f(grad]", 6, "']' does not close the '(' before it"),
    ("grad ?", 5, "'?' without its ':'"),
    ("f(a ? b) : c", 4, "'?' without its ':'"),
    ("grad : x", 5, "':' without a '?' before it"),
    ("grad \\", 5, "'\\' outside a string literal"),
    ("#define x", 0, "'#' outside a string literal"),
    ("grad ## x", 5, "'#' outside a string literal"),
    ("\u00e9grad", 0, "non-ASCII character '\u00e9' (U+00E9)"),
    ("grad /* grda", 5, "'/*' starts a comment that is never closed"),
    ('f("grad)', 2, '" starts a string literal that is not closed'),
    ("grad @ x", 5, "character '@' is not C++"),
])
def test_anything_else_is_rejected_where_it_goes_wrong(text: str, offset: int, message: str) -> None:
    with pytest.raises(ExpressionError) as e:
        Expr(text)
    assert (e.value.offset, e.value.message[:len(message)]) == (offset, message)


def test_comments_are_skipped_and_blanked() -> None:
    """As torchgen: no name in a comment is read, and the code keeps what follows a `//`
    comment once held on one line; offsets still point into the formula as written."""
    e = Expr("mean(grad, /* is_result */ self) // trailing comment\n  * other")
    assert [n.text for n in e.names] == ["mean", "grad", "self", "other"]
    assert e == "mean(grad,                 self)                    \n  * other"
    assert [n.offset for n in e.names] == [0, 5, 27, 57]
    assert Expr('f("/* not a comment */")') == 'f("/* not a comment */")'  # inside a literal
    assert [n.text for n in names_in("a /* b */ c // d")] == ["a", "c"]


def test_an_expr_answers_as_the_plain_text_does() -> None:
    text = "sum_to(grad * other, self.sizes()) + self.dim() + x.self"
    e = Expr(text)
    assert names_in(e) == names_in(text)
    for name in ("self", "other", "grad", "x", "sizes", "nothing"):
        assert uses(e, name) == uses(text, name)
        assert property_uses(e, name) == property_uses(text, name)


def test_formulas_are_scanned_once(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One tokenizer pass per formula, whatever the number of arguments, emitters and checks
    asking about it: a formula of megabytes then takes time in proportion to its length."""
    from gen import pipeline
    from gen.model import formulas
    term = " + grad * other.sizes()[0] + self.sizes()[0]"
    derivatives = ("- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
                   f"  self: grad{term * 2000}\n"
                   f"  other: grad{term * 2000}\n")
    yaml_dir = make_yaml_dir(tmp_path, (FIXTURES / "mini" / "native_functions.yaml").read_text(),
                             tags=FIXTURES / "mini" / "tags.yaml")
    (yaml_dir / "derivatives.yaml").write_text(derivatives)
    scanned = []
    scan = formulas._scan
    monkeypatch.setattr(formulas, "_scan", lambda text, check: scanned.append(len(text)) or scan(text, check))
    pipeline.generate(str(yaml_dir))
    long_scans = [n for n in scanned if n > 1000]
    assert len(long_scans) == 2, long_scans


def test_generated_code_keeps_what_follows_a_comment(tmp_path) -> None:
    """A formula with comments generates the code of the formula without them, on one line. (A
    `//` comment ends at a line break that YAML keeps: in a block scalar, as here; a plain
    scalar's lines are folded into one, where the comment runs to the end.)"""
    from gen import pipeline
    derivatives = ("- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
                   "  self: |\n"
                   "    grad /* zqx_is_result */ // zqx_trailing\n"
                   "    * 1\n"
                   "  other: grad * alpha  // zqx_other\n")
    yaml_dir = make_yaml_dir(tmp_path, (FIXTURES / "mini" / "native_functions.yaml").read_text(),
                             tags=FIXTURES / "mini" / "tags.yaml")
    (yaml_dir / "derivatives.yaml").write_text(derivatives)
    code = "".join(text for _, text in pipeline.generate(str(yaml_dir)).files)
    assert "zqx" not in code
    assert re.search(r"grad +\* 1", code), "the line after the // comment is part of the formula"

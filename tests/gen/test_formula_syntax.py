"""A derivatives.yaml formula must be exactly one C++ expression (Note [Formula syntax] in
gen/model/formulas.py), checked in one pass whose tokens every later use shares."""
from __future__ import annotations

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
    ("grad // grda", 5, "a comment in a formula"),
    ("grad /* grda */", 5, "a comment in a formula"),
    ('f("grad)', 2, '" starts a string literal that is not closed'),
    ("grad @ x", 5, "character '@' is not C++"),
])
def test_anything_else_is_rejected_where_it_goes_wrong(text: str, offset: int, message: str) -> None:
    with pytest.raises(ExpressionError) as e:
        Expr(text)
    assert (e.value.offset, e.value.message[:len(message)]) == (offset, message)


def test_comments_are_not_read_as_names() -> None:
    """Comments are rejected, and a name inside one is never reported as unknown first."""
    with pytest.raises(ExpressionError, match="comment"):
        Expr("grad /* grda */")


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

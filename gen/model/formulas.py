"""The C++ expressions of derivatives.yaml (`self: grad * other`): the names they may use, and
a scanner that finds the names they do use (skipping literals and member names).

    names_in("sum_to(grad * other, self.sizes())")
    # (Name('sum_to', 0), Name('grad', 7), Name('other', 14), Name('self', 21), Name('sizes', 26, True))

Note [Names in formulas]
A formula is evaluated in the generated node's apply() (build/generated/opcore/Autograd_<i>.cpp)
with `using namespace opcore::autograd::formulas`. The generator checks every name it uses that
is not qualified (after `.`, `->` or `::`, which the C++ compiler checks): it must be an argument,
`grad`, `grads`, `grad_input_mask`, a result name (`result`, `result0`..., the return's name), an
operator with a function variant, a helper of runtime/opcore/autograd/Formulas.h
(FORMULA_HELPERS; tests/gen/test_formulas.py compares the two lists), one of a few type names
(FORMULA_TYPES), `std`, `opcore`, or a C++ keyword or literal. So a typo is a located error at
generation time rather than a compiler error in a generated file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

# The functions runtime/opcore/autograd/Formulas.h declares, in its order.
FORMULA_HELPERS = (
    "sum_to", "maybe_multiply", "zeros_like", "sum_backward", "unsqueeze_to", "select_backward",
    "value_selecting_reduction_backward", "threshold_backward", "not_implemented",
)

# Types a formula may name (`ScalarType::Long`, `static_cast<int64_t>(n)`, `Tensor()`).
FORMULA_TYPES = ("Tensor", "Scalar", "ScalarType", "IntArrayRef", "TensorList", "int64_t", "size_t")

CPP_KEYWORDS = frozenset("""
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
    char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
    co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
    extern false float for friend goto if inline int long mutable namespace new noexcept not
    not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires
    return short signed sizeof static static_assert static_cast struct switch template this
    thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
    wchar_t while xor xor_eq
""".split())

# Names any formula may use besides those of its entry and the operators.
COMMON_NAMES = frozenset(FORMULA_HELPERS) | frozenset(FORMULA_TYPES) | CPP_KEYWORDS | {"std", "opcore"}

# What a backward formula names the incoming gradients and the mask of needed gradients.
GRADIENT_NAMES = ("grad", "grads", "grad_input_mask")

# Names of the generated backward code (gen/emit/autograd_nodes.py) that an argument of an entry
# with formulas may not take either.
APPLY_LOCALS = ("grad_inputs", "grad_result")

# `x.sizes()`, `x.dim()`, `x.scalar_type()`: the properties of a tensor argument that can be
# saved instead of the tensor (see gen/api/autograd.py).
TENSOR_PROPERTIES = ("sizes", "dim", "scalar_type")

_TOKEN = re.compile(r"""
    (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>\.?[0-9](?:[eEpP][-+]|[0-9A-Za-z_.'])*)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<qualifier>->|::|\.)
  | (?P<space>\s+)
  | (?P<other>.)
""", re.VERBOSE | re.DOTALL)
_NOT_IMPLEMENTED = re.compile(r'\s*not_implemented\(\s*"((?:[^"\\\n]|\\.)*)"\s*\)\s*')
_RESULT_N = re.compile(r"result([0-9]+)")
_GRADS_INDEX = re.compile(r"\s*\[\s*([0-9]+)\s*\]")


@dataclass(frozen=True)
class Name:
    """An identifier in a formula: `offset` where it starts; `qualified` when it follows `.`,
    `->` or `::` (a member or a namespace member, not checked)."""

    text: str
    offset: int
    qualified: bool = False


@dataclass(frozen=True)
class Token:
    kind: str    # "string", "number", "name", "qualifier", "other" (spaces are dropped)
    text: str
    start: int
    end: int


def tokens(expr: str) -> tuple[Token, ...]:
    """The C++ tokens of `expr` that matter here, spaces dropped (string and character
    literals are one token each, so names inside them are not names)."""
    found = []
    for m in _TOKEN.finditer(expr):
        if m.lastgroup != "space":
            found.append(Token(m.lastgroup, m.group(), m.start(), m.end()))
    return tuple(found)


def names_in(expr: str) -> tuple[Name, ...]:
    """Every identifier of `expr`, in order."""
    result = []
    previous: Optional[Token] = None
    for t in tokens(expr):
        if t.kind == "name":
            result.append(Name(t.text, t.start, previous is not None and previous.kind == "qualifier"))
        previous = t
    return tuple(result)


def unqualified_names(expr: str) -> tuple[Name, ...]:
    return tuple(n for n in names_in(expr) if not n.qualified)


def uses(expr: str, name: str) -> bool:
    """Whether `expr` uses `name` unqualified."""
    return any(n.text == name for n in unqualified_names(expr))


@dataclass(frozen=True)
class PropertyUse:
    """`self.sizes()` at [start, end) of a formula: `name`, then `prop` or None for any other use."""

    name: str
    prop: Optional[str]
    start: int
    end: int


def property_uses(expr: str, name: str) -> tuple[PropertyUse, ...]:
    """Every unqualified use of `name` in `expr`; those of the form `name.prop()` (prop in
    TENSOR_PROPERTIES) carry the property and the span of the whole call."""
    toks = tokens(expr)
    found = []
    for i, t in enumerate(toks):
        if t.kind != "name" or t.text != name or (i > 0 and toks[i - 1].kind == "qualifier"):
            continue
        call = [x.text for x in toks[i + 1:i + 5]]
        if len(call) == 4 and call[0] == "." and call[1] in TENSOR_PROPERTIES and call[2:] == ["(", ")"]:
            found.append(PropertyUse(name, call[1], t.start, toks[i + 4].end))
        else:
            found.append(PropertyUse(name, None, t.start, t.end))
    return tuple(found)


def not_implemented_reason(expr: str) -> Optional[str]:
    """The reason of a formula `not_implemented("reason")` (as written between the quotes), or
    None for any other formula."""
    m = _NOT_IMPLEMENTED.fullmatch(expr)
    return m.group(1) if m else None


def result_index(name: str) -> Optional[int]:
    """N for `resultN`, None for any other name."""
    m = _RESULT_N.fullmatch(name)
    return int(m.group(1)) if m else None


def grads_indices(expr: str) -> tuple[tuple[int, int], ...]:
    """(index, offset) of every `grads[N]` in `expr`."""
    found = []
    for n in unqualified_names(expr):
        if n.text == "grads":
            m = _GRADS_INDEX.match(expr, n.offset + len(n.text))
            if m:
                found.append((int(m.group(1)), n.offset))
    return tuple(found)

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
(FORMULA_HELPERS; tests/gen/test_formulas.py compares the two lists), an operator every build
has (RUNTIME_OPERATORS, as `zeros_like`, also where the YAML being read lacks it), one of a few type names
(FORMULA_TYPES), `std`, `opcore`, or a C++ keyword or literal. So a typo is a located error at
generation time rather than a compiler error in a generated file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Optional

from gen.model.errors import LINE_BREAK, Loc, SpecError, TextLoc
from gen.model.schema import FunctionSchema

# The functions runtime/opcore/autograd/Formulas.h declares, in its order.
FORMULA_HELPERS = (
    "sum_to", "maybe_multiply", "sum_backward", "unsqueeze_to", "select_backward", "slice_backward",
    "value_selecting_reduction_backward", "restore_reduced_dims", "scale_grad_by_count", "evenly_distribute_backward",
    "prod_backward", "prod_backward", "cumsum_backward", "cumprod_backward", "logsumexp_backward", "var_backward",
    "std_backward", "var_mean_backward", "std_mean_backward", "norm_backward", "norm_backward",
    "linalg_vector_norm_backward", "threshold_backward", "handle_r_to_c", "angle_backward",
    "permute_backwards", "cat_tensors_backward", "roll_backward", "repeat_backward", "diagonal_backward",
    "as_strided_backward", "constant_pad_nd_backward", "scatter_reduce_backward", "gelu_double_backward",
    "silu_double_backward", "embedding_dense_double_backward", "convolution_double_backward",
    "layer_norm_double_backward", "batchnorm_double_backward", "group_norm_double_backward",
    "binary_cross_entropy_target_backward", "binary_cross_entropy_double_backward",
    "binary_cross_entropy_double_backward_target", "binary_cross_entropy_with_logits_backward",
    "binary_cross_entropy_with_logits_target_backward", "not_implemented",
)

# Operators every build of opcore has, as runtime/required_operators.txt lists them (the
# runtime's own formulas call them): a formula may call them where the YAML it belongs to does
# not declare them (an extension's, a test's small one), and `zeros_like(grad)` finds
# opcore::zeros_like by argument-dependent lookup, as ATen's formulas call at::zeros_like.
RUNTIME_OPERATORS = ("zeros_like",)

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
COMMON_NAMES = frozenset(FORMULA_HELPERS) | frozenset(RUNTIME_OPERATORS) | frozenset(FORMULA_TYPES) | CPP_KEYWORDS | \
    {"std", "opcore"}

# What a backward formula names the incoming gradients and the mask of needed gradients.
GRADIENT_NAMES = ("grad", "grads", "grad_input_mask")

# Names of the generated backward code (gen/emit/autograd_nodes.py) that an argument of an entry
# with formulas may not take either.
APPLY_LOCALS = ("grad_inputs", "grad_result")

# `x.sizes()`, `x.dim()`, `x.scalar_type()`: the properties of a tensor argument that can be
# saved instead of the tensor (see gen/api/autograd.py).
TENSOR_PROPERTIES = ("sizes", "dim", "scalar_type")

_TOKEN = re.compile(r"""\s*(?:
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<open_comment>/\*)
  | (?P<string>(?:u8|[uUL])?(?:"(?:[^"\\\n]|\\[^\n])*"|'(?:[^'\\\n]|\\[^\n])*'))
  | (?P<number>\.?[0-9](?:[eEpP][-+]|[0-9A-Za-z_.'])*)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<qualifier>->|::|\.)
  | (?P<other>\S)
)""", re.VERBOSE | re.DOTALL)
# not_implemented("reason") and torchgen's not_implemented("name", message_constant).
_NOT_IMPLEMENTED = re.compile(
    r'\s*not_implemented\(\s*"((?:[^"\\\n]|\\.)*)"\s*(?:,\s*([A-Za-z_][A-Za-z0-9_]*)\s*)?\)\s*')
_RESULT_N = re.compile(r"result([0-9]+)")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_GRADS_INDEX = re.compile(r"\s*\[\s*([0-9]+)\s*\]")
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {")": "(", "]": "[", "}": "{"}
# Characters that are no C++ token outside a literal ('#' and '\\' have messages of their own).
_NOT_CPP = frozenset("$@`")


@dataclass(frozen=True, slots=True)
class Name:
    """An identifier in a formula: `offset` where it starts; `qualified` when it follows `.`,
    `->` or `::` (a member or a namespace member, not checked)."""

    text: str
    offset: int
    qualified: bool = False


class Token(NamedTuple):
    kind: str    # "string", "number", "name", "qualifier", "other", "open_comment" (an unterminated
                 # '/*'); spaces and comments are dropped
    text: str
    start: int
    end: int


class ExpressionError(ValueError):
    """Why a formula is not one C++ expression, and where: `offset` in its text."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


# Note [Formula syntax]
# A formula is pasted into the generated node's apply() (`grad_inputs[0] = <formula>;`, with its
# line breaks made spaces), so it must be exactly one C++ expression: otherwise a `;` would add
# a statement of its own, and a missing `)` or `:` would surface only as a C++ compiler error in
# a generated file. One pass of _TOKEN over the text (linear in its length) gives the tokens the
# name checks and the emitters use and checks, outside string and character literals:
# - brackets (), [] and {} balance, and `{` appears only inside () or [] (a braced initializer
#   `f({a, b})` or a lambda's body `[&](int i) { return i; }`, as in PyTorch's formulas);
# - `;` appears only directly inside {} (statements of a lambda's body);
# - every `?` has its `:` at the same bracket depth; a `:` needs a `?` unless it is inside {}
#   (a lambda's body may hold labels or range-for loops);
# - no `#` (preprocessor), no backslash (a line continuation), no unterminated `/*`, and only
#   ASCII characters (non-ASCII ones may appear in string literals only).
# Comments (`/* ... */`, and `// ...` to the end of its line, as PyTorch's formulas have them)
# are skipped, as torchgen skips them: no name inside one is read, and an Expr's text has each
# comment blanked to spaces of the same length, so that the generated code, which holds the
# formula on one line, keeps what follows a `//` comment, and offsets into the formula still
# point where they did. This is a check for mistakes, not a sandbox: a formula is C++ and may
# call any function.
def _scan(text: str, check: bool) -> tuple[Token, ...]:
    """The tokens of `text`; with `check`, raises ExpressionError where `text` is not one C++
    expression (Note [Formula syntax])."""
    found = []
    checker = _Checker() if check else None
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        start, end = m.span(kind)
        if kind == "comment":
            continue
        found.append(Token(kind, m.group(kind), start, end))
        if checker is not None and (kind == "other" or kind == "open_comment"):
            checker.check(kind, found[-1].text, start)
    if checker is not None:
        checker.finish()
    return tuple(found)


class _Checker:
    """The state of _scan()'s checks: the brackets open, innermost last, each with the
    offsets of its '?' still waiting for their ':'."""

    def __init__(self) -> None:
        self.stack: list[tuple[str, int, list[int]]] = [("", -1, [])]  # the top level, then (opener, offset, '?'s)
        self.braces = 0  # how many '{' are open

    def check(self, kind: str, tok: str, start: int) -> None:
        if kind == "open_comment":
            raise ExpressionError(start, "'/*' starts a comment that is never closed")
        if tok in _OPENERS or tok in _CLOSERS:
            self.bracket(tok, start)
        elif tok == ";":
            if self.stack[-1][0] != "{":
                raise ExpressionError(start, "';' ends a statement: a formula is one C++ expression (';' may appear "
                                             "only in a lambda's body)")
        elif tok == "?":
            self.stack[-1][2].append(start)
        elif tok == ":":
            if self.stack[-1][2]:
                self.stack[-1][2].pop()
            elif not self.braces:
                raise ExpressionError(start, "':' without a '?' before it")
        else:
            _check_character(tok, start)

    def bracket(self, tok: str, start: int) -> None:
        if tok in _OPENERS:
            if tok == "{" and len(self.stack) == 1:
                raise ExpressionError(start, "'{' outside parentheses: a formula is one C++ expression (braces "
                                             "may appear inside (...) or [...] only, as a lambda's body or an initializer)")
            self.stack.append((tok, start, []))
            self.braces += tok == "{"
            return
        opener, _, questions = self.stack[-1]
        if opener != _CLOSERS[tok]:
            if not opener:
                raise ExpressionError(start, f"'{tok}' closes nothing: no '{_CLOSERS[tok]}' before it")
            raise ExpressionError(start, f"'{tok}' does not close the '{opener}' before it")
        if questions:
            raise ExpressionError(questions[0], "'?' without its ':'")
        self.stack.pop()
        self.braces -= tok == "}"

    def finish(self) -> None:
        opener, at, questions = self.stack[-1]
        if opener:
            raise ExpressionError(at, f"'{opener}' is never closed")
        if questions:
            raise ExpressionError(questions[0], "'?' without its ':'")


def _check_character(tok: str, start: int) -> None:
    """Raises ExpressionError for a character that has no place in a C++ expression outside
    a literal."""
    if tok == "#":
        raise ExpressionError(start, "'#' outside a string literal: a formula cannot hold preprocessor directives")
    if tok == "\\":
        raise ExpressionError(start, "'\\' outside a string literal: a formula cannot continue a line with a backslash")
    if tok in "\"'":
        what = "string" if tok == '"' else "character"
        raise ExpressionError(start, f"{tok} starts a {what} literal that is not closed on its line")
    if not tok.isascii():
        raise ExpressionError(start, f"non-ASCII character '{tok}' (U+{ord(tok):04X}): names in a formula are "
                                     "ASCII (other characters may appear in string literals only)")
    if tok in _NOT_CPP or not tok.isprintable():
        raise ExpressionError(start, f"character {tok!r} is not C++")


class Expr(str):
    """The text of a formula (it is a str), checked to be one C++ expression (Note [Formula
    syntax]), with its tokens and names found once, in that same pass, for every later use
    (the name checks, the emitters).

        Expr("grad * other").names  # (Name('grad', 0), Name('other', 7))
    """

    __slots__ = ("tokens", "names", "uses", "property_uses")
    tokens: tuple[Token, ...]
    names: tuple[Name, ...]
    uses: dict[str, tuple[int, ...]]  # each name not after `.`, `->` or `::`: its indices in tokens
    property_uses: dict[str, tuple["PropertyUse", ...]]  # property_uses(self, name), memoized

    def __new__(cls, text: str) -> "Expr":
        """Raises ExpressionError when `text` is not one C++ expression. The Expr's text is
        `text` with its comments blanked (Note [Formula syntax])."""
        self = super().__new__(cls, _blank_comments(text))
        self.tokens = _scan(text, check=True)
        local = _lambda_parameters(self.tokens)
        self.names = _names(self.tokens, local)
        uses: dict[str, list[int]] = {}
        after_qualifier = False
        for i, t in enumerate(self.tokens):
            if t.kind == "name" and not after_qualifier and i not in local:
                uses.setdefault(t.text, []).append(i)
            after_qualifier = t.kind == "qualifier"
        self.uses = {name: tuple(where) for name, where in uses.items()}
        self.property_uses = {}
        return self


def _blank_comments(text: str) -> str:
    """`text` with every comment replaced by as many spaces (offsets stay valid)."""
    if "/" not in text:
        return text
    return _TOKEN.sub(lambda m: m.group(0)[:m.start("comment") - m.start()] + " " * len(m.group("comment"))
                      if m.lastgroup == "comment" else m.group(0), text)


def checked_expression(text: str, loc: TextLoc, what: str) -> Expr:
    """`text`, the formula `what` ("the formula for 'self'") at `loc`, as an Expr; raises
    SpecError at the offending character when it is not one C++ expression."""
    try:
        return Expr(text)
    except ExpressionError as e:
        raise SpecError(loc.at(e.offset), f"{what} is not one C++ expression: {e.message}") from None


def tokens(expr: str) -> tuple[Token, ...]:
    """The C++ tokens of `expr` that matter here, spaces dropped (string and character
    literals are one token each, so names inside them are not names)."""
    return expr.tokens if isinstance(expr, Expr) else _scan(expr, check=False)


def _names(toks: tuple[Token, ...], local: frozenset[int]) -> tuple[Name, ...]:
    """The identifiers; a lambda's parameters (`local`: _lambda_parameters), where they are
    declared and used, count as qualified (local to the formula, not checked)."""
    result = []
    after_qualifier = False
    for i, t in enumerate(toks):
        if t.kind == "name":
            result.append(Name(t.text, t.start, after_qualifier or i in local))
        after_qualifier = t.kind == "qualifier"
    return tuple(result)


def _closing(toks: tuple[Token, ...], i: int) -> int:
    """The index of the bracket closing toks[i] (len(toks) if none: the checks report that)."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].kind == "other" and toks[j].text in _OPENERS:
            depth += 1
        elif toks[j].kind == "other" and toks[j].text in _CLOSERS:
            depth -= 1
            if depth == 0:
                return j
    return len(toks)


def _lambda_parameters(toks: tuple[Token, ...]) -> frozenset[int]:
    """The indices of the name tokens that are parameters of a lambda (`[](c10::SymInt i) {
    return -i; }`), in its parameter list and its body. A `[` opens a lambda where a subscript
    cannot be: not after a name, a literal or a closing bracket."""
    found: set[int] = set()
    for k, t in enumerate(toks):
        if t.text != "[" or t.kind != "other" or (k and (toks[k - 1].kind in ("name", "string", "number") or
                                                         toks[k - 1].text in (")", "]"))):
            continue
        open_paren = _closing(toks, k) + 1
        if open_paren >= len(toks) or toks[open_paren].text != "(":
            continue
        close_paren = _closing(toks, open_paren)
        body = next((j for j in range(close_paren, len(toks)) if toks[j].text == "{"), None)
        if body is None:
            continue
        params, last = set(), None  # a parameter's name is the last unqualified name before , or )
        for j in range(open_paren + 1, close_paren + 1):
            if toks[j].text in (",", ")"):
                params |= {last} if last else set()
                last = None
            elif toks[j].kind == "name" and toks[j - 1].kind != "qualifier":
                last = toks[j].text
        found |= {j for j in range(open_paren, _closing(toks, body) + 1)
                  if toks[j].kind == "name" and toks[j].text in params and toks[j - 1].kind != "qualifier"}
    return frozenset(found)


def names_in(expr: str) -> tuple[Name, ...]:
    """Every identifier of `expr`, in order."""
    if isinstance(expr, Expr):
        return expr.names
    toks = tokens(expr)
    return _names(toks, _lambda_parameters(toks))


def unqualified_names(expr: str) -> tuple[Name, ...]:
    return tuple(n for n in names_in(expr) if not n.qualified)


def uses(expr: str, name: str) -> bool:
    """Whether `expr` uses `name` unqualified."""
    if isinstance(expr, Expr):
        return name in expr.uses
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
    if isinstance(expr, Expr):
        # Asked for each argument by several emitters: found once per formula and name.
        if name not in expr.property_uses:
            expr.property_uses[name] = _property_uses(toks, name, expr.uses.get(name, ()))
        return expr.property_uses[name]
    where = [i for i, t in enumerate(toks) if t.kind == "name" and t.text == name
             and not (i > 0 and toks[i - 1].kind == "qualifier")]
    return _property_uses(toks, name, where)


def _property_uses(toks: tuple[Token, ...], name: str, where: Iterable[int]) -> tuple[PropertyUse, ...]:
    """property_uses() of `name`, whose unqualified uses are toks[i] for i in `where`."""
    found = []
    for i in where:
        t = toks[i]
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


def not_implemented_message(expr: str) -> Optional[str]:
    """The second argument of torchgen's `not_implemented("name", kSomeMessage)` (a constant
    naming the reason), or None."""
    m = _NOT_IMPLEMENTED.fullmatch(expr)
    return m.group(2) if m else None


def torchgen_locals(func: FunctionSchema, names: tuple[str, ...], differentiable: tuple[int, ...]) -> frozenset[str]:
    """The names torchgen's generated backward code defines for the formula of `names` in the
    entry of `func`, whose outputs `differentiable` get gradients: `grad_<name>` for each of
    those outputs with a name (its gradient: named_gradients), `retain_variables` (whether saved
    values may be freed: opcore says true), and for a `_foreach_` operator's formula of one
    Tensor[] argument, the element index `i` (the formula is evaluated once per element:
    `grads[i]`, `self[i]`)."""
    found = set(named_gradients(func, differentiable)) | {"retain_variables"}
    return frozenset(found | {"i"} if is_foreach_formula(func, names) else found)


def named_gradients(func: FunctionSchema, differentiable: tuple[int, ...]) -> dict[str, int]:
    """torchgen's `grad_<name>` for each differentiable output with a name -> its index in
    `grads` (the differentiable outputs, in order)."""
    return {f"grad_{func.returns[i].name}": k for k, i in enumerate(differentiable)
            if func.returns[i].name and func.argument(f"grad_{func.returns[i].name}") is None}


def is_foreach_formula(func: FunctionSchema, names: tuple[str, ...]) -> bool:
    """A formula torchgen evaluates per element: of a `_foreach_` operator, for one Tensor[]."""
    arg = func.argument(names[0]) if len(names) == 1 else None
    return func.name.base.startswith("_foreach_") and arg is not None and arg.type.is_list


def parse_formula_helpers(text: str, path: str) -> tuple[frozenset[str], list[SpecError]]:
    """--formula-helpers FILE: one C++ name per line (`mm_mat1_backward`), `#` starts a comment.
    Every line that is not an identifier is an error at its place."""
    names, errors = set(), []
    for number, raw in enumerate(LINE_BREAK.split(text), start=1):  # the lines errors count
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if not _IDENTIFIER.fullmatch(line):
            errors.append(SpecError(Loc(path, number, raw.index(line[0]) + 1),
                                    f"expected one C++ name per line (a function formulas may call), got '{line}'"))
            continue
        names.add(line)
    return frozenset(names), errors


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

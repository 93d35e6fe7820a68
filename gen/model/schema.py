"""The schema language of `func:` entries, e.g.

    add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor

FunctionSchema.parse(s) and str() round-trip: str(FunctionSchema.parse(s)) == s.

See Note [Schema grammar] in runtime/opcore/dispatch/FunctionSchema.cpp: this parser and the
C++ one implement the same grammar, with the same error messages and columns (in characters),
and are both checked against the corpus in tests/schemas/ and against each other by
tests/fuzz/fuzz_gen.py's differential target: a default is checked alike in both (numbers
must be well formed, the elements of a list default must fit its element type).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Optional

BASE_TYPES = (
    "Tensor", "Scalar", "int", "float", "bool", "str", "ScalarType", "Device", "SymInt",
    "Layout", "MemoryFormat", "Dimname", "Generator", "Storage", "Stream", "QScheme",
    "DeviceIndex", "SymBool",
)
# Base types with no list form: PyTorch's YAML uses them as values and optionals only, and the
# runtime boxes no list of them (schema_checks rejects `DeviceIndex[]`).
SCALAR_ONLY_TYPES = ("DeviceIndex", "SymBool")
# Names an `int` default may take: PyTorch's at::Reduction values (`int reduction=Mean`).
# `None` is left out: `int x=None` would be read as an optional's default.
INT_ENUM_DEFAULTS = ("Mean", "Sum")
# A string default: double- or single-quoted, the escapes \\ \' \" only (printed as written).
_STRING = re.compile(r'"(?:[^"\\]|\\["\'\\])*"|\'(?:[^\'\\]|\\["\'\\])*\'')

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INTEGER = re.compile(r"-?[0-9]+")
_NUMBER = re.compile(r"-?(?:inf|nan|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)")
_ALIAS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\|[A-Za-z_][A-Za-z0-9_]*)*!?(?: -> \*)?")
_SUFFIX_PART = re.compile(r"\?|\[([0-9]*)\]")
_LIST_SIZE = re.compile(r"\[([0-9]+)\]")
# `__iadd__` is the in-place form of `__add__`, as Python's augmented assignments are.
_AUGMENTED = ("add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or")


class SchemaParseError(ValueError):
    """A malformed schema. `column` is 1-based, as in the C++ parser's messages."""

    def __init__(self, schema: str, msg: str, column: int) -> None:
        super().__init__(f"invalid schema '{schema}': {msg} at column {column}")
        self.msg = msg
        self.column = column


@dataclass(frozen=True)
class OperatorName:
    """The name part of `func:` (`[ns::]base[.overload]`, e.g. `add.Tensor`).

    `overload` is "" for the default overload; `namespace` is "" unless written (`myops::`).
    """

    base: str
    overload: str = ""
    namespace: str = ""

    @functools.cached_property  # asked for often; stored in the instance, not a field
    def is_inplace(self) -> bool:
        """`add_`, `relu_`, `__iadd__`; not dunder names such as `__and__`."""
        if self.base.startswith("__") and self.base.endswith("__"):
            return self.base[2:-2] in (f"i{n}" for n in _AUGMENTED)
        return self.base.endswith("_")

    @property
    def functional_base(self) -> str:
        """The base name without its in-place marking (`add_` -> `add`, `__iadd__` -> `__add__`):
        the name shared by an operator's functional, in-place and out= overloads."""
        if not self.is_inplace:
            return self.base
        return f"__{self.base[3:]}" if self.base.startswith("__") else self.base[:-1]

    def __str__(self) -> str:
        name = f"{self.namespace}::{self.base}" if self.namespace else self.base
        return f"{name}.{self.overload}" if self.overload else name


@dataclass(frozen=True, slots=True)
class SchemaType:
    """A type in `func:`, such as `Tensor(a!)`, `int[2]?`, `Tensor?[]`.

    `alias` is the text inside the parentheses ("a!", "a -> *"); `suffix` holds the list and optional markers in source order ("?", "[]", "[2]?", "?[]").
    """

    base: str
    alias: Optional[str] = None
    suffix: str = ""

    @property
    def is_optional(self) -> bool:
        return self.suffix.endswith("?")

    @property
    def is_list(self) -> bool:
        return "[" in self.suffix

    @property
    def list_size(self) -> Optional[int]:
        """N for `T[N]`, None for `T[]` and for non-lists."""
        m = _LIST_SIZE.search(self.suffix)
        return int(m.group(1)) if m else None

    @property
    def shape(self) -> str:
        """The suffix with sizes abstracted: "", "?", "[]", "[N]", "[N]?", "?[]", ..."""
        return _LIST_SIZE.sub("[N]", self.suffix) if self.suffix else ""

    @property
    def is_tensor(self) -> bool:
        return self.base == "Tensor"

    @property
    def is_mutable(self) -> bool:
        return self.alias is not None and "!" in self.alias

    def without_alias(self) -> str:
        return self.base + self.suffix

    def __str__(self) -> str:
        alias = f"({self.alias})" if self.alias is not None else ""
        return f"{self.base}{alias}{self.suffix}"


@dataclass(frozen=True, slots=True)
class Argument:
    """An argument in `func:`: `Type name[=default]`, keyword-only when after `*`.

    `default` is the literal text ("1", "None", "[0,1]", "\"mean\""), checked against the type.
    """

    type: SchemaType
    name: str
    default: Optional[str] = None
    kwarg_only: bool = False

    def __str__(self) -> str:
        default = f"={self.default}" if self.default is not None else ""
        return f"{self.type} {self.name}{default}"


@dataclass(frozen=True, slots=True)
class Return:
    """A return in `func:` (after ` -> `): `Type [name]`; `name` is "" when unnamed."""

    type: SchemaType
    name: str = ""

    def __str__(self) -> str:
        return f"{self.type} {self.name}" if self.name else str(self.type)


@dataclass(frozen=True)
class FunctionSchema:
    """A parsed `func:` value. `parenthesized_returns` remembers `-> (Tensor)` versus `-> Tensor`
    so that printing round-trips."""

    name: OperatorName
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]
    parenthesized_returns: bool = False

    @staticmethod
    def parse(text: str) -> "FunctionSchema":
        """Raises SchemaParseError on a malformed schema."""
        schema = _parse_well_formed(text) or _Parser(text).parse()
        assert str(schema) == text, f"round-trip broken for '{text}': generator bug"
        return schema

    @property
    def is_inplace(self) -> bool:
        """`add_`, `relu_`, `__iadd__` (see OperatorName.is_inplace)."""
        return self.name.is_inplace

    @functools.cached_property  # asked for often; stored in the instance, not a field
    def out_arguments(self) -> tuple[Argument, ...]:
        """The out= arguments: keyword-only arguments with a mutable alias (`Tensor(a!) out`)."""
        return tuple(a for a in self.arguments if a.kwarg_only and a.type.is_mutable)

    @functools.cached_property  # asked for often; stored in the instance, not a field
    def is_out(self) -> bool:
        return bool(self.out_arguments)

    def argument(self, name: str) -> Optional[Argument]:
        return next((a for a in self.arguments if a.name == name), None)

    def _argument_parts(self) -> list[tuple[Optional[int], str]]:
        """(index into arguments or None for `*`, text) of each comma-separated part."""
        parts: list[tuple[Optional[int], str]] = []
        kwarg_only = False
        for i, a in enumerate(self.arguments):
            if a.kwarg_only and not kwarg_only:
                parts.append((None, "*"))
                kwarg_only = True
            parts.append((i, str(a)))
        return parts

    def argument_offset(self, index: int) -> int:
        """Where arguments[index] starts in str(self), 0-based (error columns point there)."""
        offset = len(str(self.name)) + 1
        for i, text in self._argument_parts():
            if i == index:
                return offset
            offset += len(text) + len(", ")
        raise IndexError(index)

    def argument_name_offset(self, index: int) -> int:
        """Where the name of arguments[index] starts in str(self)."""
        return self.argument_offset(index) + len(str(self.arguments[index].type)) + 1

    def return_offset(self, index: int = 0) -> int:
        """Where returns[index] starts in str(self); with no returns, where `()` starts."""
        offset = len(f"{self.name}({self._arguments_text()}) -> ")
        if self.parenthesized_returns and self.returns:
            offset += 1
        return offset + sum(len(str(r)) + len(", ") for r in self.returns[:index])

    def _arguments_text(self) -> str:
        return ", ".join(text for _, text in self._argument_parts())

    # The text and the hash are computed once per object (functools.cached_property stores
    # them in the instance, not in fields: equality is unchanged): the emitters print each
    # schema many times, and gen/api's signature caches hash it.
    @functools.cached_property
    def _text(self) -> str:
        rets = ", ".join(str(r) for r in self.returns)
        if self.parenthesized_returns:
            rets = f"({rets})"
        return f"{self.name}({self._arguments_text()}) -> {rets}"

    @functools.cached_property
    def _hash(self) -> int:
        return hash((self.name, self.arguments, self.returns, self.parenthesized_returns))

    def __str__(self) -> str:
        return self._text

    def __hash__(self) -> int:
        return self._hash


def default_fits(t: SchemaType, value: str) -> bool:
    """Whether the literal `value` is an acceptable default for an argument of type `t`."""
    if value == "None":
        return t.is_optional
    if t.is_list and value.startswith("["):
        return value.endswith("]") and _list_default_fits(t.base, value[1:-1])
    if t.is_list:
        return t.base in ("int", "SymInt") and bool(_INTEGER.fullmatch(value))  # int[2] x=1
    return _scalar_default_fits(t.base, value)


def _list_default_fits(base: str, inner: str) -> bool:
    if inner == "":
        return True
    items = inner.split(",")
    if base in ("int", "SymInt"):
        return all(_INTEGER.fullmatch(i) for i in items)
    if base in ("float", "Scalar"):
        return all(_NUMBER.fullmatch(i) for i in items)
    if base == "bool":
        return all(i in ("True", "False") for i in items)
    return False


def _scalar_default_fits(base: str, value: str) -> bool:
    if base in ("bool", "SymBool"):
        return value in ("True", "False")
    if base in ("int", "SymInt", "DeviceIndex"):
        return bool(_INTEGER.fullmatch(value)) or (base == "int" and value in INT_ENUM_DEFAULTS)
    if base == "float":
        return bool(_NUMBER.fullmatch(value))
    if base == "Scalar":
        return bool(_NUMBER.fullmatch(value)) or value in ("True", "False")
    if base == "str":
        return bool(_STRING.fullmatch(value))
    if base in ("ScalarType", "Layout", "MemoryFormat", "Device"):
        return bool(IDENT.fullmatch(value))
    return False


# Note [Schema fast path]
# _Parser reads a schema a token at a time, with the C++ parser's error messages and columns;
# on a large YAML it took half of the time spent reading native_functions.yaml.
# _parse_well_formed() reads a well-formed schema with one regular expression per argument and
# per return, and gives up (None) on anything else: _Parser then reads it again, and decides.
# Where it does not give up it returns what _Parser returns (tests/gen/test_schema.py compares
# them on every schema the tests have, well-formed or not): the same checks, in other words.
_I = r"[A-Za-z_][A-Za-z0-9_]*"
# A type as _Parser.parse_type reads it: base, alias, then the suffixes it accepts ("?",
# "[N]", "[N]?", "?[N]", "?[N]?", N optional).
_T = rf"({_I})(?:\(([^)]*)\))?(\?(?:\[[0-9]*\]\??)?|\[[0-9]*\]\??)?"
_HEAD = re.compile(rf"({_I})(?:::({_I}))?(?:\.({_I}))?\(")
# An argument and what follows it: ", " or the closing parenthesis. The default as
# parse_default reads it: a quoted string (a backslash escapes the next character), a bracketed
# list, or everything up to the next comma or parenthesis.
_ARGUMENT = re.compile(rf"(\*, )?{_T} ({_I})(?:=(\"(?:[^\"\\]|\\[\s\S])*\"|'(?:[^'\\]|\\[\s\S])*'|\[[^\]]*\]|[^,)]*))?(, |\))")
_RETURN = re.compile(rf"{_T}(?: ({_I}))?")


def _schema_type(base: str, alias: Optional[str], suffix: Optional[str]) -> Optional[SchemaType]:
    if base not in BASE_TYPES or (alias is not None and not _ALIAS.fullmatch(alias)):
        return None
    return SchemaType(base, alias, suffix or "")


def _parse_well_formed(text: str) -> Optional[FunctionSchema]:
    """FunctionSchema.parse(text) for a well-formed schema; None when _Parser must read it (see
    Note [Schema fast path])."""
    m = _HEAD.match(text)
    if m is None:
        return None
    base, namespace = (m.group(2), m.group(1)) if m.group(2) else (m.group(1), "")
    name = OperatorName(base, m.group(3) or "", namespace)
    arguments, pos = _well_formed_arguments(text, m.end())
    if arguments is None or not text.startswith(" -> ", pos):
        return None
    parenthesized = text.startswith("(", pos + len(" -> "))
    returns = _well_formed_returns(text, pos + len(" -> "), parenthesized)
    if returns is None:
        return None
    return FunctionSchema(name, arguments, returns, parenthesized)


def _well_formed_arguments(text: str, pos: int) -> tuple[Optional[tuple[Argument, ...]], int]:
    """The arguments starting at `pos` (after the opening parenthesis) and where the closing
    parenthesis ends; (None, pos) when _Parser must read them."""
    if text.startswith(")", pos):
        return (), pos + 1
    arguments: list[Argument] = []
    kwarg_only = False
    while m := _ARGUMENT.match(text, pos):
        star, type_base, alias, suffix, arg_name, default, end = m.groups()
        if star and kwarg_only:
            return None, pos
        kwarg_only = kwarg_only or bool(star)
        t = _schema_type(type_base, alias, suffix)
        if (t is None or (default is not None and not default_fits(t, default))
                or any(a.name == arg_name for a in arguments)):
            return None, pos
        arguments.append(Argument(t, arg_name, default, kwarg_only))
        pos = m.end()
        if end == ")":
            return tuple(arguments), pos
    return None, pos


def _well_formed_returns(text: str, pos: int, parenthesized: bool) -> Optional[tuple[Return, ...]]:
    """The returns starting at `pos` and ending the text; None when _Parser must read them."""
    if parenthesized and text[pos:] == "()":
        return ()
    pos += parenthesized
    returns = []
    while m := _RETURN.match(text, pos):
        t = _schema_type(m.group(1), m.group(2), m.group(3))
        if t is None:
            return None
        returns.append(Return(t, m.group(4) or ""))
        pos = m.end()
        if not (parenthesized and text.startswith(", ", pos)):
            break
        pos += len(", ")
    else:
        return None
    return tuple(returns) if text[pos:] == (")" if parenthesized else "") else None


class _Parser:
    """Recursive descent over `text`; mirrors SchemaParser in FunctionSchema.cpp."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.pos = 0

    def fail(self, msg: str) -> SchemaParseError:
        return SchemaParseError(self.s, msg, self.pos + 1)

    def peek(self) -> str:
        return self.s[self.pos] if self.pos < len(self.s) else ""

    def consume(self, text: str) -> bool:
        if not self.s.startswith(text, self.pos):
            return False
        self.pos += len(text)
        return True

    def expect(self, text: str) -> None:
        if not self.consume(text):
            raise self.fail(f"expected '{text}'")

    def ident(self, what: str) -> str:
        m = IDENT.match(self.s, self.pos)
        if not m:
            raise self.fail(f"empty {what}")
        self.pos = m.end()
        return m.group()

    def parse(self) -> FunctionSchema:
        name = self.parse_name()
        self.expect("(")
        arguments = self.parse_arguments()
        self.expect(")")
        self.expect(" -> ")
        returns, parenthesized = self.parse_returns()
        if self.pos != len(self.s):
            raise self.fail("unexpected text after the returns")
        return FunctionSchema(name, arguments, returns, parenthesized)

    def parse_name(self) -> OperatorName:
        base = self.ident("operator name")
        namespace = ""
        if self.consume("::"):
            namespace, base = base, self.ident("operator name")
        overload = self.ident("overload name") if self.consume(".") else ""
        return OperatorName(base, overload, namespace)

    def parse_type(self) -> SchemaType:
        start = self.pos
        base = self.ident("type")
        if base not in BASE_TYPES:
            self.pos = start
            raise self.fail(f"unknown type '{base}'")
        alias = self.parse_alias() if self.consume("(") else None
        suffix = ""
        while self.peek() in ("[", "?"):
            m = _SUFFIX_PART.match(self.s, self.pos)
            if self.peek() == "?":
                self.pos += 1
                if suffix.endswith("?"):
                    raise self.fail("duplicate '?'")
            else:
                self.pos += 1
                while self.peek().isdigit() and self.peek().isascii():
                    self.pos += 1
                self.expect("]")
                if "[" in suffix:
                    raise self.fail("nested lists are not supported")
            assert m is not None and m.end() == self.pos, "suffix scan drifted: generator bug"
            suffix += m.group()
        return SchemaType(base, alias, suffix)

    def parse_alias(self) -> str:
        close = self.s.find(")", self.pos)
        if close < 0:
            raise self.fail("expected ')'")
        alias = self.s[self.pos:close]
        if not _ALIAS.fullmatch(alias):
            raise self.fail(f"bad alias annotation '{alias}'")
        self.pos = close + 1
        return alias

    def parse_arguments(self) -> tuple[Argument, ...]:
        args: list[Argument] = []
        if self.peek() == ")":
            return ()
        kwarg_only = False
        while True:
            if self.consume("*"):
                if kwarg_only:
                    raise self.fail("duplicate '*'")
                kwarg_only = True
            else:
                args.append(self.parse_argument(kwarg_only, args))
            if not self.consume(", "):
                break
        if kwarg_only and (not args or not args[-1].kwarg_only):
            raise self.fail("'*' must be followed by a keyword-only argument")
        return tuple(args)

    def parse_argument(self, kwarg_only: bool, earlier: list[Argument]) -> Argument:
        type_ = self.parse_type()
        self.expect(" ")
        name = self.ident("argument name")
        default = self.parse_default(type_) if self.consume("=") else None
        if any(a.name == name for a in earlier):
            raise self.fail(f"duplicate argument name '{name}'")
        return Argument(type_, name, default, kwarg_only)

    def parse_default(self, type_: SchemaType) -> str:
        start = self.pos
        if self.peek() in ('"', "'"):
            self.pos = self.string_end()
        elif self.peek() == "[":
            close = self.s.find("]", self.pos + 1)
            if close < 0:
                raise self.fail("bad default: expected ']'")
            self.pos = close + 1
        else:
            while self.pos < len(self.s) and self.s[self.pos] not in ",)":
                self.pos += 1
        value = self.s[start:self.pos]
        if not default_fits(type_, value):
            self.pos = start
            raise self.fail(f"bad default '{value}' for type {type_}")
        return value

    def string_end(self) -> int:
        """Just past the quote closing the string starting at pos; a backslash escapes the next character."""
        quote, i = self.s[self.pos], self.pos + 1
        while i < len(self.s) and self.s[i] != quote:
            i += 2 if self.s[i] == "\\" else 1
        if i >= len(self.s):
            raise self.fail("bad default: unterminated string")
        return i + 1

    def parse_returns(self) -> tuple[tuple[Return, ...], bool]:
        if not self.consume("("):
            return (self.parse_return(),), False
        if self.consume(")"):
            return (), True
        returns = [self.parse_return()]
        while self.consume(", "):
            returns.append(self.parse_return())
        self.expect(")")
        return tuple(returns), True

    def parse_return(self) -> Return:
        type_ = self.parse_type()
        name = self.ident("return name") if self.consume(" ") else ""
        return Return(type_, name)


def alias_set(t: SchemaType) -> frozenset[str]:
    """The alias set a type is in before the call: `a` for `Tensor(a!)`, `Tensor(a -> *)`;
    `a`, `b` for `Tensor(a|b)`; empty without annotation."""
    if t.alias is None:
        return frozenset()
    return frozenset(t.alias.split(" -> ")[0].rstrip("!").split("|"))

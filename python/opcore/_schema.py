"""Operator schemas as Python objects: what OpOverload._schema gives (PyTorch's
torch._C.FunctionSchema, read from the schema the dispatcher holds)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Optional


@dataclass(frozen=True)
class AliasInfo:
    """A schema's alias annotation: `a!` writes set {a}; `a` reads it; `a -> *` adds to the wildcard."""
    is_write: bool
    before_set: frozenset
    after_set: frozenset

    @staticmethod
    def parse(text: str) -> "AliasInfo":
        before, _, after = (part.strip() for part in text.replace("!", "").partition("->"))
        before_set = frozenset(before.split("|"))
        return AliasInfo("!" in text, before_set, frozenset(after.split("|")) if after else before_set)


def _default_value(text: Optional[str]) -> Any:
    """A schema default ("1", "None", "[0,1]", "True", "'mean'") as a Python value; other
    spellings (`contiguous_format`) stay text."""
    if text is None:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


@dataclass(frozen=True)
class Argument:
    name: str
    type: str                  # "Tensor", "int[]", "Scalar?" (without the alias annotation)
    default_value: Any         # the Python value of the default; None when there is none
    has_default_value: bool
    kwarg_only: bool
    alias_info: Optional[AliasInfo]

    @property
    def is_out(self) -> bool:
        return self.kwarg_only and self.alias_info is not None and self.alias_info.is_write


@dataclass(frozen=True)
class Return:
    name: str
    type: str
    alias_info: Optional[AliasInfo]


@dataclass(frozen=True)
class FunctionSchema:
    """An operator's schema, read from the dispatcher: `name` is "aten::add", `overload_name` "Tensor"."""
    name: str
    overload_name: str
    arguments: tuple
    returns: tuple
    _text: str

    @staticmethod
    def _from_info(info) -> "FunctionSchema":
        name, overload, args, rets, text = info
        alias = lambda a: AliasInfo.parse(a) if a else None  # noqa: E731
        return FunctionSchema(
            name, overload,
            tuple(Argument(n, t, _default_value(d), d is not None, kw, alias(a)) for n, t, d, kw, a in args),
            tuple(Return(n, t, alias(a)) for n, t, a in rets), text)

    @property
    def is_mutable(self) -> bool:
        return any(a.alias_info is not None and a.alias_info.is_write for a in self.arguments)

    def __str__(self) -> str:
        return self._text

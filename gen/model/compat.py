"""Backward compatibility of operator schemas (`python3 -m gen --bc-check OLD_DIR`): the changes
between an older native_functions.yaml and this one that break callers or serialized programs,
each located in the new file, and the allow-list that may excuse them until a date.

Note [Backward-compatible schema changes]
A caller written against the old schema must keep working: C++ and Python code that passes
arguments by position or by keyword, and serialized programs, which store an operator's name
and its arguments (positional ones by position, keyword-only ones by name). So, for every
overload (`ns::name.overload`) of the old file, as PyTorch's FunctionSchema::isBackwardCompatibleWith
and check_forward_backward_compatibility.py decide:
- the overload still exists (its name is how callers and programs find it);
- every old positional argument keeps its position, name, type and alias annotation, and stays
  positional; a default it had stays, with the same value (a ScalarType default's value is its
  dtype: `long` and `int64` are one value, Note [Dtype names] in gen/model/dtypes.py);
- every old keyword-only argument keeps its name, type, alias annotation and default, and
  stays keyword-only (a program that stored it by name does not know a position for it);
- every new argument has a default (positional ones after the old positional ones, which the
  position rule implies);
- the returns are the same: their number, types, alias annotations and names (Python callers
  read named returns by name: `t.max(0).values`).
Adding operators, overloads and arguments with defaults is fine; so is changing docs, tags,
dispatch and variants.
"""
from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Iterable

from gen.model.dtypes import by_schema_default
from gen.model.errors import LINE_BREAK, Loc, SpecError
from gen.model.native_function import NativeFunction
from gen.model.operators import OperatorIndex
from gen.model.schema import Argument, FunctionSchema, Return


@dataclass(frozen=True)
class Break:
    """One backward-incompatible change: `name` is "ns::base.overload", `loc` in the new file."""
    loc: Loc
    name: str
    what: str

    def __str__(self) -> str:
        return f"{self.loc}: error: backward-incompatible change to '{self.name}': {self.what}"


@dataclass(frozen=True)
class Allowance:
    """An allow-list line: `pattern` (an operator name, or a prefix ending in `*`) excused
    until `expires` (inclusive)."""
    pattern: str
    expires: datetime.date
    loc: Loc

    def covers(self, name: str) -> bool:
        bare = name.split("::", 1)[-1]
        if self.pattern.endswith("*"):
            prefix = self.pattern[:-1]
            return name.startswith(prefix) or bare.startswith(prefix)
        return self.pattern in (name, bare)


# --- the rules --------------------------------------------------------------------------------

def _type_text(a: Argument | Return) -> str:
    return str(a.type)  # with the alias annotation: `Tensor(a!)` differs from `Tensor`


def _argument_changes(old: FunctionSchema, new: FunctionSchema) -> list[str]:
    problems = []
    old_pos = [a for a in old.arguments if not a.kwarg_only]
    new_pos = [a for a in new.arguments if not a.kwarg_only]
    new_kw = {a.name: a for a in new.arguments if a.kwarg_only}
    for i, a in enumerate(old_pos):
        if i >= len(new_pos):
            moved = " (it is keyword-only now)" if a.name in new_kw else ""
            problems.append(f"positional argument {i} '{a.name}' was removed{moved}")
            continue
        b = new_pos[i]
        if b.name != a.name:
            problems.append(f"positional argument {i} was '{a.name}', is '{b.name}' (renamed or moved)")
        elif _type_text(b) != _type_text(a):
            problems.append(f"argument '{a.name}' changed type from '{_type_text(a)}' to '{_type_text(b)}'")
        else:
            problems += _default_changes(a, b)
    for b in new_pos[len(old_pos):]:
        if b.default is None:
            problems.append(f"positional argument '{b.name}' was added without a default")
    old_kw = {a.name: a for a in old.arguments if a.kwarg_only}
    for name, a in old_kw.items():
        b = new_kw.get(name)
        if b is None:
            where = " (it is positional now)" if any(p.name == name for p in new_pos) else ""
            problems.append(f"keyword-only argument '{name}' was removed{where}")
        elif _type_text(b) != _type_text(a):
            problems.append(f"argument '{name}' changed type from '{_type_text(a)}' to '{_type_text(b)}'")
        else:
            problems += _default_changes(a, b)
    for name, b in new_kw.items():
        if name not in old_kw and b.default is None:
            problems.append(f"keyword-only argument '{name}' was added without a default")
    return problems


def _default_changes(a: Argument, b: Argument) -> list[str]:
    if a.default is None or a.default == b.default:
        return []
    if a.type.base == "ScalarType" and b.default is not None and \
            by_schema_default(a.default) is not None and by_schema_default(a.default) == by_schema_default(b.default):
        return []
    if b.default is None:
        return [f"argument '{a.name}' lost its default (was {a.default})"]
    return [f"argument '{a.name}' changed its default from {a.default} to {b.default}"]


def _return_changes(old: FunctionSchema, new: FunctionSchema) -> list[str]:
    show = lambda rs: "(" + ", ".join(str(r) for r in rs) + ")"  # noqa: E731
    if [(str(r.type), r.name) for r in old.returns] != [(str(r.type), r.name) for r in new.returns]:
        return [f"the returns changed from {show(old.returns)} to {show(new.returns)}"]
    return []


def breaking_changes(old: Iterable[NativeFunction], new: OperatorIndex, new_path: str) -> list[Break]:
    """Every backward-incompatible change from `old` to `new` (the operators of one namespace,
    as `old`'s; Note [Backward-compatible schema changes]), in the new file's order; a removed
    overload is located at the start of the file and names its old place."""
    breaks = []
    for f in old:
        name = f.qualified_name
        g = new.get(f.name)
        if g is None:
            breaks.append(Break(Loc(new_path, 1, 1), name, f"the overload was removed (it was at {f.func_loc})"))
            continue
        for what in _argument_changes(f.func, g.func) + _return_changes(f.func, g.func):
            breaks.append(Break(g.func_loc.at(0), name, what))
    return sorted(breaks, key=lambda b: (b.loc.line, b.loc.col, b.name))


# --- the allow-list ---------------------------------------------------------------------------

_ALLOW_LINE = re.compile(r"(\S+)\s+(\S+)(?:\s+.*)?")
_PATTERN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*::)?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]*)?\*?|[A-Za-z_][\w:.]*\*")


def parse_allow_list(text: str, path: str) -> tuple[list[Allowance], list[SpecError]]:
    """Lines `NAME EXPIRES [reason]` (`aten::foo.bar 2027-01-31 renamed in #123`; NAME may end
    in `*` to cover a prefix); `#` starts a comment. Every bad line is an error at its place."""
    entries, errors = [], []
    for number, raw in enumerate(LINE_BREAK.split(text), start=1):  # the lines errors count
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        loc = Loc(path, number, raw.index(line[0]) + 1)
        m = _ALLOW_LINE.fullmatch(line)
        if not m:
            errors.append(SpecError(loc, f"expected 'NAME YYYY-MM-DD [reason]', got '{line}'"))
            continue
        pattern, expires = m.group(1), m.group(2)
        if not _PATTERN.fullmatch(pattern):
            errors.append(SpecError(loc, f"'{pattern}' is not an operator name (ns::name.overload, or a prefix ending in *)"))
            continue
        try:
            date = datetime.date.fromisoformat(expires)
        except ValueError:
            errors.append(SpecError(Loc(path, number, raw.index(expires) + 1),
                                    f"'{expires}' is not a date (YYYY-MM-DD)"))
            continue
        entries.append(Allowance(pattern, date, loc))
    return entries, errors


@dataclass(frozen=True)
class Verdict:
    """What the check reports: the breaks not excused, those excused, and the allow-list
    entries whose date has passed (they excuse nothing any more)."""
    breaks: tuple[Break, ...]
    allowed: tuple[Break, ...]
    expired: tuple[Allowance, ...]


def judge(breaks: list[Break], allow: list[Allowance], today: datetime.date) -> Verdict:
    live = [a for a in allow if a.expires >= today]
    excused = [b for b in breaks if any(a.covers(b.name) for a in live)]
    return Verdict(tuple(b for b in breaks if b not in excused), tuple(excused),
                   tuple(a for a in allow if a.expires < today))

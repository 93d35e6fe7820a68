"""Locations and the error type for mistakes in the user's YAML (`path:line:col: error: msg`),
and their compiler-style rendering (the source line and a caret under the column)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Sequence

from gen.model.suggest import NameIndex

# At most this many errors are printed before the generator gives up (CONTRIBUTING.md section 3).
MAX_ERRORS = 20

# What YAML counts as a line break, so that line numbers here agree with PyYAML's.
LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")
_ESCAPED_BREAKS = re.compile("[\n\r\x85\u2028\u2029]")  # shown as \n, \r, ... in a message


@dataclass(frozen=True, slots=True)
class Loc:
    """A place in an input file; `line` and `col` are 1-based (`col` counts characters)."""

    path: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class TextLoc(Loc):
    """Where the text of a YAML scalar starts (after the quote of a quoted scalar).

    `exact` is True when the text sits on one line exactly as written (a plain or quoted
    scalar without escapes), so its i-th character is at column `col + i`: `at(i)` then
    points inside the text; otherwise at(i) is the scalar's start.
    """

    exact: bool = False

    def at(self, offset: int) -> Loc:
        return Loc(self.path, self.line, self.col + offset if self.exact else self.col)


class SpecError(Exception):
    """A mistake in the user's YAML. Always carries a location."""

    def __init__(self, loc: Loc, msg: str) -> None:
        # One line, whatever the message quotes (a block scalar's final line break, a quoted
        # key with "\n" in it): tools read `path:line:col: error: msg` a line at a time.
        msg = _ESCAPED_BREAKS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), msg)
        super().__init__(f"{loc}: error: {msg}")
        self.loc = loc
        self.msg = msg


class SpecErrors(Exception):
    """Several SpecErrors found in one run, in the order they should be printed, with the text
    of every input file that could be read (path -> text), for format_error()."""

    def __init__(self, errors: Sequence[SpecError], sources: Optional[Mapping[str, str]] = None) -> None:
        assert errors, "SpecErrors raised without errors: generator bug"
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = tuple(errors)
        self.sources = dict(sources or {})


def sorted_errors(errors: list[SpecError]) -> list[SpecError]:
    """Errors grouped by file (files in the order they were read), then by line and column.

    Errors at the same place keep their discovery order (sorted() is stable).
    """
    file_order: dict[str, int] = {}
    for e in errors:
        file_order.setdefault(e.loc.path, len(file_order))
    return sorted(errors, key=lambda e: (file_order[e.loc.path], e.loc.line, e.loc.col))


def close_match(word: str, choices: Iterable[str]) -> Optional[str]:
    """The choice `word` is most likely a misspelling of, or None when none is close.

    Case is ignored when comparing (`cpu` suggests `CPU`); the choice is returned as spelled.
    For many lookups in one large set, build a NameIndex once (Note [Suggestions]).
    """
    return NameIndex(choices).close_match(word)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """" (did you mean 'X'?)" for a close match, else ""; appended to an error message."""
    return suggestion(word, close_match(word, choices))


def suggestion(word: str, match: Optional[str]) -> str:
    """" (did you mean 'match'?)", or "" when there is none (or it is the word itself)."""
    return f" (did you mean '{match}'?)" if match is not None and match != word else ""


def format_error(error: SpecError, source: Optional[str]) -> str:
    """`path:line:col: error: msg`, then (when `source`, the file's text, has that line) the
    line itself and a caret under the column, as compilers print them:

        native_functions.yaml:4:3: error: unknown key 'dispach' (did you mean 'dispatch'?)
          dispach:
          ^
    """
    lines = LINE_BREAK.split(source) if source is not None else []
    if not 1 <= error.loc.line <= len(lines):
        return str(error)
    text = lines[error.loc.line - 1]
    # Tabs before the column are kept so that the caret lines up in any terminal.
    pad = "".join(c if c == "\t" else " " for c in text[:error.loc.col - 1])
    pad += " " * (error.loc.col - 1 - len(pad))
    return f"{error}\n{text}\n{pad}^"

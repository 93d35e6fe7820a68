"""Locations and the error type for mistakes in the user's YAML (`path:line: error: msg`)."""
from __future__ import annotations

from dataclasses import dataclass

# At most this many errors are printed before the generator gives up (STYLE.md section 2).
MAX_ERRORS = 20


@dataclass(frozen=True)
class Loc:
    """A place in an input file; `line` is 1-based."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


class SpecError(Exception):
    """A mistake in the user's YAML. Always carries a location."""

    def __init__(self, loc: Loc, msg: str) -> None:
        super().__init__(f"{loc}: error: {msg}")
        self.loc = loc
        self.msg = msg


class SpecErrors(Exception):
    """Several SpecErrors found in one run, in the order they should be printed."""

    def __init__(self, errors: list[SpecError]) -> None:
        assert errors, "SpecErrors raised without errors: generator bug"
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = tuple(errors)


def sorted_errors(errors: list[SpecError]) -> list[SpecError]:
    """Errors grouped by file (files in the order they were read), then by line.

    Errors at the same place keep their discovery order (sorted() is stable).
    """
    file_order: dict[str, int] = {}
    for e in errors:
        file_order.setdefault(e.loc.path, len(file_order))
    return sorted(errors, key=lambda e: (file_order[e.loc.path], e.loc.line))

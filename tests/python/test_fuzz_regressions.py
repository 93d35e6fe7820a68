"""The generator's parser and the runtime's agree (tests/fuzz/fuzz_gen.py's differential target):
its findings stay fixed (tests/fuzz/regressions/differential/), and a short seeded run finds
nothing. Also opcore._C._parse_schema itself, which the target calls."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import opcore

FUZZ = Path(__file__).resolve().parents[1] / "fuzz"


def _driver():
    if str(FUZZ) not in sys.path:
        sys.path.insert(0, str(FUZZ))  # tests/fuzz is not a package: its modules import each other by name
    import fuzz_gen
    return fuzz_gen


def _cases() -> list[Path]:
    return sorted(p for d in (FUZZ / "regressions" / "differential", FUZZ / "corpus" / "differential")
                  for p in d.iterdir() if not p.name.startswith("."))


@pytest.mark.parametrize("case", _cases(), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_regression_case_passes(case: Path) -> None:
    assert _driver().replay([case]) == []


def test_short_seeded_differential_run_finds_nothing(tmp_path: Path) -> None:
    runs, _, found = _driver().fuzz("differential", float("inf"), 5000, 0, tmp_path, quiet=True)
    assert runs == 5000
    assert {kind: str(path) + "\n" + finding.detail for kind, (path, finding) in found.items()} == {}


def test_parse_schema_prints_the_runtime_parser_s_reading() -> None:
    text = "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"
    assert opcore._C._parse_schema(text) == text


def test_parse_schema_raises_runtime_error_with_the_parser_s_message() -> None:
    with pytest.raises(RuntimeError, match=r"invalid schema 'f\(Tensr x\) -> \(\)': unknown type 'Tensr' at column 3"):
        opcore._C._parse_schema("f(Tensr x) -> ()")


@pytest.mark.parametrize("arg", [None, 1, b"f() -> ()", "f(str s='\ud800') -> ()"])
def test_parse_schema_rejects_what_is_not_a_schema_string(arg: object) -> None:
    with pytest.raises((TypeError, UnicodeEncodeError)):
        opcore._C._parse_schema(arg)

"""The generator's fuzz findings stay fixed (tests/fuzz/regressions/{schema,yaml}/, replayed
through the oracles of tests/fuzz/fuzz_gen.py), and a short seeded run of each of its targets
that needs no built package finds nothing. The differential target (it needs opcore._C) is run
by tests/python/test_fuzz_regressions.py."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parents[1] / "fuzz"


def _driver():
    if str(FUZZ) not in sys.path:
        sys.path.insert(0, str(FUZZ))  # tests/fuzz is not a package: its modules import each other by name
    import fuzz_gen
    return fuzz_gen


def _cases(target: str) -> list[Path]:
    return sorted(p for p in (FUZZ / "regressions" / target).iterdir() if not p.name.startswith("."))


@pytest.mark.parametrize("case", _cases("schema") + _cases("yaml"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_regression_case_passes(case: Path) -> None:
    assert _driver().replay([case]) == []


def test_corpus_files_load() -> None:
    """Every seed is read (a corpus file in the wrong place would be silently skipped)."""
    driver = _driver()
    roles = {s.role for s in driver.yaml_seeds()}
    assert roles >= {"native_functions.yaml", "tags.yaml", "derivatives.yaml", "custom_ops.yaml",
                     "functions.yaml", "selection", "formula_helpers", "allow_list"}
    assert len(driver.schema_seeds()) > 100


@pytest.mark.parametrize("target, iterations", [("schema", 3000), ("yaml", 150)])
def test_short_seeded_run_finds_nothing(target: str, iterations: int, tmp_path: Path) -> None:
    runs, _, found = _driver().fuzz(target, float("inf"), iterations, 0, tmp_path, quiet=True)
    assert runs == iterations
    assert {kind: str(path) + "\n" + finding.detail for kind, (path, finding) in found.items()} == {}


def test_list_targets(capsys: pytest.CaptureFixture[str]) -> None:
    assert _driver().main(["--list-targets"]) == 0
    assert capsys.readouterr().out.split() == ["schema", "yaml", "differential"]


class _Spins:
    """A target whose oracle runs for `seconds` of wall time, burning CPU or sleeping."""

    def __init__(self, seconds: float, burn: bool) -> None:
        self.seconds, self.burn = seconds, burn

    def check(self, inp):
        import time
        end = time.perf_counter() + self.seconds
        while time.perf_counter() < end:
            if not self.burn:
                time.sleep(self.seconds)
        return None


def test_the_time_limit_counts_cpu_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """An input that burns CPU past the limit is a hang; one that waits as long (as a loaded
    machine makes an input wait) is not."""
    import signal
    driver = _driver()
    monkeypatch.setattr(driver, "TIME_LIMIT_S", 0.1)
    previous = signal.signal(signal.SIGPROF, driver._on_cpu_limit)
    try:
        finding = driver.timed_check(_Spins(2.0, burn=True), None)
        assert finding is not None and finding.kind == "hang", finding
        assert "CPU time" in finding.detail
        assert driver.timed_check(_Spins(0.3, burn=False), None) is None
    finally:
        signal.signal(signal.SIGPROF, previous)

"""pytest setup for tests/gen: makes `gen` importable whatever the working directory, and
provides fixtures. Helpers live in genutil.py."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from genutil import FIXTURES, run_gen  # noqa: E402  (needs the path above)


@pytest.fixture
def mini_out(tmp_path: Path) -> Path:
    """An output dir already generated from the mini fixture."""
    out = tmp_path / "out"
    result = run_gen("--yaml-dir", str(FIXTURES / "mini"), "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


# The golden outputs include a generated pytest module (tests/test_python_bindings.py): it is
# compared as text, never run here.
collect_ignore_glob = ["golden/*"]

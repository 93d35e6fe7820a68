"""Helpers shared by the generator tests: run `python3 -m gen` the way the build does.

Imported as `genutil` (pytest puts tests/gen on sys.path; see conftest.py)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def run_gen(*args: str, cwd: Path = REPO, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Runs the generator CLI in a subprocess (cwd: the repo root unless told otherwise;
    `env`: variables to set on top of the current environment)."""
    env = dict(os.environ, **(env or {}), PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "gen", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `directory`: relative path -> (content, mtime in ns)."""
    return {
        str(p.relative_to(directory)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(directory.rglob("*")) if p.is_file()
    }


def make_yaml_dir(tmp: Path, native_functions: str, tags: Path = REPO / "yaml" / "tags.yaml") -> Path:
    """A yaml dir holding `native_functions` (text), a copy of `tags` and an empty derivatives.yaml."""
    yaml_dir = tmp / "yaml"
    yaml_dir.mkdir(parents=True, exist_ok=True)
    (yaml_dir / "native_functions.yaml").write_text(native_functions, encoding="utf-8")
    shutil.copy(tags, yaml_dir / "tags.yaml")
    (yaml_dir / "derivatives.yaml").write_text("[]\n", encoding="utf-8")
    return yaml_dir


def output_paths(yaml_dir: Path | str) -> list[str]:
    """The relative paths the generator writes for `yaml_dir`, in its order (in-process)."""
    from gen.pipeline import generate
    return [rel for rel, _ in generate(str(yaml_dir)).files]

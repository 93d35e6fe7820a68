"""Helpers shared by the generator tests: run `python3 -m gen` the way the build does, or
load a YAML directory with the model alone.

Imported as `genutil` (pytest puts tests/gen on sys.path; see conftest.py)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from gen.model.errors import SpecError
from gen.model.native_function import NativeFunction
from gen.model.native_functions_yaml import parse_native_functions
from gen.model.options import ParseOptions
from gen.model.tags import parse_tags
from gen.model.yaml_loader import load_yaml

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


def load_model(yaml_dir: Path, options: ParseOptions = ParseOptions()) -> tuple[tuple[NativeFunction, ...], list[SpecError]]:
    """tags.yaml and native_functions.yaml of `yaml_dir`, parsed and validated by the model
    only (pipeline.load_spec also checks what the C++ API can express): the valid entries and
    every error. Raises SpecError when a file cannot be read or is not YAML."""
    data, errors = load_yaml(str(yaml_dir / "tags.yaml"))
    tags, tag_errors = parse_tags(data, str(yaml_dir / "tags.yaml"))
    declared = frozenset(t.name for t in tags) if not errors + tag_errors else None
    data, yaml_errors = load_yaml(str(yaml_dir / "native_functions.yaml"))
    functions, function_errors = parse_native_functions(data, str(yaml_dir / "native_functions.yaml"), declared, options)
    return functions, errors + tag_errors + yaml_errors + function_errors


def output_paths(yaml_dir: Path | str) -> list[str]:
    """The relative paths the generator writes for `yaml_dir`, in its order (in-process)."""
    from gen.pipeline import generate
    return [rel for rel, _ in generate(str(yaml_dir)).files]

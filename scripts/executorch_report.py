"""Which `- op:` entries of an ExecuTorch kernel YAML file (functions.yaml, optimized.yaml, a
backend's) opcore has, which it lacks, and whether the file generates once the entries opcore
lacks are left out: the report in docs/executorch.md section "ExecuTorch's files against opcore".

  /usr/bin/python3 scripts/executorch_report.py FILE... [--namespace NS] [--pytorch-yaml DIR]

For each FILE it prints the number of `- op:` entries, those naming an operator of opcore's, and
the missing ones, grouped by whether they belong to PyTorch's Core ATen opset when DIR's
native_functions.yaml tags operators `core` (PyTorch 2.0 and later; Debian's torch 1.13 does not:
the grouping is then left out, and says so), and which of them name an overload of an operator
opcore has (`index_put.out` beside opcore's `index_put`). An entry `abs.out` counts as Core ATen when an
overload of its operator (`abs`, or `abs` for `abs_`) is tagged `core`: the tag is on the
functional overloads, ExecuTorch's entries are out= ones. It then runs `python3 -m gen --dry-run
--namespace NS` on a copy of FILE without the missing entries (and without `- func:` entries in
another namespace than NS, which the generator refuses), in a temporary directory, and
prints whether that generates (exit 0) or the generator's errors. The generator itself reports a
missing operator as an error: a kernel library that silently lost kernels would fail only when a
model calls them. Nothing is written outside the temporary directory.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from gen.model.yaml_loader import LocDict, load_yaml, read_source, top_level_entries  # noqa: E402
from gen.pipeline import ATEN_YAML_DIR, load_spec  # noqa: E402

Entry = tuple[str, int, int]
_DEBIAN_PYTORCH_YAML = "/usr/lib/python3/dist-packages/torchgen/packaged/ATen/native"


def core_operators(pytorch_yaml_dir: str) -> frozenset[str] | None:
    """Base names of the operators with an overload tagged `core` in PyTorch's
    native_functions.yaml; None when the file is absent or tags none `core`."""
    path = os.path.join(pytorch_yaml_dir, "native_functions.yaml")
    if not os.path.isfile(path):
        return None
    data, _ = load_yaml(path)
    entries, _ = top_level_entries(data, path, "operator entries")
    names = set()
    for item, _loc in entries:
        if not isinstance(item, LocDict) or not isinstance(item.get("func"), str):
            continue
        tags = item.get("tags") or []
        tags = [t.strip() for t in tags.split(",")] if isinstance(tags, str) else list(tags)
        if "core" in tags:
            names.add(_base(item["func"].split("(", 1)[0]))
    return frozenset(names) or None


def _base(name: str) -> str:
    """`abs.out` -> `abs`, `copy_` -> `copy`, `aten::add.out` -> `add`."""
    base = name.removeprefix("aten::").split(".", 1)[0]
    return base[:-1] if base.endswith("_") and not base.endswith("__") else base


def entries_of(path: str, namespace: str) -> tuple[str, list[Entry], list[Entry]]:
    """The file's text, its `- op:` entries and its `- func:` entries in another namespace than
    `namespace` (which the generator refuses: one namespace per file), each as (operator name,
    first line, line after the entry)."""
    text = read_source(path)
    data, errors = load_yaml(path)
    if errors:
        sys.exit("\n".join(str(e) for e in errors))
    entries, _ = top_level_entries(data, path, "entries")
    starts = [loc.line for _, loc in entries] + [text.count("\n") + 2]
    ops, foreign = [], []
    for i, (item, loc) in enumerate(entries):
        if not isinstance(item, LocDict):
            continue
        if "op" in item and "func" not in item and isinstance(item["op"], str):
            ops.append((item["op"].removeprefix("aten::"), loc.line, starts[i + 1]))
        elif isinstance(item.get("func"), str) and "::" in item["func"].split("(", 1)[0]:
            name = item["func"].split("(", 1)[0]
            if name.split("::", 1)[0] != namespace:
                foreign.append((name, loc.line, starts[i + 1]))
    return text, ops, foreign


def without(text: str, entries: list[Entry]) -> str:
    """`text` without the lines of `entries`."""
    lines = text.splitlines(keepends=True)
    dropped = {n for _, first, end in entries for n in range(first, end)}
    return "".join(line for n, line in enumerate(lines, start=1) if n not in dropped)


def generates(text: str, namespace: str) -> tuple[bool, str]:
    """Whether `python3 -m gen --dry-run` accepts `text` as an ExecuTorch library's functions.yaml."""
    with tempfile.TemporaryDirectory() as tmp:
        yaml_dir = Path(tmp, "yaml")
        yaml_dir.mkdir()
        (yaml_dir / "functions.yaml").write_text(text, encoding="utf-8")
        run = subprocess.run([sys.executable, "-m", "gen", "--dry-run", "--yaml-dir", str(yaml_dir), "--out",
                              str(Path(tmp, "out")), "--namespace", namespace],
                             cwd=REPO, capture_output=True, text=True, check=False)
    return run.returncode == 0, run.stderr.strip()


def report(path: str, opcore: frozenset[str], core: frozenset[str] | None, namespace: str) -> bool:
    text, ops, foreign = entries_of(path, namespace)
    missing = [e for e in ops if e[0] not in opcore]
    print(f"{path}: {len(ops)} '- op:' entries, {len(ops) - len(missing)} name operators of opcore's, "
          f"{len(missing)} do not")
    names = sorted({name for name, _, _ in missing})
    if core is None:
        print(f"  missing ({len(names)}): {' '.join(names)}")
    else:
        in_core = [n for n in names if _base(n) in core]
        others = [n for n in names if _base(n) not in core]
        print(f"  missing, Core ATen ({len(in_core)}): {' '.join(in_core)}")
        print(f"  missing, not Core ATen ({len(others)}): {' '.join(others)}")
    bases = {_base(name) for name in opcore}
    overloads = [n for n in names if _base(n) in bases]
    print(f"  of them, overloads of operators opcore has ({len(overloads)}): {' '.join(overloads)}")
    if foreign:
        print(f"  '- func:' entries in another namespace than {namespace} ({len(foreign)}, left out too: one "
              f"namespace per file): {' '.join(name for name, _, _ in foreign)}")
    ok, errors = generates(without(text, missing + foreign), namespace)
    print(f"  without them: {'generates' if ok else 'does not generate'}")
    if not ok:
        print("    " + errors.replace("\n", "\n    "))
    return ok


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--namespace", default="etlib",
                   help="the library's namespace, that of its '- func:' entries (default: etlib)")
    p.add_argument("--pytorch-yaml", metavar="DIR",
                   default=os.environ.get("OPCORE_PYTORCH_YAML_DIR", _DEBIAN_PYTORCH_YAML),
                   help="PyTorch's native_functions.yaml directory, for its 'core' tags (default: "
                        "$OPCORE_PYTORCH_YAML_DIR, else Debian's python3-torch)")
    args = p.parse_args()
    opcore = frozenset(load_spec(ATEN_YAML_DIR).by_name)
    core = core_operators(args.pytorch_yaml)
    if core is None:
        print(f"note: {args.pytorch_yaml}/native_functions.yaml tags no operator 'core' (PyTorch before 2.0): "
              "missing operators are not grouped by the Core ATen opset")
    results = [report(path, opcore, core, args.namespace) for path in args.files]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

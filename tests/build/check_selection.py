"""Checks a selective build against what its compiled code calls (ctest selective_build, run by
test_selective.sh; Note [Selective builds] in gen/emit/selection.py):
- runtime/required_operators.txt lists exactly the operators the compiled runtime calls (the
  undefined `_ops::<op>::call` / `redispatch` symbols of its objects);
- every operator that a live object of the build calls is kept: the runtime's, the generated
  sources' (registrations, autograd kernels and Python bindings of kept operators only), and the
  kernels' that implement a kept operator or none.
So the generator's scan of kernels/ and of derivatives.yaml never misses a call. The CUDA
kernels' objects are read from MAIN_BUILD_DIR, the build that compiled them (the selective
build has none; their sources, and so their calls, are the same).
    check_selection.py SOURCE_DIR BUILD_DIR SELECTED_OPERATORS MAIN_BUILD_DIR
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SOURCE_DIR, BUILD_DIR, SELECTED, MAIN_BUILD_DIR = (Path(arg).resolve() for arg in sys.argv[1:5])
sys.path.insert(0, str(SOURCE_DIR))

from gen import pipeline  # noqa: E402
from gen.api import dispatcher  # noqa: E402
from gen.emit.common import group_name  # noqa: E402
from gen.emit.selection import implemented_groups  # noqa: E402
from gen.model.selection import parse_selection  # noqa: E402

REQUIRED = SOURCE_DIR / "runtime" / "required_operators.txt"
_CALLED = re.compile(r"\bopcore::_ops::(\w+)::(?:call|redispatch)\(")
_OBJECT_DIR = re.compile(r"/CMakeFiles/opcore(?:_python)?\.dir/(.*)\.o$")


def main() -> int:
    spec = pipeline.load_spec(str(SOURCE_DIR / "yaml"))
    selected = pipeline.select(spec, str(SELECTED), [str(SOURCE_DIR / "kernels")], (str(REQUIRED),))
    required = parse_selection(REQUIRED.read_text(), str(REQUIRED), spec.functions, spec.namespace)[0].names
    by_struct = {dispatcher.struct_name(f.func): f.name for f in spec.functions}
    failures = []

    runtime_calls: dict[str, set[str]] = {}  # operator -> the runtime sources that call it
    for source, called in _objects_calls(by_struct):
        if source.startswith("runtime/"):
            for name in called:
                runtime_calls.setdefault(name, set()).add(source)
        elif source.startswith("kernels/"):
            groups = implemented_groups((SOURCE_DIR / source).read_text())
            if groups and not any(f.name in selected.kept for f in spec.functions if group_name(f) in groups):
                continue  # implements left-out operators only: dead code in this build
        failures += [f"{source} calls aten::{name}, which the build left out"
                     for name in sorted(called - selected.kept)]
    failures += [f"aten::{name} is called by {', '.join(sorted(sources))}: add the line 'aten::{name}' to "
                 f"{REQUIRED.relative_to(SOURCE_DIR)}"
                 for name, sources in sorted(runtime_calls.items()) if name not in required]
    failures += [f"{REQUIRED.relative_to(SOURCE_DIR)} lists aten::{name}, which the runtime no longer calls: "
                 "remove it" for name in sorted(required - runtime_calls.keys())]
    for failure in failures:
        print("FAIL:", failure)
    if not failures:
        print(f"check_selection: {len(selected.kept)} of {len(spec.functions)} operators kept; the runtime "
              f"calls the {len(required)} of {REQUIRED.name}, and no live object calls one left out")
    return 1 if failures else 0


def _objects_calls(by_struct: dict[str, str]):
    """(source relative to the build's object directory, the operators its object calls by
    `_ops::<op>::call`), for every object of libopcore and opcore._C, and of the main build's
    CUDA kernels (none where nvcc is missing)."""
    objects = sorted(str(p) for p in BUILD_DIR.glob("CMakeFiles/opcore*.dir/**/*.o") if _OBJECT_DIR.search(str(p)))
    if not objects:
        raise SystemExit(f"check_selection: no objects under {BUILD_DIR}/CMakeFiles/opcore.dir")
    objects += sorted(str(p) for p in MAIN_BUILD_DIR.glob("CMakeFiles/opcore.dir/kernels/cuda/*.o"))
    symbols = subprocess.run(["nm", "-C", "--undefined-only", *objects], capture_output=True, text=True,
                             check=True).stdout
    for block in symbols.split("\n\n"):  # nm: "\nFILE:\n" then its symbols, per object
        header, _, body = block.strip().partition("\n")
        path = _OBJECT_DIR.search(header.rstrip(":"))
        if path:
            yield path.group(1), {by_struct[s] for s in _CALLED.findall(body)}


if __name__ == "__main__":
    sys.exit(main())

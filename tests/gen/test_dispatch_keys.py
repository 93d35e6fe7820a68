"""gen/model/dispatch.py's DispatchKey mirrors runtime/opcore/core/DispatchKey.h: the keys a
`dispatch:` entry may name are the C++ backend keys (one per BackendComponent, in its order)
and the C++ alias keys apart from Autograd, in the C++ order, spelled alike. A key added on one
side only fails here with a message naming it (Note [Dispatch keys in YAML])."""
from __future__ import annotations

import re

from genutil import REPO

from gen.model.dispatch import BACKEND_KEYS, COMPOSITE_KEYS, DispatchKey

HEADER = REPO / "runtime" / "opcore" / "core" / "DispatchKey.h"
# C++ alias keys a `dispatch:` entry may not name, and why.
NOT_IN_YAML = {"Autograd": "the generator registers the autograd kernels there itself (gen/emit/autograd.py)"}


def cpp_enum(header: str, name: str) -> list[tuple[str, str]]:
    """The enumerators of `enum class <name>` in `header`, in order: (name, initializer or "")."""
    text = re.sub(r"//[^\n]*", "", header)
    m = re.search(rf"enum\s+class\s+{name}\b[^{{]*\{{(?P<body>[^}}]*)\}}", text)
    assert m, f"enum class {name} not found in {HEADER.name}"
    items = [part.strip() for part in m.group("body").split(",") if part.strip()]
    return [(item.split("=")[0].strip(), item.partition("=")[2].strip()) for item in items]


def _between(keys: list[tuple[str, str]], start: str, end: str) -> list[str]:
    """The enumerators from the one initialized with `start` up to `end` (excluded)."""
    names = [n for n, _ in keys]
    first = next((i for i, (_, init) in enumerate(keys) if init == start), None)
    assert first is not None and end in names, f"{HEADER.name}: no keys from '= {start}' to '{end}'"
    return names[first:names.index(end)]


def _compare(what: str, cpp: list[str], python: list[str]) -> list[str]:
    problems = [f"{what} '{k}' is in {HEADER.name} but not in gen/model/dispatch.py" for k in cpp if k not in python]
    problems += [f"{what} '{k}' is in gen/model/dispatch.py but not in {HEADER.name}" for k in python if k not in cpp]
    if not problems and cpp != python:
        problems.append(f"{what}s are in a different order: {HEADER.name} has {cpp}, gen/model/dispatch.py {python}")
    return problems


def disagreements(header: str, keys: list[str], backends: list[str], composites: list[str]) -> list[str]:
    """Where the Python lists (DispatchKey, BACKEND_KEYS, COMPOSITE_KEYS, by name) and the C++
    header disagree; empty when they agree."""
    components = [n.removesuffix("Bit") for n, _ in cpp_enum(header, "BackendComponent")
                  if n not in ("InvalidBit", "EndOfBackends")]
    cpp_keys = cpp_enum(header, "DispatchKey")
    dense = _between(cpp_keys, "EndOfFunctionalityKeys", "EndOfRuntimeKeys")[:len(components)]
    aliases = [k for k in _between(cpp_keys, "EndOfRuntimeKeys", "EndOfKeys") if k not in NOT_IN_YAML]
    problems = []
    if dense != components:
        problems.append(f"{HEADER.name}: the first runtime keys {dense} are not the backends {components}")
    problems += _compare("backend key", components, backends)
    problems += _compare("composite key", aliases, composites)
    problems += _compare("dispatch key", components + aliases, keys)
    return problems


def test_python_dispatch_keys_agree_with_the_runtime() -> None:
    header = HEADER.read_text(encoding="utf-8")
    assert disagreements(header, [k.name for k in DispatchKey], [k.name for k in BACKEND_KEYS],
                         [k.name for k in COMPOSITE_KEYS]) == []


def test_dispatch_keys_are_spelled_as_in_cpp() -> None:
    """The value is what YAML and the generated C++ (OPCORE_LIBRARY_IMPL(aten, CPU, m)) write."""
    assert [k.value for k in DispatchKey] == [k.name for k in DispatchKey]


def test_a_key_on_one_side_only_is_named() -> None:
    header = HEADER.read_text(encoding="utf-8")
    keys, backends, composites = ([k.name for k in ks] for ks in (DispatchKey, BACKEND_KEYS, COMPOSITE_KEYS))
    cpp_xpu = header.replace("  PrivateUse1Bit,\n", "  PrivateUse1Bit,\n  XPUBit,\n").replace(
        "  PrivateUse1,\n", "  PrivateUse1,\n  XPU,\n")
    assert cpp_xpu.count("XPU") == 2
    assert disagreements(cpp_xpu, keys, backends, composites) == [
        f"backend key 'XPU' is in {HEADER.name} but not in gen/model/dispatch.py",
        f"dispatch key 'XPU' is in {HEADER.name} but not in gen/model/dispatch.py"]
    assert disagreements(header, keys + ["Lazy"], backends, composites) == [
        f"dispatch key 'Lazy' is in gen/model/dispatch.py but not in {HEADER.name}"]
    reordered = disagreements(header, keys, backends, composites[::-1])
    assert reordered[0].startswith("composite keys are in a different order"), reordered
    cpp_alias = header.replace("  CompositeExplicitAutograd,\n", "  CompositeExplicitAutograd,\n  FuncTorchBatched,\n")
    assert disagreements(cpp_alias, keys, backends, composites) == [
        f"composite key 'FuncTorchBatched' is in {HEADER.name} but not in gen/model/dispatch.py",
        f"dispatch key 'FuncTorchBatched' is in {HEADER.name} but not in gen/model/dispatch.py"]

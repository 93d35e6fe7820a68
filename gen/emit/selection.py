"""Which operators a selective build keeps: those its list selects (gen/model/selection.py) and
every one they need.

Note [Selective builds]
A build may register only the operators an application uses (PyTorch's and ExecuTorch's
selective builds): `--selected-operators FILE`, from CMake's OPCORE_SELECTED_OPERATORS. The
generator keeps the operators the list selects and, until nothing changes, every operator
that a kept one needs:
- the structured out= overload it delegates to, and for an `autogen:` overload, the entry it
  is generated from, that entry's functional form, and `copy_`;
- every operator its derivatives.yaml formulas call, by C++ name;
- every operator the hand-written code of a kept operator calls by C++ name: the sources under
  --selection-sources (this repository's kernels/ and runtime/). A file implements the
  operators whose ops/<op>_native.h it includes; the names a file calls count when it
  implements a kept operator, or implements none (the runtime, helpers: always built). This
  over-approximates (a name in a comment counts), never under.
The others are left out of the registrations (RegisterSchema.cpp, Register<Key>_<i>.cpp,
Autograd_<i>.cpp), the Python bindings and the gradcheck tests, and are recorded as excluded
(Dispatcher::registerExcluded): looking one up by name says the build left it out. Their C++
API stays declared, so that hand-written code compiles unchanged; a call throws that error.
"""
from __future__ import annotations

import re

from gen.api import cpp, dispatcher
from gen.emit.common import group_name
from gen.model.autogen import functional_name
from gen.model.native_function import NativeFunction, Variant
from gen.model.spec import Spec

# A call: `name(` (a function, unless std::'s), `.name(` / `->name(` (a method), `_ops::name::`.
_CALL = re.compile(r"(std::|\.|->)?\b([A-Za-z_]\w*)\s*\(|_ops::(\w+)::")
_NATIVE_INCLUDE = re.compile(r"#include\s*[<\"][A-Za-z_]\w*/ops/(\w+)_native\.h[>\"]")


def cpp_names(f: NativeFunction) -> tuple[str, ...]:
    """The names C++ code calls `f` by: "name(" for its function and out= forms, ".name(" for
    its method, "_ops::name" for its `_ops` struct (the forms _calls gives)."""
    name = cpp.function_name(f.func)
    names = [f"_ops::{dispatcher.struct_name(f.func)}"]
    if f.func.is_out:
        names += [f"{name}(", f"{cpp.outf_name(f.func)}("]
    elif Variant.function in f.variants:
        names.append(f"{name}(")
    if Variant.method in f.variants:
        names.append(f".{name}(")
    return tuple(names)


def _calls(text: str) -> frozenset[str]:
    """The calls in C++ `text`, in cpp_names' forms."""
    return frozenset(f"_ops::{struct}" if struct else f"{'.' if prefix in ('.', '->') else ''}{name}("
                     for prefix, name, struct in _CALL.findall(text) if prefix != "std::")


def kept_operators(spec: Spec, selected: frozenset[str], sources: dict[str, str]) -> frozenset[str]:
    """The names of the operators a build selecting `selected` keeps (Note [Selective builds])."""
    by_name = {f.name: f for f in spec.functions}
    by_cpp: dict[str, list[str]] = {}
    for f in spec.functions:
        for name in cpp_names(f):
            by_cpp.setdefault(name, []).append(f.name)

    def called(text: str) -> set[str]:
        return {n for call in _calls(text) for n in by_cpp.get(call, ())}

    kept = set(selected)
    by_group: dict[str, set[str]] = {}  # operator group -> what the files implementing it call
    for text in sources.values():
        implements = _NATIVE_INCLUDE.findall(text)
        calls = called(text)
        if not implements:  # the runtime, helpers: always built
            kept |= calls
        for group in implements:
            by_group.setdefault(group, set()).update(calls)
    pending = list(kept)
    while pending:
        f = by_name[pending.pop()]
        needs = set(by_group.get(group_name(f), ()))
        if f.structured_delegate is not None:
            needs.add(str(f.structured_delegate))
        if f.autogen_source:
            source = by_name[f.autogen_source]
            needs |= {source.name, str(functional_name(source.func)), "copy_"}
        d = spec.derivative_for(f)
        for formula in d.backward_formulas if d else ():
            needs |= called(formula.expr)
        new = {n for n in needs if n in by_name and n not in kept}
        kept |= new
        pending += new
    return frozenset(kept)

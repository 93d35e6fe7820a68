"""Which operators a selective build keeps: those its list selects (gen/model/selection.py) and
every one they need.

Note [Selective builds]
A build may register only the operators an application uses (PyTorch's and ExecuTorch's
selective builds): `--selected-operators FILE`, from CMake's OPCORE_SELECTED_OPERATORS. The
generator keeps the operators the list selects, those the --required-operators lists name
(code built whatever the selection: this repository's runtime/required_operators.txt), and,
until nothing changes, every operator that a kept one needs:
- the structured out= overload it delegates to, and for an `autogen:` overload, the entry it
  is generated from, that entry's functional form, and `copy_`;
- for an operator used for training, the operator whose derivatives.yaml entry it uses (an
  in-place or out= overload uses its functional overload's) and every operator the formulas
  call, by C++ name or by a C++ operator of runtime/opcore/TensorOperators.h (`grad * other`
  calls mul). An operator is used for training unless PyTorch's list says `is_used_for_training:
  false` for it and no operator used for training needs it; only those get autograd kernels
  (as torchgen generates VariableType kernels for them only). The others fall to the autograd
  fallback (runtime/opcore/autograd/Fallback.cpp): with an input that requires grad, backward()
  through one says it has no derivative, and, for one with formulas (recorded in
  RegisterSchema.cpp: autograd::registerInferenceOnly), that the build keeps it for inference;
- every operator the hand-written code of a kept operator calls by C++ name: the sources under
  --selection-sources (this repository's kernels/). A file implements the operators whose
  ops/<op>_native.h it includes; the names a file calls count when it implements a kept
  operator, or implements none (helpers: always built). A call is `f(`, `opcore::f(`, `at::f(`,
  `.f(`, `->f(` or `_ops::f::`, outside comments and literals; `Vec exp(` (a declaration) and
  `Avx2::exp(` (another scope) are not.
The scan reads text, not types (`state.add(x)` counts for add, whatever `state` is), so it
keeps more than the code calls. It must never keep less: ctest's selective_build compares it
with the undefined `_ops::<op>::call` symbols of the compiled objects
(tests/build/check_selection.py), and the runtime's list with the runtime's objects, both ways.
The others are left out of the registrations (RegisterSchema.cpp, Register<Key>_<i>.cpp,
Autograd_<i>.cpp), the Python bindings and the gradcheck tests, and are recorded as excluded
(Dispatcher::registerExcluded): looking one up by name says the build left it out. Their C++
API stays declared, so that hand-written code compiles unchanged; its `_ops` struct's call and
redispatch only throw that error (Dispatcher::throwExcluded), with no typed call path compiled.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from gen.api import dispatcher
from gen.model.autogen import functional_name
from gen.model.native_function import NativeFunction
from gen.model.operators import group_name
from gen.model.spec import Spec

# A call: `name(` (unqualified, or qualified by opcore:: or at::), `.name(` / `->name(` (a
# method), `_ops::name::`; with what precedes the name, to tell `Vec exp(` (a declaration) and
# `Avx512::exp(` (another scope's function) from a call.
_CALL = re.compile(r"(?:(\w*)\s*(::)\s*|(\.|->)\s*|\b(\w+)\s+)?\b([A-Za-z_]\w*)\s*\(|_ops::(\w+)::")
_OPERATOR_SCOPES = frozenset({"opcore", "at"})
_BEFORE_CALL = frozenset({"return", "co_return", "throw", "else", "case", "do"})  # words, unlike types
# Comments and string or character literals: no calls in them.
_NOT_CODE = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL)
# The operators of runtime/opcore/TensorOperators.h that a derivatives.yaml formula may write
# (`grad * other`), as the calls they make; one with a Scalar on the left also calls full().
_OPERATOR = re.compile(r"==|[-+*/]=?|<|>")
_OPERATOR_CALLS = {"+": {"add("}, "-": {"sub(", ".neg("}, "*": {"mul("}, "/": {"div("}, "==": {"eq("},
                   "<": {"lt("}, ">": {"gt("}, "+=": {".add_("}, "-=": {".sub_("}, "*=": {".mul_("},
                   "/=": {".div_("}}
_NATIVE_INCLUDE = re.compile(r"#include\s*[<\"][A-Za-z_]\w*/ops/(\w+)_native\.h[>\"]")


def cpp_names(f: NativeFunction) -> tuple[str, ...]:
    """The names C++ code calls `f` by: "name(" for its function and out= forms, ".name(" for
    its method, "_ops::name" for its `_ops` struct (the forms _calls gives)."""
    names = f.cpp_names  # Note [C++ API names] in gen/model/native_function.py
    method = (f".{names.method}(",) if names.method is not None else ()
    return (f"_ops::{dispatcher.struct_name(f.func)}",) + tuple(f"{name}(" for name in names.functions) + method


def _calls(text: str) -> set[str]:
    """The calls in C++ `text`, in cpp_names' forms."""
    calls = set()
    for scope, qualified, member, word, name, struct in _CALL.findall(_NOT_CODE.sub(" ", text)):
        if struct:
            calls.add(f"_ops::{struct}")
        elif member:
            calls.add(f".{name}(")
        elif qualified:
            if scope in _OPERATOR_SCOPES:
                calls.add(f"{name}(")
        elif not word or word in _BEFORE_CALL:
            calls.add(f"{name}(")
    return calls


class CallScanner:
    """The operators of `spec` that C++ text calls by name (cpp_names' forms)."""

    def __init__(self, spec: Spec):
        self._by_cpp: dict[str, list[str]] = {}
        for f in spec.functions:
            for name in cpp_names(f):
                self._by_cpp.setdefault(name, []).append(f.name)

    def called(self, text: str) -> set[str]:
        return self._operators(_calls(text))

    def called_in_formula(self, expr: str) -> set[str]:
        """As called(), with the C++ operators a formula may apply to tensors."""
        operators = _OPERATOR.findall(expr)
        calls = _calls(expr).union(*(_OPERATOR_CALLS[op] for op in operators))
        return self._operators(calls | ({"full("} if operators else set()))

    def _operators(self, calls) -> set[str]:
        return {n for call in calls for n in self._by_cpp.get(call, ())}


def implemented_groups(text: str) -> list[str]:
    """The operator groups a C++ source implements: those whose ops/<group>_native.h it includes."""
    return _NATIVE_INCLUDE.findall(text)


@dataclass(frozen=True)
class Kept:
    """What a selective build keeps (Note [Selective builds]): the operators it registers, and
    those of them that get autograd kernels."""

    operators: frozenset[str]
    trained: frozenset[str]


def kept_operators(spec: Spec, selected: frozenset[str], sources: dict[str, str],
                   training: Optional[frozenset[str]] = None) -> Kept:
    """What a build selecting `selected`, `training` of them for training (default: all), keeps
    (Note [Selective builds])."""
    by_name = spec.by_name
    scanner = CallScanner(spec)
    always = set()  # what helpers call: they are always built
    by_group: dict[str, set[str]] = {}  # operator group -> what the files implementing it call
    for text in sources.values():
        implements = implemented_groups(text)
        calls = scanner.called(text)
        if not implements:
            always |= calls
        for group in implements:
            by_group.setdefault(group, set()).update(calls)

    def needs(f: NativeFunction, backward: bool) -> set[str]:
        found = set(by_group.get(group_name(f), ()))
        if f.structured_delegate is not None:
            found.add(str(f.structured_delegate))
        if f.autogen_source:
            source = by_name[f.autogen_source]
            found |= {source.name, str(functional_name(source.func)), "copy_"}
        d = spec.derivative_for(f) if backward else None
        if d is not None:
            found.add(d.name)  # an in-place or out= overload's entry is its functional overload's
            found |= {n for formula in d.backward_formulas for n in scanner.called_in_formula(formula.expr)}
        return found

    def closure(start: set[str], backward: bool) -> set[str]:
        done = {n for n in start if n in by_name}
        pending = list(done)
        while pending:
            new = {n for n in needs(by_name[pending.pop()], backward) if n in by_name and n not in done}
            done |= new
            pending += new
        return done

    trained = closure(always | (selected if training is None else training), backward=True)
    return Kept(frozenset(closure(selected | trained, backward=False)), frozenset(trained))

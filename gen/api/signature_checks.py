"""Checks that need the signatures (gen/api): names the C++ code cannot use, types the C++ API
cannot express, overloads that would collide once translated to C++, and values an autograd
node cannot save yet. The YAML's own rules are checked in gen/model (the rules on one entry by
NativeFunction, the rules across entries in cross_entry_checks.py).

    errors = signature_checks.check_functions(functions)   # list of SpecError, empty when all is well
    errors = signature_checks.check_nodes(spec)
"""
from __future__ import annotations

from gen.api import cpp, dispatcher, native
from gen.api.autograd import AutogradKind, autograd_kind, saved_values
from gen.api.types import ApiError, argument_type, default_value, returns_type
from gen.model.errors import Loc, SpecError
from gen.model.formulas import CPP_KEYWORDS
from gen.model.native_function import NativeFunction
from gen.model.schema import FunctionSchema
from gen.model.spec import Spec

# Names the generated code uses next to user names: the types in signatures, the namespaces
# inside opcore, the local `op` in Operators.cpp and the `dispatch_key_set` parameter of
# redispatch functions.
RESERVED_NAMES = frozenset({
    "Tensor", "TensorBase", "TensorList", "Scalar", "ScalarType", "Device", "DeviceType",
    "Layout", "MemoryFormat", "QScheme", "Dimname", "DimnameList", "Generator", "Storage", "Stream", "Reduction",
    "ArrayRef", "OptionalArrayRef", "OptionalTensorList",
    "IntArrayRef", "OptionalIntArrayRef", "DispatchKeySet", "opcore", "int64_t",
    "Dispatcher", "TypedOperatorHandle", "Library",
    "native", "redispatch", "_ops", "detail", "autograd", "op", "dispatch_key_set",
})


def _name_error(kind: str, name: str) -> str | None:
    if name in CPP_KEYWORDS:
        return f"{kind} '{name}' is a C++ keyword"
    if name in RESERVED_NAMES:
        return f"{kind} '{name}' is reserved by the generated C++ code"
    return None


def _check_names(f: NativeFunction) -> list[SpecError]:
    """Errors point at the name concerned, inside the schema or at the kernel."""
    errors = []
    problem = _name_error("operator name", f.func.name.base)
    if problem:
        errors.append(SpecError(f.func_loc.at(0), problem))
    for i, a in enumerate(f.func.arguments):
        problem = _name_error("argument name", a.name)
        if problem:  # the offset only when needed: it is computed from the schema's text
            errors.append(SpecError(f.func_loc.at(f.func.argument_name_offset(i)), problem))
    for k in f.dispatch:
        problem = _name_error("kernel name", k.kernel)
        if problem:
            errors.append(SpecError(k.kernel_loc, problem))
    return errors


def _signatures(f: NativeFunction) -> list[tuple[str, cpp.CppSignature]]:
    """Every C++ API declaration of `f`, with its scope; raises ApiError."""
    # Every default is checked, so none is dropped (`keep`); spelled out, it is the argument the
    # emitters pass for most entries, so their calls find these signatures in the caches (see
    # Note [Signature caches] in gen/api/__init__.py).
    keep: frozenset[str] = frozenset()
    sigs = [("opcore::", sig) for sig in cpp.function_signatures(f, keep)]
    if f.cpp_names.method is not None:
        sigs += [("Tensor::", sig) for sig in cpp.method_signatures(f, keep)]
    sigs.append(("opcore::redispatch::", cpp.redispatch_signature(f.func)))
    return sigs


def _api_error_offset(func: FunctionSchema) -> int:
    """Where in str(func) the first type or default the C++ API cannot express is."""
    for i, a in enumerate(func.arguments):
        try:
            argument_type(a.type)
        except ApiError:
            return func.argument_offset(i)
        try:
            default_value(a)
        except ApiError:
            return func.argument_name_offset(i) + len(a.name) + len("=")
    try:
        returns_type(func.returns)
    except ApiError:
        return func.return_offset()
    return 0


def _check_types(f: NativeFunction) -> tuple[list[SpecError], list[tuple[str, cpp.CppSignature]]]:
    """The type errors of `f` (none or one), and its C++ API declarations when it has none."""
    try:
        dispatcher.signature(f.func)
        return [], _signatures(f)
    except ApiError as e:
        return [SpecError(f.func_loc.at(_api_error_offset(f.func)), str(e))], []


def _check_unique_structs(functions: list[NativeFunction]) -> list[SpecError]:
    seen: dict[str, NativeFunction] = {}
    errors = []
    for f in functions:
        name = dispatcher.struct_name(f.func)
        if name in seen:
            other = seen[name]
            errors.append(SpecError(f.func_loc, f"'{f.name}' and '{other.name}' (line {other.func_loc.line}) "
                                                f"both map to the C++ struct _ops::{name}"))
        seen.setdefault(name, f)
    return errors


def _check_unique_declarations(
        functions: list[tuple[NativeFunction, list[tuple[str, cpp.CppSignature]]]]) -> list[SpecError]:
    """Two overloads must not give the same C++ name and parameter types (one error each).
    `functions`: each with its C++ API declarations (_signatures)."""
    seen: dict[tuple, NativeFunction] = {}
    errors = []
    for f, signatures in functions:
        for scope, sig in signatures:
            other = seen.setdefault((scope, sig.name, sig.parameter_types()), f)
            if other is not f:
                decl = f"{scope}{sig.name}({', '.join(sig.parameter_types())})"
                errors.append(SpecError(f.func_loc, f"C++ declaration '{decl}' of '{f.name}' is identical "
                                                    f"to the one of '{other.name}' (line {other.func_loc.line})"))
                break
    return errors


def _check_native_kernels(functions: list[NativeFunction]) -> list[SpecError]:
    seen: dict[tuple, tuple[str, NativeFunction, Loc]] = {}
    errors = []
    for f in functions:
        for k in f.native_kernels:
            sig = native.kernel_signature(f, k.kernel)
            key = (sig.name, sig.parameter_types())
            returns, other, other_loc = seen.setdefault(key, (sig.returns, f, k.kernel_loc))
            if returns != sig.returns:
                errors.append(SpecError(k.kernel_loc, f"kernel native::{k.kernel} returns '{sig.returns}' for "
                                               f"'{f.name}' but '{returns}' for '{other.name}' "
                                               f"(line {other_loc.line}) with the same parameters"))
    return errors


def check_functions(functions: tuple[NativeFunction, ...]) -> list[SpecError]:
    """All C++-level problems of `functions`; cross-entry checks skip entries already in error."""
    errors: list[SpecError] = []
    valid = []  # (function, its C++ API declarations), computed once
    for f in functions:
        own, signatures = _check_names(f), []
        if not own:
            own, signatures = _check_types(f)
        errors += own
        if not own:
            valid.append((f, signatures))
    errors += _check_unique_structs([f for f, _ in valid])
    errors += _check_unique_declarations(valid)
    errors += _check_native_kernels([f for f, _ in valid])
    return errors


def check_nodes(spec: Spec) -> list[SpecError]:
    """Entries whose formulas use a value no node can save yet (a str[] argument, a Tensor[]?
    argument, a Tensor? output), located at the entry: an error at generation time rather than
    a generator crash or a C++ error."""
    errors = []
    reported = set()
    for f in spec.functions:
        d = spec.derivative_for(f)
        if d is None or d.name in reported or autograd_kind(f, d) != AutogradKind.FORMULAS:
            continue
        try:
            saved_values(f, d)
        except ApiError as e:
            errors.append(SpecError(d.loc.at(0), f"'{d.name}': {e}"))
            reported.add(d.name)
    return errors

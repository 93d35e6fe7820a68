"""The Python calling convention: which overloads the `opcore` module and `opcore.Tensor`
expose under which Python name, how each argument is read from Python (the PythonArgs
accessor the generated binding calls), and the signature text shown by help() and the stubs.

    python.function_groups(functions)   # {("", "add"): (add.Tensor, add.out, add.Scalar), ...}
    python.accessor(arg)                # "toTensor", "toScalar", "toOptionalIntList", ...
    python.signature_text(f, method=False)  # "add(input: Tensor, other: Tensor, *, alpha: Number = 1, out: Tensor) -> Tensor"
    python.signature_texts(f, True, STUB)   # ("view(self, size: Sequence[_int]) -> Tensor",
                                            #  "view(self, *size: _int) -> Tensor")

The runtime parses the same schema strings (runtime/opcore/python/PythonArgParser.h), so the
generated code passes schemas and argument positions, never a second description of them.
"""
from __future__ import annotations

import ast
import dataclasses
import keyword
from types import MappingProxyType
from typing import Mapping, Optional

from gen.api import cpp
from gen.model.dtypes import by_schema_default
from gen.model.native_function import NativeFunction
from gen.model.schema import Argument, FunctionSchema, Return, SchemaType

# Note [Python accessors]
# Each schema type a Python caller can pass maps to one PythonArgs accessor; the runtime's
# parser checks the Python object against the type during overload resolution (so the
# accessor cannot fail on a mismatched type, only on a value out of range). The keys are
# (base type, shape) with list sizes abstracted as in SchemaType.shape.
_ACCESSORS: dict[tuple[str, str], str] = {
    ("Tensor", ""): "toTensor",
    ("Tensor", "?"): "toOptionalTensor",
    ("Tensor", "[]"): "toTensorList",
    ("Tensor", "[N]"): "toTensorList",  # an out= tuple (Note [Out tuples])
    ("Tensor", "?[]"): "toOptionalTensorList",
    ("Scalar", ""): "toScalar",
    ("Scalar", "?"): "toOptionalScalar",
    ("int", ""): "toInt64",
    ("int", "?"): "toOptionalInt64",
    ("SymInt", ""): "toInt64",
    ("SymInt", "?"): "toOptionalInt64",
    ("DeviceIndex", ""): "toDeviceIndex",
    ("DeviceIndex", "?"): "toOptionalDeviceIndex",
    ("SymBool", ""): "toBool",
    ("SymBool", "?"): "toOptionalBool",
    ("float", ""): "toDouble",
    ("float", "?"): "toOptionalDouble",
    ("bool", ""): "toBool",
    ("bool", "?"): "toOptionalBool",
    ("str", ""): "toStringView",
    ("str", "?"): "toOptionalStringView",
    ("ScalarType", ""): "toScalarType",
    ("ScalarType", "?"): "toOptionalScalarType",
    ("Device", ""): "toDevice",
    ("Device", "?"): "toOptionalDevice",
    ("Layout", ""): "toLayout",
    ("Layout", "?"): "toOptionalLayout",
    ("MemoryFormat", ""): "toMemoryFormat",
    ("MemoryFormat", "?"): "toOptionalMemoryFormat",
    ("Generator", "?"): "toOptionalGenerator",
    ("float", "[]"): "toDoubleList",
    ("float", "[]?"): "toOptionalDoubleList",
    **{(base, shape): "toIntList" for base in ("int", "SymInt") for shape in ("[]", "[N]")},
    **{(base, shape): "toOptionalIntList" for base in ("int", "SymInt") for shape in ("[]?", "[N]?")},
}


@dataclasses.dataclass(frozen=True)
class Spelling:
    """How signature text is written: for help() (HELP) or for the type stubs (STUB).

    types: the Python type each schema base type is annotated with.
    stub:  the text must be valid in a .pyi (Note [Stub spelling]).
    """

    types: Mapping[str, str]
    stub: bool


# Note [Stub spelling]
# help() shows the names users know (`alpha: Number = 1`, `dtype: Optional[dtype] = None`,
# `from: float = 0`). The stubs (gen/emit/python_stubs.py) write the same signatures as Python
# that a type checker reads, so they differ in three ways only:
# - Builtins and opcore's classes are named through private aliases (`_int`, `_dtype`, ...):
#   the stub's own names shadow them (the dtype `_C.float`, the methods `Tensor.int` and
#   `Tensor.slice`, the property `Tensor.dtype`). Number and DeviceLike, which exist for the
#   type checker only, are private too (`_Number`): `from opcore._C import *` must not seem
#   to give opcore names it does not have.
# - A default that is not a Python literal (`opcore.float32`, `inf`) is written `...`, and a
#   positional parameter followed by a required one has none (Python cannot say it).
# - A parameter named like a Python keyword (`from`) can only be passed by position: it is
#   renamed (`from_`) and made positional-only, with the parameters before it.
HELP = Spelling(MappingProxyType({
    "Tensor": "Tensor", "Scalar": "Number", "int": "int", "SymInt": "int", "DeviceIndex": "int",
    "float": "float", "bool": "bool", "SymBool": "bool", "str": "str", "ScalarType": "dtype", "Device": "DeviceLike",
    "Layout": "layout", "MemoryFormat": "memory_format", "Generator": "Generator",
}), stub=False)
STUB = Spelling(MappingProxyType({
    "Tensor": "Tensor", "Scalar": "_Number", "int": "_int", "SymInt": "_int", "DeviceIndex": "_int",
    "float": "_float", "bool": "_bool", "SymBool": "_bool", "str": "_str", "ScalarType": "_dtype", "Device": "_DeviceLike",
    "Layout": "_layout", "MemoryFormat": "_memory_format", "Generator": "_Generator",
}), stub=True)

# Returns the bindings can convert (gen emits one wrap() per return).
_RETURN_BASES = frozenset({"Tensor", "Scalar", "int", "SymInt", "float", "bool", "ScalarType"})


def accessor(arg: Argument) -> Optional[str]:
    """The PythonArgs accessor reading `arg`, or None when Python cannot pass its type."""
    return _ACCESSORS.get((arg.type.base, arg.type.shape))


def unbound_reason(func: FunctionSchema) -> Optional[str]:
    """Why the overload has no Python binding (a type Python cannot pass or receive), or None."""
    for a in func.arguments:
        if accessor(a) is None:
            return f"argument '{a.name}' has type {a.type.without_alias()}, which Python cannot pass yet"
    for r in func.returns:
        if r.type.base not in _RETURN_BASES or r.type.shape not in ("", "[]"):
            return f"it returns {r.type.without_alias()}, which Python cannot receive yet"
    return None


def python_name(f: NativeFunction) -> str:
    """The Python name of an overload: its base name (`add_` for add_.Tensor); out= overloads
    join their functional's name and are chosen by passing `out=`."""
    return f.func.name.base


def function_groups(functions: tuple[NativeFunction, ...]) -> dict[tuple[str, str], tuple[NativeFunction, ...]]:
    """(python_module or "", name) -> the overloads bound under that name as module functions,
    in resolution order; sorted by module and name. An overload is a module function and a
    method where its C++ API has a free function and a method (Note [C++ API names] in
    gen/model/native_function.py)."""
    groups = _groups(functions, lambda f: bool(f.cpp_names.functions), lambda f: f.python_module or "")
    # An out= overload of a method-only operator (new_zeros.out) is no module function, as in
    # torch: torch.new_zeros does not exist.
    method_only = {python_name(f) for f in functions if not f.cpp_names.functions and f.cpp_names.method is not None}
    return {key: fns for key, fns in groups.items()
            if not (key[1] in method_only and all(f.func.out_arguments for f in fns))}


def method_groups(functions: tuple[NativeFunction, ...]) -> dict[str, tuple[NativeFunction, ...]]:
    """Tensor method name -> its overloads, in resolution order."""
    groups = _groups(functions, lambda f: f.cpp_names.method is not None, lambda f: "")
    return {name: fns for (_, name), fns in groups.items()}


def _groups(functions, wanted, module) -> dict[tuple[str, str], tuple[NativeFunction, ...]]:
    groups: dict[tuple[str, str], list[NativeFunction]] = {}
    for f in functions:
        if wanted(f) and unbound_reason(f.func) is None:
            groups.setdefault((module(f), python_name(f)), []).append(f)
    return {key: _resolution_order(groups[key]) for key in sorted(groups)}


def _resolution_order(overloads: list[NativeFunction]) -> tuple[NativeFunction, ...]:
    """Overloads taking a Tensor where another takes a Scalar come first, as in torch: a
    zero-dim tensor also matches a Scalar (the sort is stable: YAML order otherwise)."""
    def scalars(f: NativeFunction) -> int:
        return sum(1 for a in f.func.arguments if not a.kwarg_only and a.type.base == "Scalar")
    return tuple(sorted(overloads, key=scalars))


def self_argument(func: FunctionSchema) -> Optional[int]:
    """The position of the argument a method is called on (`self`), or None."""
    for i, a in enumerate(func.arguments):
        if a.name == "self" and a.type.is_tensor and a.type.shape == "":
            return i
    return None


def returned_argument(func: FunctionSchema, r: Return) -> Optional[int]:
    """For a mutable return (`Tensor(a!)`), the argument it is (same alias set), else None:
    the binding returns that argument's Python object, so `a.add_(b) is a`."""
    if not r.type.is_mutable:
        return None
    for i, a in enumerate(func.arguments):
        if a.type.alias == r.type.alias:
            return i
    return None


# Factories (the dtype/device group of gen/api/cpp.py's TensorOptions) take `requires_grad`
# in Python too, as torch's do: `opcore.ones(2, requires_grad=True)`. As in torch, that is a
# factory of no tensor, or a `*_like` / `new_*` one: _to_copy, which has the group but computes
# from `self`, takes no `requires_grad` (its result is not a leaf).
REQUIRES_GRAD = Argument(SchemaType("bool"), "requires_grad", "False", kwarg_only=True)


def takes_requires_grad(func: FunctionSchema) -> bool:
    if not cpp.tensor_options_group(func) or len(func.returns) != 1 or func.returns[0].type.without_alias() != "Tensor":
        return False
    base = func.name.base
    return base.endswith("_like") or base.startswith("new_") or \
        not any(a.type.base == "Tensor" for a in func.arguments if a not in func.out_arguments)


# Note [Out tuples]
# An overload with several out= arguments that it returns, in order (sort.values: `*, Tensor(a!)
# values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)`), takes them from
# Python as one `out=` tuple, as torch's do: `opcore.sort(x, out=(v, i))`, which returns those
# tensors as the named tuple opcore.return_types.sort_out. Its Python schema has one
# `Tensor[N] out` in their place (the parser checks the length), and the binding passes out[0],
# out[1], ... to the call. Other overloads (an autogen out= form returning nothing) keep one
# keyword per out= argument.


def out_tuple(func: FunctionSchema) -> tuple[Argument, ...]:
    """The out= arguments Python passes as one tuple (Note [Out tuples]), or ()."""
    outs = tuple(func.out_arguments)
    returned = tuple(returned_argument(func, r) for r in func.returns)
    if len(outs) < 2 or None in returned or tuple(func.arguments[i] for i in returned) != outs:
        return ()
    return outs


def python_schema(func: FunctionSchema) -> FunctionSchema:
    """The schema the Python parser reads: `func`, with one `out` for several out= arguments
    (Note [Out tuples]) and `requires_grad` for factories."""
    arguments = func.arguments
    outs = out_tuple(func)
    if outs:
        first = arguments.index(outs[0])
        out = Argument(SchemaType("Tensor", suffix=f"[{len(outs)}]"), "out", kwarg_only=True)
        rest = tuple(a for a in arguments if a not in outs)
        arguments = rest[:first] + (out,) + rest[first:]
    if takes_requires_grad(func):
        arguments += (REQUIRES_GRAD,)
    return func if arguments == func.arguments else dataclasses.replace(func, arguments=arguments)


def _python_type(t: SchemaType, spelling: Spelling) -> str:
    base = spelling.types[t.base]
    shape = t.shape.removesuffix("?")
    if shape in ("[]", "[N]"):
        base = f"Sequence[{base}]"
    elif shape == "?[]":
        base = f"Sequence[Optional[{base}]]"
    if t.base in ("int", "SymInt") and t.list_size is not None:
        base = f"Union[{spelling.types['int']}, {base}]"
    return f"Optional[{base}]" if t.is_optional else base


_REDUCTION_VALUES = {"Mean": "1", "Sum": "2"}  # runtime/opcore/core/Reduction.h


def _python_default(a: Argument, spelling: Spelling) -> str:
    value = a.default
    assert value is not None
    if value in ("True", "False", "None"):
        return value
    if value.startswith("["):
        text = "(" + value[1:-1] + ("," if "," not in value and value != "[]" else "") + ")"
    elif a.type.base == "ScalarType":
        dtype = by_schema_default(value)  # Note [Dtype names] in gen/model/dtypes.py
        assert dtype is not None, f"ScalarType default '{value}' passed the checks: generator bug"
        text = f"opcore.{dtype.python_name}"
    elif a.type.base in ("Layout", "MemoryFormat", "Device"):
        text = f"opcore.{value}"
    elif value in _REDUCTION_VALUES:  # `int reduction=Mean`: opcore::Reduction's value
        text = _REDUCTION_VALUES[value]
    else:
        text = value
    return "..." if spelling.stub and not _is_literal(text) else text


def _is_literal(text: str) -> bool:
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return False
    return True


def _positional(func: FunctionSchema, method: bool) -> list[int]:
    """The arguments a call may pass by position, in order (not a method's `self`)."""
    self_index = self_argument(func) if method else None
    return [i for i, a in enumerate(func.arguments) if not a.kwarg_only and i != self_index]


def varargs_argument(func: FunctionSchema, method: bool) -> Optional[int]:
    """The int list whose elements may be the positional arguments (`opcore.zeros(2, 3)`,
    `t.view(2, 3)`): the only positional parameter, when it is an int list (the runtime's rule,
    Note [Python argument matching] in runtime/opcore/python/PythonArgParser.h), else None."""
    positional = _positional(func, method)
    if len(positional) == 1 and func.arguments[positional[0]].type.base in ("int", "SymInt") \
            and func.arguments[positional[0]].type.is_list:
        return positional[0]
    return None


def parameter_texts(func: FunctionSchema, method: bool, spelling: Spelling = HELP, varargs: bool = False) -> list[str]:
    """`other: Tensor`, `*`, `alpha: Number = 1`: the Python parameters of an overload; a
    function's `self` is called `input`, as in torch. `varargs`: the varargs_argument() is
    written `*size: int` (Precondition: there is one). STUB: see Note [Stub spelling]."""
    func = python_schema(func)
    positional = _positional(func, method)
    spread = varargs_argument(func, method) if varargs else None
    assert not varargs or spread is not None, "no int list to spread: generator bug"
    # Note [Stub spelling]: no default before the last required positional parameter, and a
    # `/` after the last one named like a Python keyword.
    last_required = max((i for i in positional if func.arguments[i].default is None), default=-1)
    last_keyword = max((i for i in positional if keyword.iskeyword(func.arguments[i].name)), default=-1)
    texts: list[str] = []
    star = spread is not None
    for i, a in enumerate(func.arguments):
        if i not in positional and not a.kwarg_only:
            continue  # a method's self
        if i == spread:
            texts.append(f"*{a.name}: {spelling.types[a.type.base]}")
            continue
        if a.kwarg_only and not star:
            texts.append("*")
            star = True
        name = "input" if a.name == "self" else a.name
        text = f"{name}_" if spelling.stub and keyword.iskeyword(name) else name
        text += f": {_python_type(a.type, spelling)}"
        if a.default is not None and not (spelling.stub and i < last_required):
            text += f" = {_python_default(a, spelling)}"
        texts.append(text)
        if spelling.stub and i == last_keyword:
            texts.append("/")
    return texts


def return_text(func: FunctionSchema, spelling: Spelling = HELP) -> str:
    """`Tensor`, `tuple[Tensor, Tensor]`, `list[Tensor]` (a list comes back as a Python list)."""
    if not func.returns:
        return "None"
    types = [f"list[{spelling.types[r.type.base]}]" if r.type.is_list else _python_type(r.type, spelling)
             for r in func.returns]
    return types[0] if len(types) == 1 else f"tuple[{', '.join(types)}]"


def signature_texts(f: NativeFunction, method: bool, spelling: Spelling = HELP) -> tuple[str, ...]:
    """The signatures a Python caller sees for one overload, as help() (HELP) and the stubs
    (STUB) write them: `add(input: Tensor, other: Tensor, *, alpha: Number = 1) -> Tensor`,
    and, when its int list may be spread (varargs_argument), `zeros(*size: int, ...)` too.
    The bindings' __doc__ and the stubs both come from here."""
    forms = (False, True) if varargs_argument(python_schema(f.func), method) is not None else (False,)
    texts = []
    for varargs in forms:
        params = parameter_texts(f.func, method, spelling, varargs)
        if method:
            params.insert(0, "self")
        texts.append(f"{python_name(f)}({', '.join(params)}) -> {return_text(f.func, spelling)}")
    return tuple(texts)


def signature_text(f: NativeFunction, method: bool, spelling: Spelling = HELP) -> str:
    """`add(input: Tensor, other: Tensor, *, alpha: Number = 1) -> Tensor`."""
    return signature_texts(f, method, spelling)[0]

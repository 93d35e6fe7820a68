"""opcore.library: define operators and register kernels from Python (PyTorch's torch.library).

    lib = opcore.library.Library("myops", "DEF")
    lib.define("scale(Tensor x, float factor) -> Tensor", tags=(opcore.Tag.pointwise,))
    lib.impl("scale", lambda x, factor: x * factor, "CPU")
    opcore.ops.myops.scale(t, 2.0)

    @opcore.library.custom_op("myops::mysin", mutates_args=())
    def mysin(x: opcore.Tensor) -> opcore.Tensor:
        return opcore.sin(x)

Python kernels are boxed dispatcher kernels (runtime/opcore/python/PythonKernel.cpp): they
compose with C++ kernels at other keys, autograd included, and C++ callers reach them too.
Every registration belongs to its Library and ends when the Library is destroyed (garbage
collected, or `_destroy()`ed); each records the Python file:line it was made at.
"""
from __future__ import annotations

import inspect
import typing
import weakref
from typing import Callable, Optional, Sequence

from opcore import _C
from opcore._C import DispatchKey, Tag
from opcore._ops import (OpOverload, OpOverloadPacket, _AutoDispatchBelowAutograd, _caller_site, _lookup_overload,
                         _overload_names, _refresh_packet, ops)
from opcore.autograd.function import Function

__all__ = ["Library", "custom_op", "register_fake", "register_autograd", "infer_schema", "fallthrough_kernel"]

# Namespaces only the YAML (and opcore itself) define operators in.
_reserved_namespaces = ("aten", "prim", "prims")


def fallthrough_kernel(*args, **kwargs):
    """Pass as the kernel of Library.impl/fallback to make calls skip that key."""
    raise NotImplementedError("fallthrough_kernel is a marker: it is never called")


def _key(dispatch_key) -> Optional[DispatchKey]:
    if dispatch_key in ("", None):
        return None
    if isinstance(dispatch_key, DispatchKey):
        return dispatch_key
    if not isinstance(dispatch_key, str) or dispatch_key not in DispatchKey.__members__:
        raise ValueError(f"unknown dispatch key {dispatch_key!r}; one of: {', '.join(DispatchKey.__members__)}")
    return DispatchKey[dispatch_key]


class Library:
    """Library(ns, kind, dispatch_key=""): kind "DEF" claims namespace `ns` (one DEF per
    namespace in the process) and may define and implement; "FRAGMENT" defines more operators in
    a namespace; "IMPL" registers kernels, at `dispatch_key` unless impl names another."""

    def __init__(self, ns: str, kind: str, dispatch_key="", *, _site: Optional[str] = None):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind!r} (one of 'DEF', 'IMPL', 'FRAGMENT')")
        if ns in _reserved_namespaces and kind in ("DEF", "FRAGMENT"):
            raise ValueError(f"{ns} is a reserved namespace. Please try creating a library with another name.")
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._defined: list = []
        self.m = _C._Library(kind, ns, _key(dispatch_key), _site or _caller_site())

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema: str, alias_analysis: str = "", *, tags: Sequence[Tag] = ()) -> str:
        """Defines an operator from its schema; returns its name ("scale"). `alias_analysis` is
        accepted as torch.library takes it; opcore reads aliasing from the schema's annotations."""
        if isinstance(tags, Tag):
            tags = (tags,)
        for t in tags:
            if not isinstance(t, Tag):
                raise TypeError(f"define: tags must be opcore.Tag values, not {t!r}")
        self.m.define(schema, [t.name for t in tags], _caller_site())
        name = schema.split("(", 1)[0].strip()
        qualified = name if "::" in name else f"{self.ns}::{name}"
        self._defined.append(qualified.split(".")[0])
        self._refresh()
        return qualified.split("::", 1)[1]

    def impl(self, op_name, fn: Callable, dispatch_key="", *, with_keyset: bool = False,
             _site: Optional[str] = None) -> None:
        """Registers `fn` as the kernel of `op_name` ("scale", "scale.out" or an OpOverload) at
        `dispatch_key` (the library's key by default, CompositeImplicitAutograd without one).
        With `with_keyset`, fn receives the call's DispatchKeySet first (to redispatch)."""
        if not callable(fn):
            raise TypeError(f"impl: the kernel must be callable, not {type(fn).__name__}")
        if not isinstance(op_name, str):
            op_name = op_name.name()
        key = _key(dispatch_key) or _key(self.dispatch_key) or DispatchKey.CompositeImplicitAutograd
        qualified = op_name if "::" in op_name else f"{self.ns}::{op_name}"
        base, _, overload = qualified.partition(".")
        if overload not in _overload_names(base):
            raise RuntimeError(f"impl: operator '{qualified}' is not defined; define it first (Library.define) "
                               f"or load the library that does (opcore.ops.load_library)")
        kernel = None if fn is fallthrough_kernel else fn
        self.m.impl(op_name, kernel, key, with_keyset, _site or _caller_site())

    def fallback(self, fn: Callable, dispatch_key="", *, with_keyset: bool = False) -> None:
        """Registers `fn(op, *args, **kwargs)` (op: the OpOverload called; with `with_keyset`,
        `fn(op, keyset, *args, **kwargs)`) for every operator without its own kernel at the key;
        only in Library("_", "IMPL", key)."""
        key = _key(dispatch_key) or _key(self.dispatch_key)
        if key is None:
            raise ValueError("fallback: give a dispatch_key (or make the Library with one)")
        if fn is fallthrough_kernel:
            self.m.fallback(None, key, False, _caller_site())
            return

        def kernel(op_name, overload_name, *args, **kwargs):
            return fn(_lookup_overload(op_name, overload_name), *args, **kwargs)
        self.m.fallback(kernel, key, with_keyset, _caller_site())

    def _destroy(self) -> None:
        """Removes every registration of this library now."""
        self.m._destroy()
        self._refresh()

    def _refresh(self) -> None:
        for qualified in self._defined:
            ns, name = qualified.split("::")
            namespace = getattr(ops, ns)
            if name in namespace.__dict__:
                _refresh_packet(namespace.__dict__[name])


# --- custom_op ---------------------------------------------------------------------------------

_SCALAR_TYPES = {int: "int", float: "float", bool: "bool", str: "str"}


def _schema_type(hint, where: str) -> str:
    """The schema type of a parameter's type hint; ValueError naming `where` otherwise."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is _C.Tensor:
        return "Tensor"
    if hint in _SCALAR_TYPES:
        return _SCALAR_TYPES[hint]
    if origin is typing.Union and len(args) == 2 and type(None) in args:
        inner = _schema_type(next(a for a in args if a is not type(None)), where)
        return inner + "?"
    if origin in (list, typing.List, Sequence, typing.Sequence) and len(args) == 1:
        if args[0] is _C.Tensor:
            return "Tensor[]"
        if args[0] in (int, float, bool):
            return _SCALAR_TYPES[args[0]] + "[]"
    raise ValueError(f"{where} has unsupported type {hint!r}: custom_op takes Tensor, list[Tensor], int, float, "
                     f"bool, str, list[int], list[float], Optional[...] of these")


def _return_schema(hint, where: str) -> str:
    if hint is None or hint is type(None):
        return "()"
    if typing.get_origin(hint) is tuple:
        items = typing.get_args(hint)
        if not items or any(a is not _C.Tensor for a in items):
            raise ValueError(f"{where} has unsupported type {hint!r}: a tuple return holds Tensors only")
        return "(" + ", ".join("Tensor" for _ in items) + ")"
    return _schema_type(hint, where)


def infer_schema(fn: Callable, *, mutates_args, op_name: str = "") -> str:
    """The schema of `fn` from its type hints: "(Tensor x, float factor=2.0) -> Tensor".
    `mutates_args` names the Tensor parameters fn writes to (they get `(a!)` annotations)."""
    label = op_name or getattr(fn, "__name__", "fn")
    if isinstance(mutates_args, str):
        raise TypeError(f"custom_op {label}: mutates_args must be a tuple of parameter names, not a str")
    sig = inspect.signature(fn)
    hints = typing.get_type_hints(fn)
    unknown = set(mutates_args) - set(sig.parameters)
    if unknown:
        raise ValueError(f"custom_op {label}: mutates_args names {sorted(unknown)}, which are not parameters")
    params, star, aliases = [], False, iter("abcdefghijklmnopqrstuvwxyz")
    for p in sig.parameters.values():
        where = f"custom_op {label}: parameter '{p.name}'"
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ValueError(f"{where}: *args and **kwargs have no schema")
        if p.name not in hints:
            raise ValueError(f"{where} has no type annotation")
        t = _schema_type(hints[p.name], where)
        if p.name in mutates_args:
            if not t.startswith("Tensor"):
                raise ValueError(f"{where} is in mutates_args but is a {t}, not a Tensor")
            t = t.replace("Tensor", f"Tensor({next(aliases)}!)", 1)
        if p.kind == p.KEYWORD_ONLY and not star:
            params.append("*")
            star = True
        text = f"{t} {p.name}"
        if p.default is not p.empty:
            if p.default is not None and not isinstance(p.default, (int, float, bool, str)):
                raise ValueError(f"{where}: the default {p.default!r} has no schema spelling")
            text += "=" + ("None" if p.default is None else repr(p.default) if isinstance(p.default, str)
                           else str(p.default))
        params.append(text)
    ret = _return_schema(hints.get("return", None), f"custom_op {label}: the return")
    return f"({', '.join(params)}) -> {ret}"


class CustomOpDef:
    """What @custom_op returns: calling it calls the operator (through the dispatcher);
    register_fake and register_autograd add its Meta and Autograd kernels."""

    def __init__(self, namespace: str, name: str, schema: str, fn: Callable, lib: Library):
        self._namespace, self._name, self._schema, self._init_fn, self._lib = namespace, name, schema, fn, lib
        self.__name__ = name
        self.__doc__ = fn.__doc__

    @property
    def _opoverload(self):
        return getattr(getattr(ops, self._namespace), self._name).default

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    def register_fake(self, fn: Callable) -> Callable:
        """fn computes the outputs' metadata (on Meta tensors): the operator's Meta kernel."""
        self._lib.impl(self._name, fn, "Meta")
        return fn

    def register_autograd(self, backward: Callable, *, setup_context: Optional[Callable] = None) -> None:
        """backward(ctx, *grads) -> one gradient (or None) per input; setup_context(ctx, inputs,
        output) saves what backward needs. Registers the operator's Autograd kernel."""
        _register_autograd(self._lib, self._name, self._opoverload, backward, setup_context)

    def _destroy(self) -> None:
        self._lib._destroy()


def custom_op(name: str, fn: Optional[Callable] = None, /, *, mutates_args, device_types=None, schema=None):
    """@custom_op("ns::name", mutates_args=()): defines operator ns::name with the schema
    inferred from the function's type hints (or `schema`), and the function as its kernel
    (for every backend, or for `device_types` ("cpu", "cuda"))."""
    def inner(fn):
        ns, sep, opname = name.partition("::")
        if not sep or not ns.isidentifier() or not opname.isidentifier():
            raise ValueError(f"custom_op: the name must be 'namespace::name', not {name!r}")
        text = schema or infer_schema(fn, mutates_args=mutates_args, op_name=name)
        lib = Library(ns, "FRAGMENT", _site=_caller_site())
        lib.define(opname + text)
        if device_types is None:
            lib.impl(opname, fn, "CompositeExplicitAutograd")
        else:
            for device in [device_types] if isinstance(device_types, str) else device_types:
                lib.impl(opname, fn, {"cpu": "CPU", "cuda": "CUDA"}.get(device, device))
        op = CustomOpDef(ns, opname, text, fn, lib)
        _custom_ops[f"{ns}::{opname}"] = op
        return op
    return inner(fn) if fn is not None else inner


# "ns::name" -> the CustomOpDef @custom_op made for it (the newest), so that register_fake and
# register_autograd given the name or the OpOverload register in its Library. Weak: the
# operator's registrations still end with the CustomOpDef.
_custom_ops: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _register_autograd(lib: Library, name: str, op: OpOverload, backward: Callable,
                       setup_context: Optional[Callable]) -> None:
    """Registers in `lib` the Autograd kernel of `name` (op): an autograd.Function whose forward
    calls op below autograd and whose backward is `backward`."""
    class _Function(Function):
        @staticmethod
        def forward(ctx, *args):
            with _AutoDispatchBelowAutograd():
                output = op(*args)
            if setup_context is not None:
                setup_context(ctx, args, output)
            return output

        @staticmethod
        def backward(ctx, *grads):
            result = backward(ctx, *grads)
            return result if isinstance(result, tuple) else (result,)

    lib.impl(name, lambda *args: _Function.apply(*args), "Autograd")


# The Library each namespace's register_fake / register_autograd of an operator that is not a
# custom_op registers in, per (namespace, key): they last for the process, as in torch.
_registration_libraries: dict = {}


def _registration_library(ns: str, key: str) -> Library:
    if (ns, key) not in _registration_libraries:
        _registration_libraries[ns, key] = Library(ns, "IMPL", key, _site=_caller_site())
    return _registration_libraries[ns, key]


def _resolve(op, what: str):
    """What register_fake / register_autograd accept, as torch.library does: a CustomOpDef, the
    name "ns::op" (or "ns::op.overload") or an OpOverload (or its packet, for the default
    overload). Returns (the CustomOpDef, or None for another operator; its OpOverload)."""
    if isinstance(op, CustomOpDef):
        return op, op._opoverload
    if isinstance(op, OpOverloadPacket):
        op = op.default
    if isinstance(op, str):
        base, sep, overload = op.partition(".")
        ns, colons, name = base.partition("::")
        if not colons or not ns or not name:
            raise ValueError(f"{what}: expected an operator name 'namespace::name[.overload]', not {op!r}")
        if overload not in _overload_names(base):
            raise RuntimeError(f"{what}: operator '{op}' is not defined; define it first (custom_op, Library.define)")
        op = _lookup_overload(base, overload)
    if not isinstance(op, OpOverload):
        raise TypeError(f"{what}: expected a CustomOpDef, an operator name 'ns::op' or an OpOverload, not {op!r}")
    custom = _custom_ops.get(op.name())
    return custom, op


def register_fake(op, fn: Optional[Callable] = None, /):
    """register_fake(op)(fn), `op` a CustomOpDef, "ns::op" or an OpOverload: fn computes the
    outputs' metadata (on Meta tensors), as the operator's Meta kernel."""
    custom, overload = _resolve(op, "register_fake")

    def inner(fn):
        if custom is not None:
            return custom.register_fake(fn)
        _registration_library(overload.namespace, "Meta").impl(overload.name(), fn, "Meta", _site=_caller_site())
        return fn
    return inner(fn) if fn is not None else inner


def register_autograd(op, backward: Callable, /, *, setup_context: Optional[Callable] = None) -> None:
    """register_autograd(op, backward, setup_context=None), `op` a CustomOpDef, "ns::op" or an
    OpOverload: see CustomOpDef.register_autograd."""
    custom, overload = _resolve(op, "register_autograd")
    if custom is not None:
        custom.register_autograd(backward, setup_context=setup_context)
        return
    _register_autograd(_registration_library(overload.namespace, "Autograd"), overload.name(), overload, backward,
                       setup_context)

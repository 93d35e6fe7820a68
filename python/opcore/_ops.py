"""opcore.ops: every operator the dispatcher knows, callable from Python (PyTorch's torch.ops).

    opcore.ops.aten.add                 # OpOverloadPacket: all overloads of aten::add
    opcore.ops.aten.add.Tensor(a, b)    # OpOverload: one overload, through the boxed path
    opcore.ops.aten.add(a, b)           # the overload picked from the arguments
    opcore.ops.myops.scale(x, 2.0)      # an operator a Library or a loaded library defined

Namespaces, packets and overloads are made on first attribute access and cached as
attributes, so a second access is a plain attribute lookup. OpOverload and OpOverloadPacket are
Python classes over opcore._C._Operator, whose C call parses the arguments and calls the
dispatcher with no Python frame in between.
"""
from __future__ import annotations

import abc
import importlib
import inspect
import os
import types
from typing import Callable, Iterator

from opcore import _C
from opcore._C import DispatchKey, DispatchKeySet, Tag
from opcore._mode_stack import _get_current_dispatch_mode, _pop_mode_temporarily
from opcore._schema import FunctionSchema


# --- the operator objects --------------------------------------------------------------------

def _is_dispatch_mode_or_subclass(k) -> bool:
    """A TorchDispatchMode class (one with __torch_dispatch__: this module sits below
    opcore.utils._python_dispatch, Note [The layers of opcore's Python modules]) or a Tensor
    subclass."""
    return inspect.isclass(k) and (issubclass(k, _C.Tensor) or callable(getattr(k, "__torch_dispatch__", None)))


class OperatorBase:
    """What OpOverload and HigherOrderOperator share: Python kernels per dispatch key
    (`py_kernels`), per dispatch mode or tensor subclass (`python_key_table`), and a cache of
    the dispatch decision per key (`_dispatch_cache`), cleared whenever a registration changes."""

    def __init__(self):
        self._dispatch_cache: dict = {}
        self.py_kernels: dict = {}
        self.python_key_table: dict = {}

    def name(self) -> str:
        raise NotImplementedError

    def has_kernel_for_dispatch_key(self, k) -> bool:
        return k in self.py_kernels

    def has_kernel_for_any_dispatch_key(self, ks) -> bool:
        return any(not _C._dispatch_is_alias_key(k) and ks.has(k) for k in self.py_kernels)

    def py_impl(self, k) -> Callable:
        """@op.py_impl(DispatchKey.CPU) / @op.py_impl(MyMode) / @op.py_impl(MySubclass): a Python
        kernel for one key (registered there as the newest kernel, so it runs instead of the C++
        one at that key and only there), or the rule for calls that reach the Python key under
        a mode or with a tensor subclass."""
        def inner(fn):
            if _is_dispatch_mode_or_subclass(k):
                if k in self.python_key_table:
                    raise RuntimeError(f"a Python implementation for {k.__name__} is already registered on "
                                       f"operator {self.name()}")
                self.python_key_table[k] = fn
                self._dispatch_cache.clear()
                return fn
            if not isinstance(k, DispatchKey):
                raise TypeError(f"py_impl: expected a DispatchKey, a TorchDispatchMode subclass or a Tensor "
                                f"subclass, not {k!r}")
            if k == DispatchKey.Python:
                raise RuntimeError("Please register a mode for the opcore._C.DispatchKey.Python key instead.")
            if k in self.py_kernels:
                raise RuntimeError(f"Trying to override a python impl for {k.name} on operator {self.name()}")
            self._register_py_kernel(k, fn)
            self.py_kernels[k] = fn
            self._dispatch_cache.clear()
            return fn
        return inner

    def _register_py_kernel(self, k, fn) -> None:
        pass

    def _uncache_dispatch(self, key) -> None:
        self._dispatch_cache.pop(key, None)


def resolve_key(op: OperatorBase, k: DispatchKey):
    """The key whose kernel serves runtime key `k` for `op`, Python kernels and alias keys
    included (as the C++ dispatch table resolves them)."""
    if k in op.py_kernels or op.has_kernel_for_dispatch_key(k):
        return k
    is_autograd = k == DispatchKey.AutogradOther or k.name.startswith("Autograd")
    is_backend = k in (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta, DispatchKey.PrivateUse1)
    candidates = ([DispatchKey.Autograd] if is_autograd else []) + \
                 ([DispatchKey.CompositeExplicitAutograd] if is_backend else []) + \
                 ([DispatchKey.CompositeImplicitAutograd] if is_autograd or is_backend else [])
    for alias in candidates:
        if op.has_kernel_for_dispatch_key(alias):
            return alias
    raise NotImplementedError(f"could not find kernel for {op.name()} at dispatch key {k.name}")


class OpOverload(OperatorBase, _C._Operator):
    """One overload of an operator: `opcore.ops.aten.add.Tensor`. Calling it runs the
    dispatcher's boxed path; see also redispatch, decompose and py_impl."""

    def __init__(self, overloadpacket: "OpOverloadPacket", overload_name: str):
        OperatorBase.__init__(self)
        _C._Operator.__init__(self, overloadpacket._qualified_op_name, [overload_name])
        self._schema = FunctionSchema._from_info(self._schema_info(0))
        self._overloadpacket = overloadpacket
        self._tags = tuple(Tag[t] for t in self._tag_names(0))
        self._overloadname = overload_name or "default"
        self._name = self._schema.name + (f".{overload_name}" if overload_name else "")
        self.__name__ = f"{self._schema.name.split('::')[1]}.{self._overloadname}"
        self.__module__ = overloadpacket.__module__
        self.__qualname__ = self._name
        self.__annotations__ = {}
        self._py_impl_libraries: list = []
        self._py_impl_sites: dict = {}  # registration site -> py_impl kernel
        writes = [a.alias_info.is_write for a in self._schema.arguments if a.alias_info is not None]
        self.is_view = bool(writes) and not any(writes)

    def __deepcopy__(self, memo=None):
        return self

    def __repr__(self) -> str:
        return "<OpOverload(op='{}.{}', overload='{}')>".format(*self._schema.name.split("::"), self._overloadname)

    def __str__(self) -> str:
        return "{}.{}.{}".format(*self._schema.name.split("::"), self._overloadname)

    def __hash__(self) -> int:
        return hash(self._name)

    def name(self) -> str:
        return self._name

    @property
    def namespace(self) -> str:
        return self._schema.name.split("::")[0]

    @property
    def overloadpacket(self) -> "OpOverloadPacket":
        return self._overloadpacket

    @property
    def op(self) -> "OpOverload":
        return self

    @property
    def tags(self) -> tuple:
        return self._tags

    def redispatch(self, /, keyset, *args, **kwargs):
        """Runs the kernel for the highest key of `keyset` (minus fallthrough keys), ignoring
        the arguments' own keys, as opcore::redispatch does in C++."""
        return self._redispatch(keyset, *args, **kwargs)

    def has_kernel_for_dispatch_key(self, k) -> bool:
        return super().has_kernel_for_dispatch_key(k) or _C._dispatch_has_kernel_for_dispatch_key(self._name, k)

    def has_kernel_for_any_dispatch_key(self, ks) -> bool:
        return _C._dispatch_has_kernel_for_any_dispatch_key(self._name, ks) or super().has_kernel_for_any_dispatch_key(ks)

    def _can_decompose(self) -> bool:
        dk = DispatchKey.CompositeImplicitAutograd
        return dk in self.py_kernels or _C._dispatch_has_kernel_for_dispatch_key(self._name, dk)

    def decompose(self, *args, **kwargs):
        """Runs the CompositeImplicitAutograd kernel (the operator written with others), or
        returns NotImplemented when there is none."""
        dk = DispatchKey.CompositeImplicitAutograd
        if dk in self.py_kernels:
            return self.py_kernels[dk](*args, **kwargs)
        if _C._dispatch_has_kernel_for_dispatch_key(self._name, dk):
            return self._call_for_dispatch_key(dk, *args, **kwargs)
        return NotImplemented

    def _register_py_kernel(self, k, fn) -> None:
        site = f"py_impl({getattr(fn, '__qualname__', 'kernel')}) at {_caller_site()}"
        lib = _C._Library("IMPL", self.namespace, k, site)  # what opcore.library.Library wraps
        lib.impl(self._name.split("::")[1], fn, k, False, site)
        self._py_impl_libraries.append(lib)  # lives as long as the operator object
        self._py_impl_sites[site] = fn

    def _get_dispatch(self, key: DispatchKey):
        """What a call reaching runtime key `key` runs: the py_impl kernel when the dispatch table
        holds it there, else the key itself (a C++ kernel, or a newer registration). Cached per
        key; the cache is dropped whenever a registration changes this operator's dispatch table."""
        version = self._table_version(0)
        if self._dispatch_cache.get("_version") != version:
            self._dispatch_cache.clear()
            self._dispatch_cache["_version"] = version
        if key not in self._dispatch_cache:
            site = _table_sites(self._name).get(key.name)
            self._dispatch_cache[key] = self._py_impl_sites.get(site, key)
        return self._dispatch_cache[key]


_C._Operator._enable_vectorcall(OpOverload)


def _table_sites(name: str) -> dict:
    """Runtime key name -> the site of the registration the dispatch table holds there."""
    sites = {}
    for line in _C._dispatch_dump_table(name).splitlines():
        key, _, rest = line.partition(": ")
        start = rest.rfind("[registered at ")
        if start >= 0:
            sites[key] = rest[start + len("[registered at "):-1]
    return sites


class OpOverloadPacket(_C._Operator):
    """All overloads of one operator name: `opcore.ops.aten.add`. `.Tensor` / `.default` give
    an OpOverload; calling the packet picks the overload from the arguments."""

    def __init__(self, qualified_op_name: str, op_name: str, overload_names: list):
        super().__init__(qualified_op_name, overload_names)
        self._qualified_op_name = qualified_op_name
        self.__name__ = op_name
        self._overload_names = list(overload_names)
        self._dir: list = []

    def __deepcopy__(self, memo=None):
        return self

    def __repr__(self) -> str:
        return "<OpOverloadPacket(op='{}.{}')>".format(*self._qualified_op_name.split("::"))

    def __hash__(self) -> int:
        return hash(self._qualified_op_name)

    def __str__(self) -> str:
        return "{}.{}".format(*self._qualified_op_name.split("::"))

    @property
    def op(self) -> "OpOverloadPacket":
        return self

    @property
    def _schemas(self) -> dict:
        return {name: getattr(self, name or "default")._schema for name in self._overload_names}

    def __getattr__(self, key: str):
        if key == "__file__":
            return "opcore.ops"
        if key.startswith("__"):
            # Dunder probes (copy, pickle, inspect) are answered here, without a registry lookup.
            raise AttributeError(f"'{self}' can't have an overload name beginning with '__' and the "
                                 f"underlying op {self} has no attribute {key} either.")
        use_key = "" if key == "default" else key
        if use_key not in self._overload_names:
            _refresh_packet(self)  # it may have been defined after the packet was made
            if use_key not in self._overload_names:
                raise AttributeError(f"The underlying op of '{self}' has no overload name '{key}'")
        overload = OpOverload(self, use_key)
        setattr(self, key, overload)
        self._dir.append(key)
        return overload

    def __iter__(self) -> Iterator[str]:
        return iter(self._dir)

    def overloads(self) -> list:
        return [n if n else "default" for n in self._overload_names]


_C._Operator._enable_vectorcall(OpOverloadPacket)


def _overload_names(qualified_op_name: str) -> list:
    """The overload names of "ns::name" the dispatcher has, "" for the default one."""
    names = []
    for full in _C._dispatch_get_all_op_names():
        base, _, overload = full.partition(".")
        if base == qualified_op_name:
            names.append(overload)
    return sorted(names, key=lambda n: (n != "", n))


def _refresh_packet(packet: OpOverloadPacket) -> None:
    """Re-reads the packet's overloads after a Library defined or removed one. With none left,
    the packet stays as it was: calling it says the definition is gone."""
    names = _overload_names(packet._qualified_op_name)
    if names and names != packet._overload_names:
        _C._Operator.__init__(packet, packet._qualified_op_name, names)
        packet._overload_names = names


# Note [Module attribute hooks]
# _Ops, _OpNamespace and _HigherOrderNamespace make attributes on first access. They do it with a module-level
# __getattr__ (PEP 562, in the instance's dict) rather than a class-level one: a class
# __getattr__ puts CPython's slower generic hook on every attribute read, cached ones
# included, while the module hook runs only when the plain lookup fails.


def missing_attribute(module: str, name: str) -> AttributeError:
    """The error for `module.name` when it is not there (the modules' PEP 562 __getattr__):
    when `name` is an operator this selective build left out, it says so, as opcore.ops.aten
    does (`opcore.matmul`: "... was excluded from this build: ..."); else Python's own message."""
    excluded = "" if name.startswith("__") else _C._excluded_reason(f"aten::{name}")
    if excluded:
        return AttributeError(f"{module}.{name}: operator 'aten::{name}' was excluded from this build: {excluded}")
    return AttributeError(f"module '{module}' has no attribute '{name}'")


class _OpNamespace(types.ModuleType):
    """`opcore.ops.<ns>`: its operators, bound on first access and cached as attributes."""
    __file__ = "opcore.ops"

    def __init__(self, name: str):
        super().__init__("opcore.ops." + name)
        self.name = name
        self._dir: list = []
        self.__dict__["__getattr__"] = self._bind  # Note [Module attribute hooks]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dir)

    def _bind(self, op_name: str) -> OpOverloadPacket:
        if op_name.startswith("__"):
            raise AttributeError(f"Invalid attribute '{op_name}' for '_OpNamespace' '{self.name}'")
        qualified_op_name = f"{self.name}::{op_name}"
        overload_names = _overload_names(qualified_op_name)
        if not overload_names:
            excluded = _C._excluded_reason(qualified_op_name)
            if excluded:
                raise AttributeError(f"operator '{qualified_op_name}' was excluded from this build: {excluded}")
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        packet = OpOverloadPacket(qualified_op_name, op_name, overload_names)
        packet.__module__ = f"{__name__}.{self.name}"
        setattr(self, op_name, packet)
        self._dir.append(op_name)
        return packet


class _Ops(types.ModuleType):
    """`opcore.ops`: operator namespaces, made on first access (`opcore.ops.aten`)."""
    __file__ = "_ops.py"

    def __init__(self):
        super().__init__("opcore.ops")
        self.loaded_libraries: set = set()
        self.higher_order = _HigherOrderNamespace()
        self._dir: list = []
        self.__dict__["__getattr__"] = self._bind  # Note [Module attribute hooks]

    def _bind(self, name: str) -> _OpNamespace:
        if name.startswith("__"):
            raise AttributeError(f"module 'opcore.ops' has no attribute '{name}'")
        namespace = _OpNamespace(name)
        setattr(self, name, namespace)
        self._dir.append(name)
        return namespace

    def __iter__(self) -> Iterator[str]:
        return iter(self._dir)

    def import_module(self, module: str) -> None:
        """Imports a Python module whose import registers operators (opcore.library calls)."""
        importlib.import_module(module)

    def load_library(self, path) -> None:
        """Loads a shared library whose static OPCORE_LIBRARY blocks register operators, which
        `opcore.ops.<ns>` then finds. OSError when it cannot be loaded; RuntimeError when one of
        its registrations fails, in which case nothing it registered remains."""
        path = os.path.realpath(os.fspath(path))
        if not os.path.exists(path):
            raise OSError(f"Could not load this library: {path}: no such file")
        _C._load_library(path)
        self.loaded_libraries.add(path)
        for ns in self._dir:  # packets made before the library came may have gained overloads
            for op_name in getattr(self, ns)._dir:
                _refresh_packet(getattr(getattr(self, ns), op_name))


def _lookup_overload(qualified_name: str, overload_name: str) -> OpOverload:
    """The OpOverload for "ns::name" and overload (the Python key and fallbacks hand it on)."""
    ns, _, name = qualified_name.partition("::")
    return getattr(getattr(getattr(ops, ns), name), overload_name or "default")


def _caller_site() -> str:
    """"file.py:12" of the first frame outside opcore's own Python files: where a Python
    registration came from (dumpState and duplicate-definition errors name it)."""
    here = os.path.dirname(os.path.realpath(__file__))
    frame = inspect.currentframe()
    while frame is not None:
        file = os.path.realpath(frame.f_code.co_filename)
        if not file.startswith(here + os.sep):
            return f"{os.path.basename(file)}:{frame.f_lineno}"
        frame = frame.f_back
    return "<python>"


# --- the layers ---------------------------------------------------------------------------------

# Note [The layers of opcore's Python modules]
# Imports go one way: opcore._C <- opcore._schema <- opcore._mode_stack <- opcore._ops <-
# opcore.utils._python_dispatch <- opcore.library (tests/gen/test_imports.py checks it,
# function-local imports included). So this thread's stack of dispatch modes lives below this
# module (opcore._mode_stack), as PyTorch keeps it in torch._C: higher-order operators here read
# it, and opcore.utils._python_dispatch defines the modes that go on it. Library objects are
# opcore._C._Library here; opcore.library wraps the same type.


# --- higher-order operators --------------------------------------------------------------------

_higher_order_ops: dict = {}

# Keys a higher-order operator skips unless it registers a kernel there.
_HIGHER_ORDER_OP_DEFAULT_FALLTHROUGH_DISPATCH_KEYS = (
    DispatchKey.ADInplaceOrView, DispatchKey.BackendSelect, DispatchKey.AutocastCPU, DispatchKey.AutocastCUDA)


class _HigherOrderNamespace(types.ModuleType):
    """`opcore.ops.higher_order`: every HigherOrderOperator, by name."""
    __file__ = "_ops.py"

    def __init__(self):
        super().__init__("opcore.ops.higher_order")
        self._dir: list = []
        self.__dict__["__getattr__"] = self._bind  # Note [Module attribute hooks]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dir)

    def _bind(self, name: str):
        op = _higher_order_ops.get(name)
        if op is None:
            raise AttributeError(f"'_OpNamespace' 'higher_order' object has no attribute '{name}'")
        setattr(self, name, op)
        self._dir.append(name)
        return op


def _flat_args(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, (list, tuple)):
            yield from a
        else:
            yield a


def _compute_keyset(args, kwargs, non_fallthrough_keys: DispatchKeySet) -> DispatchKeySet:
    """The key set a call with these arguments dispatches on, as in torch: the tensors' keys as
    _dispatch_keys reports them (their backend's Autograd key included, Note [The keys
    _dispatch_keys reports] in runtime/opcore/python/Dispatch.cpp) plus this thread's included
    keys, minus its excluded ones, minus the fallthrough keys."""
    ks = DispatchKeySet()
    for a in _flat_args(args, kwargs):
        if isinstance(a, _C.Tensor):
            ks = ks | _C._dispatch_keys(a)
    if ks.empty():
        ks = DispatchKeySet(DispatchKey.CPU)
    ks = (ks | _C._dispatch_tls_local_include_set()) - _C._dispatch_tls_local_exclude_set()
    return ks & non_fallthrough_keys


class HigherOrderOperator(OperatorBase, abc.ABC):
    """An operator that exists only in Python and takes functions as arguments (cond, map):
    kernels per dispatch key with py_impl, dispatched in Python on the keys torch computes
    (Autograd first, for every tensor, then the backend; the Python key for modes and
    subclasses). Subclass it, implement __call__ as `return super().__call__(*args, **kwargs)`;
    it appears as `opcore.ops.higher_order.<name>`."""

    def __init__(self, name: str, *, cacheable: bool = False):
        super().__init__()
        if type(self) is HigherOrderOperator:
            raise RuntimeError("Direct instantiation of HigherOrderOperator is not allowed. Please subclass it.")
        self._name = name
        self._cacheable = cacheable
        self.__name__ = name
        self._ns = "higher_order"
        self.__module__ = "opcore.ops.higher_order"
        _higher_order_ops[name] = self
        self.non_fallthrough_keys = _C._dispatch_keyset_full()
        for key in _HIGHER_ORDER_OP_DEFAULT_FALLTHROUGH_DISPATCH_KEYS:
            self.fallthrough(key)

    def name(self) -> str:
        return self._name

    @property
    def namespace(self) -> str:
        return self._ns

    def cacheable(self) -> bool:
        return self._cacheable

    def py_impl(self, k) -> Callable:
        if isinstance(k, DispatchKey) and not _C._dispatch_is_alias_key(k) and not self.non_fallthrough_keys.has(k):
            self.non_fallthrough_keys = self.non_fallthrough_keys.add(k)
        return super().py_impl(k)

    def fallthrough(self, dispatch_key: DispatchKey) -> None:
        """Calls skip `dispatch_key` and continue with the next key down."""
        self.non_fallthrough_keys = self.non_fallthrough_keys.remove(dispatch_key)
        self._dispatch_cache.clear()

    def dispatch(self, /, dispatch_key: DispatchKey, *args, **kwargs):
        """Runs the kernel for `dispatch_key`: the mode's or subclass's rule at the Python key,
        else the py_impl kernel the key resolves to (alias keys included)."""
        if dispatch_key in self._dispatch_cache:
            return self._dispatch_cache[dispatch_key](*args, **kwargs)
        if dispatch_key == DispatchKey.Python:
            return self._dispatch_python(args, kwargs)
        try:
            final_key = resolve_key(self, dispatch_key)
        except NotImplementedError:
            final_key = dispatch_key
        if final_key not in self.py_kernels:
            raise NotImplementedError(f"could not find kernel for HigherOrderOperator {self._name} at dispatch key "
                                      f"{final_key.name} (resolved from {dispatch_key.name})")
        kernel = self.py_kernels[final_key]
        self._dispatch_cache[dispatch_key] = kernel
        return kernel(*args, **kwargs)

    def has_kernel_for_dispatch_key(self, k) -> bool:
        return k in self.py_kernels

    def _dispatch_python(self, args, kwargs):
        overloaded = [a for a in _flat_args(args, kwargs)
                      if isinstance(a, _C.Tensor) and _C._dispatch_keys(a).has(DispatchKey.Python)]
        mode = _get_current_dispatch_mode()
        if mode is not None:
            handler = self.python_key_table.get(type(mode))
            if handler is None:
                raise NotImplementedError(f"There was no rule registered for HOP {self._name} and mode {mode}. "
                                          f"Register one with py_impl({type(mode).__name__}).")
            with _pop_mode_temporarily() as m:
                result = handler(m, *args, **kwargs)
            if result is not NotImplemented:
                return result
        for arg in overloaded:
            handler = self.python_key_table.get(type(arg))
            if handler is None:
                raise NotImplementedError(f"There was no rule registered for HOP {self._name} and subclass "
                                          f"{type(arg).__name__}. Register one with py_impl({type(arg).__name__}).")
            result = handler(*args, **kwargs)
            if result is not NotImplemented:
                return result
        raise TypeError(f"Multiple dispatch failed for {self._name}: every rule returned NotImplemented. "
                        f"Tried mode: {mode} and subclasses: {[type(a).__name__ for a in overloaded]}")

    @abc.abstractmethod
    def __call__(self, /, *args, **kwargs):
        keyset = _compute_keyset(args, kwargs, self.non_fallthrough_keys)
        return self.dispatch(keyset.highestPriorityTypeId(), *args, **kwargs)


class _AutoDispatchBelowAutograd:
    """`with _AutoDispatchBelowAutograd():` calls skip the autograd layer (what a Python kernel
    at the Autograd key uses to call the operator below itself), as C++'s guard of that name."""
    _KEYS = (DispatchKey.AutogradFunctionality, DispatchKey.AutogradOther, DispatchKey.ADInplaceOrView)

    def __enter__(self):
        self._added = [k for k in self._KEYS if not _C._dispatch_tls_is_dispatch_key_excluded(k)]
        for k in self._added:
            _C._dispatch_tls_set_dispatch_key_excluded(k, True)
        return self

    def __exit__(self, *exc):
        for k in self._added:
            _C._dispatch_tls_set_dispatch_key_excluded(k, False)


ops: _Ops = _Ops()

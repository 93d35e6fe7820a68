"""Parsing yaml/native_functions.yaml into NativeFunctions: the entries' list, then one small
parse function per key of an entry (`dispatch:` is in dispatch.py, `precomputed:` in
precompute.py). Each key's function takes the entry's mapping, returns the key's value (or its
default when the key is absent) and raises a located SpecError for a value of the wrong shape.
NativeFunction checks the rules on one entry when it is made (native_function.py); the rules
across entries are checked once every entry is parsed (cross_entry_checks.py), and then the
overloads that `autogen:` lists are added (autogen.py)."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Optional

from gen.model.autogen import expand_autogen
from gen.model.cross_entry_checks import check_native_functions
from gen.model.dispatch import BackendKernel, parse_dispatch, split_list
from gen.model.kernel_keys import KERNEL_KEYS_ENTRY_KEYS, parse_kernels
from gen.model.errors import Loc, SpecError, SpecErrors, did_you_mean
from gen.model.native_function import (ATEN, RUNTIME_METHODS, DeviceCheck, DispatchKey, KeyLocs, NativeFunction,
                                      OperatorImpl, Variant, cpp_api_names)
from gen.model.operators import OperatorIndex
from gen.model.options import ParseOptions
from gen.model.precompute import Precompute, parse_precomputed
from gen.model.schema import IDENT, FunctionSchema, OperatorName
from gen.model.schema_checks import check_out_overload_name, parse_schema
from gen.model.yaml_loader import LocDict, LocList, describe, top_level_entries, unknown_key_errors

# Every key an entry may have, in the order docs/adding-an-operator.md's table lists them.
ENTRY_KEYS = (
    "func", "variants", "dispatch", "structured", "structured_delegate", "structured_inherits",
    "precomputed", "device_check", "device_guard", "manual_kernel_registration", "manual_cpp_binding",
    "python_module", "cpp_no_default_args", "autogen", "tags", "doc",
) + KERNEL_KEYS_ENTRY_KEYS


# Every key an `- op:` entry may have (ExecuTorch's; Note [An '- op:' entry's keys]).
OP_ENTRY_KEYS = KERNEL_KEYS_ENTRY_KEYS + ("dispatch", "cpp_no_default_args")

# The modules of the Python API an operator may live in (`opcore.nn.relu6`), as in PyTorch.
PYTHON_MODULES = ("nn", "fft", "linalg", "special", "sparse", "nested")
_OPERATOR_NAME = re.compile(r"(?P<base>[A-Za-z_][A-Za-z0-9_]*)(?:\.(?P<overload>[A-Za-z_][A-Za-z0-9_]*))?")


def parse_native_functions(
    data: object, path: str, declared_tags: Optional[frozenset[str]], options: ParseOptions = ParseOptions(),
    namespace: str = ATEN, aten: Optional[OperatorIndex] = None,
) -> tuple[tuple[NativeFunction, ...], list[SpecError]]:
    """Parses and validates the loaded native_functions.yaml, whose operators are in `namespace`
    (Note [Operator namespaces] in gen/emit/common.py; an extension's are built on opcore's,
    `aten`). Returns the valid entries and all errors. `declared_tags` is None when
    tags.yaml itself is broken: tags are then not checked.
    """
    entries, errors = top_level_entries(data, path, "operator entries ('- func: ...')")
    functions: list[NativeFunction] = []
    broken: set[str] = set()
    for item, loc in entries:
        if isinstance(item, LocDict) and "op" in item and "func" not in item:
            continue  # parse_operator_impls reads these
        try:
            functions.append(_parse_entry(item, loc, declared_tags, options, namespace))
        except (SpecError, SpecErrors) as e:
            errors.extend(e.errors if isinstance(e, SpecErrors) else [e])
            broken.add(_declared_name(item))
    unique, duplicates = _drop_duplicates(functions)
    operators = OperatorIndex(unique)  # one index for the checks across entries and autogen
    errors += duplicates + check_native_functions(operators, frozenset(broken), options)
    if errors:  # a generated overload could clash with what a broken entry meant to declare
        return unique, errors
    return expand_autogen(operators, aten)


def parse_operator_impls(data: object, path: str, namespace: str, aten: Optional[OperatorIndex]
                         ) -> tuple[tuple[OperatorImpl, ...], list[SpecError]]:
    """The `- op:` entries of the loaded native_functions.yaml (ExecuTorch's form: Note [Kernel
    keys] in kernel_keys.py), each resolved against opcore's operators, `aten` (None: none)."""
    entries, _ = top_level_entries(data, path, "operator entries ('- func: ...')")  # errors: parse_native_functions'
    declared = aten if aten is not None else OperatorIndex(())
    impls: list[OperatorImpl] = []
    errors: list[SpecError] = []
    seen: dict[str, OperatorImpl] = {}
    for item, _loc in entries:
        if not (isinstance(item, LocDict) and "op" in item and "func" not in item):
            continue
        try:
            impl = _parse_impl(item, namespace, declared)
        except (SpecError, SpecErrors) as e:
            errors.extend(e.errors if isinstance(e, SpecErrors) else [e])
            continue
        name = impl.function.name
        first = seen.get(name)
        if first is None:
            seen[name] = impl
            impls.append(impl)
        elif not (first.own_kernels and impl.own_kernels):  # the same bare entry twice says nothing new
            errors.append(SpecError(impl.loc, f"a second '- op: {name}' (the first is at line {first.loc.line})"))
    return tuple(impls), errors


# Note [An '- op:' entry's keys]
# ExecuTorch's `- op:` entry names an operator declared elsewhere (opcore's, here) and says how a
# kernel library provides it:
# - `kernels:` (with `type_alias:` / `dim_order_alias:`) and `dispatch:` give the library's own
#   kernels (Note [Kernel keys] in kernel_keys.py).
# - Neither: the operator's own kernel. ExecuTorch's ATen-mode files (kernels/aten/functions.yaml)
#   list operators this way, meaning ATen's kernels; here they are opcore's, already registered,
#   so the entry is checked (the operator exists, its other keys are right) and generates nothing.
#   Such an entry may be repeated, as ATen-mode files do: the repeat means the same.
# - `cpp_no_default_args:` is read and checked against the operator's schema (each name an
#   argument with a default), and has no effect: in ExecuTorch it drops those defaults from the
#   C++ API that its generator writes for the operator, but an extension generates no C++ API
#   for opcore's operators; opcore::clamp_out is generated from opcore's own entry, which has
#   its own `cpp_no_default_args:`.


def _parse_impl(item: LocDict, namespace: str, declared: OperatorIndex) -> OperatorImpl:
    """See Note [An '- op:' entry's keys]."""
    unknown = unknown_key_errors(item, OP_ENTRY_KEYS)
    if unknown:
        raise SpecErrors(unknown)
    text, loc = item["op"], value_loc(item, "op")
    match = _OPERATOR_NAME.fullmatch(text.removeprefix(f"{ATEN}::")) if isinstance(text, str) else None
    if match is None:
        raise SpecError(loc, f"'op' names an operator and overload (add.out, aten::add.out), got {describe(text)}")
    if namespace == ATEN:
        raise SpecError(loc, "'- op:' gives kernels to an operator declared elsewhere, which only an extension's "
                             "YAML does (--namespace): declare this one with '- func:' and 'dispatch:'")
    name = text.removeprefix(f"{ATEN}::")
    f = declared.get(name)
    if f is None:
        raise SpecError(loc, f"'- op: {text}': opcore declares no operator 'aten::{name}'"
                             f"{did_you_mean(name, list(declared.by_name))}")
    kernels = parse_kernels(item, f.func)
    parse_cpp_no_default_args(item, f.func)  # checked; no effect (Note [An '- op:' entry's keys])
    dispatch = _parse_impl_dispatch(item)
    cpu = next((k for k in dispatch if k.key == DispatchKey.CPU), None)
    if kernels and cpu is not None:
        raise SpecError(cpu.loc, f"'{name}' has CPU kernels in both 'kernels:' and 'dispatch:': give them in one")
    return OperatorImpl(f, kernels, dispatch, loc)


def _parse_impl_dispatch(item: LocDict) -> tuple[BackendKernel, ...]:
    """An `- op:` entry's `dispatch:`; `dispatch: {}` (which ExecuTorch's portable
    functions.yaml writes beside `kernels:`) gives none."""
    if "dispatch" not in item or (isinstance(item["dispatch"], LocDict) and not item["dispatch"]):
        return ()
    return parse_dispatch(item["dispatch"], value_loc(item, "dispatch"), frozenset())[0]


def _declared_name(item: object) -> str:
    """The operator name a broken entry declares (the text of `func:` before `(`), so that the
    checks across entries do not report references to it as unknown; "" when there is none."""
    text = item.get("func") if isinstance(item, LocDict) else None
    return text.split("(", 1)[0].strip() if isinstance(text, str) else ""


def _drop_duplicates(functions: list[NativeFunction]) -> tuple[tuple[NativeFunction, ...], list[SpecError]]:
    """Keeps the first entry of each operator name; an error for each later one."""
    seen: dict[str, NativeFunction] = {}
    errors = []
    for f in functions:
        if f.name in seen:
            first = seen[f.name].func_loc.line
            errors.append(SpecError(f.func_loc, f"duplicate operator '{f.name}' (first defined at line {first})"))
        else:
            seen[f.name] = f
    return tuple(seen.values()), errors


def _parse_entry(item: object, loc: Loc, declared_tags: Optional[frozenset[str]],
                 options: ParseOptions, namespace: str) -> NativeFunction:
    """Raises SpecError for the entry's first mistake (SpecErrors for several unknown keys)."""
    if not isinstance(item, LocDict):
        raise SpecError(loc, "an operator entry must be a mapping ('- func: ...')")
    unknown = unknown_key_errors(item, ENTRY_KEYS + tuple(sorted(options.ignored_entry_keys)))
    if unknown:
        raise SpecErrors(unknown)
    if "func" not in item:
        raise SpecError(item.loc, "missing required key 'func'")
    func = _parse_func(item, namespace)
    variants = _parse_variants(item, func, options, namespace)
    delegate = parse_structured_delegate(item)
    manual = parse_bool(item, "manual_kernel_registration", False)
    kernels = parse_kernels(item, func)
    dispatch, dropped = _parse_dispatch(item, options, delegate is None and not manual and not kernels)
    autogen = parse_autogen(item)
    f = NativeFunction(
        func=func,
        variants=variants,
        dispatch=dispatch,
        tags=parse_tags(item, declared_tags),
        doc=parse_doc(item),
        loc=item.loc,
        func_loc=item.value_locs["func"],
        structured=parse_bool(item, "structured", False),
        structured_delegate=delegate,
        structured_inherits=parse_structured_inherits(item),
        precomputed=_parse_precomputed(item, func),
        device_check=parse_device_check(item),
        device_guard=parse_bool(item, "device_guard", True),
        manual_kernel_registration=manual,
        manual_cpp_binding=parse_bool(item, "manual_cpp_binding", False),
        python_module=parse_python_module(item),
        cpp_no_default_args=parse_cpp_no_default_args(item, func),
        autogen=tuple(name for name, _ in autogen),
        dropped_dispatch_keys=dropped,
        key_locs=KeyLocs(tuple(item.key_locs.items()), tuple((k, value_loc(item, k)) for k in item),
                         (("autogen", tuple(at for _, at in autogen)),)),
        namespace=namespace,
        kernels=kernels,
    )
    if options.out_overload_reserved:
        check_out_overload_name(f.func, f.func_loc)
    return f


def _parse_dispatch(item: LocDict, options: ParseOptions,
                    required: bool) -> tuple[tuple[BackendKernel, ...], tuple[str, ...]]:
    """The kernels and the dropped keys; an entry that neither delegates nor registers its
    kernels by hand must name them (unless options say otherwise)."""
    if "dispatch" not in item:
        if required and options.dispatch_required:
            raise SpecError(item.loc, "missing required key 'dispatch' (or 'kernels', 'structured_delegate', or "
                                      "'manual_kernel_registration: True')")
        return (), ()
    if not options.dispatch_required and isinstance(item["dispatch"], LocDict) and not item["dispatch"]:
        return (), ()  # `dispatch: {}`
    return parse_dispatch(item["dispatch"], value_loc(item, "dispatch"), options.ignored_dispatch_keys)


def _parse_precomputed(item: LocDict, func: FunctionSchema) -> Optional[Precompute]:
    if "precomputed" not in item:
        return None
    return parse_precomputed(item["precomputed"], value_loc(item, "precomputed"), func)


def _parse_variants(item: LocDict, func: FunctionSchema, options: ParseOptions, namespace: str) -> frozenset[Variant]:
    variants = _runtime_methods(parse_variants(item), func, item, options)
    if namespace != ATEN and Variant.method in variants:
        raise SpecError(item.value_locs["variants"], f"'{namespace}::{func.name}' cannot be a Tensor method: "
                                                     "opcore::Tensor's methods are the aten operators'; use "
                                                     "'variants: function'")
    return variants


def _parse_func(item: LocDict, namespace: str) -> FunctionSchema:
    """The schema, without the namespace it may write (which must be the run's)."""
    if "op" in item:
        raise SpecError(item.key_locs["op"], "an entry has 'func:' (it declares the operator) or 'op:' (it gives "
                                             "kernels to one declared elsewhere), not both")
    text = item["func"]
    if not isinstance(text, str):
        raise SpecError(value_loc(item, "func"),
                        "'func' must be a schema string, e.g. 'neg(Tensor self) -> Tensor'")
    loc = item.value_locs["func"]
    func = parse_schema(text, loc)
    written = func.name.namespace
    if written and written != namespace:
        if namespace == ATEN:
            hint = (f": this file's operators are in 'aten'; an operator library of namespace '{written}' is "
                    f"generated from its own YAML directory with --namespace {written}")
        elif written == ATEN:
            hint = (f": '{namespace}' is an extension, and the aten operators are opcore's (to give one "
                    f"kernels, write '- op: {func.name}' with 'dispatch:' or 'kernels:')")
        else:
            hint = f": every operator of this file is in '{namespace}' (--namespace), one namespace per file"
        raise SpecError(loc.at(0), f"operator '{func.name}' is in namespace '{written}'{hint}")
    return replace(func, name=replace(func.name, namespace="")) if written else func


def value_loc(item: LocDict, key: str) -> Loc:
    """Where the value of `key` is; the key itself when the value is empty."""
    return item.value_locs[key] if item[key] is not None else item.key_locs[key]


def _runtime_methods(variants: frozenset[Variant], func: FunctionSchema, item: LocDict,
                     options: ParseOptions) -> frozenset[Variant]:
    """A method the runtime defines by hand (RUNTIME_METHODS) is not generated: torchgen's YAML
    (PyTorch's detach, detach_) keeps the operator's function only; opcore's rules say so."""
    method = cpp_api_names(func, variants).method  # Note [C++ API names] in native_function.py
    if method not in RUNTIME_METHODS or parse_bool(item, "manual_cpp_binding", False):
        return variants
    if options.runtime_methods_dropped:
        return variants - {Variant.method}
    raise SpecError(item.value_locs["variants"], f"Tensor::{method}() is defined by the runtime "
                                                 "(by hand, in Tensor.h): declare the operator with 'variants: function'")


def parse_variants(item: LocDict) -> frozenset[Variant]:
    if "variants" not in item:
        return frozenset({Variant.function})
    text = item["variants"]
    if not isinstance(text, str):
        raise SpecError(value_loc(item, "variants"), "'variants' must be a string such as 'function, method'")
    loc = item.value_locs["variants"]
    variants: list[Variant] = []
    for part, offset in split_list(text):
        if part not in Variant.__members__:
            hint = did_you_mean(part, tuple(Variant.__members__)) or " (expected 'function' or 'method')"
            raise SpecError(loc.at(offset), f"unknown variant '{part}'{hint}")
        if Variant[part] in variants:
            raise SpecError(loc.at(offset), f"variant '{part}' is listed twice")
        variants.append(Variant[part])
    return frozenset(variants)


def parse_tags(item: LocDict, declared_tags: Optional[frozenset[str]]) -> tuple[str, ...]:
    """`declared_tags` is None when tags.yaml is broken: the names are then not checked."""
    if "tags" not in item:
        return ()
    value = item["tags"]
    tags = [value] if isinstance(value, str) else value
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise SpecError(value_loc(item, "tags"), "'tags' must be a tag name or a list of tag names")
    locs = value.item_locs if isinstance(value, LocList) else [item.value_locs["tags"]]
    for i, (tag, tag_loc) in enumerate(zip(tags, locs)):
        if declared_tags is not None and tag not in declared_tags:
            hint = did_you_mean(tag, sorted(declared_tags)) or " (declare it in tags.yaml)"
            raise SpecError(tag_loc, f"undeclared tag '{tag}'{hint}")
        if tag in tags[:i]:
            raise SpecError(tag_loc, f"tag '{tag}' is listed twice")
    return tuple(tags)


def parse_doc(item: LocDict) -> str:
    if "doc" not in item:
        return ""
    text = item["doc"]
    if not isinstance(text, str) or not text.strip():
        raise SpecError(value_loc(item, "doc"), "'doc' must be a non-empty string")
    return text.strip()


def parse_bool(item: LocDict, key: str, default: bool) -> bool:
    """`structured`, `device_guard`, `manual_kernel_registration`, `manual_cpp_binding`."""
    if key not in item:
        return default
    value = item[key]
    if not isinstance(value, bool):
        raise SpecError(value_loc(item, key), f"'{key}' must be True or False, got {describe(value)}")
    return value


def parse_device_check(item: LocDict) -> DeviceCheck:
    if "device_check" not in item:
        return DeviceCheck.ExactSame
    value = item["device_check"]
    names = tuple(DeviceCheck.__members__)
    if not isinstance(value, str) or value not in names:
        shown = value if isinstance(value, str) else ""
        hint = did_you_mean(shown, names) or f" (expected one of: {', '.join(names)})"
        raise SpecError(value_loc(item, "device_check"), f"unknown device_check {describe(value)}{hint}")
    return DeviceCheck[value]


def parse_operator_name(text: object, loc: Loc, key: str) -> OperatorName:
    """`add.out`: an operator of this file, named without namespace (as in `func:`)."""
    if not isinstance(text, str) or not _OPERATOR_NAME.fullmatch(text):
        got = describe(text)
        if isinstance(text, str) and "::" in text:
            raise SpecError(loc, f"'{key}' names an operator of this file, without namespace: got {got}")
        raise SpecError(loc, f"'{key}' must name an operator such as 'add.out', got {got}")
    m = _OPERATOR_NAME.fullmatch(text)
    return OperatorName(m.group("base"), m.group("overload") or "")


def parse_structured_delegate(item: LocDict) -> Optional[OperatorName]:
    if "structured_delegate" not in item:
        return None
    return parse_operator_name(item["structured_delegate"], value_loc(item, "structured_delegate"),
                               "structured_delegate")


def parse_structured_inherits(item: LocDict) -> Optional[str]:
    """A C++ class in namespace opcore, e.g. TensorIteratorBase."""
    if "structured_inherits" not in item:
        return None
    value = item["structured_inherits"]
    if not isinstance(value, str) or not IDENT.fullmatch(value):
        raise SpecError(value_loc(item, "structured_inherits"),
                        f"'structured_inherits' must be a C++ class name such as 'TensorIteratorBase', "
                        f"got {describe(value)}")
    return value


def parse_python_module(item: LocDict) -> Optional[str]:
    if "python_module" not in item:
        return None
    value = item["python_module"]
    if not isinstance(value, str) or value not in PYTHON_MODULES:
        hint = did_you_mean(value, PYTHON_MODULES) if isinstance(value, str) else ""
        raise SpecError(value_loc(item, "python_module"), f"unknown python_module {describe(value)}"
                        + (hint or f" (expected one of: {', '.join(PYTHON_MODULES)})"))
    return value


def parse_cpp_no_default_args(item: LocDict, func: FunctionSchema) -> frozenset[str]:
    """Arguments of `func` that have a default in the schema but none in the C++ API."""
    if "cpp_no_default_args" not in item:
        return frozenset()
    value = item["cpp_no_default_args"]
    if not isinstance(value, LocList) or not value or not all(isinstance(v, str) for v in value):
        raise SpecError(value_loc(item, "cpp_no_default_args"),
                        "'cpp_no_default_args' must be a list of argument names, e.g. [step]")
    defaulted = [a.name for a in func.arguments if a.default is not None]
    for i, (name, loc) in enumerate(zip(value, value.item_locs)):
        if func.argument(name) is None:
            hint = did_you_mean(name, [a.name for a in func.arguments]) or ""
            raise SpecError(loc, f"'cpp_no_default_args' names '{name}', which is not an argument of "
                                 f"'{func.name}'{hint}")
        if name not in defaulted:
            raise SpecError(loc, f"'cpp_no_default_args' names '{name}', which has no default in '{func.name}'")
        if name in value[:i]:
            raise SpecError(loc, f"'{name}' is listed twice in 'cpp_no_default_args'")
    return frozenset(value)


def parse_autogen(item: LocDict) -> tuple[tuple[OperatorName, Loc], ...]:
    """`autogen: add.out, add.Scalar_out` or a list: each name and where it is written."""
    if "autogen" not in item:
        return ()
    value = item["autogen"]
    if isinstance(value, str):
        loc = item.value_locs["autogen"]
        parts = [(text, loc.at(offset)) for text, offset in split_list(value)]
    elif isinstance(value, LocList) and value and all(isinstance(v, str) for v in value):
        parts = list(zip(value, value.item_locs))
    else:
        raise SpecError(value_loc(item, "autogen"),
                        "'autogen' must be operator names such as 'add.out', separated by commas or listed")
    names: list[OperatorName] = []
    for text, loc in parts:
        name = parse_operator_name(text, loc, "autogen")
        if name in names:
            raise SpecError(loc, f"'{name}' is listed twice in 'autogen'")
        names.append(name)
    return tuple(zip(names, (loc for _, loc in parts)))

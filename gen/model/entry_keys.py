"""One small parse function per key of a native_functions.yaml entry (`dispatch:` is in
dispatch.py, `precomputed:` in precompute.py). Each takes the entry's mapping, returns the
key's value (or its default when the key is absent) and raises a located SpecError for a
value of the wrong shape. Rules between keys are checked in entry_checks.py."""
from __future__ import annotations

import enum
import re
from typing import Optional

from gen.model.dispatch import split_list
from gen.model.errors import Loc, SpecError, did_you_mean
from gen.model.schema import IDENT, FunctionSchema, OperatorName
from gen.model.yaml_loader import LocDict, LocList, describe

# The modules of the Python API an operator may live in (`opcore.nn.relu6`), as in PyTorch.
PYTHON_MODULES = ("nn", "fft", "linalg", "special", "sparse", "nested")
_OPERATOR_NAME = re.compile(r"(?P<base>[A-Za-z_][A-Za-z0-9_]*)(?:\.(?P<overload>[A-Za-z_][A-Za-z0-9_]*))?")


class Variant(enum.Enum):
    """`variants:`: a free function `opcore::add(t, ...)` and/or a method `t.add(...)`."""

    function = "function"
    method = "method"


class DeviceCheck(enum.Enum):
    """`device_check:`: ExactSame (default): the generated code checks that every tensor
    argument is on the same device; NoCheck: the kernel accepts tensors on several devices."""

    ExactSame = "ExactSame"
    NoCheck = "NoCheck"


def value_loc(item: LocDict, key: str) -> Loc:
    """Where the value of `key` is; the key itself when the value is empty."""
    return item.value_locs[key] if item[key] is not None else item.key_locs[key]


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

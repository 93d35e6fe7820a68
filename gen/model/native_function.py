"""yaml/native_functions.yaml: one NativeFunction per entry, parsed one key at a time."""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional

from gen.model.errors import Loc, SpecError, SpecErrors, TextLoc, did_you_mean
from gen.model.invariants import check_schema
from gen.model.schema import IDENT, FunctionSchema, SchemaParseError
from gen.model.yaml_loader import LocDict, LocList, describe, unknown_key_errors

ENTRY_KEYS = ("func", "variants", "dispatch", "tags", "doc")


class DispatchKey(enum.Enum):
    """The keys a `dispatch:` entry may name; the value is the spelling in YAML and C++."""

    CPU = "CPU"
    CUDA = "CUDA"
    Meta = "Meta"
    CompositeImplicitAutograd = "CompositeImplicitAutograd"
    CompositeExplicitAutograd = "CompositeExplicitAutograd"


COMPOSITE_KEYS = (DispatchKey.CompositeImplicitAutograd, DispatchKey.CompositeExplicitAutograd)


class Variant(enum.Enum):
    """`variants:`: a free function `opcore::add(t, ...)` and/or a method `t.add(...)`."""

    function = "function"
    method = "method"


@dataclass(frozen=True)
class BackendKernel:
    """One `dispatch:` key and the kernel it names (`CPU, CUDA: view` gives two of these).

    loc <- the key's name within the key text; kernel_loc <- the kernel name.
    """

    key: DispatchKey
    kernel: str  # a function in opcore::native
    loc: Loc
    kernel_loc: Loc


@dataclass(frozen=True)
class NativeFunction:
    """One operator overload.

    func     <- `func:` (the schema)
    variants <- `variants:` (default: function)
    dispatch <- `dispatch:`, one BackendKernel per key, in YAML order
    tags     <- `tags:` (a string or a list), each declared in tags.yaml
    doc      <- `doc:` (free text, surrounding whitespace stripped; "" when absent)
    loc      <- the entry; func_loc <- where the schema text starts (errors point into it)
    """

    func: FunctionSchema
    variants: frozenset[Variant]
    dispatch: tuple[BackendKernel, ...]
    tags: tuple[str, ...]
    doc: str
    loc: Loc
    func_loc: TextLoc

    def __post_init__(self) -> None:
        check_schema(self.func, self.func_loc)
        if Variant.method in self.variants:
            self_arg = self.func.argument("self")
            if self_arg is None or self_arg.type.base != "Tensor" or self_arg.type.suffix:
                raise SpecError(self.func_loc.at(0), f"operator '{self.func.name}' has 'variants: method' "
                                                     "but no 'Tensor self' argument")

    @property
    def name(self) -> str:
        """`add.Tensor`, `neg`: the operator name without namespace."""
        return str(self.func.name)


def parse_native_functions(
    data: object, path: str, declared_tags: Optional[frozenset[str]]
) -> tuple[tuple[NativeFunction, ...], list[SpecError]]:
    """Parses the loaded native_functions.yaml. Returns the valid entries and all errors.

    `declared_tags` is None when tags.yaml itself is broken: tags are then not checked.
    """
    if data is None:
        return (), []
    if not isinstance(data, LocList):
        loc = data.loc if isinstance(data, LocDict) else Loc(path, 1, 1)
        return (), [SpecError(loc, "expected a list of operator entries ('- func: ...')")]
    functions: list[NativeFunction] = []
    errors: list[SpecError] = []
    for item, loc in zip(data, data.item_locs):
        try:
            functions.append(_parse_entry(item, loc, declared_tags))
        except SpecErrors as e:
            errors.extend(e.errors)
        except SpecError as e:
            errors.append(e)
    unique, duplicates = _drop_duplicates(functions)
    return unique, errors + duplicates


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


def _parse_entry(item: object, loc: Loc, declared_tags: Optional[frozenset[str]]) -> NativeFunction:
    """Raises SpecError for the entry's first mistake (SpecErrors for several unknown keys)."""
    if not isinstance(item, LocDict):
        raise SpecError(loc, "an operator entry must be a mapping ('- func: ...')")
    unknown = unknown_key_errors(item, ENTRY_KEYS)
    if unknown:
        raise SpecErrors(unknown)
    for key in ("func", "dispatch"):
        if key not in item:
            raise SpecError(item.loc, f"missing required key '{key}'")
    return NativeFunction(
        func=_parse_func(item),
        variants=_parse_variants(item),
        dispatch=_parse_dispatch(item),
        tags=_parse_tags(item, declared_tags),
        doc=_parse_doc(item),
        loc=item.loc,
        func_loc=item.value_locs["func"],
    )


def _value_loc(item: LocDict, key: str) -> Loc:
    """Where the value of `key` is; the key itself when the value is empty."""
    return item.value_locs[key] if item[key] is not None else item.key_locs[key]


def _parse_func(item: LocDict) -> FunctionSchema:
    text = item["func"]
    if not isinstance(text, str):
        raise SpecError(_value_loc(item, "func"),
                        "'func' must be a schema string, e.g. 'neg(Tensor self) -> Tensor'")
    loc = item.value_locs["func"]
    func = parse_schema(text, loc)
    if func.name.namespace:
        raise SpecError(loc.at(0), f"operator namespace '{func.name.namespace}::' is not allowed here: "
                                   "every operator in native_functions.yaml is in 'aten'")
    return func


def parse_schema(text: str, loc: TextLoc) -> FunctionSchema:
    """FunctionSchema.parse(text), where `loc` is where `text` starts in the YAML file; a
    malformed schema raises SpecError pointing at the offending character."""
    try:
        return FunctionSchema.parse(text)
    except SchemaParseError as e:
        # The caret shows the column; when it cannot (a multi-line value), the message does.
        raise SpecError(loc.at(e.column - 1), f"invalid schema: {e.msg}" if loc.exact else str(e)) from None


def _split_list(text: str) -> list[tuple[str, int]]:
    """The comma-separated parts of `text`, stripped, each with its offset in `text`."""
    parts = []
    start = 0
    for piece in text.split(","):
        parts.append((piece.strip(), start + len(piece) - len(piece.lstrip())))
        start += len(piece) + 1
    return parts


def _parse_variants(item: LocDict) -> frozenset[Variant]:
    if "variants" not in item:
        return frozenset({Variant.function})
    text = item["variants"]
    if not isinstance(text, str):
        raise SpecError(_value_loc(item, "variants"),
                        "'variants' must be a string such as 'function, method'")
    loc = item.value_locs["variants"]
    variants: list[Variant] = []
    for part, offset in _split_list(text):
        if part not in Variant.__members__:
            hint = did_you_mean(part, tuple(Variant.__members__)) or " (expected 'function' or 'method')"
            raise SpecError(loc.at(offset), f"unknown variant '{part}'{hint}")
        if Variant[part] in variants:
            raise SpecError(loc.at(offset), f"variant '{part}' is listed twice")
        variants.append(Variant[part])
    return frozenset(variants)


def _parse_dispatch(item: LocDict) -> tuple[BackendKernel, ...]:
    table = item["dispatch"]
    if not isinstance(table, LocDict) or not table:
        raise SpecError(_value_loc(item, "dispatch"),
                        "'dispatch' must be a mapping from dispatch keys to kernel names")
    kernels: list[BackendKernel] = []
    for keys_text, kernel in table.items():
        keys_loc = table.key_locs[keys_text]
        if kernel is None:
            raise SpecError(keys_loc, f"no kernel name for '{keys_text}' (in a {{...}} mapping, quote "
                                      "several keys: {\"CPU, CUDA\": kernel})")
        kernel_loc = table.value_locs[keys_text]
        if not isinstance(kernel, str) or not IDENT.fullmatch(kernel):
            raise SpecError(kernel_loc, f"kernel name for '{keys_text}' must be a C++ identifier, "
                                        f"got {describe(kernel)}")
        for key_text, offset in _split_list(keys_text):
            key_loc = keys_loc.at(offset)
            kernels.append(BackendKernel(_parse_dispatch_key(key_text, key_loc), kernel, key_loc, kernel_loc))
    _check_dispatch_keys(kernels)
    return tuple(kernels)


def _parse_dispatch_key(text: str, loc: Loc) -> DispatchKey:
    if text not in DispatchKey.__members__:
        names = tuple(k.value for k in DispatchKey)
        hint = did_you_mean(text, names) or f" (expected one of: {', '.join(names)})"
        raise SpecError(loc, f"unknown dispatch key '{text}'{hint}")
    return DispatchKey[text]


def _check_dispatch_keys(kernels: list[BackendKernel]) -> None:
    seen: dict[DispatchKey, BackendKernel] = {}
    for k in kernels:
        if k.key in seen:
            raise SpecError(k.loc, f"dispatch key '{k.key.value}' appears twice "
                                   f"(first at line {seen[k.key].loc.line})")
        seen[k.key] = k
    if all(key in seen for key in COMPOSITE_KEYS):
        later = max((seen[key] for key in COMPOSITE_KEYS), key=lambda k: (k.loc.line, k.loc.col))
        raise SpecError(later.loc, "at most one of CompositeImplicitAutograd and "
                                   "CompositeExplicitAutograd may be given")


def _parse_tags(item: LocDict, declared_tags: Optional[frozenset[str]]) -> tuple[str, ...]:
    if "tags" not in item:
        return ()
    value = item["tags"]
    tags = [value] if isinstance(value, str) else value
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise SpecError(_value_loc(item, "tags"), "'tags' must be a tag name or a list of tag names")
    locs = value.item_locs if isinstance(value, LocList) else [item.value_locs["tags"]]
    for i, (tag, tag_loc) in enumerate(zip(tags, locs)):
        if declared_tags is not None and tag not in declared_tags:
            hint = did_you_mean(tag, sorted(declared_tags)) or " (declare it in tags.yaml)"
            raise SpecError(tag_loc, f"undeclared tag '{tag}'{hint}")
        if tag in tags[:i]:
            raise SpecError(tag_loc, f"tag '{tag}' is listed twice")
    return tuple(tags)


def _parse_doc(item: LocDict) -> str:
    if "doc" not in item:
        return ""
    text = item["doc"]
    if not isinstance(text, str) or not text.strip():
        raise SpecError(_value_loc(item, "doc"), "'doc' must be a non-empty string")
    return text.strip()

"""yaml/native_functions.yaml: one NativeFunction per entry, parsed one key at a time
(entry_keys.py, dispatch.py, precompute.py), checked per entry (invariants.py for the schema,
entry_checks.py for the keys) and then across entries (validate.py)."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Optional

from gen.model.autogen import expand_autogen
from gen.model.dispatch import (COMPOSITE_KEYS, PYTORCH_ONLY_DISPATCH_KEYS,  # noqa: F401 (re-exported)
                                BackendKernel, DispatchKey, parse_dispatch)
from gen.model.entry_checks import check_entry
from gen.model.entry_keys import (DeviceCheck, Variant, parse_autogen, parse_bool,  # noqa: F401
                                  parse_cpp_no_default_args, parse_device_check, parse_doc,
                                  parse_python_module, parse_structured_delegate,
                                  parse_structured_inherits, parse_tags, parse_variants, value_loc)
from gen.model.errors import Loc, SpecError, SpecErrors, TextLoc
from gen.model.invariants import check_schema
from gen.model.precompute import Precompute, parse_precomputed
from gen.model.schema import FunctionSchema, OperatorName, SchemaParseError
from gen.model.validate import validate
from gen.model.yaml_loader import LocDict, top_level_entries, unknown_key_errors

# Every key an entry may have, in the order the README's table lists them.
ENTRY_KEYS = (
    "func", "variants", "dispatch", "structured", "structured_delegate", "structured_inherits",
    "precomputed", "device_check", "device_guard", "manual_kernel_registration", "manual_cpp_binding",
    "python_module", "cpp_no_default_args", "autogen", "tags", "doc",
)


@dataclass(frozen=True)
class ParseOptions:
    """Departures from opcore's rules, for reading YAML written for torchgen (PyTorch's own
    native_functions.yaml, see tests/gen/test_pytorch_yaml.py). The generator uses the
    defaults, which are opcore's rules, unless run with --pytorch-yaml (PYTORCH_OPTIONS).

    ignored_dispatch_keys: `dispatch:` keys dropped instead of rejected; each entry records the
        ones it named (NativeFunction.dropped_dispatch_keys). See Note [Dispatch keys in YAML].
    ignored_entry_keys: entry keys accepted and not read (torchgen's ufunc_inner_loop, ...).
    dispatch_required: False accepts an entry without `dispatch:` and leaves its dispatch
        empty (torchgen gives it a CompositeImplicitAutograd kernel named after the operator):
        enough to read such YAML and generate its API, not to link it (no kernel is registered).
    """

    ignored_dispatch_keys: frozenset[str] = frozenset()
    ignored_entry_keys: frozenset[str] = frozenset()
    dispatch_required: bool = True


# How PyTorch's own YAML is read: its backend keys are dropped, the keys torchgen has and
# opcore does not are skipped, and an entry may omit `dispatch:`.
PYTORCH_OPTIONS = ParseOptions(
    ignored_dispatch_keys=PYTORCH_ONLY_DISPATCH_KEYS,
    ignored_entry_keys=frozenset({"use_const_ref_for_mutable_tensors", "category_override", "ufunc_inner_loop"}),
    dispatch_required=False,
)


@dataclass(frozen=True, slots=True)
class KeyLocs:
    """Where an entry's keys and values are written, for errors about them.

    keys, values: (key, location) pairs; items: (key, one location per list item) for the
    keys whose value is a list of names (`autogen`).
    """

    keys: tuple[tuple[str, Loc], ...] = ()
    values: tuple[tuple[str, Loc], ...] = ()
    items: tuple[tuple[str, tuple[Loc, ...]], ...] = ()

    def key(self, name: str) -> Optional[Loc]:
        return dict(self.keys).get(name)

    def value(self, name: str) -> Optional[Loc]:
        """Where the value of `name` is (the key when the value is empty)."""
        return dict(self.values).get(name)

    def item(self, name: str, index: int) -> Optional[Loc]:
        items = dict(self.items).get(name, ())
        return items[index] if index < len(items) else None


@dataclass(frozen=True)
class NativeFunction:
    """One operator overload. Each field comes from the YAML key of the same name:

    func      <- `func:` (the schema)
    variants  <- `variants:` (default: function)
    dispatch  <- `dispatch:`, one BackendKernel per key, in YAML order; () for an entry that
                 delegates (structured_delegate) or registers its kernels by hand
    tags      <- `tags:` (a string or a list), each declared in tags.yaml
    doc       <- `doc:` (free text, surrounding whitespace stripped; "" when absent)
    structured           <- `structured:` (an out= overload with a structured kernel: meta + impl)
    structured_delegate  <- `structured_delegate:` (the structured out= overload whose kernel
                            this functional or in-place overload uses, e.g. add.out)
    structured_inherits  <- `structured_inherits:` (the C++ base class of the meta struct,
                            e.g. TensorIteratorBase; None: the default)
    precomputed          <- `precomputed:` (values the meta function hands to the impl function)
    device_check         <- `device_check:` (default ExactSame)
    device_guard         <- `device_guard:` (default True: the kernel runs under a device guard
                            for its tensors' device)
    manual_kernel_registration <- `manual_kernel_registration:` (True: no generated
                            registration; the kernels are registered by hand, and `dispatch:`
                            is not allowed)
    manual_cpp_binding   <- `manual_cpp_binding:` (True: the C++ API function and method are
                            written by hand)
    python_module        <- `python_module:` (opcore.nn, opcore.linalg, ...; None: opcore)
    cpp_no_default_args  <- `cpp_no_default_args:` (arguments whose default the C++ API drops)
    autogen              <- `autogen:` (operators generated from this one, e.g. its out= overload)
    dropped_dispatch_keys <- `dispatch:` keys dropped under ParseOptions.ignored_dispatch_keys
    autogen_source <- for an overload generated from another entry's `autogen:`, that entry's
                 name (its one kernel is generated too: Note [Generated overloads] in autogen.py)
    loc <- the entry; func_loc <- where the schema text starts (errors point into it);
    key_locs <- where each key and value is
    """

    func: FunctionSchema
    variants: frozenset[Variant]
    dispatch: tuple[BackendKernel, ...]
    tags: tuple[str, ...]
    doc: str
    loc: Loc
    func_loc: TextLoc
    structured: bool = False
    structured_delegate: Optional[OperatorName] = None
    structured_inherits: Optional[str] = None
    precomputed: Optional[Precompute] = None
    device_check: DeviceCheck = DeviceCheck.ExactSame
    device_guard: bool = True
    manual_kernel_registration: bool = False
    manual_cpp_binding: bool = False
    python_module: Optional[str] = None
    cpp_no_default_args: frozenset[str] = frozenset()
    autogen: tuple[OperatorName, ...] = ()
    dropped_dispatch_keys: tuple[str, ...] = ()
    key_locs: KeyLocs = field(default_factory=KeyLocs)
    autogen_source: Optional[str] = None

    def __post_init__(self) -> None:
        check_schema(self.func, self.func_loc)
        if Variant.method in self.variants:
            self_arg = self.func.argument("self")
            if self_arg is None or self_arg.type.base != "Tensor" or self_arg.type.suffix:
                raise SpecError(self.func_loc.at(0), f"operator '{self.func.name}' has 'variants: method' "
                                                     "but no 'Tensor self' argument")
        check_entry(self)

    @functools.cached_property  # asked for often; stored in the instance, not a field
    def name(self) -> str:
        """`add.Tensor`, `neg`: the operator name without namespace."""
        return str(self.func.name)

    @property
    def native_kernels(self) -> tuple[BackendKernel, ...]:
        """The `dispatch:` kernels written by hand in opcore::native (a generated overload's
        kernel is generated: Note [Generated overloads] in autogen.py)."""
        return () if self.autogen_source else self.dispatch

    def key_loc(self, key: str) -> Loc:
        """Where `key` is written; the entry for a key it does not have (or an entry made
        without locations, e.g. one the generator derives from another)."""
        return self.key_locs.key(key) or self.loc

    def value_loc(self, key: str) -> Loc:
        """Where the value of `key` is written (see key_loc)."""
        return self.key_locs.value(key) or self.loc

    def item_loc(self, key: str, index: int) -> Loc:
        """Where item `index` of a list-valued key (`autogen`) is written (see key_loc)."""
        return self.key_locs.item(key, index) or self.loc


def parse_native_functions(
    data: object, path: str, declared_tags: Optional[frozenset[str]], options: ParseOptions = ParseOptions()
) -> tuple[tuple[NativeFunction, ...], list[SpecError]]:
    """Parses and validates the loaded native_functions.yaml. Returns the valid entries and all
    errors. `declared_tags` is None when tags.yaml itself is broken: tags are then not checked.
    """
    entries, errors = top_level_entries(data, path, "operator entries ('- func: ...')")
    functions: list[NativeFunction] = []
    broken: set[str] = set()
    for item, loc in entries:
        try:
            functions.append(_parse_entry(item, loc, declared_tags, options))
        except (SpecError, SpecErrors) as e:
            errors.extend(e.errors if isinstance(e, SpecErrors) else [e])
            broken.add(_declared_name(item))
    unique, duplicates = _drop_duplicates(functions)
    errors += duplicates + validate(unique, frozenset(broken))
    if errors:  # a generated overload could clash with what a broken entry meant to declare
        return unique, errors
    return expand_autogen(unique)


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
                 options: ParseOptions) -> NativeFunction:
    """Raises SpecError for the entry's first mistake (SpecErrors for several unknown keys)."""
    if not isinstance(item, LocDict):
        raise SpecError(loc, "an operator entry must be a mapping ('- func: ...')")
    unknown = unknown_key_errors(item, ENTRY_KEYS + tuple(sorted(options.ignored_entry_keys)))
    if unknown:
        raise SpecErrors(unknown)
    if "func" not in item:
        raise SpecError(item.loc, "missing required key 'func'")
    func = _parse_func(item)
    variants = parse_variants(item)
    delegate = parse_structured_delegate(item)
    manual = parse_bool(item, "manual_kernel_registration", False)
    dispatch, dropped = _parse_dispatch(item, options, delegate is None and not manual)
    autogen = parse_autogen(item)
    return NativeFunction(
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
    )


def _parse_dispatch(item: LocDict, options: ParseOptions,
                    required: bool) -> tuple[tuple[BackendKernel, ...], tuple[str, ...]]:
    """The kernels and the dropped keys; an entry that neither delegates nor registers its
    kernels by hand must name them (unless options say otherwise)."""
    if "dispatch" not in item:
        if required and options.dispatch_required:
            raise SpecError(item.loc, "missing required key 'dispatch' (or 'structured_delegate', or "
                                      "'manual_kernel_registration: True')")
        return (), ()
    return parse_dispatch(item["dispatch"], value_loc(item, "dispatch"), options.ignored_dispatch_keys)


def _parse_precomputed(item: LocDict, func: FunctionSchema) -> Optional[Precompute]:
    if "precomputed" not in item:
        return None
    return parse_precomputed(item["precomputed"], value_loc(item, "precomputed"), func)


def _parse_func(item: LocDict) -> FunctionSchema:
    text = item["func"]
    if not isinstance(text, str):
        raise SpecError(value_loc(item, "func"),
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



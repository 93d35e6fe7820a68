"""The operator list of a selective build (--selected-operators FILE; Note [Selective builds]
in gen/emit/selection.py), in either of two formats:

PyTorch's selected_operators.yaml (of the other keys, only an operator's
`is_used_for_training` is used; the rest are read and not used):

    include_all_operators: false
    operators:
      aten::add.Tensor: {is_root_operator: true, include_all_overloads: false}
      aten::mul: {include_all_overloads: true}      # every overload of aten::mul
      aten::relu: {is_used_for_training: false}     # inference only: no autograd kernel

or a plain list, one `ns::name.overload` per line (`ns::name` is the default overload), with
`#` comments:

    aten::add.Tensor
    aten::mul.out   # for the optimizer
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from gen.model.errors import LINE_BREAK, Loc, SpecError, TextLoc, did_you_mean
from gen.model.native_function import NativeFunction
from gen.model.yaml_loader import LocDict, describe, load_yaml_text

# The top-level keys of PyTorch's selected_operators.yaml.
_PYTORCH_KEYS = ("operators", "include_all_operators", "include_all_non_op_selectives", "kernel_metadata",
                 "custom_classes", "build_features", "et_kernel_metadata")
_TOP_LEVEL_KEY = re.compile(r"^[A-Za-z_]+\s*:(?!:)", re.MULTILINE)
_OPERATOR_KEYS = ("is_root_operator", "is_used_for_training", "include_all_overloads", "debug_info",
                  "_debug_info", "is_used_for_inference")
_FLAG_KEYS = ("is_root_operator", "is_used_for_training", "include_all_overloads")


@dataclass(frozen=True)
class Selection:
    """The operators a build asks for: `names` ("add.Tensor", namespace dropped), or every one;
    `training`: those of them used for training (PyTorch's is_used_for_training, true unless
    an entry says false), which get autograd kernels."""

    names: frozenset[str]
    include_all: bool
    training: frozenset[str] = frozenset()


def parse_selection(text: str, path: str, functions: tuple[NativeFunction, ...],
                    namespace: str) -> tuple[Selection, list[SpecError]]:
    """The selection `text` (read from `path`) makes of `functions`, the operators of `namespace`;
    each name that is not one of them is a located error."""
    entries: list[tuple[str, Loc, bool, bool]] = []  # (name, where, every overload, for training)
    include_all, errors = False, []
    if _TOP_LEVEL_KEY.search(text):  # PyTorch's YAML; a plain list has no `key:` line
        data, errors = load_yaml_text(text, path)
        if errors:
            return Selection(frozenset(), False), errors
        if not isinstance(data, LocDict):
            return Selection(frozenset(), False), [SpecError(TextLoc(path, 1, 1), "expected PyTorch's "
                                                             "selected_operators.yaml (a mapping) or a plain list")]
        include_all, errors = _pytorch_entries(data, entries)
    else:
        _plain_entries(text, path, entries)
    names: set[str] = set()
    training: set[str] = set()
    for name, loc, all_overloads, for_training in entries:
        chosen, problem = _resolve(name, all_overloads, functions, namespace)
        if problem:
            errors.append(SpecError(loc, problem))
        names |= chosen
        training |= chosen if for_training else set()
    return Selection(frozenset(names), include_all, frozenset(training)), errors


def _pytorch_entries(data: LocDict, entries: list[tuple[str, Loc, bool, bool]]) -> tuple[bool, list[SpecError]]:
    errors = [SpecError(data.key_locs[k], f"unknown key '{k}'{did_you_mean(k, _PYTORCH_KEYS)} (a "
                                          "selected_operators.yaml has: " + ", ".join(_PYTORCH_KEYS) + ")")
              for k in data if k not in _PYTORCH_KEYS]
    # Unset or empty: false, as in PyTorch; a string ('true') is an error, not quietly false.
    include_all = data.get("include_all_operators")
    if include_all is not None and not isinstance(include_all, bool):
        errors.append(SpecError(data.value_locs["include_all_operators"],
                                f"'include_all_operators' must be true or false, got {describe(include_all)}"))
    operators = {} if data.get("operators") is None else data["operators"]
    if not isinstance(operators, LocDict) and operators != {}:
        errors.append(SpecError(data.value_locs["operators"], f"'operators' must be a mapping from operator "
                                                              f"names to their options, got {describe(operators)}"))
        return False, errors
    for name, options in operators.items():
        options = {} if options is None else options
        if not isinstance(options, LocDict) and options != {}:
            errors.append(SpecError(operators.value_locs[name], f"the options of '{name}' must be a mapping, "
                                                                f"got {describe(options)}"))
            continue
        errors += [SpecError(options.key_locs[k], f"unknown key '{k}' for an operator{did_you_mean(k, _OPERATOR_KEYS)}")
                   for k in options if k not in _OPERATOR_KEYS]
        errors += [SpecError(options.value_locs[k], f"'{k}' must be true or false, got {describe(options[k])}")
                   for k in _FLAG_KEYS if k in options and not isinstance(options[k], bool)]
        entries.append((name, operators.key_locs[name], options.get("include_all_overloads") is True,
                        options.get("is_used_for_training", True) is not False))
    return include_all is True, errors


def _plain_entries(text: str, path: str, entries: list[tuple[str, Loc, bool, bool]]) -> None:
    for number, line in enumerate(LINE_BREAK.split(text), start=1):  # the lines errors count
        name = line.split("#", 1)[0].strip()
        if name:
            entries.append((name, TextLoc(path, number, line.index(name) + 1), False, True))


def _resolve(name: object, all_overloads: bool, functions: tuple[NativeFunction, ...],
             namespace: str) -> tuple[set[str], str]:
    """The operators `name` selects, or a message saying why it selects none."""
    if not isinstance(name, str) or "::" not in name:
        return set(), f"an operator is named with its namespace ('{namespace}::add.Tensor'), got {describe(name)}"
    ns, _, rest = name.partition("::")
    if ns != namespace:
        return set(), f"'{name}' is not in namespace '{namespace}', whose operators this build generates"
    if all_overloads:
        chosen = {f.name for f in functions if f.func.name.base == rest.split(".")[0]}
    else:
        chosen = {f.name for f in functions if f.name == rest}
    if chosen:
        return chosen, ""
    return set(), f"'{name}' names no operator of this build{did_you_mean(rest, [f.name for f in functions])}"

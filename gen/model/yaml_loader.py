"""A YAML loader that keeps line numbers on mappings and sequences and rejects duplicate keys.

    data, errors = load_yaml("yaml/native_functions.yaml")
    data[0].loc              # Loc of the first entry ("path:line")
    data[0].key_locs["func"] # Loc of its `func:` key

Mapping keys are kept as their source text (so `CPU:` stays "CPU", never a bool or an int).
"""
from __future__ import annotations

import yaml

from gen.model.errors import Loc, SpecError


class LocDict(dict):
    """A YAML mapping: a dict with `loc` (where the mapping starts) and `key_locs` (per key)."""

    loc: Loc
    key_locs: dict[str, Loc]


class LocList(list):
    """A YAML sequence: a list with `loc` (where it starts) and `item_locs` (per item)."""

    loc: Loc
    item_locs: list[Loc]


class _Loader(yaml.SafeLoader):
    """SafeLoader building LocDict/LocList; duplicate keys are collected in `errors`."""

    def __init__(self, text: str, path: str) -> None:
        super().__init__(text)
        self.path = path
        self.errors: list[SpecError] = []

    def loc_of(self, node: yaml.Node) -> Loc:
        return Loc(self.path, node.start_mark.line + 1)

    def construct_loc_dict(self, node: yaml.MappingNode):
        self.flatten_mapping(node)
        result = LocDict()
        result.loc = self.loc_of(node)
        result.key_locs = {}
        yield result
        for key_node, value_node in node.value:
            key_loc = self.loc_of(key_node)
            if not isinstance(key_node, yaml.ScalarNode):
                self.errors.append(SpecError(key_loc, "mapping keys must be plain strings"))
                continue
            key = key_node.value
            if key in result:
                first = result.key_locs[key].line
                self.errors.append(
                    SpecError(key_loc, f"duplicate key '{key}' (first defined at line {first})"))
                continue
            result[key] = self.construct_object(value_node, deep=True)
            result.key_locs[key] = key_loc

    def construct_loc_list(self, node: yaml.SequenceNode):
        result = LocList()
        result.loc = self.loc_of(node)
        result.item_locs = [self.loc_of(item) for item in node.value]
        yield result
        result.extend(self.construct_object(item, deep=True) for item in node.value)


_Loader.add_constructor("tag:yaml.org,2002:map", _Loader.construct_loc_dict)
_Loader.add_constructor("tag:yaml.org,2002:seq", _Loader.construct_loc_list)


def _syntax_error(path: str, text: str, err: yaml.YAMLError) -> SpecError:
    if isinstance(err, yaml.reader.ReaderError):  # a character YAML does not allow
        line = text.count("\n", 0, err.position) + 1
        return SpecError(Loc(path, line), f"invalid YAML: character #x{err.character:04x} is not allowed")
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    line = mark.line + 1 if mark is not None else 1
    problem = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    detail = f"{problem} ({context})" if context else problem
    return SpecError(Loc(path, line), f"invalid YAML: {detail}")


def load_yaml(path: str) -> tuple[object, list[SpecError]]:
    """Loads one YAML file. Returns the data and the duplicate-key errors found in it.

    Raises SpecError when the file cannot be read or is not valid YAML.
    """
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise SpecError(Loc(path, 1), f"cannot read file: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise SpecError(Loc(path, 1), f"file is not valid UTF-8: {e.reason}") from None
    try:
        loader = _Loader(text, path)  # the reader checks the characters right away
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.YAMLError as e:
        raise _syntax_error(path, text, e) from None
    return data, loader.errors

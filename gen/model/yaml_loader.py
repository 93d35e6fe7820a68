"""A YAML loader that keeps line and column numbers on mappings, keys, values and sequence
items, and rejects duplicate keys.

    text = read_source("yaml/native_functions.yaml")
    data, errors = load_yaml_text(text, "yaml/native_functions.yaml")
    data[0].loc                  # Loc of the first entry ("path:line:col")
    data[0].key_locs["func"]     # TextLoc of its `func` key
    data[0].value_locs["func"]   # TextLoc of the schema; .at(i) is its i-th character

Mapping keys are kept as their source text (so `CPU:` stays "CPU", never a bool or an int).
"""
from __future__ import annotations

import yaml

from gen.model.errors import LINE_BREAK, Loc, SpecError, TextLoc, did_you_mean


class LocDict(dict):
    """A YAML mapping: a dict with `loc` (where the mapping starts), `key_locs` and
    `value_locs` (per key)."""

    loc: Loc
    key_locs: dict[str, TextLoc]
    value_locs: dict[str, TextLoc]


class LocList(list):
    """A YAML sequence: a list with `loc` (where it starts) and `item_locs` (per item)."""

    loc: Loc
    item_locs: list[TextLoc]


class _Loader(yaml.SafeLoader):
    """SafeLoader building LocDict/LocList; duplicate keys are collected in `errors`."""

    def __init__(self, text: str, path: str) -> None:
        super().__init__(text)
        self.text = text
        self.path = path
        self.errors: list[SpecError] = []

    def loc_of(self, node: yaml.Node) -> TextLoc:
        """Where `node` starts; for a one-line scalar written as is, where its text starts."""
        mark = node.start_mark
        line, col = mark.line + 1, mark.column + 1
        if isinstance(node, yaml.ScalarNode) and node.value:
            raw = self.text[mark.index:node.end_mark.index]
            if "\n" not in raw and node.style is None and raw == node.value:
                return TextLoc(self.path, line, col, exact=True)
            if "\n" not in raw and node.style in ("'", '"') and raw[1:-1] == node.value:
                return TextLoc(self.path, line, col + 1, exact=True)
        return TextLoc(self.path, line, col)

    def construct_loc_dict(self, node: yaml.MappingNode):
        self.flatten_mapping(node)
        result = LocDict()
        result.loc = self.loc_of(node)
        result.key_locs = {}
        result.value_locs = {}
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
            result.value_locs[key] = self.loc_of(value_node)

    def construct_loc_list(self, node: yaml.SequenceNode):
        result = LocList()
        result.loc = self.loc_of(node)
        result.item_locs = [self.loc_of(item) for item in node.value]
        yield result
        result.extend(self.construct_object(item, deep=True) for item in node.value)


_Loader.add_constructor("tag:yaml.org,2002:map", _Loader.construct_loc_dict)
_Loader.add_constructor("tag:yaml.org,2002:seq", _Loader.construct_loc_list)


def _position(text: str, index: int) -> tuple[int, int]:
    """1-based (line, column) of text[index]."""
    lines = LINE_BREAK.split(text[:index])
    return len(lines), len(lines[-1]) + 1


def _syntax_error(path: str, text: str, err: yaml.YAMLError) -> SpecError:
    if isinstance(err, yaml.reader.ReaderError):  # a character YAML does not allow
        line, col = _position(text, err.position)
        return SpecError(Loc(path, line, col),
                         f"invalid YAML: character #x{err.character:04x} is not allowed")
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    return SpecError(Loc(path, line, col), f"invalid YAML: {_syntax_detail(err, line)}")


def _syntax_detail(err: yaml.YAMLError, line: int) -> str:
    """PyYAML's problem and context as one phrase: "expected ',' or '}', but got ':' (while
    parsing a flow mapping that starts at line 3)", "expected a single document in the stream,
    but found another document"."""
    problem = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    if not context:
        return problem
    if problem.startswith("but "):
        return f"{context}, {problem}"
    context_mark = getattr(err, "context_mark", None)
    if context_mark is not None and context_mark.line + 1 != line:
        context += f" that starts at line {context_mark.line + 1}"
    return f"{problem} ({context})"


def read_source(path: str) -> str:
    """The text of one input file, with a leading byte-order mark dropped and line ends
    normalized to "\\n" (so that columns and printed source lines match what YAML reports).

    Raises SpecError when it cannot be read or is not UTF-8.
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise SpecError(Loc(path, 1, 1), f"cannot read file: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        before = data[:e.start].decode("utf-8")
        line, col = _position(before, len(before))
        raise SpecError(Loc(path, line, col), f"file is not valid UTF-8: {e.reason}") from None
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def load_yaml_text(text: str, path: str) -> tuple[object, list[SpecError]]:
    """Parses the YAML `text` of `path`. Returns the data and the duplicate-key errors in it.

    Raises SpecError when it is not valid YAML.
    """
    try:
        loader = _Loader(text, path)  # the reader checks the characters right away
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.YAMLError as e:
        raise _syntax_error(path, text, e) from None
    except RecursionError:
        raise SpecError(Loc(path, 1, 1), "invalid YAML: nested too deeply") from None
    return data, loader.errors


def load_yaml(path: str) -> tuple[object, list[SpecError]]:
    """read_source() then load_yaml_text(): the data of one file and its duplicate-key errors."""
    return load_yaml_text(read_source(path), path)


def unknown_key_errors(item: LocDict, allowed: tuple[str, ...]) -> list[SpecError]:
    """One error per key of `item` not in `allowed`, each suggesting the key it resembles."""
    errors = []
    for key in item:
        if key in allowed:
            continue
        hint = did_you_mean(key, allowed) or f" (expected one of: {', '.join(allowed)})"
        errors.append(SpecError(item.key_locs[key], f"unknown key '{key}'{hint}"))
    return errors


def describe(value: object) -> str:
    """A loaded YAML value as error messages name it: "'neg-cpu'", "a list", "a mapping"."""
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    return f"a value of YAML type {type(value).__name__}"

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

from typing import Optional

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


_STR_TAG = "tag:yaml.org,2002:str"


class _LocConstructor(yaml.constructor.SafeConstructor):
    """SafeConstructor building LocDict/LocList; duplicate keys are collected in `errors`.
    The loaders below add a parser: PyYAML's own (pure Python) or libyaml's."""

    def init_locations(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.errors: list[SpecError] = []

    def loc_of(self, node: yaml.Node) -> TextLoc:
        """Where `node` starts; for a one-line scalar written as is, where its text starts."""
        mark = node.start_mark
        line, col = mark.line + 1, mark.column + 1
        if isinstance(node, yaml.ScalarNode) and node.value:
            raw = self.text[mark.index:node.end_mark.index]
            # A plain scalar's style is None from PyYAML's parser and "" from libyaml's.
            if "\n" not in raw and not node.style and raw == node.value:
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
            result[key] = self.construct_value(value_node)
            result.key_locs[key] = key_loc
            result.value_locs[key] = self.loc_of(value_node)

    def construct_loc_list(self, node: yaml.SequenceNode):
        result = LocList()
        result.loc = self.loc_of(node)
        result.item_locs = [self.loc_of(item) for item in node.value]
        yield result
        result.extend(self.construct_value(item) for item in node.value)

    def construct_value(self, node: yaml.Node) -> object:
        """construct_object(node, deep=True), without its bookkeeping for strings (most
        values), which it would return as they are."""
        if node.tag == _STR_TAG and type(node) is yaml.ScalarNode:
            return node.value
        return self.construct_object(node, deep=True)


_LocConstructor.add_constructor("tag:yaml.org,2002:map", _LocConstructor.construct_loc_dict)
_LocConstructor.add_constructor("tag:yaml.org,2002:seq", _LocConstructor.construct_loc_list)


class _Loader(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer,
              _LocConstructor, yaml.resolver.Resolver):
    """PyYAML's pure-Python loader (yaml.SafeLoader's parts) with the constructor above. Its
    messages are the ones users see: see Note [Two YAML parsers]."""

    def __init__(self, text: str, path: str) -> None:
        yaml.reader.Reader.__init__(self, text)  # checks the characters right away
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        _LocConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)
        self.init_locations(text, path)


# Note [Two YAML parsers]
# PyYAML's pure-Python parser takes most of the generator's time on a large file; libyaml's
# (yaml.CParser, shipped with python3-yaml) is about ten times faster. When libyaml is
# installed it parses first, and the pure-Python parser parses again whenever the result could
# differ from its own:
# - libyaml reports an error: the error users see keeps PyYAML's wording and position;
# - the text has what the two parsers treat differently (see _libyaml_agrees, _FastLoader and
#   _check_flow_items): tabs, a byte-order mark after the start, no final line break, the
#   non-specific tag `!` on a scalar, and in flow collections empty scalars, tags and plain
#   scalars with `?`.
# Otherwise both give the same nodes with the same marks, so the same data, locations and
# duplicate-key errors (tests/gen/test_yaml_loader.py compares them on the repository's files,
# the benchmark's YAML and tricky snippets). PyYAML's composer builds the nodes in both cases:
# libyaml's own composer recurses in C without a depth limit and would crash on deeply nested
# input, where Python's recursion limit gives the "nested too deeply" error.
try:
    from yaml.cyaml import CParser as _CParser
except ImportError:  # python3-yaml built without libyaml
    _CParser = None


class _ParsersMayDiffer(Exception):
    """Raised while libyaml's parse is composed, for input on which the parsers may disagree."""


def _libyaml_agrees(text: str) -> bool:
    """False for text on which the parsers may disagree whatever its structure: tabs (PyYAML
    rejects some that libyaml accepts), a byte-order mark after the start (libyaml does not
    count it in columns), no final line break (the end of the stream is placed differently)."""
    return text.endswith("\n") and "\t" not in text and "\ufeff" not in text


def _check_flow_items(nodes: list[yaml.Node]) -> None:
    """Where the parsers differ inside flow collections: an empty scalar (`{a: , b}`) is
    placed differently, a tag ends differently (`[!!str, x]`: libyaml stops at `,`), and
    libyaml accepts `?` in a plain scalar (`[a?b]`), which PyYAML rejects."""
    for n in nodes:
        if isinstance(n, yaml.ScalarNode) and (not n.value or (not n.style and "?" in n.value)):
            raise _ParsersMayDiffer()


if _CParser is not None:
    class _FastLoader(yaml.composer.Composer, _CParser, _LocConstructor, yaml.resolver.Resolver):
        """libyaml's parser, PyYAML's composer and resolver, the constructor above; raises
        _ParsersMayDiffer (see Note [Two YAML parsers])."""

        def __init__(self, text: str, path: str) -> None:
            _CParser.__init__(self, text)
            yaml.composer.Composer.__init__(self)
            _LocConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            self.init_locations(text, path)

        def compose_scalar_node(self, anchor: Optional[str]) -> yaml.ScalarNode:
            if self.peek_event().tag == "!":  # libyaml resolves `! x` as if quoted, PyYAML as plain
                raise _ParsersMayDiffer()
            return super().compose_scalar_node(anchor)

        def compose_sequence_node(self, anchor: Optional[str]) -> yaml.SequenceNode:
            node = super().compose_sequence_node(anchor)
            if node.flow_style:
                _check_flow_items(node.value)
            return node

        def compose_mapping_node(self, anchor: Optional[str]) -> yaml.MappingNode:
            node = super().compose_mapping_node(anchor)
            if node.flow_style:
                _check_flow_items([n for pair in node.value for n in pair])
            return node


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
    if _CParser is not None and _libyaml_agrees(text):
        try:
            return _load_with(_FastLoader, text, path)
        except (yaml.YAMLError, RecursionError, UnicodeError, _ParsersMayDiffer):
            pass  # the pure-Python parser decides (see Note [Two YAML parsers])
    try:
        return _load_with(_Loader, text, path)
    except yaml.YAMLError as e:
        raise _syntax_error(path, text, e) from None
    except RecursionError:
        raise SpecError(Loc(path, 1, 1), "invalid YAML: nested too deeply") from None


def _load_with(loader_class: type, text: str, path: str) -> tuple[object, list[SpecError]]:
    loader = loader_class(text, path)
    try:
        return loader.get_single_data(), loader.errors
    finally:
        loader.dispose()


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

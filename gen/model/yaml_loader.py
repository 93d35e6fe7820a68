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

import os
import stat
from typing import Optional

import yaml

from gen.model.errors import LINE_BREAK, Loc, SpecError, TextLoc, did_you_mean


class LocDict(dict):
    """A YAML mapping: a dict with `loc` (where the mapping starts), `key_locs` and
    `value_locs` (per key)."""

    loc: Loc
    key_locs: dict[str, TextLoc]
    value_locs: dict[str, TextLoc]
    __slots__ = ("loc", "key_locs", "value_locs")  # one per mapping of the file: no __dict__ each


class LocList(list):
    """A YAML sequence: a list with `loc` (where it starts) and `item_locs` (per item)."""

    loc: Loc
    item_locs: list[TextLoc]
    __slots__ = ("loc", "item_locs")


_STR_TAG = "tag:yaml.org,2002:str"
_STANDARD_TAG = "tag:yaml.org,2002:"

# Note [YAML tags]
# SafeConstructor trusts a standard tag to sit on the kind of node it names: `a: !!map x`,
# `!!seq x` or `!!map [1]` end in a Python exception from deep inside PyYAML, and so does a
# scalar that its tag (explicit, or resolved from the text: `2001-13-01` is a timestamp)
# cannot convert: `!!int x`, `!!bool maybe`. _LocConstructor.construct_object checks the kind
# first, and turns a failed conversion into a located error; an unknown tag (`!foo`,
# `!!python/name:...`) is one too. The generator's own files need no tags at all.
_TAG_KINDS = {
    **{f"{_STANDARD_TAG}{name}": yaml.ScalarNode
       for name in ("null", "bool", "int", "float", "binary", "timestamp", "str")},
    **{f"{_STANDARD_TAG}{name}": yaml.SequenceNode for name in ("seq", "omap", "pairs")},
    **{f"{_STANDARD_TAG}{name}": yaml.MappingNode for name in ("map", "set")},
}
# The tags of plain `<<` and `=` scalars: PyYAML's own message says what is wrong with them
# where they are not keys.
_MERGE_TAG = f"{_STANDARD_TAG}merge"
_RESOLVER_ONLY_TAGS = frozenset({_MERGE_TAG, f"{_STANDARD_TAG}value"})
_KIND_NAMES = {yaml.ScalarNode: "a scalar", yaml.SequenceNode: "a sequence", yaml.MappingNode: "a mapping"}


def _tag_name(tag: str) -> str:
    """`!!map` for tag:yaml.org,2002:map; other tags as written (`!foo`)."""
    return "!!" + tag[len(_STANDARD_TAG):] if tag.startswith(_STANDARD_TAG) else tag


def _tag_error(node: yaml.Node, problem: str) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(None, None, problem, node.start_mark)


def _check_tag(node: yaml.Node) -> None:
    """Raises ConstructorError when `node`'s tag is unknown or names another kind of node."""
    kind = _TAG_KINDS.get(node.tag)
    if kind is None:
        if node.tag not in _RESOLVER_ONLY_TAGS:
            raise _tag_error(node, f"unknown tag '{_tag_name(node.tag)}'")
    elif type(node) is not kind:
        raise _tag_error(node, f"the tag {_tag_name(node.tag)} needs {_KIND_NAMES[kind]}, not {_KIND_NAMES[type(node)]}")


def _text_loc(text: str, path: str, start: yaml.Mark, end: yaml.Mark, value: Optional[str],
              style: Optional[str]) -> TextLoc:
    """Where a node starts (`value` None: a collection); for a one-line scalar written as is,
    where its text starts."""
    line, col = start.line + 1, start.column + 1
    if value:
        raw = text[start.index:end.index]
        # A plain scalar's style is None from PyYAML's parser and "" from libyaml's.
        if "\n" not in raw and not style and raw == value:
            return TextLoc(path, line, col, exact=True)
        if "\n" not in raw and style in ("'", '"') and raw[1:-1] == value:
            return TextLoc(path, line, col + 1, exact=True)
    return TextLoc(path, line, col)


class _LocConstructor(yaml.constructor.SafeConstructor):
    """SafeConstructor building LocDict/LocList; duplicate keys are collected in `errors`.
    _Loader adds PyYAML's pure-Python parser to it; _FastBuilder uses it for the scalars that
    are not strings."""

    def init_locations(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.errors: list[SpecError] = []
        # Per mapping node with merge keys: how many of its pairs, first after flattening,
        # come from the mappings merged in (see Note [Merge keys]).
        self.merged_pairs: dict[yaml.MappingNode, int] = {}

    def loc_of(self, node: yaml.Node) -> TextLoc:
        scalar = isinstance(node, yaml.ScalarNode)
        return _text_loc(self.text, self.path, node.start_mark, node.end_mark,
                         node.value if scalar else None, node.style if scalar else None)

    def construct_loc_dict(self, node: yaml.MappingNode):
        self.flatten_mapping(node)
        result = LocDict()
        result.loc = self.loc_of(node)
        result.key_locs = {}
        result.value_locs = {}
        yield result
        merged = self.merged_pairs.get(node, 0)
        own: set[str] = set()
        for i, (key_node, value_node) in enumerate(node.value):
            key_loc = self.loc_of(key_node)
            if not isinstance(key_node, yaml.ScalarNode):
                self.errors.append(SpecError(key_loc, "mapping keys must be plain strings"))
                continue
            _check_tag(key_node)  # a key is kept as its text, whatever its tag: only checked
            key = key_node.value
            if i >= merged and key in own:
                first = result.key_locs[key].line
                self.errors.append(
                    SpecError(key_loc, f"duplicate key '{key}' (first defined at line {first})"))
                continue
            if i >= merged:
                own.add(key)
            result[key] = self.construct_value(value_node)
            result.key_locs[key] = key_loc
            result.value_locs[key] = self.loc_of(value_node)

    def construct_loc_list(self, node: yaml.SequenceNode):
        result = LocList()
        result.loc = self.loc_of(node)
        result.item_locs = [self.loc_of(item) for item in node.value]
        yield result
        result.extend(self.construct_value(item) for item in node.value)

    def construct_object(self, node: yaml.Node, deep: bool = False) -> object:
        """SafeConstructor's, after checking the node's tag (see Note [YAML tags])."""
        _check_tag(node)
        if type(node) is yaml.ScalarNode and node.tag not in _RESOLVER_ONLY_TAGS:
            try:
                return super().construct_object(node, deep)
            except (ArithmeticError, AttributeError, LookupError, TypeError, ValueError):
                raise _tag_error(node, f"'{node.value}' is not a valid {_tag_name(node.tag)}") from None
        return super().construct_object(node, deep)

    # Note [Merge keys]
    # SafeConstructor.flatten_mapping() puts the pairs of the mappings merged in (`<<: *base`)
    # before the mapping's own pairs, the earlier of several merged mappings last. As in YAML's
    # merge semantics, a later pair then overrides an earlier one of the merged part, and an
    # own pair overrides a merged one; only two own pairs with one key are a duplicate key.
    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        """SafeConstructor's, after checking the tags of the mappings merged in (`<<: *base`),
        which it reads without constructing them; records how many pairs were merged in
        (Note [Merge keys])."""
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                _check_tag(value_node)
                if type(value_node) is yaml.SequenceNode:
                    for item in value_node.value:
                        _check_tag(item)
        if node in self.merged_pairs:  # an anchored mapping already merged into another one
            return
        own = sum(1 for key_node, _ in node.value if key_node.tag != _MERGE_TAG)
        super().flatten_mapping(node)
        self.merged_pairs[node] = len(node.value) - own

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
# PyYAML's pure-Python parser takes most of the generator's time on a large file. libyaml's
# (yaml.CParser, shipped with python3-yaml) is about ten times faster, and _FastBuilder makes
# LocDict/LocList straight from its events, without PyYAML's nodes and constructor. It takes
# only what the generator's files are made of: block and flow collections of untagged scalars,
# without anchors, aliases or merge keys. The pure-Python loader parses again, and decides,
# whenever the result could differ from its own:
# - libyaml reports an error: the error users see keeps PyYAML's wording and position;
# - the input has something _FastBuilder does not take (tags, anchors, aliases, `<<` keys,
#   keys that are not scalars), or that the two parsers treat differently: tabs, a byte-order
#   mark after the start, no final line break (_libyaml_agrees), and in flow collections empty
#   scalars and plain scalars with `?` (_FastBuilder._check_flow_scalar).
# Otherwise both give the same data, locations and duplicate-key errors (tests/gen/
# test_yaml_loader.py compares them on the repository's files, the benchmark's YAML, tricky
# snippets and random edits). _FastBuilder recurses in Python, so deep nesting ends in a
# RecursionError and the pure-Python loader's "nested too deeply", not in a crash (libyaml's own
# composer recurses in C without a limit).
try:
    from yaml.cyaml import CParser as _CParser
except ImportError:  # python3-yaml built without libyaml
    _CParser = None


class _Unsupported(Exception):
    """Raised by _FastBuilder for input the pure-Python loader must decide."""


def _libyaml_agrees(text: str) -> bool:
    """False for text on which the parsers may disagree whatever its structure: tabs (PyYAML
    rejects some that libyaml accepts), a byte-order mark after the start (libyaml does not
    count it in columns), no final line break (the end of the stream is placed differently)."""
    return text.endswith("\n") and "\t" not in text and "\ufeff" not in text


class _FastBuilder:
    """What _Loader makes of `text`, from libyaml's events; raises _Unsupported, or libyaml's
    YAMLError, when the pure-Python loader must decide (see Note [Two YAML parsers])."""

    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.errors: list[SpecError] = []
        self.events = _CParser(text)
        self.resolver = yaml.resolver.Resolver()
        self.constructor = _LocConstructor()  # for the scalars that are not strings

    def load(self) -> tuple[object, list[SpecError]]:
        """The data and its duplicate-key errors, as load_yaml_text returns them."""
        try:
            next_event = self.events.get_event
            next_event()  # stream start
            event = next_event()
            if isinstance(event, yaml.StreamEndEvent):
                return None, self.errors
            data, _ = self.build(next_event(), False)  # after the document start
            if not isinstance(next_event(), yaml.DocumentEndEvent) or not isinstance(next_event(), yaml.StreamEndEvent):
                raise _Unsupported()  # several documents: an error
            return data, self.errors
        finally:
            self.events.dispose()

    def build(self, event: yaml.Event, in_flow: bool) -> tuple[object, TextLoc]:
        """The value of the node that starts with `event`, and its location."""
        if isinstance(event, yaml.AliasEvent) or event.anchor is not None or event.tag is not None:
            raise _Unsupported()
        if isinstance(event, yaml.ScalarEvent):
            return self.scalar(event, in_flow)
        if isinstance(event, yaml.SequenceStartEvent):
            return self.sequence(event)
        if isinstance(event, yaml.MappingStartEvent):
            return self.mapping(event)
        raise _Unsupported()

    def _check_flow_scalar(self, event: yaml.ScalarEvent, in_flow: bool) -> None:
        """In flow collections the parsers place an empty scalar (`{a: , b}`) differently, a
        tag ends differently (`[!!str, x]`: libyaml stops at `,`, leaving an empty scalar),
        and libyaml accepts `?` in a plain scalar (`[a?b]`), which PyYAML rejects."""
        if in_flow and (not event.value or (not event.style and "?" in event.value)):
            raise _Unsupported()

    def scalar(self, event: yaml.ScalarEvent, in_flow: bool) -> tuple[object, TextLoc]:
        self._check_flow_scalar(event, in_flow)
        loc = _text_loc(self.text, self.path, event.start_mark, event.end_mark, event.value, event.style)
        tag = self.resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
        if tag == _STR_TAG:
            return event.value, loc
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
        try:
            return self.constructor.construct_object(node, deep=True), loc
        except Exception:  # noqa: BLE001 (a bad `null`/bool/int/float/timestamp: PyYAML decides)
            raise _Unsupported() from None

    def sequence(self, start: yaml.SequenceStartEvent) -> tuple[LocList, TextLoc]:
        result = LocList()
        result.loc = _text_loc(self.text, self.path, start.start_mark, start.end_mark, None, None)
        result.item_locs = []
        flow, next_event = bool(start.flow_style), self.events.get_event
        while not isinstance(event := next_event(), yaml.SequenceEndEvent):
            value, loc = self.build(event, flow)
            result.append(value)
            result.item_locs.append(loc)
        return result, result.loc

    def mapping(self, start: yaml.MappingStartEvent) -> tuple[LocDict, TextLoc]:
        result = LocDict()
        result.loc = _text_loc(self.text, self.path, start.start_mark, start.end_mark, None, None)
        result.key_locs, result.value_locs = {}, {}
        flow, next_event = bool(start.flow_style), self.events.get_event
        while not isinstance(event := next_event(), yaml.MappingEndEvent):
            if not isinstance(event, yaml.ScalarEvent) or event.anchor is not None or event.tag is not None:
                raise _Unsupported()  # keys that are not strings, with anchors or tags
            key = event.value
            if key in ("<<", "="):  # merge and value keys: PyYAML rewrites the mapping
                raise _Unsupported()
            self._check_flow_scalar(event, flow)
            key_loc = _text_loc(self.text, self.path, event.start_mark, event.end_mark, key, event.style)
            if key in result:  # as construct_loc_dict: an error, and the value is dropped
                first = result.key_locs[key].line
                self.errors.append(SpecError(key_loc, f"duplicate key '{key}' (first defined at line {first})"))
                errors, self.errors = self.errors, []
                self.build(next_event(), flow)  # dropped with the errors in it, as never constructed
                self.errors = errors
                continue
            result[key], result.value_locs[key] = self.build(next_event(), flow)
            result.key_locs[key] = key_loc
        return result, result.loc


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


# The largest input file read: far above any real one (PyTorch's native_functions.yaml is under
# 1 MiB), and small enough that a wrong path (a disk image, a log) fails with an error rather
# than with the memory the loaders would need for it.
MAX_INPUT_BYTES = 64 * 1024 * 1024


def _read_regular_file(path: str) -> bytes:
    """The bytes of `path`. Raises SpecError when it is not a regular file (a FIFO would block
    the run, /dev/zero never ends) or is larger than MAX_INPUT_BYTES; OSError when it cannot
    be read."""
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SpecError(Loc(path, 1, 1), "cannot read file: not a regular file")
        too_large = SpecError(Loc(path, 1, 1), f"cannot read file: larger than {MAX_INPUT_BYTES // (1024 * 1024)} "
                                               "MiB, the most an input may hold")
        if info.st_size > MAX_INPUT_BYTES:
            raise too_large
        data = f.read(MAX_INPUT_BYTES + 1)  # + 1: a file that grew while being read
    if len(data) > MAX_INPUT_BYTES:
        raise too_large
    return data


def read_source(path: str) -> str:
    """The text of one input file, with a leading byte-order mark dropped and line ends
    normalized to "\\n" (so that columns and printed source lines match what YAML reports).

    Raises SpecError when it cannot be read or is not UTF-8.
    """
    try:
        data = _read_regular_file(path)
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
            return _FastBuilder(text, path).load()
        except (yaml.YAMLError, RecursionError, UnicodeError, _Unsupported):
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


def top_level_entries(data: object, path: str, expected: str) -> tuple[list[tuple[object, TextLoc]], list[SpecError]]:
    """The entries of a loaded input file that holds a list (tags.yaml, native_functions.yaml,
    derivatives.yaml), each with its location, and the error list the file's parser goes on
    with: one error, and no entries, when it is no list ("expected a list of <expected>");
    none for an empty file."""
    if data is None:
        return [], []
    if not isinstance(data, LocList):
        loc = data.loc if isinstance(data, LocDict) else Loc(path, 1, 1)
        return [], [SpecError(loc, f"expected a list of {expected}")]
    return list(zip(data, data.item_locs)), []


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

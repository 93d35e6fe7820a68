"""A YAML loader that keeps line and column numbers on mappings, keys, values and sequence
items, and rejects duplicate keys.

    text = read_source("yaml/native_functions.yaml")
    data, errors = load_yaml_text(text, "yaml/native_functions.yaml")
    data[0].loc                  # Loc of the first entry ("path:line:col")
    data[0].key_locs["func"]     # TextLoc of its `func` key
    data[0].value_locs["func"]   # TextLoc of the schema; .at(i) is its i-th character

Mapping keys are kept as their source text (so `CPU:` stays "CPU", never a bool or an int).
One builder (_Builder) makes the data from a YAML event stream, libyaml's where it agrees with
PyYAML's pure-Python parser, else that parser's: see Note [One YAML builder].
"""
from __future__ import annotations

import os
import stat
import types
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
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_STANDARD_TAG = "tag:yaml.org,2002:"

# Note [YAML tags]
# SafeConstructor trusts a standard tag to sit on the kind of node it names: `a: !!map x`,
# `!!seq x` or `!!map [1]` end in a Python exception from deep inside PyYAML, and so does a
# scalar that its tag (explicit, or resolved from the text: `2001-13-01` is a timestamp)
# cannot convert: `!!int x`, `!!bool maybe`. _Builder.construct checks the kind
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


# Note [One YAML builder]
# One builder, _Builder, makes LocDict/LocList from a YAML event stream, and it alone checks keys
# and tags, applies merge keys and reports duplicate keys. It composes the events into PyYAML's
# nodes (so that aliases, merge keys and tags mean what they mean to yaml.safe_load), then
# constructs the values from the nodes as SafeConstructor would (see Note [YAML tags], Note
# [Merge keys]): the first construction error in SafeConstructor's order is raised, after any
# syntax or composer error (an undefined alias), and the values of duplicate keys are not
# constructed (tests/gen/pyyaml_reference.py is that loader, which the tests compare against).
# The events come from libyaml (yaml.CParser, shipped with python3-yaml) when it is there:
# profiling on PyTorch's native_functions.yaml shows PyYAML's pure-Python parser alone taking
# about 0.5 s, a third of the 1/8 of torchgen's time the whole run may take, libyaml's events
# 0.02 s; on the repository's YAML the difference is small, but the path is the same.
# The two parsers differ on some input (found by differential fuzzing: tests/gen/
# test_yaml_loader.py), so libyaml's events are used only for input on which they agree:
# - no tabs, no byte-order mark after the start, a final line break (_libyaml_agrees);
# - no tags, anchors or aliases (their marks and ends differ), one document, and in flow
#   collections no empty scalar and no plain scalar with `?` (_check_libyaml_event);
# - libyaml reports no error, and the builder raises none (errors keep PyYAML's wording and
#   positions).
# Otherwise the same builder runs again on the events of PyYAML's pure-Python parser
# (yaml.parser.Parser), whose result and errors are the ones users see. The builder recurses in
# Python, so deep nesting ends in a RecursionError and "nested too deeply", not in a crash.
try:
    from yaml.cyaml import CParser as _CParser
except ImportError:  # python3-yaml built without libyaml
    _CParser = None


class _PurePythonDecides(Exception):
    """Raised while building from libyaml's events on input where they may differ from PyYAML's
    pure-Python parser's (see Note [One YAML builder])."""


def _libyaml_agrees(text: str) -> bool:
    """False for text on which the parsers may disagree whatever its structure: tabs (PyYAML
    rejects some that libyaml accepts), a byte-order mark after the start (libyaml does not
    count it in columns), no final line break (the end of the stream is placed differently)."""
    return text.endswith("\n") and "\t" not in text and "\ufeff" not in text


class _PureParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's pure-Python event source (yaml.SafeLoader's reader, scanner and parser)."""

    def __init__(self, text: str) -> None:
        yaml.reader.Reader.__init__(self, text)  # checks the characters right away
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


class _TagConstructor(yaml.constructor.SafeConstructor):
    """SafeConstructor's conversions for what _Builder leaves to it (scalars that are not
    strings, !!omap, !!pairs, !!set) and its merge-key flattening; any node inside is
    constructed by the builder."""

    def __init__(self, builder: "_Builder") -> None:
        super().__init__()
        self.builder = builder

    def construct_object(self, node: yaml.Node, deep: bool = False) -> object:
        return self.builder.construct(node)

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        self.builder.flatten(node)


class _Builder:
    """LocDict/LocList from the events of `parser` (see Note [One YAML builder]); `libyaml`:
    raise _PurePythonDecides where its events may differ from the pure-Python parser's."""

    def __init__(self, text: str, path: str, parser: object, libyaml: bool) -> None:
        self.text = text
        self.path = path
        self.next_event = parser.get_event
        self.libyaml = libyaml
        self.resolve = yaml.resolver.Resolver().resolve
        self.scalar_tags: dict[tuple[str, tuple[bool, bool]], str] = {}  # resolve()'s, per text
        self.tags = _TagConstructor(self)
        self.errors: list[SpecError] = []
        self.anchors: dict[str, yaml.Node] = {}
        self.constructed: dict[yaml.Node, object] = {}
        self.in_progress: set[yaml.Node] = set()
        # Per mapping node with merge keys: how many of its pairs, first after flattening,
        # come from the mappings merged in (see Note [Merge keys]).
        self.merged_pairs: dict[yaml.MappingNode, int] = {}

    def load(self) -> tuple[object, list[SpecError]]:
        """The data and its duplicate-key errors, as load_yaml_text returns them."""
        next_event = self.next_event
        next_event()  # stream start
        event = next_event()
        if type(event) is yaml.StreamEndEvent:
            return None, self.errors
        root = self.compose(next_event(), False)  # after the document start
        next_event()  # document end
        event = next_event()
        if type(event) is not yaml.StreamEndEvent:
            if self.libyaml:
                raise _PurePythonDecides()
            raise yaml.composer.ComposerError("expected a single document in the stream", root.start_mark,
                                              "but found another document", event.start_mark)
        return self.construct(root, top=True), self.errors

    # ---- composing: events to nodes, as yaml.composer.Composer --------------------------------

    def compose(self, event: yaml.Event, in_flow: bool) -> yaml.Node:
        """The node that starts with `event`."""
        if self.libyaml:
            self._check_libyaml_event(event, in_flow)
        cls, anchor = type(event), event.anchor
        if cls is yaml.AliasEvent:
            if anchor not in self.anchors:
                raise yaml.composer.ComposerError(None, None, f"found undefined alias {anchor!r}", event.start_mark)
            return self.anchors[anchor]
        if anchor is not None and anchor in self.anchors:
            raise yaml.composer.ComposerError(f"found duplicate anchor {anchor!r}; first occurrence",
                                              self.anchors[anchor].start_mark, "second occurrence", event.start_mark)
        tag = event.tag
        if cls is yaml.ScalarEvent:
            if tag is None or tag == "!":
                # The same keys and values come back often: resolve() once per text.
                text_of = (event.value, event.implicit)
                tag = self.scalar_tags.get(text_of)
                if tag is None:
                    tag = self.scalar_tags[text_of] = self.resolve(yaml.ScalarNode, event.value, event.implicit)
            node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
            if anchor is not None:
                self.anchors[anchor] = node
            return node
        if cls is yaml.SequenceStartEvent:
            node = yaml.SequenceNode(yaml.resolver.Resolver.DEFAULT_SEQUENCE_TAG if tag is None or tag == "!" else tag,
                                     [], event.start_mark, None, flow_style=event.flow_style)
        else:
            node = yaml.MappingNode(yaml.resolver.Resolver.DEFAULT_MAPPING_TAG if tag is None or tag == "!" else tag,
                                    [], event.start_mark, None, flow_style=event.flow_style)
        if anchor is not None:  # before the children, as the composer: `&a [*a]` holds itself
            self.anchors[anchor] = node
        flow, items, next_event, compose = bool(event.flow_style), node.value, self.next_event, self.compose
        if cls is yaml.SequenceStartEvent:
            while type(event := next_event()) is not yaml.SequenceEndEvent:
                items.append(compose(event, flow))
        else:
            while type(event := next_event()) is not yaml.MappingEndEvent:
                items.append((compose(event, flow), compose(next_event(), flow)))
        node.end_mark = event.end_mark
        return node

    def _check_libyaml_event(self, event: yaml.Event, in_flow: bool) -> None:
        """Raises _PurePythonDecides for what libyaml's events may give differently: tags (`[!!str,
        x]`: libyaml stops at `,`, leaving an empty scalar), anchors and aliases; in flow
        collections an empty scalar (`{a: , b}`: placed differently) and a plain scalar with `?`
        (`[a?b]`: libyaml accepts it, PyYAML does not)."""
        if type(event) is yaml.AliasEvent or event.anchor is not None or event.tag is not None:
            raise _PurePythonDecides()
        if in_flow and type(event) is yaml.ScalarEvent and (
                not event.value or (not event.style and "?" in event.value)):
            raise _PurePythonDecides()

    # ---- constructing: nodes to values, as SafeConstructor with construct_object(deep=True) ----

    def loc_of(self, node: yaml.Node) -> TextLoc:
        scalar = type(node) is yaml.ScalarNode
        return _text_loc(self.text, self.path, node.start_mark, node.end_mark,
                         node.value if scalar else None, node.style if scalar else None)

    def construct(self, node: yaml.Node, top: bool = False) -> object:
        """The value of `node`, made once (an alias gives the same object). `top`: the document's
        node, which its own children may hold (`&a [*a]`), as in SafeConstructor."""
        if type(node) is yaml.ScalarNode and node.tag == _STR_TAG:
            return node.value
        if node in self.constructed:
            return self.constructed[node]
        if node in self.in_progress:
            raise _tag_error(node, "found unconstructable recursive node")
        _check_tag(node)
        self.in_progress.add(node)
        if node.tag == _MAP_TAG:
            value = self.construct_mapping(node, top)
        elif node.tag == _SEQ_TAG:
            value = self.construct_sequence(node, top)
        else:
            value = self.construct_tagged(node, top)
        self.in_progress.discard(node)
        self.constructed[node] = value
        return value

    def construct_tagged(self, node: yaml.Node, top: bool) -> object:
        """SafeConstructor's value for a scalar that is no string, !!omap, !!pairs, !!set; a
        located error for a scalar that its tag cannot convert (see Note [YAML tags]). `top`:
        as in construct()."""
        if node.tag in _RESOLVER_ONLY_TAGS:  # `a: <<`: PyYAML's own message
            raise _tag_error(node, f"could not determine a constructor for the tag {node.tag!r}")
        make = self.tags.yaml_constructors[node.tag]
        try:
            value = make(self.tags, node)
            if isinstance(value, types.GeneratorType):
                generator, value = value, next(value)
                if top:
                    self.in_progress.discard(node)
                    self.constructed[node] = value
                for _ in generator:
                    pass
        except (ArithmeticError, AttributeError, LookupError, TypeError, ValueError):
            if type(node) is not yaml.ScalarNode:
                raise
            raise _tag_error(node, f"'{node.value}' is not a valid {_tag_name(node.tag)}") from None
        return value

    def construct_sequence(self, node: yaml.SequenceNode, top: bool) -> LocList:
        result = LocList()
        result.loc = self.loc_of(node)
        result.item_locs = [self.loc_of(item) for item in node.value]
        if top:
            self.in_progress.discard(node)
            self.constructed[node] = result
        construct = self.construct
        result.extend([item.value if type(item) is yaml.ScalarNode and item.tag == _STR_TAG else construct(item)
                       for item in node.value])
        return result

    def construct_mapping(self, node: yaml.MappingNode, top: bool) -> LocDict:
        """As SafeConstructor, keeping keys as their text; duplicate keys and keys that are no
        scalars are errors in self.errors, and their values are not constructed."""
        self.flatten(node)
        result = LocDict()
        result.loc = self.loc_of(node)
        key_locs: dict[str, TextLoc] = {}
        value_locs: dict[str, TextLoc] = {}
        result.key_locs, result.value_locs = key_locs, value_locs
        if top:
            self.in_progress.discard(node)
            self.constructed[node] = result
        merged = self.merged_pairs.get(node, 0)
        own: set[str] = set()
        text, path = self.text, self.path
        for i, (key_node, value_node) in enumerate(node.value):
            if type(key_node) is not yaml.ScalarNode:
                self.errors.append(SpecError(self.loc_of(key_node), "mapping keys must be plain strings"))
                continue
            key = key_node.value
            key_loc = _text_loc(text, path, key_node.start_mark, key_node.end_mark, key, key_node.style)
            if key_node.tag != _STR_TAG:
                _check_tag(key_node)  # a key is kept as its text, whatever its tag: only checked
            if i >= merged:
                if key in own:
                    first = key_locs[key].line
                    self.errors.append(SpecError(key_loc, f"duplicate key '{key}' (first defined at line {first})"))
                    continue
                own.add(key)
            if type(value_node) is yaml.ScalarNode:  # most values: inlined construct() and loc_of()
                result[key] = value_node.value if value_node.tag == _STR_TAG else self.construct(value_node)
                value_locs[key] = _text_loc(text, path, value_node.start_mark, value_node.end_mark,
                                            value_node.value, value_node.style)
            else:
                result[key] = self.construct(value_node)
                value_locs[key] = self.loc_of(value_node)
            key_locs[key] = key_loc
        return result

    # Note [Merge keys]
    # SafeConstructor.flatten_mapping() puts the pairs of the mappings merged in (`<<: *base`)
    # before the mapping's own pairs, the earlier of several merged mappings last. As in YAML's
    # merge semantics, a later pair then overrides an earlier one of the merged part, and an
    # own pair overrides a merged one; only two own pairs with one key are a duplicate key.
    def flatten(self, node: yaml.MappingNode) -> None:
        """SafeConstructor.flatten_mapping(node), after checking the tags of the mappings merged
        in (`<<: *base`), which it reads without constructing them; records how many pairs were
        merged in (Note [Merge keys]). Nothing to do for a mapping without merge keys."""
        if not any(key_node.tag == _MERGE_TAG for key_node, _ in node.value):
            return
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                _check_tag(value_node)
                if type(value_node) is yaml.SequenceNode:
                    for item in value_node.value:
                        _check_tag(item)
        if node in self.merged_pairs:  # an anchored mapping already merged into another one
            return
        own = sum(1 for key_node, _ in node.value if key_node.tag != _MERGE_TAG)
        yaml.constructor.SafeConstructor.flatten_mapping(self.tags, node)
        self.merged_pairs[node] = len(node.value) - own


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
        parser = _CParser(text)
        try:
            return _Builder(text, path, parser, libyaml=True).load()
        except (yaml.YAMLError, RecursionError, UnicodeError, _PurePythonDecides):
            pass  # the pure-Python parser's events decide (see Note [One YAML builder])
        finally:
            parser.dispose()
    try:
        parser = _PureParser(text)
        try:
            return _Builder(text, path, parser, libyaml=False).load()
        finally:
            parser.dispose()
    except yaml.YAMLError as e:
        raise _syntax_error(path, text, e) from None
    except RecursionError:
        raise SpecError(Loc(path, 1, 1), "invalid YAML: nested too deeply") from None


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

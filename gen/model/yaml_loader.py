"""A YAML loader that keeps line and column numbers on mappings, keys, values and sequence
items, rejects duplicate keys, and refuses (located) the YAML features opcore's input files do
not use: see Note [Plain YAML].

    text = read_source("yaml/native_functions.yaml")
    data, errors = load_yaml_text(text, "yaml/native_functions.yaml")
    data[0].loc                  # Loc of the first entry ("path:line:col")
    data[0].key_locs["func"]     # TextLoc of its `func` key
    data[0].value_locs["func"]   # TextLoc of the schema; .at(i) is its i-th character

Mapping keys are kept as their source text (so `CPU:` stays "CPU", never a bool or an int).
One builder (_Builder) makes the data from a YAML event stream, libyaml's where it agrees with
PyYAML's pure-Python parser, else that parser's: see Note [Two event sources].
"""
from __future__ import annotations

import os
import re
import stat
from typing import Callable, Optional

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
# The characters YAML does not allow in a file, which a double-quoted string's escapes could
# still make: NUL and other control characters, lone UTF-16 surrogates (which no file can
# be encoded with, so the outputs could not be written).
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE
_STANDARD_TAG = "tag:yaml.org,2002:"
# The tags of plain `<<` and `=` (YAML's merge key and value key): what each is, what to write instead.
_KEY_TAGS = {f"{_STANDARD_TAG}merge": ("a merge key", "write the keys out, or quote '<<'"),
             f"{_STANDARD_TAG}value": ("YAML's value key", "quote it")}

# Note [Plain YAML]
# opcore's inputs (native_functions.yaml, tags.yaml, derivatives.yaml, ExecuTorch's files, an
# operator list; opcore's own, an extension's and PyTorch's) are one document of block and flow
# collections, plain, quoted and block scalars, and comments. A plain scalar is what
# yaml.safe_load makes of it (`True` a bool, `2` an int, `~` None; a mapping key stays text).
# Anchors and aliases (`&base`, `*base`), merge keys (`<<: *base`), tags (`!!str 1`, `!foo`)
# and a second document are none of that: each is refused with a located error where it is
# written, so that a file using one fails clearly instead of meaning something the generator
# does not expect (and this loader needs no composer, no node graph, no tag constructors).
_PLAIN_YAML = "opcore's YAML files use no anchors, aliases, tags or merge keys"


def _character_kind(c: str) -> str:
    """How an error names a character that _NON_PRINTABLE finds ("the control character")."""
    if "\ud800" <= c <= "\udfff":
        return "the lone UTF-16 surrogate"
    return "the non-character" if c in "\ufffe\uffff" else "the control character"


def _tag_name(tag: str) -> str:
    """`!!map` for tag:yaml.org,2002:map; other tags as written (`!foo`)."""
    return "!!" + tag[len(_STANDARD_TAG):] if tag.startswith(_STANDARD_TAG) else tag


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


# Note [Two event sources]
# One builder, _Builder, makes LocDict/LocList from a YAML event stream: it checks keys,
# reports duplicate keys, converts plain scalars and refuses what Note [Plain YAML] excludes.
# The events come from libyaml (yaml.CParser, shipped with python3-yaml) when it is there:
# profiling on PyTorch's native_functions.yaml shows PyYAML's pure-Python parser alone taking
# about 0.5 s, a third of the 1/8 of torchgen's time the whole run may take, libyaml's events
# 0.02 s. The two parsers place some marks differently and word their errors differently
# (found by differential fuzzing: tests/gen/test_yaml_loader.py), so libyaml's result is
# taken only for input on which they agree:
# - no tabs, no byte-order mark after the start, a final line break, no `#` right after a
#   block scalar's `|` or `>` (libyaml reads it as a comment, PyYAML refuses it)
#   (_libyaml_agrees);
# - in flow collections no empty scalar and no plain scalar with `?` (_Builder.scalar);
# - nothing the builder reports but duplicate keys: no syntax error, nothing refused.
# Otherwise the same builder runs again on the events of PyYAML's pure-Python parser
# (yaml.parser.Parser), whose result and errors (PyYAML's wording and positions) are the ones
# users see. The builder recurses in Python; nesting deeper than _MAX_DEPTH collections is a
# located error ("nested too deeply") before the interpreter's recursion limit is near, so the
# outcome does not depend on how deep the caller's stack already is (a RecursionError, should
# one still happen, gives the same message at 1:1).
try:
    from yaml.cyaml import CParser as _CParser
except ImportError:  # python3-yaml built without libyaml
    _CParser = None


# Far deeper than any input's collections (native_functions.yaml's go 4 deep, a sample's
# nested values a few more), far shallower than Python's recursion limit.
_MAX_DEPTH = 200


class _PurePythonDecides(Exception):
    """Raised while building from libyaml's events where the pure-Python parser's events decide
    the outcome (see Note [Two event sources])."""


# A block scalar's header followed by `#` with no space between (`|#`, `>-#`, `|2#`).
_HEADER_THEN_HASH = re.compile(r"[|>][-+0-9]*#")


def _libyaml_agrees(text: str) -> bool:
    """False for text on which the parsers may disagree whatever its structure: tabs (PyYAML
    rejects some that libyaml accepts), a byte-order mark after the start (libyaml does not
    count it in columns), no final line break (the end of the stream is placed differently), a
    block scalar's header followed by `#` (a comment to libyaml, an error to PyYAML; the check
    also matches such characters inside other scalars, which then only take the slower path)."""
    return (text.endswith("\n") and "\t" not in text and "\ufeff" not in text
            and not _HEADER_THEN_HASH.search(text))


class _PureParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's pure-Python event source (yaml.SafeLoader's reader, scanner and parser)."""

    def __init__(self, text: str) -> None:
        yaml.reader.Reader.__init__(self, text)  # checks the characters right away
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


class _Builder:
    """LocDict/LocList from the events of `next_event` (see Note [Two event sources]);
    `libyaml`: raise _PurePythonDecides where the pure-Python parser's events must decide."""

    def __init__(self, text: str, path: str, next_event: Callable[[], yaml.Event], libyaml: bool) -> None:
        self.text = text
        self.path = path
        self.next_event = next_event
        self.libyaml = libyaml
        self.resolve = yaml.resolver.Resolver().resolve
        self.scalar_tags: dict[tuple[str, tuple[bool, bool]], str] = {}  # resolve()'s, per text
        self.constructor = yaml.constructor.SafeConstructor()  # converts the plain scalars that are no strings
        self.errors: list[SpecError] = []
        # The first plain scalar its type cannot convert (`2001-13-01`), raised once the document
        # is read (as yaml.safe_load constructs after parsing); none inside a dropped value.
        self.bad_scalar: Optional[SpecError] = None
        self.dropping = 0  # > 0 while reading a node that is dropped: nothing in it is reported
        self.depth = 0  # collections open around the current event

    def load(self) -> tuple[object, list[SpecError]]:
        """The data and its duplicate-key errors, as load_yaml_text returns them."""
        next_event = self.next_event
        next_event()  # stream start
        if type(next_event()) is yaml.StreamEndEvent:  # else a document start
            return None, self.errors
        root, _ = self.node(next_event(), False)
        next_event()  # document end
        event = next_event()
        if type(event) is not yaml.StreamEndEvent:
            self.pure_python_decides()
            raise yaml.composer.ComposerError("expected a single document in the stream", None,
                                              "but found another document", event.start_mark)
        if self.bad_scalar is not None:
            self.pure_python_decides()
            raise self.bad_scalar
        return root, self.errors

    def pure_python_decides(self) -> None:
        if self.libyaml:
            raise _PurePythonDecides()

    def refuse(self, event: yaml.Event, what: str) -> SpecError:
        self.pure_python_decides()
        mark = event.start_mark
        return SpecError(Loc(self.path, mark.line + 1, mark.column + 1), f"invalid YAML: {what} ({_PLAIN_YAML})")

    def check_properties(self, event: yaml.Event) -> None:
        """Refuses an alias, an anchor and a tag (Note [Plain YAML])."""
        if type(event) is yaml.AliasEvent:
            raise self.refuse(event, f"the alias '*{event.anchor}' is not supported")
        if event.anchor is not None:
            raise self.refuse(event, f"the anchor '&{event.anchor}' is not supported")
        if event.tag is not None:
            raise self.refuse(event, f"the tag '{_tag_name(event.tag)}' is not supported")

    def node(self, event: yaml.Event, in_flow: bool) -> tuple[object, TextLoc]:
        """The value of the node that starts with `event`, and where it is."""
        self.check_properties(event)
        cls = type(event)
        if cls is yaml.ScalarEvent:
            return self.scalar(event, in_flow), _text_loc(self.text, self.path, event.start_mark, event.end_mark,
                                                          event.value, event.style)
        if cls is yaml.SequenceStartEvent:
            result = self.sequence(event)
        else:
            result = self.mapping(event)
        return result, result.loc

    def scalar(self, event: yaml.ScalarEvent, in_flow: bool, convert: bool = True) -> object:
        """A scalar's value: its text, or for a plain scalar what yaml.safe_load makes of it
        (unless not `convert`: a mapping key, kept as its text)."""
        value = event.value
        if self.libyaml and in_flow and (not value or (not event.style and "?" in value)):
            raise _PurePythonDecides()  # placed or parsed differently by libyaml
        if event.style == '"' and (bad := _NON_PRINTABLE.search(value)):  # made by an escape: "\0", "\ud800"
            self.pure_python_decides()
            mark = event.start_mark
            raise SpecError(Loc(self.path, mark.line + 1, mark.column + 1),
                            f"invalid YAML: an escape in this string makes {_character_kind(bad.group())} "
                            f"#x{ord(bad.group()):04x}, which is not allowed")
        implicit = event.implicit
        tag = self.scalar_tags.get((value, implicit))
        if tag is None:  # the same keys and values come back often: resolve() once per text
            tag = self.scalar_tags[(value, implicit)] = self.resolve(yaml.ScalarNode, value, implicit)
        if tag == _STR_TAG:
            return value
        if tag in _KEY_TAGS:
            what, instead = _KEY_TAGS[tag]
            raise self.refuse(event, f"'{value}' ({what}) is not supported: {instead}")
        if not convert:
            return value
        node = yaml.ScalarNode(tag, value, event.start_mark, event.end_mark)
        try:
            return self.constructor.yaml_constructors[tag](self.constructor, node)
        except (ArithmeticError, AttributeError, LookupError, TypeError, ValueError):
            if self.bad_scalar is None and not self.dropping:
                mark = event.start_mark
                self.bad_scalar = SpecError(Loc(self.path, mark.line + 1, mark.column + 1),
                                            f"invalid YAML: '{value}' is not a valid {_tag_name(tag)}")
            return value

    def report(self, error: SpecError) -> None:
        """Records an error the caller goes on after (a duplicate key), unless in a dropped node."""
        if not self.dropping:
            self.errors.append(error)

    def enter(self, start: yaml.Event) -> None:
        """Counts a collection opened at `start`; one too deep is an error where it opens."""
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            self.pure_python_decides()
            mark = start.start_mark
            raise SpecError(Loc(self.path, mark.line + 1, mark.column + 1),
                            f"invalid YAML: nested too deeply (more than {_MAX_DEPTH} levels)")

    def sequence(self, start: yaml.SequenceStartEvent) -> LocList:
        self.enter(start)
        result = LocList()
        result.loc = TextLoc(self.path, start.start_mark.line + 1, start.start_mark.column + 1)
        result.item_locs = locs = []
        flow, next_event, node = bool(start.flow_style), self.next_event, self.node
        while type(event := next_event()) is not yaml.SequenceEndEvent:
            value, loc = node(event, flow)
            result.append(value)
            locs.append(loc)
        self.depth -= 1
        return result

    def mapping(self, start: yaml.MappingStartEvent) -> LocDict:
        """Keys kept as their text; duplicate keys and keys that are no scalars are reported,
        and their values dropped (as yaml.safe_load would not construct them)."""
        self.enter(start)
        result = LocDict()
        result.loc = TextLoc(self.path, start.start_mark.line + 1, start.start_mark.column + 1)
        result.key_locs = key_locs = {}
        result.value_locs = value_locs = {}
        flow, next_event, node, text, path = bool(start.flow_style), self.next_event, self.node, self.text, self.path
        while type(event := next_event()) is not yaml.MappingEndEvent:
            if type(event) is not yaml.ScalarEvent:
                self.report(SpecError(self.dropped(event, flow), "mapping keys must be plain strings"))
                self.dropped(next_event(), flow)
                continue
            self.check_properties(event)
            key = self.scalar(event, flow, convert=False)  # `<<` is refused
            key_loc = _text_loc(text, path, event.start_mark, event.end_mark, key, event.style)
            if key in key_locs:
                self.report(SpecError(key_loc, f"duplicate key '{key}' (first defined at line {key_locs[key].line})"))
                self.dropped(next_event(), flow)
                continue
            result[key], value_locs[key] = node(next_event(), flow)
            key_locs[key] = key_loc
        self.depth -= 1
        return result

    def dropped(self, event: yaml.Event, in_flow: bool) -> TextLoc:
        """Reads the node starting with `event`, whose value is dropped; returns where it is."""
        self.dropping += 1
        _, loc = self.node(event, in_flow)
        self.dropping -= 1
        return loc


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
            return _Builder(text, path, parser.get_event, libyaml=True).load()
        except (yaml.YAMLError, RecursionError, UnicodeError, _PurePythonDecides):
            pass  # the pure-Python parser's events decide (see Note [Two event sources])
        finally:
            parser.dispose()
    try:
        parser = _PureParser(text)
        try:
            return _Builder(text, path, parser.get_event, libyaml=False).load()
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
    if value is None:  # `key:` with nothing after it, `~` or `null`
        return "an empty value"
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if isinstance(value, dict):
        return "a mapping" if value else "an empty mapping"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    return f"a value of YAML type {type(value).__name__}"

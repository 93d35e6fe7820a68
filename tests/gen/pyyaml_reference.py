"""The reference the YAML loader is tested against on the input it accepts (Note [Plain YAML] in
gen/model/yaml_loader.py: no anchors, aliases, tags or merge keys): PyYAML's pure-Python
SafeLoader (reader, scanner, parser, composer) with a SafeConstructor that makes LocDict/LocList.
Test code only."""
from __future__ import annotations

import yaml

from gen.model.errors import Loc, SpecError, TextLoc
from gen.model.yaml_loader import LocDict, LocList, _syntax_error, _tag_name, _text_loc


class _LocConstructor(yaml.constructor.SafeConstructor):
    """SafeConstructor building LocDict/LocList; duplicate keys are collected in `errors`."""

    def init_locations(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.errors: list[SpecError] = []

    def loc_of(self, node: yaml.Node) -> TextLoc:
        scalar = isinstance(node, yaml.ScalarNode)
        return _text_loc(self.text, self.path, node.start_mark, node.end_mark,
                         node.value if scalar else None, node.style if scalar else None)

    def construct_loc_dict(self, node: yaml.MappingNode):
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
            key = key_node.value  # kept as its text
            if key in result.key_locs:
                first = result.key_locs[key].line
                self.errors.append(SpecError(key_loc, f"duplicate key '{key}' (first defined at line {first})"))
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

    def construct_object(self, node: yaml.Node, deep: bool = False) -> object:
        """SafeConstructor's; a plain scalar its type cannot convert is a located error."""
        try:
            return super().construct_object(node, deep)
        except (ArithmeticError, AttributeError, LookupError, TypeError, ValueError):
            if type(node) is not yaml.ScalarNode:
                raise
            raise yaml.constructor.ConstructorError(
                None, None, f"'{node.value}' is not a valid {_tag_name(node.tag)}", node.start_mark) from None


_LocConstructor.add_constructor("tag:yaml.org,2002:map", _LocConstructor.construct_loc_dict)
_LocConstructor.add_constructor("tag:yaml.org,2002:seq", _LocConstructor.construct_loc_list)


class _Loader(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer,
              _LocConstructor, yaml.resolver.Resolver):
    """PyYAML's pure-Python loader (yaml.SafeLoader's parts) with the constructor above."""

    def __init__(self, text: str, path: str) -> None:
        yaml.reader.Reader.__init__(self, text)  # checks the characters right away
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        _LocConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)
        self.init_locations(text, path)


def load(text: str, path: str) -> tuple[object, list[SpecError]]:
    """As load_yaml_text, from the reference loader (for input without what it refuses)."""
    try:
        loader = _Loader(text, path)  # the reader checks the characters right away
        try:
            return loader.get_single_data(), loader.errors
        finally:
            loader.dispose()
    except yaml.YAMLError as e:
        raise _syntax_error(path, text, e) from None
    except RecursionError:
        raise SpecError(Loc(path, 1, 1), "invalid YAML: nested too deeply") from None


def first_refused(text: str) -> Loc | None:
    """Where the first thing the loader refuses (Note [Plain YAML]; a double-quoted string whose
    escape makes a character YAML does not allow unescaped) is, in the pure-Python parser's events
    of the first document, if it comes before any syntax error."""
    resolver = yaml.resolver.Resolver()
    documents = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            documents += type(event) is yaml.DocumentStartEvent
            if documents > 1:
                return None
            refused = type(event) is yaml.AliasEvent or getattr(event, "anchor", None) is not None \
                or getattr(event, "tag", None) is not None or (
                    type(event) is yaml.ScalarEvent and resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
                    in ("tag:yaml.org,2002:merge", "tag:yaml.org,2002:value")) or (
                    type(event) is yaml.ScalarEvent and event.style == '"'
                    and yaml.reader.Reader.NON_PRINTABLE.search(event.value) is not None)
            if refused:
                return Loc("f.yaml", event.start_mark.line + 1, event.start_mark.column + 1)
    except yaml.YAMLError:
        return None
    return None

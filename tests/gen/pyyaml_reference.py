"""The reference the YAML loader is tested against: what gen/model/yaml_loader.py did before it
had one builder (Note [One YAML builder]), PyYAML's pure-Python SafeLoader (reader, scanner,
parser, composer) with a SafeConstructor that makes LocDict/LocList. Test code only."""
from __future__ import annotations

import yaml

from gen.model.errors import Loc, SpecError
from gen.model.yaml_loader import (_MERGE_TAG, _RESOLVER_ONLY_TAGS, _STR_TAG, LocDict, LocList, _check_tag,
                                   _syntax_error, _tag_error, _tag_name, _text_loc)


class _LocConstructor(yaml.constructor.SafeConstructor):
    """SafeConstructor building LocDict/LocList; duplicate keys are collected in `errors`."""

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

    # See Note [Merge keys] (gen/model/yaml_loader.py).
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
    """As load_yaml_text, from the reference loader."""
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

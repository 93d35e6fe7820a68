"""yaml/tags.yaml: the tags an operator may carry (`tags:` in native_functions.yaml)."""
from __future__ import annotations

from dataclasses import dataclass

from gen.model.errors import Loc, SpecError, SpecErrors
from gen.model.schema import IDENT
from gen.model.yaml_loader import LocDict, top_level_entries, unknown_key_errors

_KEYS = ("tag", "desc")


@dataclass(frozen=True)
class Tag:
    """One tags.yaml entry: `name` from `tag:`, `desc` from `desc:`; `loc`: the name's."""

    name: str
    desc: str
    loc: Loc


def parse_tags(data: object, path: str) -> tuple[tuple[Tag, ...], list[SpecError]]:
    """Parses the loaded tags.yaml. Returns the valid tags and the errors found."""
    entries, errors = top_level_entries(data, path, "{tag, desc} entries")
    tags: list[Tag] = []
    seen: dict[str, Loc] = {}
    for item, loc in entries:
        try:
            tag = _parse_tag(item, loc)
        except SpecErrors as e:
            errors.extend(e.errors)
            continue
        except SpecError as e:
            errors.append(e)
            continue
        if tag.name in seen:
            errors.append(SpecError(
                tag.loc, f"duplicate tag '{tag.name}' (first defined at line {seen[tag.name].line})"))
            continue
        seen[tag.name] = tag.loc
        tags.append(tag)
    return tuple(tags), errors


def _parse_tag(item: object, loc: Loc) -> Tag:
    if not isinstance(item, LocDict):
        raise SpecError(loc, "a tag entry must be a mapping with keys 'tag' and 'desc'")
    unknown = unknown_key_errors(item, _KEYS)
    if unknown:
        raise SpecErrors(unknown)
    for key in _KEYS:
        if key not in item:
            raise SpecError(item.loc, f"missing required key '{key}'")
        if not isinstance(item[key], str) or not item[key].strip():
            where = item.value_locs[key] if item[key] is not None else item.key_locs[key]
            raise SpecError(where, f"'{key}' must be a non-empty string")
    if not IDENT.fullmatch(item["tag"]):
        raise SpecError(item.value_locs["tag"], f"tag '{item['tag']}' is not an identifier")
    return Tag(item["tag"], item["desc"].strip(), item.value_locs["tag"])

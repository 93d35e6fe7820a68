"""The schema grammar: the corpus shared with the C++ parser (tests/schemas/), and a
round-trip over every `func:` in yaml/native_functions.yaml."""
from __future__ import annotations

import pytest
import yaml

from gen.model.schema import BASE_TYPES, FunctionSchema, SchemaParseError, SchemaType, _parse_well_formed, _Parser
from genutil import REPO

SCHEMAS = REPO / "tests" / "schemas"


def _lines(name: str) -> list[str]:
    return [line for line in (SCHEMAS / name).read_text(encoding="utf-8").split("\n") if line]


def _invalid_cases() -> list[tuple[str, str]]:
    return [tuple(line.split("\t")) for line in _lines("invalid.txt")]


@pytest.mark.parametrize("schema", _lines("valid.txt"))
def test_valid_schema_round_trips(schema: str) -> None:
    assert str(FunctionSchema.parse(schema)) == schema


@pytest.mark.parametrize("schema,expected", _invalid_cases())
def test_invalid_schema_is_rejected(schema: str, expected: str) -> None:
    with pytest.raises(SchemaParseError) as info:
        FunctionSchema.parse(schema)
    assert expected in str(info.value)
    assert str(info.value).startswith(f"invalid schema '{schema}': ")


def test_corpus_covers_every_type_shape_alias_and_default_form() -> None:
    schemas = [FunctionSchema.parse(line) for line in _lines("valid.txt")]
    args = [a for s in schemas for a in s.arguments]
    types = [a.type for a in args] + [r.type for s in schemas for r in s.returns]
    for shape in ("", "?", "[]"):
        assert {t.base for t in types if t.shape == shape} >= set(BASE_TYPES), shape
    assert {t.shape for t in types} >= {"", "?", "[]", "[N]", "[]?", "[N]?", "?[]", "?[N]", "?[]?"}
    assert {t.alias for t in types} >= {"a", "a!", "a -> *", "a|b", "f|g!", "j! -> *"}
    defaults = {a.default for a in args}
    assert defaults >= {"None", "True", "False", "-1", "1e-05", "-inf", "inf", "nan", "[0,1]", "[]", '"mean"',
                        "long", "strided", "contiguous_format", "preserve_format", "channels_last", "cpu"}


def test_corpus_is_well_formed() -> None:
    assert len(_lines("valid.txt")) >= 40
    assert len(_invalid_cases()) >= 20
    assert all(len(case) == 2 and case[1] for case in _invalid_cases())


def _real_funcs() -> list[str]:
    with open(REPO / "yaml" / "native_functions.yaml", encoding="utf-8") as f:
        return [entry["func"] for entry in yaml.safe_load(f) or []]


@pytest.mark.parametrize("schema", _real_funcs())
def test_every_real_schema_round_trips(schema: str) -> None:
    assert str(FunctionSchema.parse(schema)) == schema


def test_parse_structure() -> None:
    s = FunctionSchema.parse("max.dim_max(Tensor self, int[2]? dim=None, *, Tensor(a!) max, "
                             "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)")
    assert (s.name.base, s.name.overload, s.name.namespace) == ("max", "dim_max", "")
    assert [a.name for a in s.arguments] == ["self", "dim", "max", "max_values"]
    assert [a.kwarg_only for a in s.arguments] == [False, False, True, True]
    assert s.arguments[1].type == SchemaType("int", None, "[2]?")
    assert s.arguments[1].type.list_size == 2 and s.arguments[1].type.shape == "[N]?"
    assert s.arguments[1].default == "None"
    assert [a.name for a in s.out_arguments] == ["max", "max_values"]
    assert [r.name for r in s.returns] == ["values", "indices"]
    assert s.parenthesized_returns and not s.is_inplace


def test_namespace_and_inplace() -> None:
    assert FunctionSchema.parse("myops::foo_(Tensor(a!) self) -> Tensor(a!)").name.namespace == "myops"
    assert FunctionSchema.parse("foo_(Tensor(a!) self) -> Tensor(a!)").is_inplace
    assert not FunctionSchema.parse("__and__(Tensor self, Tensor other) -> Tensor").is_inplace


@pytest.mark.parametrize("schema", [
    "f(float x=1e) -> Tensor",         # the C++ parser is laxer about numbers; we are not
    "f(int[2] x=[1.5,2]) -> Tensor",   # list elements must fit the element type
    "f(bool[2] x=[1,0]) -> Tensor",
    "f(int x=) -> Tensor",
])
def test_defaults_are_checked_strictly(schema: str) -> None:
    with pytest.raises(SchemaParseError, match="bad default"):
        FunctionSchema.parse(schema)


def test_error_column_points_at_the_problem() -> None:
    with pytest.raises(SchemaParseError) as info:
        FunctionSchema.parse("add(Tensor self, Tensr other) -> Tensor")
    assert info.value.column == len("add(Tensor self, ") + 1
    assert info.value.msg == "unknown type 'Tensr'"


# ---- Note [Schema fast path] ---------------------------------------------------------------

def _stepwise(text: str) -> FunctionSchema | None:
    try:
        return _Parser(text).parse()
    except SchemaParseError:
        return None


def _edits(text: str) -> list[str]:
    """`text` with each character deleted, and with each of a few characters the grammar
    cares about inserted before each character."""
    inserted = ("(", ")", ",", " ", "?", "[", "]", "=", "*", "!", '"', "\\", "a", "1", ":", ".")
    return ([text[:i] + text[i + 1:] for i in range(len(text))]
            + [text[:i] + c + text[i:] for i in range(len(text) + 1) for c in inserted])


def test_fast_path_reads_what_the_parser_reads() -> None:
    """_parse_well_formed() gives up or agrees with _Parser, on the corpus, the real schemas and
    every one-character edit of the valid corpus; it reads every well-formed schema there."""
    valid = _lines("valid.txt") + _real_funcs()
    for schema in valid:
        assert _parse_well_formed(schema) == _Parser(schema).parse(), schema
    for schema, _ in _invalid_cases():
        assert _parse_well_formed(schema) is None, schema
    for text in {edit for schema in _lines("valid.txt") for edit in _edits(schema)}:
        fast = _parse_well_formed(text)
        assert fast is None or fast == _stepwise(text), text

"""The model (gen/model): the located YAML loader, entry parsing, schema invariants; plus
lint checks on the generator's own layout (CONTRIBUTING.md sections 1, 4 and 5)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from genutil import REPO

from gen.model.errors import Loc, SpecError, TextLoc, close_match, format_error
from gen.model.native_function import DispatchKey, Variant
from gen.model.native_functions_yaml import parse_native_functions
from gen.model.schema import FunctionSchema
from gen.model.schema_checks import check_schema
from gen.model.tags import parse_tags
from gen.model.yaml_loader import LocDict, LocList, load_yaml

TAGS = frozenset({"core", "pointwise"})


def _load(tmp_path: Path, text: str):
    path = tmp_path / "f.yaml"
    path.write_text(text, encoding="utf-8")
    return load_yaml(str(path))


def test_loader_keeps_locations(tmp_path: Path) -> None:
    data, errors = _load(tmp_path, "# c\n- a: 1\n  b:\n    CPU: x\n- a: 2\n")
    assert errors == []
    assert isinstance(data, LocList) and isinstance(data[0], LocDict)
    assert (data.item_locs[1].line, data.item_locs[1].col) == (5, 3)
    assert (data[0].loc.line, data[0].loc.col) == (2, 3)
    assert (data[0].key_locs["b"].line, data[0].key_locs["b"].col) == (3, 3)
    assert (data[0]["b"].key_locs["CPU"].line, data[0]["b"].key_locs["CPU"].col) == (4, 5)
    assert (data[0]["b"].value_locs["CPU"].line, data[0]["b"].value_locs["CPU"].col) == (4, 10)


@pytest.mark.parametrize("value,col,exact", [
    ("neg(Tensor self)", 6, True),        # plain: the text starts at the value
    ("'neg(Tensor self)'", 7, True),      # quoted: after the quote
    ('"neg(Tensor self)"', 7, True),
    ('"neg(\\x41)"', 6, False),           # an escape: columns no longer match the text
    ("'it''s'", 6, False),
    ("|\n    neg\n", 6, False),           # block scalars: the indicator
    ("neg\n    (x)\n", 6, False),         # a plain scalar folded over two lines
])
def test_loader_value_locations(tmp_path: Path, value: str, col: int, exact: bool) -> None:
    data, _ = _load(tmp_path, f"- x: 1\n  f: {value}\n")
    loc = data[0].value_locs["f"]
    assert (loc.line, loc.col, loc.exact) == (2, col, exact)
    assert loc.at(2) == Loc(loc.path, 2, col + 2 if exact else col)


def test_loader_drops_bom_and_carriage_returns(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(b"\xef\xbb\xbf- a: 1\r\n- b: [x,\r\n     y]\r\n")
    data, _ = load_yaml(str(path))
    assert data[0].key_locs["a"] == TextLoc(str(path), 1, 3, exact=True)
    assert data[1]["b"].item_locs[1] == TextLoc(str(path), 3, 6, exact=True)


def test_loader_reports_bad_utf8_located(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(b"- a: 1\n- b: \xc3\xa9\xff\n")
    with pytest.raises(SpecError) as info:
        load_yaml(str(path))
    assert str(info.value) == f"{path}:2:7: error: file is not valid UTF-8: invalid start byte"


def test_loader_keeps_key_text(tmp_path: Path) -> None:
    data, _ = _load(tmp_path, "- on: 1\n  12: 2\n  CPU, CUDA: 3\n")
    assert list(data[0]) == ["on", "12", "CPU, CUDA"]


def test_loader_reports_every_duplicate_key(tmp_path: Path) -> None:
    _, errors = _load(tmp_path, "- a: 1\n  a: 2\n- b: 1\n  b: 2\n")
    assert [str(e) for e in errors] == [
        f"{tmp_path}/f.yaml:2:3: error: duplicate key 'a' (first defined at line 1)",
        f"{tmp_path}/f.yaml:4:3: error: duplicate key 'b' (first defined at line 3)",
    ]


def test_loader_reports_syntax_errors_located(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as info:
        _load(tmp_path, "- a: [1, 2\n- b: 3\n")
    assert (info.value.loc.line, info.value.loc.col) == (2, 4)
    assert info.value.msg.startswith("invalid YAML: ")


def _parse(tmp_path: Path, text: str):
    data, errors = _load(tmp_path, text)
    assert errors == []
    return parse_native_functions(data, "nf.yaml", TAGS)


def test_entry_fields(tmp_path: Path) -> None:
    functions, errors = _parse(tmp_path, (
        "- func: view(Tensor(a) self, int[] size) -> Tensor(a)\n"
        "  variants: method\n"
        "  dispatch:\n"
        "    CPU, Meta: view\n"
        "    CUDA: view_cuda\n"
        "  tags: core\n"
        "- func: neg(Tensor self) -> Tensor\n"
        "  dispatch: {CompositeImplicitAutograd: neg}\n"
        "  tags: [core, pointwise]\n"
        "  doc: |\n    Negates.\n    Elementwise.\n"))
    assert errors == []
    view, neg = functions
    assert view.name == "view" and view.variants == frozenset({Variant.method})
    assert [(k.key, k.kernel, k.loc.line, k.loc.col, k.kernel_loc.col) for k in view.dispatch] == [
        (DispatchKey.CPU, "view", 4, 5, 16), (DispatchKey.Meta, "view", 4, 10, 16),
        (DispatchKey.CUDA, "view_cuda", 5, 5, 11)]
    assert view.tags == ("core",) and neg.tags == ("core", "pointwise")
    assert neg.variants == frozenset({Variant.function})
    assert neg.func_loc == TextLoc(str(tmp_path / "f.yaml"), 7, 9, exact=True)
    assert view.doc == "" and neg.doc == "Negates.\nElementwise."


def test_one_error_per_bad_entry_and_good_entries_kept(tmp_path: Path) -> None:
    functions, errors = _parse(tmp_path, (
        "- func: a(Tensor self) -> Tensor\n  dispatch: {CPU: a}\n  variants: nope\n  tags: nope\n"
        "- func: b(Tensor self) -> Tensor\n  dispatch: {CPU: b}\n"
        "- 42\n"))
    assert [f.name for f in functions] == ["b"]
    assert [(e.loc.line, e.loc.col, e.msg) for e in errors] == [
        (3, 13, "unknown variant 'nope' (expected 'function' or 'method')"),
        (7, 3, "an operator entry must be a mapping ('- func: ...')"),
    ]


@pytest.mark.parametrize("schema,message", [
    ("add_(Tensor(a!) self, *, Tensor(b!) out) -> Tensor(a!)", "cannot have out= arguments"),
    ("f.out(Tensor self, *, Tensor(a!) out, Tensor(a!) out2) -> (Tensor(a!), Tensor(a!))",
     "must have distinct alias sets"),
    ("f.out(Tensor self, *, Tensor(a!)? out) -> Tensor(a!)", "must be a Tensor(x!) or a Tensor(x!)[], not Tensor(a!)?"),
    ("f(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", "needs an overload name"),
    ("f(Tensor self) -> (Tensor a, Tensor a)", "duplicate return name 'a'"),
    ("f(int(a!) x) -> ()", "argument 'x' is mutable (int(a!)): only Tensor arguments may be"),
    ("f(Tensor(a!) x) -> Tensor(a!)", "argument 'x' is mutable (Tensor(a!)) and returned"),
    ("f_(Tensor(a!)[] self) -> Tensor(a!)[]", "updates the tensor list 'self' (Tensor(a!)[]), so it returns '()'"),
    ("f_(Tensor(a!) self) -> Tensor(b!)", "must return 'Tensor(a!)' (got 'Tensor(b!)')"),
    ("f.out(Tensor self, *, Tensor(a!)[] out) -> Tensor(a!)[]", "fills the tensor list 'out', so it returns '()'"),
    ("f(Tensor(a) self) -> Tensor(a!)", "only an in-place 'self' or an out= argument may be returned mutable"),
])
def test_schema_invariants(schema: str, message: str) -> None:
    with pytest.raises(SpecError, match=re.escape(message)):
        check_schema(FunctionSchema.parse(schema), TextLoc("nf.yaml", 1, 1, exact=True))


@pytest.mark.parametrize("schema,token", [
    ("add_(Tensor(a!) self, *, Tensor(b!) out) -> Tensor(a!)", "Tensor(b!) out"),
    ("f.out(Tensor self, *, Tensor(a!) out, Tensor(a!) out2) -> (Tensor(a!), Tensor(a!))", "Tensor(a!) out2"),
    ("f.out(Tensor self, *, Tensor(a!)? out) -> Tensor(a!)", "Tensor(a!)? out"),
    ("f(Tensor self) -> (Tensor a, Tensor a)", "Tensor a)"),
    ("f(int(a!) x) -> ()", "int(a!) x"),
    ("f_(Tensor(a!) self) -> ()", "()"),
])
def test_schema_invariants_point_at_the_token(schema: str, token: str) -> None:
    """The error column is where `token` starts in the schema (the last occurrence)."""
    with pytest.raises(SpecError) as info:
        check_schema(FunctionSchema.parse(schema), TextLoc("nf.yaml", 3, 10, exact=True))
    assert (info.value.loc.line, info.value.loc.col) == (3, 10 + schema.rindex(token))


@pytest.mark.parametrize("schema", [
    "max.dim_max(Tensor self, int dim, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
    "relu_(Tensor(a!) self) -> Tensor(a!)",
    "t(Tensor(a) self) -> Tensor(a)",
    "__and__(Tensor self, Tensor other) -> Tensor",
    # torchgen's rules, which PyTorch's own schemas follow (Note [Operator kinds]):
    "_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()",
    "split_copy.Tensor_out(Tensor self, int split_size, *, Tensor(a!)[] out) -> ()",
    "_bn_stats(Tensor input, Tensor(a!) running_mean, Tensor(b!) running_var) -> (Tensor, Tensor)",
    "set_data(Tensor(a!) self, Tensor new_data) -> ()",
    "__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "split(Tensor(a -> *) self, int split_size) -> Tensor(a)[]",
    "relu_(Tensor(b!) self) -> Tensor(b!)",
])
def test_schema_invariants_accept(schema: str) -> None:
    check_schema(FunctionSchema.parse(schema), TextLoc("nf.yaml", 1, 1))


def test_tags(tmp_path: Path) -> None:
    data, _ = _load(tmp_path, "- tag: core\n  desc: |\n    Core set.\n- tag: 1x\n  desc: d\n- {tag: z, desc: d, extra: 1}\n")
    tags, errors = parse_tags(data, "tags.yaml")
    assert [(t.name, t.desc) for t in tags] == [("core", "Core set.")]
    assert [(e.loc.line, e.loc.col, e.msg) for e in errors] == [
        (4, 8, "tag '1x' is not an identifier"),
        (6, 21, "unknown key 'extra' (expected one of: tag, desc)")]


@pytest.mark.parametrize("word,choices,match", [
    ("dispach", ("func", "dispatch", "tags"), "dispatch"),
    ("cpu", ("CPU", "CUDA"), "CPU"),          # case is ignored
    ("CPUU", ("CPU", "CUDA", "Meta"), "CPU"),
    ("XLA", ("CPU", "CUDA", "Meta"), None),   # nothing close: no guess
    ("doc", ("func", "variants", "dispatch", "tags"), None),
])
def test_close_match(word: str, choices: tuple[str, ...], match) -> None:
    assert close_match(word, choices) == match


def test_format_error_shows_the_line_and_a_caret() -> None:
    source = "a: 1\nbb:\tcc: x\n"
    error = SpecError(Loc("f.yaml", 2, 6), "msg")
    assert format_error(error, source) == "f.yaml:2:6: error: msg\nbb:\tcc: x\n   \t ^"
    past_the_end = SpecError(Loc("f.yaml", 1, 6), "msg")
    assert format_error(past_the_end, source) == "f.yaml:1:6: error: msg\na: 1\n     ^"
    assert format_error(error, None) == "f.yaml:2:6: error: msg"
    assert format_error(SpecError(Loc("f.yaml", 9, 1), "msg"), source) == "f.yaml:9:1: error: msg"
    # Lines are counted as YAML counts them: U+2028 ends a line too.
    assert format_error(SpecError(Loc("f.yaml", 2, 1), "msg"), "a: 1\u2028b: 2") == "f.yaml:2:1: error: msg\nb: 2\n^"


# ---- lint: the generator's own layout ----------------------------------------------------

GEN = REPO / "gen"


def _gen_modules() -> list[Path]:
    return sorted(GEN.rglob("*.py"))


@pytest.mark.parametrize("path", _gen_modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_module_size(path: Path) -> None:
    """Which way imports go is checked in test_imports.py."""
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 600
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            assert node.end_lineno - node.lineno < 50, f"{node.name} is too long"
            assert len(node.args.args) + len(node.args.kwonlyargs) <= 6, f"{node.name}: too many parameters"


def test_templates_have_a_header_and_no_logic() -> None:
    """No comparisons and no filters inside {{ }} and {% %} (Markdown tables may use `|`)."""
    for path in sorted((GEN / "templates").glob("*.j2")):
        text = path.read_text(encoding="utf-8")
        assert text.startswith("{#"), f"{path.name} must start with a {{# #}} header"
        assert len(text.splitlines()) <= 150
        for tag in re.findall(r"\{\{.*?\}\}|\{%.*?%\}", text, re.DOTALL):
            assert "==" not in tag and "|" not in tag, f"{path.name}: {tag}"


def test_referenced_notes_exist() -> None:
    """Every `Note [Title]` mentioned in gen/, runtime/ or kernels/ is defined somewhere there."""
    files = [*GEN.rglob("*.py"), *GEN.rglob("*.j2"),
             *(p for d in ("runtime", "kernels") for p in (REPO / d).rglob("*") if p.is_file())]
    sources = [p.read_text(encoding="utf-8") for p in files]
    # A definition is a comment line of its own: "// Note [Title]" or "# Note [Title]".
    defined = {title for text in sources
               for title in re.findall(r"^[ \t]*(?:#|//)?[ \t]*Note \[([^\]\n]+)\][ \t]*$", text, re.MULTILINE)}
    assert defined
    for text in sources:
        for title in re.findall(r"Note \[([^\]]+)\]", text):
            # A reference may wrap onto the next comment line: "(Note [Node inputs and\n// outputs])".
            title = re.sub(r"\s*\n\s*(#|//)?\s*", " ", title)
            assert title in defined, title


def test_an_empty_dispatch_is_no_kernel_in_pytorch_mode_only(tmp_path: Path) -> None:
    """`dispatch: {}` (PyTorch's _nested_* entries): torchgen registers no kernel at all; opcore's
    own rules call it a mistake."""
    from gen.model.options import PYTORCH_OPTIONS
    data, _ = _load(tmp_path, "- func: _nested_thing(Tensor self) -> Tensor\n  dispatch: {}\n")
    functions, errors = parse_native_functions(data, "f.yaml", None, PYTORCH_OPTIONS)
    assert errors == [] and [f.dispatch for f in functions] == [()]
    _, errors = parse_native_functions(data, "f.yaml", None)
    assert [(e.loc.line, e.msg) for e in errors] == [
        (2, "'dispatch' must be a mapping from dispatch keys to kernel names")]


def test_an_out_overload_name_without_out_arguments_in_pytorch_mode_only(tmp_path: Path) -> None:
    """`fbgemm_linear_fp16_weight.out` (PyTorch) writes a positional output: torchgen does not
    reserve the name `out`; opcore's own rules do."""
    from gen.model.options import PYTORCH_OPTIONS
    data, _ = _load(tmp_path, "- func: fbgemm_linear_fp16_weight.out(Tensor input, Tensor packed_weight, "
                              "Tensor? bias, Tensor output) -> Tensor\n"
                              "  dispatch:\n    CPU: fbgemm_linear_fp16_weight\n")
    functions, errors = parse_native_functions(data, "f.yaml", None, PYTORCH_OPTIONS)
    assert errors == [] and [(f.name, f.func.is_out) for f in functions] == [("fbgemm_linear_fp16_weight.out", False)]
    _, errors = parse_native_functions(data, "f.yaml", None)
    assert [(e.loc.line, e.loc.col, e.msg) for e in errors] == [
        (1, 35, "overload name 'out' is reserved for out= overloads, which take a keyword-only 'Tensor(a!) out' "
                "argument")]


def test_a_method_the_runtime_defines_is_not_generated(tmp_path: Path) -> None:
    """PyTorch declares `detach` as a method; opcore's runtime defines Tensor::detach() (autograd):
    --pytorch-yaml keeps the operator's function, opcore's rules ask for `variants: function`."""
    from gen.model.native_function import Variant
    from gen.model.options import PYTORCH_OPTIONS
    data, _ = _load(tmp_path, "- func: detach(Tensor(a) self) -> Tensor(a)\n  variants: function, method\n"
                              "  dispatch:\n    CompositeExplicitAutograd: detach\n")
    functions, errors = parse_native_functions(data, "f.yaml", None, PYTORCH_OPTIONS)
    assert errors == [] and [f.variants for f in functions] == [frozenset({Variant.function})]
    _, errors = parse_native_functions(data, "f.yaml", None)
    assert [(e.loc.line, e.loc.col, e.msg) for e in errors] == [
        (2, 13, "Tensor::detach() is defined by the runtime (by hand, in Tensor.h): declare the operator with "
                "'variants: function'")]

"""The model (gen/model): the located YAML loader, entry parsing, schema invariants; plus
lint checks on the generator's own layout (STYLE.md sections 1, 4 and 10)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from genutil import REPO

from gen.model.errors import Loc, SpecError
from gen.model.invariants import check_schema
from gen.model.native_function import DispatchKey, Variant, parse_native_functions
from gen.model.schema import FunctionSchema
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
    assert data.item_locs[1].line == 5
    assert data[0].loc.line == 2 and data[0].key_locs["b"].line == 3
    assert data[0]["b"].key_locs["CPU"].line == 4


def test_loader_keeps_key_text(tmp_path: Path) -> None:
    data, _ = _load(tmp_path, "- on: 1\n  12: 2\n  CPU, CUDA: 3\n")
    assert list(data[0]) == ["on", "12", "CPU, CUDA"]


def test_loader_reports_every_duplicate_key(tmp_path: Path) -> None:
    _, errors = _load(tmp_path, "- a: 1\n  a: 2\n- b: 1\n  b: 2\n")
    assert [str(e) for e in errors] == [
        f"{tmp_path}/f.yaml:2: error: duplicate key 'a' (first defined at line 1)",
        f"{tmp_path}/f.yaml:4: error: duplicate key 'b' (first defined at line 3)",
    ]


def test_loader_reports_syntax_errors_located(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as info:
        _load(tmp_path, "- a: [1, 2\n- b: 3\n")
    assert info.value.loc.line == 2 and info.value.msg.startswith("invalid YAML: ")


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
        "  tags: [core, pointwise]\n"))
    assert errors == []
    view, neg = functions
    assert view.name == "view" and view.variants == frozenset({Variant.method})
    assert [(k.key, k.kernel, k.loc.line) for k in view.dispatch] == [
        (DispatchKey.CPU, "view", 4), (DispatchKey.Meta, "view", 4), (DispatchKey.CUDA, "view_cuda", 5)]
    assert view.tags == ("core",) and neg.tags == ("core", "pointwise")
    assert neg.variants == frozenset({Variant.function})
    assert neg.func_loc == Loc(str(tmp_path / "f.yaml"), 7)


def test_one_error_per_bad_entry_and_good_entries_kept(tmp_path: Path) -> None:
    functions, errors = _parse(tmp_path, (
        "- func: a(Tensor self) -> Tensor\n  dispatch: {CPU: a}\n  variants: nope\n  tags: nope\n"
        "- func: b(Tensor self) -> Tensor\n  dispatch: {CPU: b}\n"
        "- 42\n"))
    assert [f.name for f in functions] == ["b"]
    assert [(e.loc.line, e.msg) for e in errors] == [
        (3, "unknown variant 'nope' (expected 'function' or 'method')"),
        (7, "an operator entry must be a mapping ('- func: ...')"),
    ]


@pytest.mark.parametrize("schema,message", [
    ("add_(Tensor(a!) self, *, Tensor(b!) out) -> Tensor(a!)", "cannot have out= arguments"),
    ("f.out(Tensor self, *, Tensor(a!) out, Tensor(a!) out2) -> (Tensor(a!), Tensor(a!))",
     "must have distinct alias sets"),
    ("f.out(Tensor self, *, Tensor(a!)? out) -> Tensor(a!)", "must be a Tensor(x!), not Tensor(a!)?"),
    ("f(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", "needs an overload name"),
    ("f(Tensor self) -> (Tensor a, Tensor a)", "duplicate return name 'a'"),
    ("f(int(a!) x) -> ()", "argument 'x' is mutable"),
])
def test_schema_invariants(schema: str, message: str) -> None:
    with pytest.raises(SpecError, match=re.escape(message)):
        check_schema(FunctionSchema.parse(schema), Loc("nf.yaml", 1))


@pytest.mark.parametrize("schema", [
    "max.dim_max(Tensor self, int dim, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
    "relu_(Tensor(a!) self) -> Tensor(a!)",
    "t(Tensor(a) self) -> Tensor(a)",
    "__and__(Tensor self, Tensor other) -> Tensor",
])
def test_schema_invariants_accept(schema: str) -> None:
    check_schema(FunctionSchema.parse(schema), Loc("nf.yaml", 1))


def test_tags(tmp_path: Path) -> None:
    data, _ = _load(tmp_path, "- tag: core\n  desc: |\n    Core set.\n- tag: 1x\n  desc: d\n- {tag: z, desc: d, extra: 1}\n")
    tags, errors = parse_tags(data, "tags.yaml")
    assert [(t.name, t.desc) for t in tags] == [("core", "Core set.")]
    assert [e.msg for e in errors] == ["tag '1x' is not an identifier", "unknown key(s): extra"]


# ---- lint: the generator's own layout ----------------------------------------------------

GEN = REPO / "gen"
_LAYERS = {"model": {"api", "emit", "pipeline", "output"}, "api": {"emit", "pipeline", "output"},
           "emit": {"pipeline", "output"}}


def _gen_modules() -> list[Path]:
    return sorted(GEN.rglob("*.py"))


@pytest.mark.parametrize("path", _gen_modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_module_size_and_imports(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 600
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            assert node.end_lineno - node.lineno < 50, f"{node.name} is too long"
            assert len(node.args.args) + len(node.args.kwonlyargs) <= 6, f"{node.name}: too many parameters"
    layer = path.relative_to(GEN).parts[0]
    forbidden = _LAYERS.get(layer, set())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gen."):
            assert node.module.split(".")[1] not in forbidden, f"{path.name} imports {node.module}"


def test_templates_have_a_header_and_no_logic() -> None:
    for path in sorted((GEN / "templates").glob("*.j2")):
        text = path.read_text(encoding="utf-8")
        assert text.startswith("{#"), f"{path.name} must start with a {{# #}} header"
        assert len(text.splitlines()) <= 150
        assert "==" not in text and "|" not in text.replace("{#", "").split("#}", 1)[1], path.name


def test_referenced_notes_exist() -> None:
    """Every `Note [Title]` mentioned in gen/, runtime/ or kernels/ is defined somewhere there."""
    files = [*GEN.rglob("*.py"), *GEN.rglob("*.j2"),
             *(p for d in ("runtime", "kernels") for p in (REPO / d).rglob("*") if p.is_file())]
    sources = [p.read_text(encoding="utf-8") for p in files]
    everything = "\n".join(sources)
    for text in sources:
        for title in re.findall(r"Note \[([^\]]+)\]", text):
            assert re.search(r"(^|\n)\s*(#|//)?\s*Note \[" + re.escape(title) + r"\]\s*\n", everything), title

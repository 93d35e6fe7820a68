"""The YAML loader's one builder (Note [One YAML builder] in gen/model/yaml_loader.py), fed by
libyaml's events when installed, must give exactly what PyYAML's pure-Python SafeLoader with a
LocDict/LocList constructor gives (pyyaml_reference.py: data, locations, duplicate-key errors),
and every syntax error must keep the pure-Python parser's wording."""
from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Callable

import pytest
import yaml
from genutil import FIXTURES, REPO

from gen.model import yaml_loader
from gen.model.errors import Loc, SpecError
from gen.model.yaml_loader import LocDict, LocList, load_yaml_text

sys.path.insert(0, str(REPO / "bench"))
import make_synthetic_yaml  # noqa: E402  (needs the path above)
import pyyaml_reference  # noqa: E402  (beside this file)

needs_libyaml = pytest.mark.skipif(yaml_loader._CParser is None, reason="python3-yaml without libyaml")

_YAML_FILES = sorted(
    [p for p in (Path(__file__).parent / "errors").glob("*.yaml")]
    + [p for p in FIXTURES.rglob("*.yaml")] + [p for p in (REPO / "yaml").glob("*.yaml")]
)

# Valid YAML whose marks could differ between the parsers: empty values, quoting styles,
# block scalars, flow collections, non-ASCII text, Unicode line breaks, anchors, merge keys,
# tags, comments, explicit keys, documents markers.
_SNIPPETS = [
    "key:\n", "a:\nb: 1\n", "- \n- x\n", "é: ü\nx: 'é'\n", "a: [x, ]\n",
    "? a\n", "a: b\u2028c: d\n", "a: b\x85c: d\n", "a: |\n  x\n  y\nb: >-\n  z\n",
    'a: "x\\ty"\n', "a:  b  # c\n", "- [a, b: c]\n", "--- x\n", "a: b\n...\n", "a: &x [1]\nb: *x\n",
    "a: !!str 1\n", "<<: {a: 1}\nb: 2\n", "a: 'x\n  y'\n", "a: 'it''s'\n", "- {CPU: x, CUDA: y}\n",
    "a: yes\nb: 0x1f\nc: 1.5e3\nd: ~\ne: 2001-12-14\n", "- func: f(Tensor self) -> Tensor\n  doc: |\n    text\n",
    "a: 1\na: 2\n", "[1, 2]: x\n", "{a: b}: c\n", "", "# only a comment\n", "- \U0001f600: x\n",
    "a:\n  - b\n  -  c\n", "a: >\n  folded\n  text\n\n  more\n", "a: \"multi\n  line\"\n",
]
# Input on which the parsers disagree (found by differential fuzzing): marks of empty flow
# scalars, tags and `?` in flow collections, tabs, inner byte-order marks, no final line break.
_DIFFERENT = [
    "a: {b: , c}\n", "[{? :} ,]\n", "--- {? ~, ? ,}  \n", "[[!!str, 1, !!str ,], 1]\n",
    "{? !!str, ? {}}\n", "tags: [core, poin?twise]\n", "{}\t\n", "0o17\t\n", "-   [ \t]\n",
    "a: \ufeffb\n", "  \ufeffs: True\n", "\n---", "\n  ?", "a: b", "!\n", "a: !\n", "- ! 1\n",
]

# What SafeConstructor makes of aliases, merge keys and tags, errors included, and which error
# comes first (Note [One YAML builder]): values of duplicate keys are constructed only through
# an alias, merge errors of a mapping come before those of its values, composer errors before all.
_CONSTRUCTION = [
    "a: {k: &x {m: 1, m: 2}, k: 3}\nb: *x\n", "a: {k: &x {c: !!int q}, k: 1}\nb: *x\n", "&a {<<: *a}\n",
    "a: !!set {? x, ? y}\n", "a: !!omap [x: 1, y: 2]\n", "a: !!pairs [x: 1, x: 2]\n", "a: !!omap [1]\n",
    "a: =\n", "a: <<\n", "=: 1\n", "<<: 5\n", "a: !!int x\n<<: 5\n", "a: &a 1\nb: &a 2\n", "--- a\n--- b\n",
    "a: &z {k: 1, k: 2}\nb:\n  <<: *z\n", "a: &z {[1]: 2}\nb: {<<: *z}\nc: {<<: *z}\n", "[1]: !!int x\n",
    "a: 1\na: !!int x\n", "*a: x\n", "&k a: 1\n*k : 2\n", "a: &l [1]\n*l : 3\n", "!!merge <<: {a: 1}\n",
    "a: [&x 1, *x]\n", "a: !!binary aGk=\n", "<<: [{a: 1}, 5]\n", "a: {<<: {b: {<<: 3}}}\n", "- !!str\n- !!null\n",
    "x: &a [*a]\n", "a: &a !!omap [x: *a]\n", "&a !!set {? *a}\n",
]
# Documents that hold themselves (SafeConstructor allows it only for the document's node).
_RECURSIVE = ["&a [*a]\n", "&a {b: *a}\n", "&t !!map {a: !!seq [*t]}\n", "&a !!omap [x: *a]\n", "&a !!pairs [x: *a]\n"]


def _same(fast: object, slow: object) -> bool:
    """Equal values with equal locations, all the way down."""
    if type(fast) is not type(slow):
        return False
    if isinstance(fast, LocDict):
        return ((fast.loc, fast.key_locs, fast.value_locs, list(fast)) == (slow.loc, slow.key_locs, slow.value_locs, list(slow))
                and all(_same(fast[k], slow[k]) for k in fast))
    if isinstance(fast, LocList):
        return ((fast.loc, fast.item_locs, len(fast)) == (slow.loc, slow.item_locs, len(slow))
                and all(_same(a, b) for a, b in zip(fast, slow)))
    return fast == slow


def _outcome(load: Callable[[], tuple[object, list[SpecError]]]) -> tuple[object, list[str]]:
    """(data, duplicate-key errors) or (None, [the error or exception])."""
    try:
        data, errors = load()
        return data, [str(e) for e in errors]
    except Exception as e:  # noqa: BLE001 (compared by the caller)
        return None, [f"{type(e).__name__}: {e}"]


def _pure_python(text: str) -> tuple[object, list[str]]:
    """What load_yaml_text did before libyaml was used: PyYAML's pure-Python loader alone."""
    return _outcome(lambda: pyyaml_reference.load(text, "f.yaml"))


def _assert_as_pure_python(text: str) -> None:
    got, expected = _outcome(lambda: load_yaml_text(text, "f.yaml")), _pure_python(text)
    assert got[1] == expected[1]
    assert _same(got[0], expected[0]), "the data or its locations differ from the pure-Python parser's"


def _libyaml_parses(text: str) -> bool:
    """Whether load_yaml_text takes what the builder makes of libyaml's events (no second run
    on the pure-Python parser's)."""
    if not yaml_loader._libyaml_agrees(text):
        return False
    parser = yaml_loader._CParser(text)
    try:
        yaml_loader._Builder(text, "f.yaml", parser, libyaml=True).load()
        return True
    except (yaml.YAMLError, RecursionError, yaml_loader._PurePythonDecides):
        return False
    finally:
        parser.dispose()


@needs_libyaml
@pytest.mark.parametrize("path", _YAML_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_same_as_pure_python_on_the_repository_files(path: Path) -> None:
    _assert_as_pure_python(yaml_loader.read_source(str(path)))


@needs_libyaml
@pytest.mark.parametrize("text", _SNIPPETS + _DIFFERENT)
def test_same_as_pure_python_on_tricky_yaml(text: str) -> None:
    _assert_as_pure_python(text)


@pytest.mark.parametrize("text", _CONSTRUCTION)
def test_same_as_pure_python_on_aliases_merges_and_tags(text: str) -> None:
    _assert_as_pure_python(text)


@pytest.mark.parametrize("text", _RECURSIVE)
def test_a_document_may_hold_itself(text: str) -> None:
    got, expected = _outcome(lambda: load_yaml_text(text, "f.yaml")), _pure_python(text)
    assert (type(got[0]), repr(got[0]), got[1]) == (type(expected[0]), repr(expected[0]), expected[1])


@needs_libyaml
@pytest.mark.parametrize("text", _DIFFERENT)
def test_input_the_parsers_treat_differently_goes_to_pure_python(text: str) -> None:
    assert not _libyaml_parses(text)


@needs_libyaml
def test_same_as_pure_python_on_edited_yaml() -> None:
    """Random edits of the repository's YAML (mostly syntax errors, some valid), seeded."""
    rng = random.Random(4)
    lines = (REPO / "yaml" / "native_functions.yaml").read_text(encoding="utf-8").split("\n")
    pieces = list(" :-[]{},'\"#&*!|>?%@`\n\\") + ["  ", "é", "\u2028", "\x85", "\t", "\ufeff", "---", "? ", "\n- "]
    for _ in range(400):
        start = rng.randrange(len(lines))
        text = "\n".join(lines[start:start + rng.randint(1, 30)]) + "\n"
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(pieces) + text[at + rng.randint(0, 2):]
        _assert_as_pure_python(text)


@needs_libyaml
def test_libyaml_parses_the_repository_and_benchmark_yaml(tmp_path: Path) -> None:
    """The fast path is taken on the files that matter for speed (no silent fallback)."""
    make_synthetic_yaml.write(tmp_path, 300)
    paths = [tmp_path / "native_functions.yaml", tmp_path / "tags.yaml"] + list((REPO / "yaml").glob("*.yaml"))
    for path in paths:
        text = yaml_loader.read_source(str(path))
        assert _libyaml_parses(text), path
        _assert_as_pure_python(text)


def _error(text: str) -> str:
    with pytest.raises(SpecError) as info:
        load_yaml_text(text, "f.yaml")
    return str(info.value)


@pytest.mark.parametrize("text,expected", [
    # libyaml words these differently ("found character that cannot start any token"...).
    ("\ta: b\n", "f.yaml:1:1: error: invalid YAML: found character '\\t' that cannot start any token "
                 "(while scanning for the next token)"),
    ("a: [b\n", "f.yaml:2:1: error: invalid YAML: expected ',' or ']', but got '<stream end>' "
                "(while parsing a flow sequence that starts at line 1)"),
    ("a: \x07\n", "f.yaml:1:4: error: invalid YAML: character #x0007 is not allowed"),
    ("a: *nowhere\n", "f.yaml:1:4: error: invalid YAML: found undefined alias 'nowhere'"),
])
def test_syntax_errors_keep_pyyaml_wording(text: str, expected: str) -> None:
    assert _error(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("a: !!map x\n", "1:4: error: invalid YAML: the tag !!map needs a mapping, not a scalar"),
    ("!!map [1]\n", "1:1: error: invalid YAML: the tag !!map needs a mapping, not a sequence"),
    ("a: !!seq x\n", "1:4: error: invalid YAML: the tag !!seq needs a sequence, not a scalar"),
    ("a: [b, !!seq {c: 1}]\n", "1:8: error: invalid YAML: the tag !!seq needs a sequence, not a mapping"),
    ("a: !!omap {b: 1}\n", "1:4: error: invalid YAML: the tag !!omap needs a sequence, not a mapping"),
    ("a: !!set x\n", "1:4: error: invalid YAML: the tag !!set needs a mapping, not a scalar"),
    ("a: !!str {b: 1}\n", "1:4: error: invalid YAML: the tag !!str needs a scalar, not a mapping"),
    ("a: !!int [1]\n", "1:4: error: invalid YAML: the tag !!int needs a scalar, not a sequence"),
    ("- !!map\n", "1:3: error: invalid YAML: the tag !!map needs a mapping, not a scalar"),
    ("a: !foo x\n", "1:4: error: invalid YAML: unknown tag '!foo'"),
    ("a: !<tag:x.org,1:y> x\n", "1:4: error: invalid YAML: unknown tag 'tag:x.org,1:y'"),
    ("a: !!python/name:os.system x\n", "1:4: error: invalid YAML: unknown tag '!!python/name:os.system'"),
    ("a: !!int x\n", "1:4: error: invalid YAML: 'x' is not a valid !!int"),
    ("a: {b: !!float x}\n", "1:8: error: invalid YAML: 'x' is not a valid !!float"),
    ("a: !!bool maybe\n", "1:4: error: invalid YAML: 'maybe' is not a valid !!bool"),
    ("a: 2001-13-01\n", "1:4: error: invalid YAML: '2001-13-01' is not a valid !!timestamp"),
    ("!!map a: 1\n", "1:1: error: invalid YAML: the tag !!map needs a mapping, not a scalar"),
    ("!foo a: 1\n", "1:1: error: invalid YAML: unknown tag '!foo'"),
    ("<<: !!seq {a: 1}\n", "1:5: error: invalid YAML: the tag !!seq needs a sequence, not a mapping"),
    ("<<: [{a: 1}, !!str {b: 2}]\n", "1:14: error: invalid YAML: the tag !!str needs a scalar, not a mapping"),
])
def test_a_tag_on_the_wrong_kind_of_node_is_a_located_error(text: str, expected: str) -> None:
    """Not a Python exception from inside PyYAML (see Note [YAML tags])."""
    assert _error(text) == f"f.yaml:{expected}"


@pytest.mark.parametrize("text,value", [
    ("a: !!str 1\n", {"a": "1"}), ("a: !!int '7'\n", {"a": 7}), ("a: !!map {b: !!seq [1]}\n", {"a": {"b": [1]}}),
    ("!!int 1: x\n", {"1": "x"}), ("a: !!null ''\n", {"a": None}), ("a: ! x\n", {"a": "x"}),
])
def test_a_tag_on_the_right_kind_of_node_is_fine(text: str, value: object) -> None:
    assert load_yaml_text(text, "f.yaml") == (value, [])


def test_without_libyaml_the_results_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    text = yaml_loader.read_source(str(FIXTURES / "mini" / "native_functions.yaml"))
    with_libyaml = load_yaml_text(text, "f.yaml")
    monkeypatch.setattr(yaml_loader, "_CParser", None)
    without = load_yaml_text(text, "f.yaml")
    assert _same(with_libyaml[0], without[0])
    assert _error("a: [b\n").startswith("f.yaml:2:1: error: invalid YAML: expected ',' or ']'")


@pytest.mark.parametrize("depth", [1_000, 200_000])
def test_deep_nesting_is_an_error_not_a_crash(depth: int) -> None:
    """libyaml's own composer would overflow the C stack here (see the Note)."""
    assert _error("[" * depth + "]" * depth) == "f.yaml:1:1: error: invalid YAML: nested too deeply"


# ---- Note [Merge keys] -------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "- &z {func: a, x: 1}\n- <<: *z\n  func: b\n",
    "- &z {func: a, x: 1}\n- func: b\n  <<: *z\n",
    "a: &a {k: 1, j: 1}\nb: &b {k: 2, m: 2}\nc:\n  <<: [*a, *b]\n  j: 3\n",
    "a: &a {k: 1, n: 0}\nb: &b\n  <<: *a\n  k: 2\nc:\n  <<: *b\n  k: 3\n",
])
def test_own_keys_override_merged_ones(text: str) -> None:
    """YAML's merge semantics (as yaml.safe_load applies them), without a duplicate-key error."""
    data, errors = load_yaml_text(text, "x.yaml")
    assert errors == []
    assert data == yaml.safe_load(text)


def test_an_own_key_given_twice_beside_a_merge_is_still_a_duplicate() -> None:
    data, errors = load_yaml_text("- &z {func: a}\n- <<: *z\n  func: b\n  func: c\n", "x.yaml")
    assert [str(e) for e in errors] == ["x.yaml:4:3: error: duplicate key 'func' (first defined at line 3)"]
    assert data[1].key_locs["func"].line == 3


# ---- input files that are no YAML file --------------------------------------------------------

def _yaml_dir_with(tmp_path: Path, name: str, make: Callable[[Path], None]) -> Path:
    yaml_dir = tmp_path / "yaml"
    yaml_dir.mkdir()
    for other in ("native_functions.yaml", "tags.yaml", "derivatives.yaml"):
        if other != name:
            (yaml_dir / other).write_bytes((FIXTURES / "mini" / other).read_bytes())
    make(yaml_dir / name)
    return yaml_dir


@pytest.mark.parametrize("name,make,message", [
    ("tags.yaml", lambda p: __import__("os").mkfifo(p), "not a regular file"),            # would block
    ("native_functions.yaml", lambda p: p.symlink_to("/dev/zero"), "not a regular file"),  # never ends
    ("derivatives.yaml", lambda p: __import__("os").truncate(p.touch() or p, 65 * 2**20),
     "larger than 64 MiB, the most an input may hold"),
])
def test_an_input_that_is_not_a_small_regular_file_is_a_located_error(
        tmp_path: Path, name: str, make: Callable[[Path], None], message: str) -> None:
    from genutil import run_gen
    yaml_dir = _yaml_dir_with(tmp_path, name, make)
    result = run_gen("--yaml-dir", str(yaml_dir), "--out", str(tmp_path / "out"))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr == f"{yaml_dir / name}:1:1: error: cannot read file: {message}\n"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("flags", [["--out", ""], ["--yaml-dir", ""], ["--check", ""], ["--manifest", ""],
                                   ["--depfile", ""], ["--stamp", ""], ["--lint", "kernels", ""]])
def test_an_empty_path_is_a_usage_error(tmp_path: Path, flags: list[str]) -> None:
    """Not the working directory: `--out ''` would write ./build/generated there."""
    from genutil import run_gen
    result = run_gen(*flags, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"error: {flags[0]} needs a path, not an empty string" in result.stderr
    assert list(tmp_path.iterdir()) == []

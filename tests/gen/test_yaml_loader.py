"""The YAML loader's one builder (Note [Two event sources] in gen/model/yaml_loader.py), fed by
libyaml's events when installed, must give exactly what PyYAML's pure-Python SafeLoader with a
LocDict/LocList constructor gives (pyyaml_reference.py: data, locations, duplicate-key errors),
and every syntax error must keep the pure-Python parser's wording; what opcore's YAML does not
use (Note [Plain YAML]: anchors, aliases, tags, merge keys) is refused, located where written."""
from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Callable

import pytest
import yaml
from genutil import FIXTURES, REPO

from gen.model import yaml_loader
from gen.model.errors import SpecError
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
# block scalars, flow collections, non-ASCII text, Unicode line breaks, comments, explicit keys,
# documents markers; and anchors, merge keys and tags, which are refused.
_SNIPPETS = [
    "key:\n", "a:\nb: 1\n", "- \n- x\n", "é: ü\nx: 'é'\n", "a: [x, ]\n",
    "? a\n", "a: b\u2028c: d\n", "a: b\x85c: d\n", "a: |\n  x\n  y\nb: >-\n  z\n",
    'a: "x\\ty"\n', "a:  b  # c\n", "- [a, b: c]\n", "--- x\n", "a: b\n...\n", "a: &x [1]\nb: *x\n",
    "a: !!str 1\n", "<<: {a: 1}\nb: 2\n", "a: 'x\n  y'\n", "a: 'it''s'\n", "- {CPU: x, CUDA: y}\n",
    "a: yes\nb: 0x1f\nc: 1.5e3\nd: ~\ne: 2001-12-14\n", "- func: f(Tensor self) -> Tensor\n  doc: |\n    text\n",
    "a: 1\na: 2\n", "[1, 2]: x\n", "{a: b}: c\n", "", "# only a comment\n", "- \U0001f600: x\n",
    "a:\n  - b\n  -  c\n", "a: >\n  folded\n  text\n\n  more\n", "a: \"multi\n  line\"\n",
    "a: 1\na: {m: 1, m: 2, [x]: 3, t: 2001-13-01}\n", "[x]: {m: 1, m: 2}\n",  # nothing reported in a dropped value
]
# Input on which the parsers disagree (found by differential fuzzing): marks of empty flow
# scalars, tags and `?` in flow collections, tabs, inner byte-order marks, no final line break.
_DIFFERENT = [
    "a: {b: , c}\n", "[{? :} ,]\n", "--- {? ~, ? ,}  \n", "[[!!str, 1, !!str ,], 1]\n",
    "{? !!str, ? {}}\n", "tags: [core, poin?twise]\n", "{}\t\n", "0o17\t\n", "-   [ \t]\n",
    "a: \ufeffb\n", "  \ufeffs: True\n", "\n---", "\n  ?", "a: b", "!\n", "a: !\n", "- ! 1\n",
]

# Aliases, merge keys and tags, alone and mixed with duplicate keys, keys that are no strings,
# values their type cannot convert and a second document: the first one refused, in the order
# of the pure-Python parser's events, is the error (Note [Plain YAML]); before a syntax error.
_REFUSED = [
    "a: {k: &x {m: 1, m: 2}, k: 3}\nb: *x\n", "a: {k: &x {c: !!int q}, k: 1}\nb: *x\n", "&a {<<: *a}\n",
    "a: !!set {? x, ? y}\n", "a: !!omap [x: 1, y: 2]\n", "a: !!pairs [x: 1, x: 2]\n", "a: !!omap [1]\n",
    "a: =\n", "a: <<\n", "=: 1\n", "<<: 5\n", "a: !!int x\n<<: 5\n", "a: &a 1\nb: &a 2\n", "--- a\n--- b\n",
    "a: &z {k: 1, k: 2}\nb:\n  <<: *z\n", "a: &z {[1]: 2}\nb: {<<: *z}\nc: {<<: *z}\n", "[1]: !!int x\n",
    "a: 1\na: !!int x\n", "*a: x\n", "&k a: 1\n*k : 2\n", "a: &l [1]\n*l : 3\n", "!!merge <<: {a: 1}\n",
    "a: [&x 1, *x]\n", "a: !!binary aGk=\n", "<<: [{a: 1}, 5]\n", "a: {<<: {b: {<<: 3}}}\n", "- !!str\n- !!null\n",
    "x: &a [*a]\n", "a: &a !!omap [x: *a]\n", "&a !!set {? *a}\n",
]
# Documents that would hold themselves (SafeConstructor allows it only for the document's node).
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
    """The reference's outcome; or, where the pure-Python parser's events meet what the loader
    refuses before any syntax error, that refusal, located there."""
    got = _outcome(lambda: load_yaml_text(text, "f.yaml"))
    refused = pyyaml_reference.first_refused(text)
    if refused is not None:
        assert got[0] is None and len(got[1]) == 1, got
        assert got[1][0].startswith(f"SpecError: {refused}: error: invalid YAML: ")
        assert "not supported" in got[1][0] or "which is not allowed" in got[1][0]
        return
    expected = _pure_python(text)
    assert got[1] == expected[1]
    assert _same(got[0], expected[0]), "the data or its locations differ from the pure-Python parser's"


def _libyaml_parses(text: str) -> bool:
    """Whether load_yaml_text takes what the builder makes of libyaml's events (no second run
    on the pure-Python parser's)."""
    if not yaml_loader._libyaml_agrees(text):
        return False
    parser = yaml_loader._CParser(text)
    try:
        yaml_loader._Builder(text, "f.yaml", parser.get_event, libyaml=True).load()
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


@pytest.mark.parametrize("text", _REFUSED + _RECURSIVE)
def test_aliases_merges_and_tags_are_refused_where_written(text: str) -> None:
    _assert_as_pure_python(text)


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
    ("--- a\n--- b\n", "f.yaml:2:1: error: invalid YAML: expected a single document in the stream, "
                       "but found another document"),
])
def test_syntax_errors_keep_pyyaml_wording(text: str, expected: str) -> None:
    assert _error(text) == expected


_NOT_PLAIN = "(opcore's YAML files use no anchors, aliases, tags or merge keys)"


@pytest.mark.parametrize("text,expected", [
    # Tags, on any kind of node, known or not (once a Python exception from inside PyYAML).
    ("a: !!map x\n", "1:4: error: invalid YAML: the tag '!!map' is not supported"),
    ("!!map [1]\n", "1:1: error: invalid YAML: the tag '!!map' is not supported"),
    ("a: [b, !!seq {c: 1}]\n", "1:8: error: invalid YAML: the tag '!!seq' is not supported"),
    ("a: !!omap [x: 1, y: 2]\n", "1:4: error: invalid YAML: the tag '!!omap' is not supported"),
    ("a: !!set {? x}\n", "1:4: error: invalid YAML: the tag '!!set' is not supported"),
    ("- !!map\n", "1:3: error: invalid YAML: the tag '!!map' is not supported"),
    ("a: !foo x\n", "1:4: error: invalid YAML: the tag '!foo' is not supported"),
    ("a: !<tag:x.org,1:y> x\n", "1:4: error: invalid YAML: the tag 'tag:x.org,1:y' is not supported"),
    ("a: !!python/name:os.system x\n", "1:4: error: invalid YAML: the tag '!!python/name:os.system' is not supported"),
    ("a: !!str 1\n", "1:4: error: invalid YAML: the tag '!!str' is not supported"),
    ("a: ! x\n", "1:4: error: invalid YAML: the tag '!' is not supported"),
    ("!!int 1: x\n", "1:1: error: invalid YAML: the tag '!!int' is not supported"),
    ("!foo a: 1\n", "1:1: error: invalid YAML: the tag '!foo' is not supported"),
    # Anchors and aliases, defined or not.
    ("a: &x [1]\nb: *x\n", "1:4: error: invalid YAML: the anchor '&x' is not supported"),
    ("a: *nowhere\n", "1:4: error: invalid YAML: the alias '*nowhere' is not supported"),
    ("&a [*a]\n", "1:1: error: invalid YAML: the anchor '&a' is not supported"),
    # Merge keys, and the value key.
    ("<<: {a: 1}\nb: 2\n", "1:1: error: invalid YAML: '<<' (a merge key) is not supported: write the keys out, "
                         "or quote '<<'"),
    ("- func: a\n  <<: !!seq {b: 1}\n", "2:3: error: invalid YAML: '<<' (a merge key) is not supported: write the "
                                      "keys out, or quote '<<'"),
    ("a: =\n", "1:4: error: invalid YAML: '=' (YAML's value key) is not supported: quote it"),
])
def test_what_opcores_yaml_does_not_use_is_a_located_error(text: str, expected: str) -> None:
    """Note [Plain YAML]: refused where it is written, with what to do, whichever parser reads it."""
    assert _error(text) == f"f.yaml:{expected} {_NOT_PLAIN}"


@pytest.mark.parametrize("text,expected", [
    ("a: 2001-13-01\n", "1:4: error: invalid YAML: '2001-13-01' is not a valid !!timestamp"),
    ("a: 0x_\n", "1:4: error: invalid YAML: '0x_' is not a valid !!int"),
])
def test_a_plain_scalar_its_type_cannot_convert_is_a_located_error(text: str, expected: str) -> None:
    assert _error(text) == f"f.yaml:{expected}"


@pytest.mark.parametrize("text,value", [
    ("a: '!!str 1'\nb: \"&x\"\n'<<': '*y'\n", {"a": "!!str 1", "b": "&x", "<<": "*y"}),
    ("a: yes\nb: 0x1f\nc: 1.5e+3\nd: ~\ne: 'True'\nTrue: 1\n", {"a": True, "b": 31, "c": 1500.0, "d": None, "e": "True",
                                                           "True": 1}),
])
def test_quoted_text_and_plain_scalars_are_read_as_yaml_safe_load_reads_them(text: str, value: object) -> None:
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
    """libyaml's own composer would overflow the C stack here (see the Note); the error is
    where the collection one too deep opens, whatever the depth of the caller's stack."""
    assert _error("[" * depth + "]" * depth) == \
        "f.yaml:1:201: error: invalid YAML: nested too deeply (more than 200 levels)"


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

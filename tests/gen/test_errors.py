"""User mistakes: every error kind has a file in tests/gen/errors/ whose first line is
`# expect: <case>.yaml:<line>:<col>: error: <message>`. The CLI must print that line first
(with the path of the file it read), then the source line and a caret under the column, exit 1
without a traceback, and leave an existing output dir untouched.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from genutil import FIXTURES, REPO, make_yaml_dir, run_gen, snapshot

ERRORS = Path(__file__).resolve().parent / "errors"
CASES = sorted(p.name for p in ERRORS.glob("*.yaml"))
_EXPECT = re.compile(r"# expect: (?P<file>[\w.]+\.yaml)(?P<rest>:(?P<line>\d+):(?P<col>\d+): error: .+)")


@pytest.fixture(scope="module")
def existing_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An output dir from an earlier successful run, which failing runs must not touch."""
    out = tmp_path_factory.mktemp("existing") / "out"
    result = run_gen("--yaml-dir", str(FIXTURES / "mini"), "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


def _error_lines(stderr: str, yaml_dir: Path) -> list[str]:
    """stderr lines with the yaml dir stripped from the paths: `native_functions.yaml:3: ...`."""
    prefix = str(yaml_dir) + "/"
    return [line.replace(prefix, "", 1) for line in stderr.splitlines()]


def _run_failing(yaml_dir: Path, out: Path, *flags: str) -> list[str]:
    before = snapshot(out)
    result = run_gen("--yaml-dir", str(yaml_dir), "--out", str(out), *flags)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert snapshot(out) == before, "a failing run modified the output directory"
    return _error_lines(result.stderr, yaml_dir)


def _errors_only(lines: list[str]) -> list[str]:
    """The `path:line:col: error: msg` lines, without the source lines and carets."""
    return [line for line in lines if re.match(r"[\w./-]+:\d+:\d+: error: ", line)]


def _caret(source_line: str, col: int) -> str:
    return " " * (col - 1) + "^"


def test_every_case_has_an_expectation() -> None:
    assert len(CASES) >= 13
    for case in CASES:
        first = (ERRORS / case).read_text(encoding="utf-8").split("\n", 1)[0]
        m = _EXPECT.fullmatch(first)
        assert m, f"{case}: first line must be '# expect: {case}:<line>: error: <message>'"
        assert m.group("file") == case


@pytest.mark.parametrize("case", CASES)
def test_error_case(case: str, tmp_path: Path, existing_out: Path) -> None:
    """The expected error comes first, then its source line and a caret under its column."""
    text = (ERRORS / case).read_text(encoding="utf-8")
    m = _EXPECT.fullmatch(text.split("\n", 1)[0])
    lines = _run_failing(make_yaml_dir(tmp_path, text), existing_out)
    source_line = text.split("\n")[int(m.group("line")) - 1]
    assert lines[:3] == ["native_functions.yaml" + m.group("rest"), source_line,
                         _caret(source_line, int(m.group("col")))]


DERIVATIVE_ERRORS = ERRORS / "derivatives"
DERIVATIVE_CASES = sorted(p.name for p in DERIVATIVE_ERRORS.glob("*.yaml"))


def test_every_derivatives_case_has_an_expectation() -> None:
    assert len(DERIVATIVE_CASES) >= 30
    for case in DERIVATIVE_CASES:
        first = (DERIVATIVE_ERRORS / case).read_text(encoding="utf-8").split("\n", 1)[0]
        m = _EXPECT.fullmatch(first)
        assert m and m.group("file") == case, f"{case}: first line must be '# expect: {case}:<line>:<col>: error: ...'"


@pytest.mark.parametrize("case", DERIVATIVE_CASES)
def test_derivatives_error_case(case: str, tmp_path: Path, existing_out: Path) -> None:
    """tests/gen/errors/derivatives/<case>.yaml is a derivatives.yaml for the operators of the
    mini fixture; the same expectations as for native_functions.yaml."""
    text = (DERIVATIVE_ERRORS / case).read_text(encoding="utf-8")
    m = _EXPECT.fullmatch(text.split("\n", 1)[0])
    mini = (FIXTURES / "mini" / "native_functions.yaml").read_text(encoding="utf-8")
    yaml_dir = make_yaml_dir(tmp_path, mini, tags=FIXTURES / "mini" / "tags.yaml")
    (yaml_dir / "derivatives.yaml").write_text(text, encoding="utf-8")
    lines = _run_failing(yaml_dir, existing_out)
    source_line = text.split("\n")[int(m.group("line")) - 1]
    assert lines[:3] == ["derivatives.yaml" + m.group("rest"), source_line,
                         _caret(source_line, int(m.group("col")))]


def test_every_bad_entry_is_reported(tmp_path: Path, existing_out: Path) -> None:
    text = (
        "- func: neg(Tensr self) -> Tensor\n"          # line 1
        "  dispatch: {CPU: neg}\n"
        "- func: exp(Tensor self) -> Tensor\n"         # line 3: fine
        "  dispatch: {CPU: exp}\n"
        "- func: log(Tensor self) -> Tensor\n"         # line 5
        "  dispach: {CPU: log}\n"
        "- func: relu_(Tensor self) -> Tensor\n"       # line 7
        "  dispatch: {CPU: relu_}\n"
        "- func: exp(Tensor self) -> Tensor\n"         # line 9
        "  dispatch: {CUDA: exp}\n"
        "  tags: nope\n"
    )
    lines = _run_failing(make_yaml_dir(tmp_path, text), existing_out)
    located = [line.split(": error: ")[0] for line in _errors_only(lines)]
    assert located == [f"native_functions.yaml:{n}" for n in ("1:13", "6:3", "7:15", "11:9")]


def test_error_count_is_capped(tmp_path: Path, existing_out: Path) -> None:
    text = "".join(f"- func: op{i}(Tensr self) -> Tensor\n  dispatch: {{CPU: op{i}}}\n" for i in range(25))
    lines = _run_failing(make_yaml_dir(tmp_path, text), existing_out)
    assert len(_errors_only(lines)) == 20
    assert len(lines) == 3 * 20 + 1
    assert lines[-1] == "gen: 5 more error(s) not shown"


def test_errors_in_tags_yaml(tmp_path: Path, existing_out: Path) -> None:
    tags = tmp_path / "tags.yaml"
    tags.write_text("- tag: core\n  desc: x\n- tag: core\n  desc: y\n- tag: bad\n", encoding="utf-8")
    yaml_dir = make_yaml_dir(tmp_path, "[]\n", tags=tags)
    lines = _run_failing(yaml_dir, existing_out)
    assert lines == [
        "tags.yaml:3:8: error: duplicate tag 'core' (first defined at line 1)",
        "- tag: core",
        "       ^",
        "tags.yaml:5:3: error: missing required key 'desc'",
        "- tag: bad",
        "  ^",
    ]


def test_derivatives_must_be_a_list(tmp_path: Path, existing_out: Path) -> None:
    yaml_dir = make_yaml_dir(tmp_path, "[]\n")
    (yaml_dir / "derivatives.yaml").write_text("name: nope\n", encoding="utf-8")
    lines = _run_failing(yaml_dir, existing_out)
    assert lines == ["derivatives.yaml:1:1: error: expected a list of derivative entries ('- name: <schema>')",
                     "name: nope", "^"]


def test_missing_yaml_dir(tmp_path: Path, existing_out: Path) -> None:
    """No source line to show: just the located message, for each file."""
    lines = _run_failing(tmp_path / "nowhere", existing_out)
    assert lines == [f"{name}:1:1: error: cannot read file: No such file or directory"
                     for name in ("tags.yaml", "native_functions.yaml", "derivatives.yaml")]


def test_path_is_printed_as_given(tmp_path: Path) -> None:
    """Relative --yaml-dir gives relative paths in messages (editors resolve them from cwd)."""
    make_yaml_dir(tmp_path, "- func: neg(Tensr self) -> Tensor\n  dispatch: {CPU: neg}\n")
    result = run_gen("--yaml-dir", "yaml", "--out", "out", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("yaml/native_functions.yaml:1:13: error: invalid schema")
    assert not (tmp_path / "out").exists()


def test_real_yaml_has_no_errors() -> None:
    result = run_gen("--yaml-dir", str(REPO / "yaml"), "--dry-run", "--out", "/nonexistent/never-written")
    assert result.returncode == 0, result.stderr


def test_several_unknown_keys_are_each_reported(tmp_path: Path, existing_out: Path) -> None:
    text = "- func: neg(Tensor self) -> Tensor\n  dispach: {CPU: neg}\n  tag: core\n"
    lines = _run_failing(make_yaml_dir(tmp_path, text), existing_out)
    assert _errors_only(lines) == [
        "native_functions.yaml:2:3: error: unknown key 'dispach' (did you mean 'dispatch'?)",
        "native_functions.yaml:3:3: error: unknown key 'tag' (did you mean 'tags'?)",
    ]


def test_errors_in_tags_yaml_suggest_keys(tmp_path: Path, existing_out: Path) -> None:
    tags = tmp_path / "tags.yaml"
    tags.write_text("- tag: core\n  descr: x\n", encoding="utf-8")
    lines = _run_failing(make_yaml_dir(tmp_path, "[]\n", tags=tags), existing_out)
    assert lines == ["tags.yaml:2:3: error: unknown key 'descr' (did you mean 'desc'?)", "  descr: x", "  ^"]


def test_tags_are_not_checked_when_tags_yaml_is_broken(tmp_path: Path, existing_out: Path) -> None:
    """One mistake, one error: a broken tags.yaml does not make every tag use an error too."""
    tags = tmp_path / "tags.yaml"
    tags.write_text("- tag: [core]\n  desc: x\n", encoding="utf-8")
    text = "- func: neg(Tensor self) -> Tensor\n  dispatch: {CPU: neg}\n  tags: core\n"
    lines = _run_failing(make_yaml_dir(tmp_path, text, tags=tags), existing_out)
    assert _errors_only(lines) == ["tags.yaml:1:8: error: 'tag' must be a non-empty string"]


@pytest.mark.parametrize("derivatives,expected", [
    ("- name: ad.Tensor(Tensor self, Tensor other) -> Tensor\n",
     "derivatives.yaml:1:9: error: derivatives for unknown operator 'ad.Tensor' (did you mean 'add.Tensor'?)"),
    ("- name: add.Tensor(Tensor self, Tensor other) -> Tensor\n",
     "derivatives.yaml:1:9: error: schema of 'add.Tensor' differs from its declaration (line 1): "
     "'add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor'"),
    ("- name: add.Tensor(Tensor self, Tensor other, *, Scalr alpha=1) -> Tensor\n",
     "derivatives.yaml:1:50: error: invalid schema: unknown type 'Scalr'"),
    ("- self: grad\n", "derivatives.yaml:1:3: error: missing required key 'name'"),
    ("- add.Tensor\n", "derivatives.yaml:1:3: error: a derivative entry must be a mapping ('- name: <schema>')"),
    ("- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n  self, other: non_differentiable\n"
     "- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n  self, other: non_differentiable\n",
     "derivatives.yaml:3:9: error: duplicate derivatives for 'add.Tensor' (first at line 1)"),
])
def test_errors_in_derivatives_yaml(tmp_path: Path, existing_out: Path, derivatives: str, expected: str) -> None:
    text = ("- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
            "  dispatch: {CompositeExplicitAutograd: add}\n")
    yaml_dir = make_yaml_dir(tmp_path, text)
    (yaml_dir / "derivatives.yaml").write_text(derivatives, encoding="utf-8")
    lines = _run_failing(yaml_dir, existing_out)
    assert _errors_only(lines) == [expected]


def test_invalid_utf8_is_located(tmp_path: Path, existing_out: Path) -> None:
    yaml_dir = make_yaml_dir(tmp_path, "")
    (yaml_dir / "native_functions.yaml").write_bytes(b"- func: neg(Tensor self) -> Tensor\n  doc: caf\xe9\n")
    lines = _run_failing(yaml_dir, existing_out)
    assert lines[0] == "native_functions.yaml:2:11: error: file is not valid UTF-8: invalid continuation byte"


def test_disallowed_character_is_located(tmp_path: Path, existing_out: Path) -> None:
    lines = _run_failing(make_yaml_dir(tmp_path, "- func: neg\x07(Tensor self) -> Tensor\n"), existing_out)
    assert lines[:3] == ["native_functions.yaml:1:12: error: invalid YAML: character #x0007 is not allowed",
                         "- func: neg\x07(Tensor self) -> Tensor", "           ^"]


@pytest.mark.parametrize("layout", ["yaml dir is a file", "input is a directory"])
def test_unreadable_inputs(tmp_path: Path, existing_out: Path, layout: str) -> None:
    if layout == "yaml dir is a file":
        yaml_dir = tmp_path / "file"
        yaml_dir.write_text("", encoding="utf-8")
        expected = "native_functions.yaml:1:1: error: cannot read file: Not a directory"
    else:
        yaml_dir = make_yaml_dir(tmp_path, "")
        (yaml_dir / "native_functions.yaml").unlink()
        (yaml_dir / "native_functions.yaml").mkdir()
        expected = "native_functions.yaml:1:1: error: cannot read file: Is a directory"
    assert expected in _run_failing(yaml_dir, existing_out)


@pytest.mark.parametrize("text", [
    "- func: !!python/object/apply:os.system [echo hi]\n",
    "- func: !!binary aGVsbG8=\n  dispatch: {CPU: neg}\n",
    "- func: neg(Tensor self) -> Tensor\n  dispatch: {CPU: 2024-01-01}\n",
    "- func: neg(Tensor self) -> Tensor\n  dispatch: {? [CPU]: neg}\n",
    "- func: neg(Tensor self) -> Tensor\n  dispatch: {CPU: neg}\n  tags: [core, [x]]\n",
    "- &a [*a]\n",
    "[" * 5000 + "]" * 5000 + "\n",
    "- func: neg(Tensor self) -> Tensor\n  <<: {dispatch: 3}\n",
    "- !!set {func, dispatch}\n",
    "42\n",
    "- func: \"\"\n  dispatch: {CPU: neg}\n",
])
def test_no_traceback_for_odd_yaml(tmp_path: Path, existing_out: Path, text: str) -> None:
    lines = _run_failing(make_yaml_dir(tmp_path, text), existing_out)
    assert re.match(r"native_functions\.yaml:\d+:\d+: error: ", lines[0]), lines


def test_out_dir_that_is_a_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.write_text("not a directory\n", encoding="utf-8")
    result = run_gen("--yaml-dir", str(FIXTURES / "mini"), "--out", str(out))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr == f"gen: error: {out}/opcore/Tensor.h: Not a directory\n"

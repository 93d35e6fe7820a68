"""User mistakes: every error kind has a file in tests/gen/errors/ whose first line is
`# expect: <case>.yaml:<line>: error: <message>`. The CLI must print that line (with the path
of the file it read), exit 1 without a traceback, and leave an existing output dir untouched.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from genutil import FIXTURES, REPO, make_yaml_dir, run_gen, snapshot

ERRORS = Path(__file__).resolve().parent / "errors"
CASES = sorted(p.name for p in ERRORS.glob("*.yaml"))
_EXPECT = re.compile(r"# expect: (?P<file>[\w.]+\.yaml)(?P<rest>:\d+: error: .+)")


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


def _run_failing(yaml_dir: Path, out: Path) -> list[str]:
    before = snapshot(out)
    result = run_gen("--yaml-dir", str(yaml_dir), "--out", str(out))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert snapshot(out) == before, "a failing run modified the output directory"
    return _error_lines(result.stderr, yaml_dir)


def test_every_case_has_an_expectation() -> None:
    assert len(CASES) >= 13
    for case in CASES:
        first = (ERRORS / case).read_text(encoding="utf-8").split("\n", 1)[0]
        m = _EXPECT.fullmatch(first)
        assert m, f"{case}: first line must be '# expect: {case}:<line>: error: <message>'"
        assert m.group("file") == case


@pytest.mark.parametrize("case", CASES)
def test_error_case(case: str, tmp_path: Path, existing_out: Path) -> None:
    text = (ERRORS / case).read_text(encoding="utf-8")
    expected = "native_functions.yaml" + _EXPECT.fullmatch(text.split("\n", 1)[0]).group("rest")
    lines = _run_failing(make_yaml_dir(tmp_path, text), existing_out)
    assert expected in lines


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
    located = [line.split(": error: ")[0] for line in lines]
    assert located == [f"native_functions.yaml:{n}" for n in (1, 6, 7, 11)]


def test_error_count_is_capped(tmp_path: Path, existing_out: Path) -> None:
    text = "".join(f"- func: op{i}(Tensr self) -> Tensor\n  dispatch: {{CPU: op{i}}}\n" for i in range(25))
    lines = _run_failing(make_yaml_dir(tmp_path, text), existing_out)
    assert len([line for line in lines if ": error: " in line]) == 20
    assert lines[-1] == "gen: 5 more error(s) not shown"


def test_errors_in_tags_yaml(tmp_path: Path, existing_out: Path) -> None:
    tags = tmp_path / "tags.yaml"
    tags.write_text("- tag: core\n  desc: x\n- tag: core\n  desc: y\n- tag: bad\n", encoding="utf-8")
    yaml_dir = make_yaml_dir(tmp_path, "[]\n", tags=tags)
    lines = _run_failing(yaml_dir, existing_out)
    assert lines == [
        "tags.yaml:3: error: duplicate tag 'core' (first defined at line 1)",
        "tags.yaml:5: error: missing required key 'desc'",
    ]


def test_derivatives_must_be_a_list(tmp_path: Path, existing_out: Path) -> None:
    yaml_dir = make_yaml_dir(tmp_path, "[]\n")
    (yaml_dir / "derivatives.yaml").write_text("name: nope\n", encoding="utf-8")
    lines = _run_failing(yaml_dir, existing_out)
    assert lines == ["derivatives.yaml:1: error: expected a list of derivative entries"]


def test_missing_yaml_dir(tmp_path: Path, existing_out: Path) -> None:
    lines = _run_failing(tmp_path / "nowhere", existing_out)
    assert "native_functions.yaml:1: error: cannot read file: No such file or directory" in lines


def test_path_is_printed_as_given(tmp_path: Path) -> None:
    """Relative --yaml-dir gives relative paths in messages (editors resolve them from cwd)."""
    make_yaml_dir(tmp_path, "- func: neg(Tensr self) -> Tensor\n  dispatch: {CPU: neg}\n")
    result = run_gen("--yaml-dir", "yaml", "--out", "out", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("yaml/native_functions.yaml:1: error: invalid schema")
    assert not (tmp_path / "out").exists()


def test_real_yaml_has_no_errors() -> None:
    result = run_gen("--yaml-dir", str(REPO / "yaml"), "--dry-run", "--out", "/nonexistent/never-written")
    assert result.returncode == 0, result.stderr

"""The bad-input corpus (issue #32): every file under tests/gen/corpus/ is one case, whose
first line states the one error the generator must report for it. Each case must fail with
exit status 1 (bad input) or 2 (bad usage), print no traceback, print exactly the expected
message, and leave an earlier successful generation untouched (its tree is hashed before and
after). tests/gen/corpus/README.md describes the case formats.

Content cases (every directory but cli/) are one input file, run in-process through
gen.__main__.main (what `python3 -m gen` calls); command-line cases (cli/) run the real
subprocess.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import resource
import shlex
import shutil
import stat
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import pytest
from genutil import FIXTURES, REPO

from gen.__main__ import main as gen_main

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
ERRORS = HERE / "errors"
MINI = FIXTURES / "mini"
MIN_CASES = 300

_HEADER = re.compile(r"# (?P<key>expect|args|status|setup): ?(?P<value>.*)")
_LOCATED = re.compile(r"(?P<file>[\w.-]+):(?P<line>\d+):(?P<col>\d+): error: .+")
_LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")  # YAML's line breaks
_ROLES = ("native_functions.yaml", "tags.yaml", "derivatives.yaml", "functions.yaml", "custom_ops.yaml",
          "selected_operators.yaml", "selected_operators.txt", "bc_allow.txt", "formula_helpers.txt")
_README = "README.md"


def _case_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != _README)


CASES = [str(p.relative_to(CORPUS)) for p in _case_files()]
CONTENT_CASES = [c for c in CASES if not c.startswith("cli/")]
CLI_CASES = [c for c in CASES if c.startswith("cli/")]


@dataclass(frozen=True)
class Case:
    """The header of a case file: `# key: value` lines at its top (after a byte-order mark)."""

    expect: str
    args: tuple[str, ...] = ()
    status: int = 1
    setup: str = ""  # steps separated by " ; ", each split as a shell would


def read_case(path: Path) -> Case:
    data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    fields: dict[str, str] = {}
    for raw in data.split(b"\n"):
        m = _HEADER.fullmatch(raw.rstrip(b"\r").decode("utf-8", "replace"))
        if m is None:
            break
        fields[m.group("key")] = m.group("value")
    assert "expect" in fields, f"{path}: the first line must be '# expect: <the expected error>'"
    return Case(fields["expect"], tuple(shlex.split(fields.get("args", ""))), int(fields.get("status", "1")),
                fields.get("setup", ""))


def tree_hash(directory: Path) -> str:
    """One hash of everything under `directory`: each path and type, and each file's size,
    mtime and content (of a file over 1 MiB, a huge sparse input a case made, only the first
    MiB). A directory's mtime is left out: a temporary file made and removed changes it."""
    h = hashlib.sha256()
    for p in sorted(directory.rglob("*")):
        st = p.lstat()
        h.update(f"{p.relative_to(directory)}\0{st.st_mode}\0".encode())
        if not stat.S_ISDIR(st.st_mode):
            h.update(f"{st.st_mtime_ns}\0{st.st_size}\0".encode())
        if stat.S_ISREG(st.st_mode):
            with open(p, "rb") as f:
                h.update(f.read(1 << 20))
    return h.hexdigest()


@pytest.fixture(scope="module")
def existing_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A successful generation from the mini fixture, which no failing run may touch."""
    out = tmp_path_factory.mktemp("existing") / "out"
    status, _, err = run_in_process(["--yaml-dir", str(MINI), "--out", str(out)])
    assert status == 0, err
    return out


def run_in_process(argv: list[str]) -> tuple[int, str, str]:
    """gen.__main__.main(argv) as `python3 -m gen` runs it: the exit status, stdout, stderr (a
    traceback, if anything escapes, is in stderr as Python would print it)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = gen_main(argv)
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else 1
        except Exception:  # noqa: BLE001 - what the interpreter would print (Ctrl-C still stops the tests)
            traceback.print_exc(file=err)
            status = 1
    return status, out.getvalue(), err.getvalue()


def _source_lines(data: bytes) -> Optional[list[str]]:
    """The lines of an input as the generator shows them, or None when it is not UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return _LINE_BREAK.split(text.removeprefix("\ufeff"))


def _content_yaml_dir(tmp: Path, role: str, data: bytes) -> tuple[Path, list[str]]:
    """A yaml dir for a content case whose file plays `role`, and the flags it needs."""
    yaml_dir = tmp / "yaml"
    yaml_dir.mkdir()
    flags: list[str] = []
    if role in ("functions.yaml", "custom_ops.yaml"):  # an ExecuTorch library: no native_functions.yaml
        (yaml_dir / role).write_bytes(data)
        return yaml_dir, flags
    native = MINI / "native_functions.yaml"
    shutil.copy(native, yaml_dir / "native_functions.yaml")
    shutil.copy(REPO / "yaml" / "tags.yaml", yaml_dir / "tags.yaml")
    shutil.copy(MINI / "derivatives.yaml", yaml_dir / "derivatives.yaml")
    if role == "native_functions.yaml":
        (yaml_dir / "derivatives.yaml").write_text("[]\n", encoding="utf-8")
    elif role == "tags.yaml":
        (yaml_dir / "native_functions.yaml").write_text("[]\n", encoding="utf-8")
        (yaml_dir / "derivatives.yaml").write_text("[]\n", encoding="utf-8")
    elif role.startswith("selected_operators"):
        flags = ["--selected-operators", str(yaml_dir / role)]
    elif role == "bc_allow.txt":
        flags = ["--bc-check", str(MINI), "--bc-allow", str(yaml_dir / role)]
    elif role == "formula_helpers.txt":
        flags = ["--pytorch-yaml", "--formula-helpers", str(yaml_dir / role)]
    (yaml_dir / role).write_bytes(data)
    return yaml_dir, flags


@pytest.mark.parametrize("name", CONTENT_CASES)
def test_content_case(name: str, tmp_path: Path, existing_out: Path) -> None:
    """One input file with one mistake: exit 1, no traceback, the expected located error
    first, then its source line and a caret under its column; the output untouched."""
    path = CORPUS / name
    case = read_case(path)
    m = _LOCATED.fullmatch(case.expect)
    assert m and m.group("file") in _ROLES, f"{name}: expected '<one of {_ROLES}>:<line>:<col>: error: ...'"
    data = path.read_bytes()
    yaml_dir, flags = _content_yaml_dir(tmp_path, m.group("file"), data)
    before = tree_hash(existing_out)
    status, out, err = run_in_process(["--yaml-dir", str(yaml_dir), "--out", str(existing_out), *flags,
                                       *case.args])
    assert "Traceback" not in err + out, err
    assert status == case.status == 1, err
    assert out == ""
    assert tree_hash(existing_out) == before, "a failing run modified the output directory"
    lines = [line.replace(f"{yaml_dir}/", "", 1) for line in err.splitlines()]
    assert lines[0] == case.expect
    source = _source_lines(data)
    line, col = int(m.group("line")), int(m.group("col"))
    if source is not None and line <= len(source):
        pad = "".join(c if c == "\t" else " " for c in source[line - 1][:col - 1]).ljust(col - 1)
        assert lines[1:3] == [source[line - 1], pad + "^"]


def _first_of_each_directory(cases: list[str]) -> list[str]:
    return sorted({c.split("/")[0]: c for c in reversed(cases)}.values())


# Besides: where the interpreter's state could matter (the stack's depth, many errors).
_ALSO_AS_CLI = ["yaml/deep_flow_nesting.yaml", "yaml/deep_sequence_nesting.yaml", "yaml/many_errors_capped.yaml"]


@pytest.mark.parametrize("name", _first_of_each_directory(CONTENT_CASES) + _ALSO_AS_CLI)
def test_in_process_is_the_cli(name: str, tmp_path: Path, existing_out: Path) -> None:
    """The content cases run in-process; one of each directory shows that `python3 -m gen`
    prints the same, with the same status."""
    case = read_case(CORPUS / name)
    m = _LOCATED.fullmatch(case.expect)
    assert m
    yaml_dir, flags = _content_yaml_dir(tmp_path, m.group("file"), (CORPUS / name).read_bytes())
    argv = ["--yaml-dir", str(yaml_dir), "--out", str(existing_out), *flags, *case.args]
    result = subprocess.run([sys.executable, "-m", "gen", *argv], cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)),
                            capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout, result.stderr) == run_in_process(argv)


# --- command-line cases: the real subprocess -------------------------------------------------

@dataclass(frozen=True)
class Paths:
    tmp: Path       # the case's own directory
    yaml: Path      # a copy of the mini fixture there
    out: Path       # an output dir there that does not exist yet
    existing: Path  # the shared earlier generation


def _fifo(paths: Paths, name: str) -> None:
    (paths.yaml / name).unlink(missing_ok=True)
    os.mkfifo(paths.yaml / name)


def _missing(paths: Paths, name: str) -> None:
    (paths.yaml / name).unlink()


def _directory(paths: Paths, name: str) -> None:
    (paths.yaml / name).unlink()
    (paths.yaml / name).mkdir()


def _symlink(paths: Paths, name: str, target: str) -> None:
    (paths.yaml / name).unlink(missing_ok=True)
    (paths.yaml / name).symlink_to(target)


def _huge(paths: Paths, name: str, size: str) -> None:
    """yaml/`name` made `size` bytes long (sparse: no disk is used)."""
    with open(paths.yaml / name, "r+b") as f:
        f.truncate(int(size))


def _repeat(paths: Paths, name: str, count: str, text: str) -> None:
    """Appends `text` (`\\n`: a line break, `{i}`: the index) `count` times to yaml/`name`."""
    body = "".join(text.replace("{i}", str(i)) for i in range(int(count)))
    with open(paths.yaml / name, "a", encoding="utf-8") as f:
        f.write(body.replace("\\n", "\n"))


def _write(paths: Paths, name: str, text: str) -> None:
    target = paths.tmp / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text.replace("\\n", "\n"), encoding="utf-8")


def _append(paths: Paths, name: str, text: str) -> None:
    with open(paths.yaml / name, "a", encoding="utf-8") as f:
        f.write(text.replace("\\n", "\n"))


def _existing_copy(paths: Paths) -> None:
    """{out} holds a copy of the earlier generation (mtimes kept)."""
    shutil.copytree(paths.existing, paths.out)


_SETUPS: dict[str, Callable[..., None]] = {
    "fifo": _fifo, "missing": _missing, "directory": _directory, "symlink": _symlink, "huge": _huge,
    "repeat": _repeat, "write": _write, "append": _append, "existing_copy": _existing_copy,
}


def _expand(text: str, paths: Paths) -> str:
    """`text` with {tmp}, {yaml}, {out}, {existing} and {mini} replaced by those paths."""
    for key, value in (("tmp", paths.tmp), ("yaml", paths.yaml), ("out", paths.out),
                       ("existing", paths.existing), ("mini", MINI)):
        text = text.replace("{" + key + "}", str(value))
    return text


@dataclass(frozen=True)
class Child:
    """How the generator's process is started: a file size limit; a file as its stdout, or
    "|closed", a pipe whose reading end is closed."""

    fsize: Optional[int] = None
    stdout: Optional[str] = None

    def preexec(self) -> None:  # in the child: a write past the limit fails with EFBIG ("File too large")
        if self.fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (self.fsize, self.fsize))


def set_up_cli_case(case: Case, paths: Paths) -> Child:
    """A copy of the mini fixture in {yaml}, then the case's steps; returns how to start the
    generator's process (steps `fsize BYTES`, `stdout PATH`)."""
    shutil.copytree(MINI, paths.yaml)
    child = Child()
    for step in case.setup.split(" ; ") if case.setup else []:
        kind, *args = shlex.split(step)
        if kind == "fsize":
            child = Child(int(args[0]), child.stdout)
        elif kind == "stdout":
            child = Child(child.fsize, _expand(args[0], paths))
        else:
            _SETUPS[kind](paths, *(_expand(a, paths) for a in args))
    return child


def run_cli_case(case: Case, paths: Paths, child: Child) -> subprocess.CompletedProcess:
    with contextlib.ExitStack() as stack:
        stdout = subprocess.PIPE
        if child.stdout == "|closed":  # a pipe nobody reads any more: writes fail with EPIPE
            read_end, write_end = os.pipe()
            os.close(read_end)
            stdout = stack.enter_context(open(write_end, "w"))
        elif child.stdout is not None:
            stdout = stack.enter_context(open(child.stdout, "w"))
        return subprocess.run([sys.executable, "-m", "gen", *(_expand(a, paths) for a in case.args)],
                              cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), stdout=stdout,
                              stderr=subprocess.PIPE, text=True, timeout=120, preexec_fn=child.preexec)


@pytest.mark.parametrize("name", CLI_CASES)
def test_cli_case(name: str, tmp_path: Path, existing_out: Path) -> None:
    """Misuse of the command line: the real `python3 -m gen`; exit 1 or 2, no traceback, the
    expected message (the first line of stderr for 1, the last, after the usage, for 2), no
    file written (in the case's directory or in the earlier generation)."""
    case = read_case(CORPUS / name)
    paths = Paths(tmp_path, tmp_path / "yaml", tmp_path / "out", existing_out)
    child = set_up_cli_case(case, paths)
    before = (tree_hash(existing_out), tree_hash(tmp_path))
    result = run_cli_case(case, paths, child)
    assert "Traceback" not in result.stderr + (result.stdout or ""), result.stderr
    assert result.returncode == case.status, result.stderr
    assert case.status in (1, 2)
    assert (tree_hash(existing_out), tree_hash(tmp_path)) == before, "a failing run wrote files"
    lines = result.stderr.splitlines()
    if case.status == 2:
        assert lines[0].startswith("usage: python3 -m gen ")
        assert lines[-1] == _expand(case.expect, paths)
    else:
        assert lines[0] == _expand(case.expect, paths)


# --- the corpus as a whole --------------------------------------------------------------------

def _errors_cases() -> list[Path]:
    return sorted(ERRORS.rglob("*.yaml"))


def test_corpus_size() -> None:
    """Issue #32: at least 300 bad inputs across tests/gen/errors/ and tests/gen/corpus/."""
    total = len(_errors_cases()) + len(CASES)
    assert total >= MIN_CASES, f"{total} cases"


def test_every_case_has_an_expectation() -> None:
    for path in _errors_cases():
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        assert re.fullmatch(r"# expect: \S+:\d+:\d+: error: .+", first), path
    for path in _case_files():
        case = read_case(path)
        assert case.expect.strip(), path
        assert case.status in (1, 2), path
        assert path.read_bytes().removeprefix(b"\xef\xbb\xbf").startswith(b"# expect: "), path


def test_corpus_has_no_large_files() -> None:
    """Huge inputs are made by the cases' setup, not committed."""
    for path in _case_files():
        assert path.stat().st_size < 64 * 1024, path

"""`python3 -m gen --lint DIR...`: the YAML checked against the kernel sources."""
from __future__ import annotations

from pathlib import Path

from genutil import REPO, make_yaml_dir, run_gen

_NEG = "- func: neg(Tensor self) -> Tensor\n  dispatch:\n    CPU: neg_cpu\n"
_STRUCTURED = """\
- func: exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU: exp_out
- func: exp(Tensor self) -> Tensor
  structured_delegate: exp.out
"""


def _lint(tmp_path: Path, yaml: str, kernel: str) -> tuple[int, str, str]:
    yaml_dir = make_yaml_dir(tmp_path, yaml)
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    (kernels / "K.cpp").write_text(kernel, encoding="utf-8")
    result = run_gen("--yaml-dir", str(yaml_dir), "--lint", str(kernels))
    return result.returncode, result.stdout, result.stderr.replace(str(yaml_dir) + "/", "")


def test_repository_kernels_define_everything_the_yaml_names() -> None:
    result = run_gen("--yaml-dir", str(REPO / "yaml"), "--lint", str(REPO / "kernels"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("gen: lint: ")


def test_a_defined_kernel_passes(tmp_path: Path) -> None:
    rc, out, err = _lint(tmp_path, _NEG, "Tensor neg_cpu(const Tensor& self) {\n  return self;\n}\n")
    assert rc == 0, err


def test_a_missing_kernel_is_located_at_its_name(tmp_path: Path) -> None:
    # Called and declared, but never defined: not enough.
    rc, out, err = _lint(tmp_path, _NEG, "  Tensor neg_cpu(const Tensor& self);\nx = neg_cpu(t);\n")
    assert rc == 1 and out == ""
    lines = err.splitlines()
    assert lines[0] == (f"native_functions.yaml:3:10: error: kernel 'neg_cpu' (CPU) is not defined in "
                        f"{tmp_path / 'kernels'} (expected 'Tensor neg_cpu(const Tensor& self) {{')")
    assert lines[1:3] == ["    CPU: neg_cpu", "         ^"]
    assert "Traceback" not in err


def test_structured_operators_need_their_impl_and_meta_function(tmp_path: Path) -> None:
    rc, _, err = _lint(tmp_path, _STRUCTURED, "Tensor& exp_out(const Tensor& self, Tensor& out) {}\n")
    assert rc == 1
    assert "kernel 'exp_out' (CPU) is not defined in" in err
    assert "(expected 'void exp_out(const Tensor& self, const Tensor& out) {')" in err
    assert ("error: structured operator 'exp.out' has no meta function in "
            in err and "(expected 'meta::exp_out exp(const Tensor& self) {' in namespace opcore::meta)" in err)
    rc, _, err = _lint(tmp_path / "ok", _STRUCTURED,
                       "exp_out exp(const Tensor& self) {}\nvoid exp_out(const Tensor& self, const Tensor& out) {}\n")
    assert rc == 0, err


def test_unused_tags_are_warnings(tmp_path: Path) -> None:
    rc, _, err = _lint(tmp_path, _NEG, "Tensor neg_cpu(const Tensor& self) {}\n")
    assert rc == 0
    assert "tags.yaml:" in err and "warning: tag 'pointwise' is declared but no operator uses it" in err


def test_a_missing_directory_is_an_error(tmp_path: Path) -> None:
    result = run_gen("--yaml-dir", str(REPO / "yaml"), "--lint", str(tmp_path / "nowhere"))
    assert result.returncode == 1
    assert result.stderr == f"gen: error: {tmp_path / 'nowhere'}: no such directory (given to --lint)\n"

"""scripts/executorch_report.py: the `- op:` entries of an ExecuTorch kernel YAML file that opcore
has and lacks, grouped by PyTorch's `core` tags, and whether the file generates without the
missing ones (docs/executorch.md, "ExecuTorch's files against opcore")."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from genutil import REPO

SCRIPT = REPO / "scripts" / "executorch_report.py"

FUNCTIONS = """\
- op: neg.out
  kernels:
    - arg_meta: null
      kernel_name: mylib::neg_out

- op: zzcore.out
  kernels:
    - arg_meta: null
      kernel_name: mylib::zzcore_out

- op: zzother.out

- op: neg.zz_out

- func: otherns::f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  kernels:
    - arg_meta: null
      kernel_name: mylib::f_out
"""

# A PyTorch native_functions.yaml in miniature: the tags are on the functional overloads.
PYTORCH = """\
- func: zzcore(Tensor self) -> Tensor
  tags: [core, pointwise]
- func: zzcore.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
- func: zzother(Tensor self) -> Tensor
  tags: pointwise
"""


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


def test_the_report_groups_missing_operators_and_generates_the_rest(tmp_path: Path) -> None:
    (tmp_path / "functions.yaml").write_text(FUNCTIONS)
    (tmp_path / "pytorch").mkdir()
    (tmp_path / "pytorch" / "native_functions.yaml").write_text(PYTORCH)
    run = _run(str(tmp_path / "functions.yaml"), "--namespace", "mylib", "--pytorch-yaml", str(tmp_path / "pytorch"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == [
        f"{tmp_path / 'functions.yaml'}: 4 '- op:' entries, 1 name operators of opcore's, 3 do not",
        "  missing, Core ATen (1): zzcore.out",
        "  missing, not Core ATen (2): neg.zz_out zzother.out",
        "  of them, overloads of operators opcore has (1): neg.zz_out",
        "  '- func:' entries in another namespace than mylib (1, left out too: one namespace per file): otherns::f.out",
        "  without them: generates",
    ]


def test_without_core_tags_the_report_says_it_does_not_group(tmp_path: Path) -> None:
    (tmp_path / "functions.yaml").write_text(FUNCTIONS)
    (tmp_path / "pytorch").mkdir()
    (tmp_path / "pytorch" / "native_functions.yaml").write_text(PYTORCH.replace("core, ", ""))
    run = _run(str(tmp_path / "functions.yaml"), "--namespace", "mylib", "--pytorch-yaml", str(tmp_path / "pytorch"))
    assert "tags no operator 'core'" in run.stdout.splitlines()[0]
    assert "  missing (3): neg.zz_out zzcore.out zzother.out" in run.stdout.splitlines()


def test_a_file_that_does_not_generate_says_why(tmp_path: Path) -> None:
    (tmp_path / "functions.yaml").write_text("- op: neg.out\n  kernels:\n    - arg_meta: null\n"
                                             "      kernel_name: mylib::neg-out\n")
    run = _run(str(tmp_path / "functions.yaml"), "--namespace", "mylib")
    assert run.returncode == 1
    assert "  without them: does not generate" in run.stdout and "'kernel_name' must be a C++ function name" in run.stdout

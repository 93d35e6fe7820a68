"""The benchmarks' inputs stay valid for the generator: the synthetic YAML of
bench/make_synthetic_yaml.py (bench/gen_bench.py) and the YAML edits of bench/rebuild_bench.py.
The benchmarks themselves are not run here (they are timed; see bench/README.md)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from genutil import REPO, run_gen

sys.path.insert(0, str(REPO / "bench"))
import make_synthetic_yaml  # noqa: E402  (needs the path above)
import rebuild_bench  # noqa: E402

from gen import pipeline  # noqa: E402
from gen.model.native_function import Variant  # noqa: E402

_DEBIAN_PYTORCH_DIR = Path("/usr/lib/python3/dist-packages/torchgen/packaged/ATen/native")


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default synthetic yaml dir, written by the script's command line."""
    out = tmp_path_factory.mktemp("synthetic")
    result = subprocess.run([sys.executable, str(REPO / "bench" / "make_synthetic_yaml.py"), str(out)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return out


def test_synthetic_yaml_is_accepted_by_the_generator(synthetic: Path, tmp_path: Path) -> None:
    result = run_gen("--yaml-dir", str(synthetic), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stderr == ""
    assert (tmp_path / "out" / "opcore" / "Functions.h").is_file()


def test_synthetic_yaml_has_the_size_and_mix_the_benchmark_claims(synthetic: Path) -> None:
    functions = pipeline.load_spec(str(synthetic)).functions
    assert len(functions) == make_synthetic_yaml.DEFAULT_ENTRIES == 2500
    count = {
        "out=": sum(f.func.is_out for f in functions),
        "in-place": sum(f.func.is_inplace for f in functions),
        "method": sum(Variant.method in f.variants for f in functions),
        "several keys": sum(len(f.dispatch) > 1 for f in functions),
        "tags": sum(bool(f.tags) for f in functions),
        "doc": sum(bool(f.doc) for f in functions),
        "multi-output": sum(len(f.func.returns) > 1 for f in functions),
    }
    assert all(n >= 100 for n in count.values()), count
    used = {k.key.value for f in functions for k in f.dispatch}
    assert used == {"CPU", "CUDA", "Meta", "CompositeImplicitAutograd", "CompositeExplicitAutograd"}


def test_synthetic_yaml_is_deterministic(synthetic: Path, tmp_path: Path) -> None:
    again = make_synthetic_yaml.write(tmp_path / "again")
    for name in ("native_functions.yaml", "tags.yaml", "derivatives.yaml"):
        assert (again / name).read_bytes() == (synthetic / name).read_bytes(), name


def test_synthetic_yaml_entry_count_is_exact(tmp_path: Path) -> None:
    for count in (1, 7, 100):
        out = make_synthetic_yaml.write(tmp_path / str(count), count)
        text = (out / "native_functions.yaml").read_text()
        assert len(re.findall(r"^- func:", text, re.M)) == count


def test_rebuild_scenarios_leave_a_valid_yaml(tmp_path: Path) -> None:
    """Each edit of rebuild_bench.py applies to the repository's YAML, and the generator
    accepts the result (declaring the new operator and its kernel)."""
    src = tmp_path / "src"
    shutil.copytree(REPO / "yaml", src / "yaml")
    shutil.copytree(REPO / "kernels", src / "kernels")
    (src / "tests" / "api").mkdir(parents=True)
    (src / "docs").mkdir()
    shutil.copy(REPO / "docs" / "adding-an-operator.md", src / "docs" / "adding-an-operator.md")
    before = (src / "yaml" / "native_functions.yaml").read_text()
    for name, edit in rebuild_bench.SCENARIOS:
        assert edit(src), name
    after = (src / "yaml" / "native_functions.yaml").read_text()
    assert after != before
    kernel = (src / rebuild_bench.NEW_KERNEL_FILE).read_text()
    assert f"Tensor {rebuild_bench.NEW_OP}(const Tensor& self, double factor)" in kernel
    generation = pipeline.generate(str(src / "yaml"))
    headers = [text for path, text in generation.files if path.endswith(".h")]
    declaration = f"{rebuild_bench.NEW_OP}(const Tensor& self, double factor)"
    assert any(declaration in text for text in headers), "the new kernel is not declared"
    # The walkthrough scenario is docs/adding-an-operator.md's, as written: cube with a method,
    # its kernel and tests.
    assert "Tensor cube_cpu(const Tensor& self)" in (src / "kernels" / "cpu" / "Cube.cpp").read_text()
    assert "TEST(CubeTest, CubesEveryElement)" in (src / "tests" / "api" / "CubeTest.cpp").read_text()
    assert "opcore.cube(t).tolist() == [-1, 0, 1, 8]" in (src / "tests" / "python" / "test_cube.py").read_text()
    bindings = "".join(text for path, text in generation.files if path.startswith("python/PythonFunctions_"))
    assert "PyObject* function_cube(" in bindings and "PyObject* method_cube(" in bindings  # callable from Python
    tensor_h = dict(generation.files)["opcore/Tensor.h"]
    assert "Tensor cube() const;" in tensor_h
    assert any("Tensor cube_cpu(const Tensor& self)" in text for text in headers)


def test_the_function_only_walkthrough_adds_no_method(tmp_path: Path) -> None:
    """walkthrough-function is the page's walkthrough with `variants: function`: the generator
    accepts it, Tensor gets no cube() member, and its tests call the function instead."""
    src = tmp_path / "src"
    shutil.copytree(REPO / "yaml", src / "yaml")
    (src / "kernels" / "cpu").mkdir(parents=True)
    (src / "tests" / "api").mkdir(parents=True)
    (src / "docs").mkdir()
    shutil.copy(REPO / "docs" / "adding-an-operator.md", src / "docs" / "adding-an-operator.md")
    assert "cube (variants: function)" in rebuild_bench.walkthrough_function(src)
    cpp_test = (src / "tests" / "api" / "CubeTest.cpp").read_text()
    assert "EXPECT_EQ(opcore::cube(t).sum().item<int64_t>(), 8);" in cpp_test
    assert "t.cube()" not in cpp_test
    assert "opcore.cube(t).sum().item() == 8" in (src / "tests" / "python" / "test_cube.py").read_text()
    generation = pipeline.generate(str(src / "yaml"))
    files = dict(generation.files)
    assert "Tensor cube() const;" not in files["opcore/Tensor.h"]
    assert "inline Tensor cube(const Tensor& self)" in files["opcore/ops/cube.h"]


def test_the_two_walkthroughs_run_apart() -> None:
    assert [n for n, _ in rebuild_bench.chosen_scenarios(["walkthrough-function"])] == ["walkthrough-function"]
    assert "walkthrough-function" not in [n for n, _ in rebuild_bench.chosen_scenarios(None)]
    with pytest.raises(SystemExit):
        rebuild_bench._parse_args(["--only", "walkthrough", "--only", "walkthrough-function"])


def test_new_kernel_includes_the_per_operator_header_when_there_are_some(tmp_path: Path) -> None:
    generated = tmp_path / "build" / "generated"
    (generated / "opcore").mkdir(parents=True)
    assert rebuild_bench.native_include(tmp_path) == "opcore/NativeFunctions.h"
    (generated / "opcore" / "ops").mkdir()
    (generated / "opcore" / "ops" / "relu_native.h").write_text("#pragma once\n")
    assert rebuild_bench.native_include(tmp_path) == f"opcore/ops/{rebuild_bench.NEW_OP}_native.h"


def test_the_walkthrough_is_read_from_readme_at_older_revisions(tmp_path: Path) -> None:
    """rebuild_bench.py --rev may check out a revision from before docs/, whose README held the
    walkthrough under "## Adding an operator"."""
    src = tmp_path / "src"
    shutil.copytree(REPO / "yaml", src / "yaml")
    (src / "kernels" / "cpu").mkdir(parents=True)
    (src / "tests" / "api").mkdir(parents=True)
    page = (REPO / "docs" / "adding-an-operator.md").read_text(encoding="utf-8")
    (src / "README.md").write_text("# opcore\n\n#" + page, encoding="utf-8")
    assert rebuild_bench.walkthrough(src).startswith("README.md's walkthrough")
    assert "TEST(CubeTest, CubesEveryElement)" in (src / "tests" / "api" / "CubeTest.cpp").read_text()


def test_the_walkthrough_adds_an_operator_pytorch_does_not_have() -> None:
    """The page's operator must never collide with one of PyTorch's, which opcore may add
    (it did with `abs`): checked against PyTorch's native_functions.yaml when it is installed
    (Debian's python3-torch, or OPCORE_PYTORCH_YAML_DIR), and always against opcore's."""
    page = (REPO / "docs" / "adding-an-operator.md").read_text(encoding="utf-8")
    op = rebuild_bench.walkthrough_operator(page)
    declared = re.compile(rf"^- func: {op}[.(]", re.M)
    assert not declared.search((REPO / "yaml" / "native_functions.yaml").read_text(encoding="utf-8")), op
    pytorch_dir = Path(os.environ.get("OPCORE_PYTORCH_YAML_DIR", _DEBIAN_PYTORCH_DIR))
    if not (pytorch_dir / "native_functions.yaml").is_file():
        pytest.skip("PyTorch's native_functions.yaml is not installed")
    assert not declared.search((pytorch_dir / "native_functions.yaml").read_text(encoding="utf-8")), op


def test_the_walkthrough_operator_and_files_come_from_the_page(tmp_path: Path) -> None:
    """At an older revision the page added `abs`: the operator, the files and the function-only
    edits are read from the page, not assumed."""
    page = ("# Adding an operator\n\n1. Declare it in `yaml/native_functions.yaml`:\n\n"
            "   ```yaml\n   - func: twice(Tensor self) -> Tensor\n     variants: function, method\n"
            "     dispatch:\n       CPU: twice_cpu\n   ```\n\n"
            "2. Create `kernels/cpu/Twice.cpp`:\n\n   ```cpp\n   // kernel\n   ```\n\n"
            "3. Create `tests/api/TwiceTest.cpp`:\n\n   ```cpp\n   auto r = t.twice();\n   ```\n\n"
            "   Create `tests/python/test_twice.py`:\n\n   ```python\n   r = t.twice()\n   ```\n")
    assert rebuild_bench.walkthrough_operator(page) == "twice"
    assert rebuild_bench.walkthrough_files(page) == {
        "kernels/cpu/Twice.cpp": "// kernel\n", "tests/api/TwiceTest.cpp": "auto r = t.twice();\n",
        "tests/python/test_twice.py": "r = t.twice()\n"}
    src = tmp_path / "src"
    (src / "yaml").mkdir(parents=True)
    (src / "yaml" / "native_functions.yaml").write_text("[]\n", encoding="utf-8")
    (src / "docs").mkdir()
    (src / "docs" / "adding-an-operator.md").write_text(page, encoding="utf-8")
    assert rebuild_bench.walkthrough_function(src).endswith(
        "twice (variants: function) + kernels/cpu/Twice.cpp + tests/api/TwiceTest.cpp + tests/python/test_twice.py")
    assert (src / "tests" / "api" / "TwiceTest.cpp").read_text() == "auto r = opcore::twice(t);\n"
    assert (src / "tests" / "python" / "test_twice.py").read_text() == "r = opcore.twice(t)\n"
    assert "variants: function\n" in (src / "yaml" / "native_functions.yaml").read_text()


def test_the_derivative_page_continues_the_walkthrough(tmp_path: Path) -> None:
    """docs/derivatives.md makes the walkthrough's operator differentiable: its first YAML
    block, appended to derivatives.yaml after the walkthrough, is accepted and gives the node
    and the gradcheck test the page names."""
    src = tmp_path / "src"
    shutil.copytree(REPO / "yaml", src / "yaml")
    (src / "docs").mkdir()
    shutil.copy(REPO / "docs" / "adding-an-operator.md", src / "docs" / "adding-an-operator.md")
    rebuild_bench.walkthrough(src)
    page = (REPO / "docs" / "derivatives.md").read_text(encoding="utf-8")
    op = rebuild_bench.walkthrough_operator((src / "docs" / "adding-an-operator.md").read_text(encoding="utf-8"))
    entry = rebuild_bench._page_block(page, "differentiable:", "yaml", "docs/derivatives.md")
    assert entry.startswith(f"- name: {op}(Tensor self) -> Tensor\n"), entry
    derivatives = src / "yaml" / "derivatives.yaml"
    derivatives.write_text(derivatives.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + entry, encoding="utf-8")
    files = dict(pipeline.generate(str(src / "yaml")).files)
    node = f"{op.capitalize()}Backward0"
    assert f"`{node}`" in page and f"`GradcheckTest.{op.capitalize()}Sample0`" in page
    assert any(f"struct {node}" in text or f"class {node}" in text for text in files.values()), node
    assert f"{op.capitalize()}Sample0" in files["tests/Gradcheck.cpp"]

"""A backend's kernel list in gen_backend_stubs' format (--backend-yaml; Note [Backend YAML] in
gen/model/backend_yaml.py), read against opcore's real yaml/: the kernels it must define, their
registrations at PrivateUse1 and AutogradPrivateUse1, --lint, and every bad input a located
error that writes nothing."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from genutil import FIXTURES, REPO, run_gen, snapshot

BACKEND = FIXTURES / "backend" / "npu_native_functions.yaml"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("npu")
    result = run_gen("--backend-yaml", str(BACKEND), "--out", str(out))
    assert result.returncode == 0, result.stderr
    return {p.name: p.read_text() for p in out.iterdir()}


def test_writes_the_backend_s_header_and_registrations_only(generated: dict[str, str]) -> None:
    assert sorted(generated) == ["NPUNativeFunctions.h", "RegisterNPU.cpp"]


def test_list_outputs_names_them_from_the_backend_name(tmp_path: Path) -> None:
    result = run_gen("--backend-yaml", str(BACKEND), "--out", "o", "--list-outputs")
    assert result.stdout.split() == ["o/NPUNativeFunctions.h", "o/RegisterNPU.cpp"]


def test_kernels_are_static_members_with_opcore_s_native_signatures(generated: dict[str, str]) -> None:
    header = generated["NPUNativeFunctions.h"]
    assert "namespace npu {\nusing namespace ::opcore;" in header and "struct NPUNativeFunctions {" in header
    for decl in ("static Tensor& copy_(Tensor& self, const Tensor& src, bool non_blocking);",
                 "static Tensor& fill_(Tensor& self, const Scalar& value);",
                 "static Tensor view(const Tensor& self, IntArrayRef size);",
                 "static Tensor empty(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout, "
                 "std::optional<Device> device, std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format);",
                 "static Tensor relu(const Tensor& self);"):
        assert decl in header


def test_a_structured_operator_is_implemented_by_its_impl_alone(generated: dict[str, str]) -> None:
    header, register = generated["NPUNativeFunctions.h"], generated["RegisterNPU.cpp"]
    # `add.Tensor` listed: the backend writes add.out's impl; mm listed: mm.out's
    assert "static void add_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out);" in header
    assert "static void mm_out(const Tensor& self, const Tensor& mat2, const Tensor& out);" in header
    assert "static Tensor add(" not in header and "static Tensor mm(" not in header
    for op in ("add.out", "add.Tensor", "add_.Tensor", "mm.out", "mm", "mul.Tensor", "mul_.Tensor", "mul.out"):
        assert f'  m.impl("{op}", ' in register
    assert ("Tensor wrapper_PrivateUse1_add_Tensor(const Tensor& self, const Tensor& other, const Scalar& alpha) {\n"
            "  const auto meta = meta::add(self, other, alpha);\n"
            "  const DeviceGuard device_guard(meta.out.device);\n"
            "  Tensor out = detail::makeOutput(meta.out);\n"
            "  ::npu::NPUNativeFunctions::add_out(self, other, alpha, out);\n  return out;\n}") in register
    assert "::npu::NPUNativeFunctions::add_out(self, other, alpha, self);" in register  # add_ in place
    assert "#include <opcore/core/Structured.h>" in register and "#include <opcore/ops/add_native.h>" in register


def test_registrations_guard_devices_as_in_tree_private_use1_wrappers(generated: dict[str, str]) -> None:
    register = generated["RegisterNPU.cpp"]
    assert ("Tensor& wrapper_PrivateUse1_fill__Scalar(Tensor& self, const Scalar& value) {\n"
            "  const DeviceGuard device_guard(self.device());\n"
            "  return ::npu::NPUNativeFunctions::fill_(self, value);\n}") in register
    # copy_ says device_check: NoCheck and device_guard: False: its kernel copies between devices.
    assert ("Tensor& wrapper_PrivateUse1_copy_(Tensor& self, const Tensor& src, bool non_blocking) {\n"
            "  return ::npu::NPUNativeFunctions::copy_(self, src, non_blocking);\n}") in register
    assert '#include "NPUNativeFunctions.h"' in register


def test_autograd_kernels_register_at_autograd_private_use1(generated: dict[str, str]) -> None:
    register = generated["RegisterNPU.cpp"]
    private_use1, autograd = register.split("OPCORE_LIBRARY_IMPL(aten, AutogradPrivateUse1, m) {")
    assert "OPCORE_LIBRARY_IMPL(aten, PrivateUse1, m) {" in private_use1 and '"relu"' not in private_use1
    assert 'm.impl("relu", OPCORE_FN(wrapper_AutogradPrivateUse1_relu));' in autograd
    assert ("Tensor wrapper_AutogradPrivateUse1_relu(const Tensor& self) {\n"
            "  return ::npu::NPUNativeFunctions::relu(self);\n}") in register  # no device guard above the key


def test_same_input_gives_the_same_bytes(tmp_path: Path, generated: dict[str, str]) -> None:
    out = tmp_path / "again"
    assert run_gen("--backend-yaml", str(BACKEND), "--out", str(out)).returncode == 0
    assert {p.name: p.read_text() for p in out.iterdir()} == generated
    again = run_gen("--backend-yaml", str(BACKEND), "--out", str(out))
    assert "0 written, 2 unchanged" in again.stdout


def _kernel_sources(generated: dict[str, str], leave_out: str) -> str:
    """Definitions of the header's kernels, as a backend writes them, but `leave_out`'s."""
    lines = []
    for line in generated["NPUNativeFunctions.h"].splitlines():
        line = line.strip()
        if line.startswith("static ") and f" {leave_out}(" not in line:
            returns, rest = line.removeprefix("static ").rstrip(";").split(" ", 1)
            lines.append(f"{returns} NPUNativeFunctions::{rest} {{ throw 0; }}")
    return '#include "NPUNativeFunctions.h"\n\nnamespace npu {\n' + "\n".join(lines) + "\n}\n"


def test_lint_reports_a_kernel_not_defined(tmp_path: Path, generated: dict[str, str]) -> None:
    (tmp_path / "Kernels.cpp").write_text(_kernel_sources(generated, leave_out=""))
    ok = run_gen("--backend-yaml", str(BACKEND), "--lint", str(tmp_path))
    assert ok.returncode == 0, ok.stderr
    (tmp_path / "Kernels.cpp").write_text(_kernel_sources(generated, leave_out="mm_out"))
    result = run_gen("--backend-yaml", str(BACKEND), "--lint", str(tmp_path))
    assert result.returncode == 1
    assert (f"{BACKEND}:7:3: error: kernel 'NPUNativeFunctions::mm_out' (the impl of structured 'mm.out') is not "
            f"defined in {tmp_path} (expected 'void NPUNativeFunctions::mm_out(const Tensor& self, const Tensor& mat2, "
            "const Tensor& out) {' in namespace npu)\n- mm\n  ^") in result.stderr


BAD = {
    "unknown_op": ("supported:\n- mm\n- ad.Tensor\n",
                   "bad.yaml:5:3: error: 'ad.Tensor': opcore declares no operator 'aten::ad.Tensor' "
                   "(did you mean 'add.Tensor'?)"),
    "unknown_key": ("supportd: [mm]\n", "bad.yaml:3:1: error: unknown key 'supportd' (did you mean 'supported'?)"),
    "full_codegen": ("full_codegen: [add.Tensor]\n",
                     "bad.yaml:3:1: error: 'full_codegen' asks for lazy-tensor (LTC) code generation, which "
                     "opcore does not do"),
    "ir_gen": ("ir_gen: [add.Tensor]\n", "bad.yaml:3:1: error: 'ir_gen' asks for lazy-tensor (LTC) code generation"),
    "duplicate": ("supported: [mm, view]\nautograd:\n- mm\n",
                  "bad.yaml:5:3: error: 'mm' is listed twice (first at line 3)"),
    "not_a_list": ("supported: mm\n", "bad.yaml:3:12: error: 'supported' is a list of operator names (add.Tensor, mm), "
                                      "got 'mm'"),
    "not_a_name": ("supported:\n- [mm]\n", "bad.yaml:4:3: error: an item of 'supported' is an operator name "
                                           "(add.Tensor, mm), got a list"),
    "builtin_backend": (None, "bad.yaml:1:10: error: 'CPU' is one of opcore's own backends"),
    "bad_namespace": (None, "bad.yaml:2:16: error: 'cpp_namespace' is a C++ namespace (npu, my::npu), got 'a-b'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_a_located_error_and_writes_nothing(tmp_path: Path, case: str) -> None:
    body, expected = BAD[case]
    text = "backend: NPU\ncpp_namespace: npu\n" + (body or "")
    if case == "builtin_backend":
        text = "backend: CPU\ncpp_namespace: npu\n"
    if case == "bad_namespace":
        text = "backend: NPU\ncpp_namespace: a-b\n"
    (tmp_path / "bad.yaml").write_text(text)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.h").write_text("// not generated\n")
    before = snapshot(out)
    result = run_gen("--backend-yaml", "bad.yaml", "--out", str(out), cwd=tmp_path)
    assert result.returncode == 1
    assert expected in result.stderr
    assert snapshot(out) == before


def test_missing_keys_and_a_non_mapping_are_errors(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("supported: [mm]\n")
    result = run_gen("--backend-yaml", "bad.yaml", "--out", "out", cwd=tmp_path)
    assert "bad.yaml:1:1: error: missing key 'backend'" in result.stderr
    assert "bad.yaml:1:1: error: missing key 'cpp_namespace'" in result.stderr
    (tmp_path / "bad.yaml").write_text("- mm\n")
    result = run_gen("--backend-yaml", "bad.yaml", "--out", "out", cwd=tmp_path)
    assert "bad.yaml:1:1: error: a backend YAML is a mapping with the keys backend, cpp_namespace" in result.stderr
    assert not (tmp_path / "out").exists()


def test_backend_yaml_does_not_combine_with_another_library_s_flags() -> None:
    result = run_gen("--backend-yaml", str(BACKEND), "--namespace", "myops")
    assert result.returncode == 2 and "--backend-yaml cannot be combined with --namespace" in result.stderr


def test_optional_keys_and_empty_lists(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text("backend: PrivateUse1\ncpp_namespace: my::dev\nclass_name: Kernels\n"
                                     "extra_headers: '#include <vector>'\n"
                                     "supported:\nautograd: [aten::mm]\nsymint: [as_strided]\n")
    result = run_gen("--backend-yaml", "b.yaml", "--out", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    header = (tmp_path / "out" / "PrivateUse1NativeFunctions.h").read_text()
    assert "namespace my::dev {" in header and "struct Kernels {" in header and "static Tensor as_strided(" in header
    assert "#include <opcore/ops/mm_ops.h>\n#include <vector>\n" in header and "static Tensor mm(" in header
    register = (tmp_path / "out" / "RegisterPrivateUse1.cpp").read_text()
    assert "::my::dev::Kernels::as_strided(" in register and 'm.impl("mm", OPCORE_FN(wrapper_AutogradPrivateUse1_mm));' in register


GENERATED = REPO / "build" / "generated"


@pytest.mark.skipif(shutil.which("g++") is None or not (GENERATED / "opcore" / "Tensor.h").exists(),
                    reason="needs g++ and a build of opcore (build/generated)")
def test_the_files_compile_against_opcore_with_the_backend_s_kernels(tmp_path: Path, generated: dict[str, str]) -> None:
    for name, text in generated.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "Kernels.cpp").write_text(_kernel_sources(generated, leave_out=""))
    for source in ("RegisterNPU.cpp", "Kernels.cpp"):
        result = subprocess.run(["g++", "-std=c++20", "-fsyntax-only", "-Wall", "-Werror", f"-I{REPO / 'runtime'}",
                                 f"-I{GENERATED}", f"-I{tmp_path}", str(tmp_path / source)],
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr


def test_every_opcore_operator_can_be_listed_and_is_registered_once(tmp_path: Path) -> None:
    from gen import pipeline
    names = [f.name for f in pipeline.load_spec(str(REPO / "yaml")).functions]
    (tmp_path / "all.yaml").write_text("backend: All\ncpp_namespace: all\nsupported:\n"
                                       + "".join(f"- {name}\n" for name in names))
    result = run_gen("--backend-yaml", "all.yaml", "--out", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    register = (tmp_path / "out" / "RegisterAll.cpp").read_text()
    registered = [line.split('"')[1] for line in register.splitlines() if line.startswith("  m.impl(")]
    assert sorted(registered) == sorted(names)

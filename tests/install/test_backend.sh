#!/usr/bin/env bash
# An out-of-tree backend (ctest: backend_example): installs BUILD_DIR into a temporary prefix and
# builds a copy of examples/backend against it as its users do (opcore_generate_backend on its
# backend YAML). Then trains the main job's network on its device, npu:0, from C++ (npu_example)
# and from Python (npu_example.py): each must print the losses the CPU run prints, and leave
# nothing allocated on the device. Last, the dispatch trace of a call on the device shows the
# PrivateUse1 keys.
#   tests/install/test_backend.sh BUILD_DIR
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$(cd "$1" && pwd)
tmp=$(mktemp -d /tmp/opcore-backend.XXXXXX)
trap '[ -n "${OPCORE_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail() { echo "backend_example: $*"; exit 1; }

cmake --install "$build_dir" --prefix "$tmp/prefix" > "$tmp/install.log"
mkdir "$tmp/src"
cp -r "$source_dir/examples/backend" "$source_dir/examples/mlp.h" "$source_dir/examples/example.py" "$tmp/src/"
cmake -S "$tmp/src/backend" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$tmp/prefix" \
      > "$tmp/configure.log" || { cat "$tmp/configure.log"; fail "configuring failed"; }
cmake --build "$tmp/build" > "$tmp/build.log" || { cat "$tmp/build.log"; fail "the build failed"; }
[ -f "$tmp/build/generated/NPUNativeFunctions.h" ] || fail "opcore_generate_backend wrote no NPUNativeFunctions.h"
"$tmp/prefix/bin/opcore-gen" --backend-yaml "$tmp/src/backend/npu_native_functions.yaml" --lint "$tmp/src/backend" \
  > "$tmp/lint.log" 2>&1 || { cat "$tmp/lint.log"; fail "--lint found kernels the backend does not define"; }

# The network's lines (from its header on) on the CPU, as the main job prints them.
mlp_lines() { sed -n '/^mlp 1 -> 16 -> 1/,$p' | grep -v "^npu: "; }
"$build_dir/opcore_example" | mlp_lines > "$tmp/cpu.txt"
[ -s "$tmp/cpu.txt" ] || fail "opcore_example printed no network losses"

"$tmp/build/npu_example" > "$tmp/npu.txt" 2> "$tmp/npu.err" || { cat "$tmp/npu.txt" "$tmp/npu.err"; fail "npu_example failed"; }
grep -q "bytes in 0 blocks still allocated" "$tmp/npu.txt" || { cat "$tmp/npu.txt"; fail "npu_example left memory on the device"; }
diff <(mlp_lines < "$tmp/npu.txt") "$tmp/cpu.txt" || fail "the network trained on npu:0 from C++ printed other losses than on the CPU"

PYTHONPATH="$build_dir/python" /usr/bin/python3 "$source_dir/examples/example.py" | sed 's/ (Python)$//' | mlp_lines \
  > "$tmp/cpu-python.txt"
PYTHONPATH="$build_dir/python:$tmp/src" /usr/bin/python3 "$tmp/src/backend/npu_example.py" "$tmp/build/libnpu.so" \
  > "$tmp/npu-python.txt" 2> "$tmp/npu-python.err" || { cat "$tmp/npu-python.txt" "$tmp/npu-python.err"; fail "npu_example.py failed"; }
grep -q "^npu: .* 0 bytes still allocated" "$tmp/npu-python.txt" || fail "npu_example.py left memory on the device"
diff <(sed 's/ (Python)$//' "$tmp/npu-python.txt" | mlp_lines) "$tmp/cpu-python.txt" \
  || fail "the network trained on npu:0 from Python printed other losses than on the CPU"
grep -q "UserWarning: the operator 'aten::tanh' is not implemented for npu" "$tmp/npu-python.err" \
  || { cat "$tmp/npu-python.err"; fail "no warning that tanh ran through the CPU fallback"; }

# A call on the device: autograd at AutogradPrivateUse1, then the backend's kernel at PrivateUse1.
OPCORE_SHOW_DISPATCH_TRACE=1 PYTHONPATH="$build_dir/python" /usr/bin/python3 - "$tmp/build/libnpu.so" \
  > "$tmp/trace.txt" 2>&1 <<'PY' || { cat "$tmp/trace.txt"; fail "the traced call failed"; }
import sys
import opcore
opcore.ops.load_library(sys.argv[1])
x = opcore.ones(2).to("npu").requires_grad_()
y = x * x
PY
grep -q "op=\[aten::mul.Tensor\], key=\[AutogradPrivateUse1\]" "$tmp/trace.txt" || { cat "$tmp/trace.txt"; fail "no AutogradPrivateUse1 in the trace"; }
grep -q "op=\[aten::mul.Tensor\], key=\[PrivateUse1\]" "$tmp/trace.txt" || { cat "$tmp/trace.txt"; fail "no PrivateUse1 in the trace"; }
echo "backend_example: libnpu built out of tree; the network trains on npu:0 from C++ and Python with the CPU's losses"

#!/usr/bin/env bash
# Operator libraries out of tree (ctest: extension): installs BUILD_DIR into a temporary prefix
# and builds a copy of examples/extension against it as a project of its own (opcore_generate
# with NAMESPACE myops). Then runs what it built: use_myops (myops' C++ API and autograd),
# load_myops (dlopen and dlclose: exactly myops' operators come and go), the gradcheck tests
# generated from its derivatives.yaml, and opcore.ops.load_library from Python (BUILD_DIR's
# package). Builds and runs examples/executorch (etlib, in ExecuTorch's YAML format). Then
# edits one operator of the copy's YAML: one build recompiles a few files, and a second does
# nothing. Last, a project asking for a newer opcore than the installed one fails to
# configure, saying so.
#   tests/install/test_extension.sh BUILD_DIR
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$(cd "$1" && pwd)
tmp=$(mktemp -d /tmp/opcore-extension.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "extension: $*"; exit 1; }

cmake --install "$build_dir" --prefix "$tmp/prefix" > "$tmp/install.log"
cp -r "$source_dir/examples/extension" "$tmp/src"
cmake -S "$tmp/src" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$tmp/prefix" \
      > "$tmp/configure.log"
cmake --build "$tmp/build" > "$tmp/build.log" || { cat "$tmp/build.log"; fail "the first build failed"; }
[ -f "$tmp/build/generated/myops/Functions.h" ] || fail "opcore_generate wrote no myops/Functions.h"
[ ! -e "$tmp/build/generated/opcore" ] || fail "an extension's generation wrote opcore's files"

"$tmp/build/use_myops" | grep -q ": ok$" || { "$tmp/build/use_myops"; fail "use_myops computed wrong values"; }
"$tmp/build/load_myops" > "$tmp/load.log" || { cat "$tmp/load.log"; fail "load_myops failed"; }
grep -q "loaded 6 operators of myops" "$tmp/load.log" || { cat "$tmp/load.log"; fail "load_myops loaded other operators"; }
[ -x "$tmp/build/myops_gradcheck" ] || fail "no myops_gradcheck: GoogleTest (libgtest-dev) was not found"
"$tmp/build/myops_gradcheck" --gtest_brief=1 > "$tmp/gradcheck.log" || { cat "$tmp/gradcheck.log"; fail "gradcheck failed"; }
grep -q "PASSED.* 2 tests" "$tmp/gradcheck.log" || { cat "$tmp/gradcheck.log"; fail "gradcheck ran other tests than 2"; }

PYTHONPATH="$build_dir/python" /usr/bin/python3 - "$tmp/build/libmyops.so" <<'PY' || fail "opcore.ops.load_library failed"
import sys
import opcore
assert not hasattr(opcore.ops.myops, "fused_gelu")
opcore.ops.load_library(sys.argv[1])
x = opcore.tensor([1.0, -0.5], requires_grad=True)
y = opcore.ops.myops.fused_gelu(x)
y.sum().backward()
assert abs(y[0].item() - 0.841192) < 1e-5 and abs(x.grad[0].item() - 1.082964) < 1e-5, (y, x.grad)
assert opcore.ops.myops.scaled_residual.default(x, x, scale=2.0).tolist() == [3.0, -1.5]
assert str(opcore.ops.myops.fused_gelu.default._schema) == "myops::fused_gelu(Tensor self) -> Tensor"
PY

# etlib, written in ExecuTorch's format: kernels chosen by dtype and dim order, and one for opcore's neg.out.
cmake -S "$source_dir/examples/executorch" -B "$tmp/etlib" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/etlib-configure.log"
cmake --build "$tmp/etlib" > "$tmp/etlib-build.log" || { cat "$tmp/etlib-build.log"; fail "etlib's build failed"; }
"$tmp/etlib/etlib_main" || fail "etlib_main failed"

# One operator edited: its headers, its shards and the files including them recompile, not the library.
sed -i 's/float scale=1.0/float scale=2.0/g' "$tmp/src/yaml/native_functions.yaml" "$tmp/src/yaml/derivatives.yaml"
total=$(grep -c "Building CXX" "$tmp/build.log")
cmake --build "$tmp/build" > "$tmp/rebuild.log" || { cat "$tmp/rebuild.log"; fail "the build after the edit failed"; }
rebuilt=$(grep -c "Building CXX" "$tmp/rebuild.log" || true)
[ "$rebuilt" -ge 1 ] && [ "$rebuilt" -le 8 ] || { cat "$tmp/rebuild.log"; fail "editing one operator recompiled $rebuilt of $total files"; }
grep -q "no work to do" <(cmake --build "$tmp/build") || fail "a second build after the edit did work"
grep -q "double scale = 2.0" "$tmp/build/generated/myops/ops/scaled_residual.h" || fail "the edit did not reach the C++ API"
"$tmp/build/use_myops" | grep -q ": ok$" || fail "use_myops failed after the edit"

mkdir "$tmp/newer"
cat > "$tmp/newer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(needs_newer LANGUAGES CXX)
find_package(opcore 99.0 CONFIG REQUIRED)
CMAKE
if cmake -S "$tmp/newer" -B "$tmp/newer/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/newer.log" 2>&1; then
  fail "a project requiring opcore 99.0 configured"
fi
grep -q 'requested version "99.0"' "$tmp/newer.log" || { cat "$tmp/newer.log"; fail "no clear version error"; }
echo "extension: myops built against an installed opcore, called from C++ and Python, loaded and" \
     "unloaded; one edited operator recompiled $rebuilt of $total files; etlib (ExecuTorch's format) works"

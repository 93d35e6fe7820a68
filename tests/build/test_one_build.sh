#!/usr/bin/env bash
# One build suffices after a YAML edit: a source that includes a per-operator header the edit
# changes is recompiled by the build that regenerated it (opcore_generate declares every
# generated file, Note in cmake/install/opcoreGenerate.cmake), and a second build has nothing to do.
#   tests/build/test_one_build.sh SOURCE_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
work=$(mktemp -d /tmp/opcore-one-build.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/yaml"
cp "$src/tests/build/CMakeLists.txt" "$work/"
cp "$src/tests/gen/fixtures/mini/tags.yaml" "$work/yaml/"
printf '[]\n' > "$work/yaml/derivatives.yaml"
cat > "$work/yaml/native_functions.yaml" <<'YAML'
- func: scale(Tensor self, float factor) -> Tensor
  dispatch:
    CPU: scale_cpu
YAML
echo '#include <opcore/ops/scale_native.h>' > "$work/kernel.cpp"
cmake -S "$work" -B "$work/build" -G Ninja -DOPCORE_SOURCE_DIR="$src" -DOPCORE_PYTHON=/usr/bin/python3 > /dev/null
cmake --build "$work/build" > /dev/null
# The kernel takes a second argument: scale_native.h changes, and so must kernel.cpp's object.
sed -i 's/float factor) -> Tensor/float factor, int times) -> Tensor/' "$work/yaml/native_functions.yaml"
first=$(cmake --build "$work/build")
second=$(cmake --build "$work/build")
if ! grep -q "Building CXX object.*kernel.cpp" <<< "$first"; then
  echo "FAIL: the first build after the edit did not recompile kernel.cpp:"; echo "$first"; exit 1
fi
if ! grep -q "no work to do" <<< "$second"; then
  echo "FAIL: a second build still had work:"; echo "$second"; exit 1
fi
echo "PASS: one build recompiled what the edit changed"

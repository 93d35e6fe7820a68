#!/usr/bin/env bash
# A selective build (ctest: selective_build; docs/libraries.md, "Selective builds"): configures this
# repository with OPCORE_SELECTED_OPERATORS=tests/build/starter_operators.yaml, builds libopcore,
# and runs tests/build/selective_check.cpp against it: the selected operators work, the others
# are not registered and say that the build left them out. Then the same from Python, with the
# build's opcore package (tests/build/selective_check.py), and the selection against what the
# compiled code calls (tests/build/check_selection.py).
#   tests/build/test_selective.sh SOURCE_DIR MAIN_BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
main_build=$(cd "$2" && pwd)
work=$(mktemp -d /tmp/opcore-selective.XXXXXX)
trap 'rm -rf "$work"' EXIT
# -O0: this build checks which operators are registered, not how fast they run, and compiles
# about three times as fast as with Release's -O3. It has no CUDA kernels (nvcc took about a
# third of its time): their sources are the main build's, which compiled them, and
# check_selection.py reads what they call from its objects.
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG" \
      -DOPCORE_CUDA=OFF -DOPCORE_PYTHON=/usr/bin/python3 \
      -DOPCORE_SELECTED_OPERATORS="$src/tests/build/starter_operators.yaml" > "$work/configure.log"
cmake --build "$work/build" --target opcore > "$work/build.log" || { tail -30 "$work/build.log"; exit 1; }
grep -q "registerExcluded" "$work/build/generated/opcore/RegisterSchema.cpp" || { echo "FAIL: nothing excluded"; exit 1; }
g++ -std=c++20 -O1 "$src/tests/build/selective_check.cpp" -I"$src/runtime" -I"$work/build/generated" \
    -L"$work/build" -lopcore -Wl,-rpath,"$work/build" -o "$work/selective_check"
"$work/selective_check"
cmake --build "$work/build" --target opcore_python > "$work/build-python.log" || { tail -30 "$work/build-python.log"; exit 1; }
PYTHONPATH="$work/build/python" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 "$src/tests/build/selective_check.py"
/usr/bin/python3 "$src/tests/build/check_selection.py" "$src" "$work/build" "$src/tests/build/starter_operators.yaml" \
    "$main_build"

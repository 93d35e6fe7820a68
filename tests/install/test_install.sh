#!/usr/bin/env bash
# opcore as a dependency (ctest: install_consumer): installs BUILD_DIR into a temporary prefix,
# moves the prefix (the install must be relocatable), checks that the generator runs from its
# bytecode, then builds examples/consumer (which sets no C++ standard) against it with
# find_package(opcore) and again with pkg-config, runs both, and has the installed generator
# run at build time through opcore_generate (a second build then does nothing).
#   tests/install/test_install.sh BUILD_DIR
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$1
tmp=$(mktemp -d /tmp/opcore-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build_dir" --prefix "$tmp/first" > "$tmp/install.log"
mv "$tmp/first" "$tmp/prefix"
prefix=$tmp/prefix
# The installed generator runs from the bytecode the install compiled, still valid once moved.
imports=$(cd "$tmp" && PYTHONPATH="$prefix/share/opcore" /usr/bin/python3 -v -c "import gen.pipeline" 2>&1)
grep -q "code object from '$prefix/share/opcore/gen/__pycache__/pipeline\.cpython" <<< "$imports" ||
  { echo "the installed generator is not byte-compiled"; exit 1; }
expected="sum = 12, grad = tensor([2., 2., 2., 2.]), threads >= 1: 1"

# The consumer sets no C++ standard of its own: the imported target must bring C++20 (the
# compiler's default is older, and the headers do not compile without it).
! grep -qE "cxx_std|CXX_STANDARD" "$source_dir/examples/consumer/CMakeLists.txt" ||
  { echo "examples/consumer must not set a C++ standard: it checks that opcore::opcore carries one"; exit 1; }
cmake -S "$source_dir/examples/consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" -DCONSUMER_YAML_DIR="$source_dir/yaml" > "$tmp/configure.log"
cmake --build "$tmp/consumer" > "$tmp/build.log"
[ -f "$tmp/consumer/generated/opcore/Functions.h" ] || { echo "opcore_generate wrote no Functions.h"; exit 1; }
grep -q "no work to do" <(cmake --build "$tmp/consumer") || { echo "a second build of the consumer did work"; exit 1; }
got=$("$tmp/consumer/consumer")
[ "$got" = "$expected" ] || { echo "find_package build printed: $got (expected: $expected)"; exit 1; }

read -r -a flags <<< "$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs opcore)"
g++ -std=c++20 -O1 "$source_dir/examples/consumer/main.cpp" "${flags[@]}" -o "$tmp/consumer_pc"
got=$("$tmp/consumer_pc")
[ "$got" = "$expected" ] || { echo "pkg-config build printed: $got (expected: $expected)"; exit 1; }
echo "install_consumer: find_package, opcore_generate and pkg-config work from a moved prefix"

#!/usr/bin/env bash
# The benchmark's own set-up command: installs Google Benchmark, Debian's libtorch and its
# Python package (torchgen, for bench/gen_bench.py), numpy and matplotlib (the plots) -- only
# the missing packages --, runs the project set-up (scripts/setup.sh: configure + build in
# build/), then builds the opcore_bench target and runs it. Extra arguments go to opcore_bench, e.g.
#   bench/setup.sh --benchmark_filter=typed_call
# Without libtorch (package not installable) opcore_bench still builds and runs its own
# benchmarks; it then prints "libtorch: not installed ..." instead of ratios.
# bench/run.sh runs this and then every other benchmark, and writes their figures into
# bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libbenchmark-dev libtorch-dev python3-torch python3-numpy python3-matplotlib)
scripts/install_packages.sh "${packages[@]}" ||
  echo "bench/setup: could not install ${packages[*]}; continuing without what is missing" >&2

scripts/setup.sh
# Re-run the configure step so a libtorch installed after build/ was first configured is found.
cmake -S . -B build
cmake --build build --target opcore_bench
exec ./build/opcore_bench "$@"

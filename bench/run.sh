#!/usr/bin/env bash
# The one benchmark command: installs what is missing (bench/setup.sh: Google Benchmark,
# libtorch, torch, numpy, matplotlib), builds in Release, runs every benchmark in bench/, and
# rewrites the "Latest run" section of bench/README.md (bench/report.py) with their tables,
# the machine and the thread count, and the plots it draws into bench/plots/.
#   bench/run.sh [--skip-rebuild]
# About 20 minutes on 2 cores; the rebuild benchmark adds about 30 (one full build in a fresh
# clone, then one rebuild per scenario), and --skip-rebuild leaves it out.
# Builds hold /tmp/opcore-build.lock, so other builds on the machine wait instead of skewing
# the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

skip_rebuild=0
case "${1:-}" in
  "") ;;
  --skip-rebuild) skip_rebuild=1 ;;
  *) echo "usage: bench/run.sh [--skip-rebuild]" >&2; exit 2 ;;
esac

results=$(mktemp -d /tmp/opcore-bench.XXXXXX)
trap 'rm -rf "$results"' EXIT
threads=$(nproc)
python=(env PYTHONPATH=build/python /usr/bin/python3)

flock /tmp/opcore-build.lock bench/setup.sh --benchmark_repetitions=10 \
  --benchmark_out="$results/opcore_bench.json" --benchmark_out_format=json
flock /tmp/opcore-build.lock cmake --build build --target opcore_stream
"${python[@]}" bench/kernels_bench.py --threads "$threads" --markdown "$results/kernels_bench.md" --plots bench/plots
"${python[@]}" bench/aten_bench.py --threads "$threads" --markdown "$results/aten_bench.md" --plots bench/plots
"${python[@]}" bench/python_bench.py --markdown "$results/python_bench.md"
"${python[@]}" bench/ops_bench.py --markdown "$results/ops_bench.md"
/usr/bin/python3 bench/gen_bench.py | tee "$results/gen_bench.txt"
bench/compile_bench.sh build | tee "$results/compile_bench.txt"
if ((!skip_rebuild)); then
  /usr/bin/python3 bench/rebuild_bench.py | tee "$results/rebuild_bench.txt"
fi
/usr/bin/python3 bench/report.py "$results" --threads "$threads"

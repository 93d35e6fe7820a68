#!/usr/bin/env bash
# Every benchmark in bench/, one after the other (bench/README.md describes each):
#   bench/run_all.sh [--skip-rebuild]
# 1. bench/setup.sh: installs what is missing, builds build/, runs opcore_bench (dispatcher)
# 2. bench/gen_bench.py: generation time, opcore vs torchgen                      (~1 min)
# 3. bench/compile_bench.sh build: compile cost of <opcore/opcore.h> vs <ATen/ATen.h> (~1 min)
# 4. bench/python_bench.py: per-call time of the Python bindings vs torch and numpy (~1 min)
#    bench/kernels_bench.py: kernel throughput vs torch and numpy                  (~2 min)
# 5. bench/rebuild_bench.py: rebuild after a one-operator change, in a fresh clone  (~30+ min
#    on 2 cores: one full build plus one rebuild per scenario); --skip-rebuild leaves it out
# Builds hold /tmp/opcore-build.lock, so other builds on the machine wait instead of skewing
# the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

skip_rebuild=0
case "${1:-}" in
  "") ;;
  --skip-rebuild) skip_rebuild=1 ;;
  *) echo "usage: bench/run_all.sh [--skip-rebuild]" >&2; exit 2 ;;
esac

flock /tmp/opcore-build.lock bench/setup.sh
/usr/bin/python3 bench/gen_bench.py
bench/compile_bench.sh build
PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py
PYTHONPATH=build/python /usr/bin/python3 bench/kernels_bench.py
if ((!skip_rebuild)); then
  /usr/bin/python3 bench/rebuild_bench.py
fi

#!/usr/bin/env bash
# Quick start, command 2: set up, build, and run every test (GoogleTest and pytest, via ctest),
# then the C++ suite again under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/).
# Tests that cannot run here (CUDA without a GPU) skip; their reasons are printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
status=0
ctest --test-dir build --output-on-failure -j2 || status=$?
log=build/Testing/Temporary/LastTest.log
if grep -q ": Skipped$" "$log" 2>/dev/null; then
  echo "Skipped tests, and why:"
  grep -B1 -A1 ": Skipped$" "$log" | grep -v -e "^--$" -e ": Skipped$" | sed 's/^/  /'
fi
echo "Sanitizers: building build-asan/ and running the suite under ASan + UBSan"
scripts/sanitize.sh || status=$?
exit "$status"

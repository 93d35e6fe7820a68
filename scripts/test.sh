#!/usr/bin/env bash
# Quick start, command 2: set up, build, and run every test, in parts:
#   suite      GoogleTest and pytest through ctest (the generator's bad-input corpus and the
#              operator table included)
#   asan       the C++ and Python suites again under AddressSanitizer + UndefinedBehaviorSanitizer
#              (build-asan/, scripts/sanitize.sh)
#   tsan       the concurrency stress tests under ThreadSanitizer (build-tsan/, scripts/tsan.sh)
#   fuzz       every fuzz target for OPCORE_FUZZ_SECONDS (default 30) each, after replaying the
#              kept crashes (build-fuzz/, scripts/fuzz.sh)
# Every part runs even when an earlier one fails; the exit status is non-zero if any failed.
# Tests that cannot run here (CUDA without a GPU) skip; their reasons are printed. At the end a
# table gives each part's wall time and result (docs/reliability.md records CI's).
set -euo pipefail
cd "$(dirname "$0")/.."
# ctest -j2 runs two test processes on two cores, each with an OpenMP thread per core. libgomp's
# idle threads spin for 300,000 rounds after each parallel region before they sleep, taking
# the CPU from the other test: a fifth of the operator table's CPU time was such spinning
# (docs/reliability.md). 10,000 rounds still catch the next region of a training step.
export GOMP_SPINCOUNT=10000

parts=()
status=0
# run_part NAME COMMAND...: runs COMMAND, remembering its wall time and result.
run_part() {
  local name=$1 start=$SECONDS result=passed
  shift
  echo "=== $name: $*"
  "$@" || { result=failed; status=1; }
  parts+=("$(printf '%-6s %5d s  %s' "$name" $((SECONDS - start)) "$result")")
}

setup() {
  scripts/setup.sh --packages-only || return 1
  # The suite's torch (Debian's 1.13) installs while build/ builds, as apt waits on the network
  # and the disk, the build on the CPUs: the operator table's reference and the tests that
  # compare with torch. The table falls back to numpy without it, whose integer sin, cos and tan
  # compute in float64 where torch and opcore compute in float32.
  torch_log=$(mktemp /tmp/opcore-torch-install.XXXXXX)
  scripts/install_packages.sh python3-torch > "$torch_log" 2>&1 &
  torch_install=$!
  scripts/setup.sh
}

suite() {
  local failed=0
  wait "$torch_install" || { cat "$torch_log"; failed=1; }
  ctest --test-dir build --output-on-failure -j2 || failed=1
  local log=build/Testing/Temporary/LastTest.log
  if grep -q ": Skipped$" "$log" 2>/dev/null; then
    echo "Skipped tests, and why:"
    grep -B1 -A1 ": Skipped$" "$log" | grep -v -e "^--$" -e ": Skipped$" | sed 's/^/  /'
  fi
  return "$failed"
}

run_part setup setup
if [ "$status" -ne 0 ]; then wait; exit "$status"; fi
run_part suite suite
run_part asan scripts/sanitize.sh
run_part tsan scripts/tsan.sh
run_part fuzz scripts/fuzz.sh "${OPCORE_FUZZ_SECONDS:-30}"

echo "=== parts (wall time, result)"
printf '  %s\n' "${parts[@]}"
exit "$status"

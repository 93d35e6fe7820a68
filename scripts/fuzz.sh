#!/usr/bin/env bash
# Fuzzes opcore's input-facing code (issue #32):
#   1. configures and builds the libFuzzer targets of fuzz/ into build-fuzz/ (clang, ASan,
#      UBSan), when they are missing or out of date;
#   2. replays every regression input in fuzz/regressions/<target>/ (each runs once);
#   3. runs each libFuzzer target for SECONDS on a scratch copy of fuzz/corpus/<target>/ (the
#      committed corpus is never grown); a crash, leak or timeout found is copied to
#      fuzz/regressions/<target>/ to be kept as a regression case;
#   4. runs the Python fuzz driver tests/fuzz/fuzz_gen.py for SECONDS on each of its targets.
# Steps 2 to 4 run two targets at a time.
# Prints, per target, the inputs executed and the time taken. Exits non-zero on any failure.
#
#   scripts/fuzz.sh            # 60 seconds per target
#   scripts/fuzz.sh 10         # a quick pass
# Environment: OPCORE_FUZZ_TARGETS="fuzz_schema fuzz_ivalue" runs only those libFuzzer targets;
# OPCORE_FUZZ_SKIP_PYTHON=1 skips step 4.
set -euo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "usage: scripts/fuzz.sh [seconds per target, default 60]" >&2
  exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="$root/build-fuzz"
targets="${OPCORE_FUZZ_TARGETS:-fuzz_schema fuzz_boxed_call fuzz_ivalue}"
python=/usr/bin/python3
failures=()
summary=()

# clang with libFuzzer's runtime (Debian puts it in libclang-rt-14-dev, which clang only suggests).
scripts/install_packages.sh clang libclang-rt-14-dev
echo "== building $build"
start=$(date +%s)
if [ ! -f "$build/build.ninja" ]; then
  cmake -S fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ >/dev/null
fi
ninja -C "$build" >/dev/null
echo "   built in $(( $(date +%s) - start )) s"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/opcore-fuzz.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

# Each target runs in its own background job, two at a time (the machine's two cores; every
# target is one process on one core), and writes its report to $scratch/<job>.report; a job that
# fails leaves $scratch/<job>.failed. The reports are printed in the targets' order at the end.
jobs_order=()
run_job() {  # run_job NAME FUNCTION ARGS...: starts FUNCTION in the background, two at a time.
  local name=$1
  shift
  while [ "$(jobs -pr | wc -l)" -ge 2 ]; do wait -n || true; done
  jobs_order+=("$name")
  "$@" >"$scratch/$name.report" 2>&1 &
}

fuzz_libfuzzer() {  # fuzz_libfuzzer TARGET
  local target=$1 binary="$build/$1" regressions="fuzz/regressions/$1"
  local failed=0
  # --- replay: every kept input runs once; any failure fails the script.
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    local count
    count=$(find "$regressions" -type f | wc -l)
    if "$binary" $(find "$regressions" -type f | sort) >"$scratch/$target.replay.log" 2>&1; then
      echo "== $target: replayed $count regression input(s): ok"
    else
      echo "== $target: a regression input fails again:"
      tail -n 40 "$scratch/$target.replay.log"
      failed=1
    fi
  fi
  # --- fuzz on a scratch copy of the corpus.
  local corpus="$scratch/$target.corpus" artifacts="$scratch/$target.artifacts" log="$scratch/$target.log"
  mkdir -p "$corpus" "$artifacts"
  if [ -d "fuzz/corpus/$target" ]; then cp -R "fuzz/corpus/$target/." "$corpus/"; fi
  local start status=0 took execs line
  start=$(date +%s)
  # -rss_limit_mb: fuzz_boxed_call's registrations keep every dispatch table they published
  # (Note [Lock-free calls] in OperatorEntry.h), about 1 KB each, so its memory grows with the
  # number of runs.
  "$binary" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=4096 -timeout=20 \
    -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 || status=$?
  took=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  line="$target: ${execs:-?} inputs in ${took} s"
  if [ "$status" -ne 0 ] || [ -n "$(ls -A "$artifacts")" ]; then
    mkdir -p "$regressions"
    for f in "$artifacts"/*; do
      [ -e "$f" ] || continue
      cp "$f" "$regressions/"
      echo "   kept $regressions/$(basename "$f")"
    done
    echo "== $target: FAILED (exit $status); the end of its log:"
    grep -v '^#[0-9]' "$log" | tail -n 60
    failed=1
    line="$line, FAILED"
  else
    echo "== $line"
  fi
  echo "$line" >"$scratch/$target.summary"
  if [ "$failed" -ne 0 ]; then touch "$scratch/$target.failed"; fi
}

fuzz_python() {  # fuzz_python TARGET: the Python driver (the generator's parsers)
  local target=$1 name="py-$1" start status=0 took line
  start=$(date +%s)
  "$python" "$driver" --seconds "$seconds" --target "$target" >"$scratch/$name.log" 2>&1 || status=$?
  took=$(( $(date +%s) - start ))
  line="fuzz_gen.py $target: ${took} s"
  if [ "$status" -ne 0 ]; then
    echo "== $line: FAILED (exit $status):"
    tail -n 40 "$scratch/$name.log"
    touch "$scratch/$name.failed"
    line="$line, FAILED"
  else
    echo "== $line: $(tail -n 1 "$scratch/$name.log")"
  fi
  echo "$line" >"$scratch/$name.summary"
}

for target in $targets; do run_job "$target" fuzz_libfuzzer "$target"; done
driver="tests/fuzz/fuzz_gen.py"
if [ -n "${OPCORE_FUZZ_SKIP_PYTHON:-}" ]; then
  echo "== $driver: skipped (OPCORE_FUZZ_SKIP_PYTHON)"
elif [ ! -f "$driver" ]; then
  echo "== $driver: not there, skipped"
else
  for target in $("$python" "$driver" --list-targets); do run_job "py-$target" fuzz_python "$target"; done
fi
wait
for name in "${jobs_order[@]}"; do
  cat "$scratch/$name.report"
  if [ -f "$scratch/$name.summary" ]; then summary+=("$(cat "$scratch/$name.summary")"); fi
  if [ -f "$scratch/$name.failed" ] || [ ! -f "$scratch/$name.summary" ]; then failures+=("$name"); fi
done

echo "== summary"
for line in "${summary[@]}"; do echo "   $line"; done
if [ "${#failures[@]}" -ne 0 ]; then
  echo "FAILED: ${failures[*]}"
  exit 1
fi
echo "all fuzz targets passed"

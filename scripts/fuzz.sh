#!/usr/bin/env bash
# Fuzzes opcore's input-facing code (issue #32):
#   1. configures and builds the libFuzzer targets of fuzz/ into build-fuzz/ (clang, ASan,
#      UBSan), when they are missing or out of date;
#   2. replays every regression input in fuzz/regressions/<target>/ (each runs once);
#   3. runs each libFuzzer target for SECONDS on a scratch copy of fuzz/corpus/<target>/ (the
#      committed corpus is never grown); a crash, leak or timeout found is copied to
#      fuzz/regressions/<target>/ to be kept as a regression case;
#   4. runs the Python fuzz driver tests/fuzz/fuzz_gen.py for SECONDS on each of its targets.
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

for target in $targets; do
  binary="$build/$target"
  regressions="fuzz/regressions/$target"
  # --- replay: every kept input runs once; any failure fails the script.
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    count=$(find "$regressions" -type f | wc -l)
    if "$binary" $(find "$regressions" -type f | sort) >"$scratch/$target.replay.log" 2>&1; then
      echo "== $target: replayed $count regression input(s): ok"
    else
      echo "== $target: a regression input fails again:"
      tail -n 40 "$scratch/$target.replay.log"
      failures+=("$target (regressions)")
    fi
  fi
  # --- fuzz on a scratch copy of the corpus.
  corpus="$scratch/$target.corpus"
  artifacts="$scratch/$target.artifacts"
  mkdir -p "$corpus" "$artifacts"
  if [ -d "fuzz/corpus/$target" ]; then cp -R "fuzz/corpus/$target/." "$corpus/"; fi
  log="$scratch/$target.log"
  start=$(date +%s)
  # -rss_limit_mb: fuzz_boxed_call's registrations keep every dispatch table they published
  # (Note [Lock-free calls] in OperatorEntry.h), about 1 KB each, so its memory grows with the
  # number of runs.
  status=0
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
    failures+=("$target")
    line="$line, FAILED"
  else
    echo "== $line"
  fi
  summary+=("$line")
done

# --- the Python driver (the generator's parsers).
driver="tests/fuzz/fuzz_gen.py"
if [ -n "${OPCORE_FUZZ_SKIP_PYTHON:-}" ]; then
  echo "== $driver: skipped (OPCORE_FUZZ_SKIP_PYTHON)"
elif [ ! -f "$driver" ]; then
  echo "== $driver: not there, skipped"
else
  for target in $("$python" "$driver" --list-targets); do
    start=$(date +%s)
    status=0
    "$python" "$driver" --seconds "$seconds" --target "$target" >"$scratch/py-$target.log" 2>&1 || status=$?
    took=$(( $(date +%s) - start ))
    line="fuzz_gen.py $target: ${took} s"
    if [ "$status" -ne 0 ]; then
      echo "== $line: FAILED (exit $status):"
      tail -n 40 "$scratch/py-$target.log"
      failures+=("fuzz_gen.py $target")
      line="$line, FAILED"
    else
      echo "== $line: $(tail -n 1 "$scratch/py-$target.log")"
    fi
    summary+=("$line")
  done
fi

echo "== summary"
for line in "${summary[@]}"; do echo "   $line"; done
if [ "${#failures[@]}" -ne 0 ]; then
  echo "FAILED: ${failures[*]}"
  exit 1
fi
echo "all fuzz targets passed"

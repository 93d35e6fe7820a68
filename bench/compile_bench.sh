#!/usr/bin/env bash
# Compile-cost benchmark (issue #4): how long a translation unit that includes opcore's
# all-operators header <opcore/opcore.h> takes to compile, against one that includes
# libtorch's <ATen/ATen.h> (Debian's libtorch-dev), with the same compiler and flags.
#   bench/compile_bench.sh [BUILD_DIR]
# BUILD_DIR: a configured build whose generated/ headers to use; without it the generator
# writes them into a temporary directory. Each TU is compiled in two forms, the header alone
# and the header plus one call of add(); best of REPEAT (default 3) runs, wall time, holding
# the build lock (/tmp/opcore-build.lock) so no other build runs alongside.
# Environment: CXX (default g++), CXXFLAGS (default "-std=c++20 -O2", the project's standard
# and a Release-like level), REPEAT.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${OPCORE_BENCH_LOCKED:-}" ]; then
  exec env OPCORE_BENCH_LOCKED=1 flock /tmp/opcore-build.lock "$0" "$@"
fi

cxx=${CXX:-g++}
read -r -a flags <<< "${CXXFLAGS:--std=c++20 -O2}"
repeat=${REPEAT:-3}
tmp=$(mktemp -d /tmp/opcore-compilebench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if [ $# -ge 1 ] && [ -f "$1/generated/opcore/Functions.h" ]; then
  generated=$(cd "$1/generated" && pwd)
else
  [ $# -ge 1 ] && echo "compile_bench: $1/generated/opcore/Functions.h not found; generating" >&2
  generated=$tmp/generated
  /usr/bin/python3 -m gen --yaml-dir yaml --out "$generated" > /dev/null
fi

cat > "$tmp/opcore_include.cpp" <<'EOF'
#include <opcore/opcore.h>
EOF
cat > "$tmp/opcore_call.cpp" <<'EOF'
#include <opcore/opcore.h>
opcore::Tensor benchAdd(const opcore::Tensor& a, const opcore::Tensor& b) { return opcore::add(a, b); }
EOF
cat > "$tmp/aten_include.cpp" <<'EOF'
#include <ATen/ATen.h>
EOF
cat > "$tmp/aten_call.cpp" <<'EOF'
#include <ATen/ATen.h>
at::Tensor benchAdd(const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); }
EOF

# best_of FILE INCLUDE_ARGS...: prints the best wall time in seconds of REPEAT compilations.
best_of() {
  local file=$1 best="" start end t
  shift
  for ((i = 0; i < repeat; i++)); do
    start=$(date +%s%N)
    "$cxx" "${flags[@]}" "$@" -c "$tmp/$file" -o "$tmp/out.o"
    end=$(date +%s%N)
    t=$(( (end - start) / 1000000 ))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  awk -v ms="$best" 'BEGIN { printf "%.2f", ms / 1000 }'
}

opcore_inc=(-I runtime -I "$generated")
echo "compile_bench: $("$cxx" --version | head -1), flags: ${flags[*]}, best of $repeat," \
     "$(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg)"
o_inc=$(best_of opcore_include.cpp "${opcore_inc[@]}")
o_call=$(best_of opcore_call.cpp "${opcore_inc[@]}")

if [ -f /usr/include/ATen/ATen.h ]; then
  a_inc=$(best_of aten_include.cpp)
  a_call=$(best_of aten_call.cpp)
else
  echo "compile_bench: <ATen/ATen.h> not found (bench/setup.sh installs libtorch-dev); no ratios"
  a_inc="" a_call=""
fi

printf '\n%-24s %-12s %-12s %-10s %s\n' "translation unit" "opcore" "libtorch" "ratio" "issue #4 target"
for form in include call; do
  o_var="o_$form" a_var="a_$form"
  o=${!o_var} a=${!a_var}
  label="#include only"
  [ "$form" = call ] && label="#include + add(a, b)"
  if [ -n "$a" ]; then
    ratio=$(awk -v o="$o" -v a="$a" 'BEGIN { printf "%.3fx", o / a }')
    verdict=$(awk -v o="$o" -v a="$a" 'BEGIN { print (o <= a / 4) ? "<= 0.25x: met" : "<= 0.25x: NOT met" }')
    printf '%-24s %-12s %-12s %-10s %s\n' "$label" "$o s" "$a s" "$ratio" "$verdict"
  else
    printf '%-24s %-12s %-12s %-10s\n' "$label" "$o s" "-" "-"
  fi
done

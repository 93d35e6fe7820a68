#!/usr/bin/env bash
# Compile-cost benchmark (issue #4): how long a translation unit that includes opcore's
# all-operators header <opcore/opcore.h> takes to compile, against one that includes
# libtorch's <ATen/ATen.h> (Debian's libtorch-dev), with the same compiler and flags.
#   bench/compile_bench.sh [BUILD_DIR]
#   bench/compile_bench.sh --pytorch-yaml DIR
# BUILD_DIR: a configured build whose generated/ headers to use; without it the generator
# writes them into a temporary directory. --pytorch-yaml DIR generates them from PyTorch's own
# native_functions.yaml and tags.yaml in DIR (python3 -m gen --pytorch-yaml), so that both
# headers declare the same operators (for example Debian's
# /usr/lib/python3/dist-packages/torchgen/packaged/ATen/native, PyTorch 1.13, as libtorch-dev). Each TU is compiled in two forms, the header alone
# and the header plus one call of add(); best of REPEAT (default 3) runs, wall and CPU time, holding
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

if [ $# -ge 2 ] && [ "$1" = --pytorch-yaml ]; then
  generated=$tmp/generated
  mkdir "$tmp/yaml"
  cp "$2/native_functions.yaml" "$2/tags.yaml" "$tmp/yaml/"
  echo "[]" > "$tmp/yaml/derivatives.yaml"
  /usr/bin/python3 -m gen --yaml-dir "$tmp/yaml" --out "$generated" --pytorch-yaml > /dev/null
  echo "compile_bench: the generated API of $2/native_functions.yaml" \
       "($(grep -c '^- func:' "$2/native_functions.yaml") entries)"
elif [ $# -ge 1 ] && [ -f "$1/generated/opcore/Functions.h" ]; then
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

# best_of FILE INCLUDE_ARGS...: prints "WALL CPU", the best wall time and the best CPU time
# (user + sys, which other load on the machine disturbs less) of REPEAT compilations, in s.
best_of() {
  local file=$1 best_wall="" best_cpu="" times wall cpu
  shift
  for ((i = 0; i < repeat; i++)); do
    if ! { time "$cxx" "${flags[@]}" "$@" -c "$tmp/$file" -o "$tmp/out.o" 2> "$tmp/err"; } 2> "$tmp/time"; then
      cat "$tmp/err" >&2
      echo "compile_bench: compiling $file failed" >&2
      exit 1
    fi
    read -r wall cpu < <(awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$tmp/time")
    if [ -z "$best_wall" ] || awk -v a="$wall" -v b="$best_wall" 'BEGIN { exit !(a < b) }'; then best_wall=$wall; fi
    if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN { exit !(a < b) }'; then best_cpu=$cpu; fi
  done
  echo "$best_wall $best_cpu"
}
TIMEFORMAT='%R %U %S'

opcore_inc=(-I runtime -I "$generated")
echo "compile_bench: $("$cxx" --version | head -1), flags: ${flags[*]}, best of $repeat," \
     "$(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg)"
r=$(best_of opcore_include.cpp "${opcore_inc[@]}"); read -r o_inc o_inc_cpu <<< "$r"
r=$(best_of opcore_call.cpp "${opcore_inc[@]}"); read -r o_call o_call_cpu <<< "$r"

a_inc="" a_call=""
if [ -f /usr/include/ATen/ATen.h ]; then
  r=$(best_of aten_include.cpp); read -r a_inc a_inc_cpu <<< "$r"
  r=$(best_of aten_call.cpp); read -r a_call a_call_cpu <<< "$r"
else
  echo "compile_bench: <ATen/ATen.h> not found (bench/setup.sh installs libtorch-dev); no ratios"
fi

row() { printf '%-22s %-19s %-19s %-8s %-10s %s\n' "$@"; }
echo
row "translation unit" "opcore" "libtorch" "ratio" "CPU ratio" "issue #4 target (wall)"
for form in inc call; do
  label="#include only"
  [ "$form" = call ] && label="#include + add(a, b)"
  o_var="o_$form" a_var="a_$form" oc_var="o_${form}_cpu" ac_var="a_${form}_cpu"
  o=${!o_var} a=${!a_var} oc=${!oc_var}
  if [ -n "$a" ]; then
    ac=${!ac_var}
    read -r ratio cpu_ratio verdict < <(awk -v o="$o" -v a="$a" -v oc="$oc" -v ac="$ac" 'BEGIN {
      printf "%.3fx %.3fx %s\n", o / a, oc / ac, (o <= a / 4) ? "met" : "NOT_met" }')
    row "$label" "$o s ($oc cpu)" "$a s ($ac cpu)" "$ratio" "$cpu_ratio" "<= 0.25x: ${verdict/_/ }"
  else
    row "$label" "$o s ($oc cpu)" "-" "-" "-"
  fi
done

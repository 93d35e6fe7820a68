#!/usr/bin/env bash
# The CUDA checks of issue 35, for a machine with a GPU, in two steps:
#
#   scripts/gpu_check.sh prepare   # on the Debian machine: unpacks the libraries the GPU machine
#                                  # lacks (OpenBLAS, SLEEF, GoogleTest) into build-gpu-deps/
#   scripts/gpu_check.sh           # on the GPU machine, with build-gpu-deps/ beside the tree:
#                                  # builds build-gpu/ (sm_90 code and compute_90 PTX, as
#                                  # cmake/Cuda.cmake sets), runs the CUDA tests,
#                                  # bench/gpu_bench.py, opcore_bench's GPU rows against
#                                  # libtorch (pip's torch's) and bench/gpu_models.py, and
#                                  # writes it all to gpu_check.log
#                                  # (in $OUT/ when the device tool sets it; the tool's call:
#                                  # run "scripts/gpu_check.sh", carry ["build-gpu-deps"])
#
# The GPU machine is expected to have nvcc, g++, CMake, Ninja and a python3 with jinja2, yaml,
# pytest, numpy and torch (the reference for the benchmark). What it prints goes with the
# machine into bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DEPS=$PWD/build-gpu-deps
MULTIARCH=x86_64-linux-gnu

if [[ "${1:-}" == prepare ]]; then
  packages=(libopenblas0-openmp libopenblas-openmp-dev libsleef3 libsleef-dev libgtest-dev libgmock-dev libgfortran5
            libbenchmark1debian libbenchmark-dev)
  rm -rf "$DEPS" && mkdir -p "$DEPS/debs"
  (cd "$DEPS/debs" && apt-get download "${packages[@]}" >/dev/null 2>&1)
  for deb in "$DEPS"/debs/*.deb; do dpkg-deb -x "$deb" "$DEPS"; done
  # Only what the build links: no static OpenBLAS, LAPACK or docs (the device tool carries 64 MiB).
  rm -rf "$DEPS/debs" "$DEPS/usr/share" "$DEPS/usr/lib/$MULTIARCH/openblas-openmp/"*.a \
         "$DEPS/usr/lib/$MULTIARCH/openblas-openmp/liblapack"*
  echo "build-gpu-deps: $(du -sh "$DEPS" | cut -f1); carry it with the tree to the GPU machine"
  exit 0
fi

if [[ ! -d "$DEPS/usr" ]]; then
  echo "gpu_check: no build-gpu-deps/ (run 'scripts/gpu_check.sh prepare' on Debian first)" >&2
  exit 2
fi
LOG=${OUT:-$PWD}/gpu_check.log
exec > >(tee "$LOG") 2>&1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || echo "gpu_check: nvidia-smi found no GPU"
PYTHON=$(command -v python3)
if ! "$PYTHON" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(sysconfig.get_paths()["include"] + "/Python.h"))'; then
  echo "gpu_check: $PYTHON has no Python.h; opcore._C needs its development headers" >&2
  exit 2
fi
LIBS="$DEPS/usr/lib/$MULTIARCH"
export LD_LIBRARY_PATH="$LIBS:$LIBS/openblas-openmp:${LD_LIBRARY_PATH:-}"
start=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DOPCORE_PYTHON="$PYTHON" -DCMAKE_PREFIX_PATH="$DEPS/usr" -DCMAKE_CXX_FLAGS="-isystem $DEPS/usr/include" \
  -DOPCORE_OPENBLAS_INCLUDE_DIR="$DEPS/usr/include/$MULTIARCH/openblas-openmp" \
  -DOPCORE_OPENBLAS_LIBRARY="$LIBS/openblas-openmp/libopenblas.so" -DOPCORE_SLEEF_LIBRARY="$LIBS/libsleef.so" >/dev/null
cmake --build build-gpu --target opcore_tests opcore_python 2>&1 | tail -1
echo "gpu_check: built in $(( $(date +%s) - start )) s"

status=0
build-gpu/opcore_tests --gtest_filter='Cuda*:CachingDevice*:CachingHost*:DeviceGuard*' || status=1
PYTHONPATH=build-gpu/python "$PYTHON" -m pytest -q -p no:cacheprovider -rs tests/python/test_cuda.py \
  tests/python/test_cuda_ops.py || status=1
PYTHONPATH=build-gpu/python "$PYTHON" bench/gpu_bench.py --runs 5 || status=1
# The 1-element add from C++ against libtorch: opcore_bench's GPU rows, libtorch being the
# python's torch (its C++ library and headers), which must use the C++11 string ABI as
# Debian's Google Benchmark does.
TORCH=$("$PYTHON" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
if "$PYTHON" -c 'import sys, torch; sys.exit(not torch.compiled_with_cxx11_abi())'; then
  cmake -S . -B build-gpu -DOPCORE_TORCH_INCLUDE_DIR="$TORCH/include" -DOPCORE_TORCH_LIBRARY="$TORCH/lib/libtorch.so" \
    -DOPCORE_TORCH_CPU_LIBRARY="$TORCH/lib/libtorch_cpu.so" -DOPCORE_C10_LIBRARY="$TORCH/lib/libc10.so" \
    -DOPCORE_TORCH_CUDA_LIBRARY="$TORCH/lib/libtorch_cuda.so" >/dev/null
  { cmake --build build-gpu --target opcore_bench 2>&1 | tail -1 &&
    build-gpu/opcore_bench --benchmark_filter=_cuda; } || status=1
else
  echo "gpu_check: $TORCH uses the old string ABI; opcore_bench's libtorch rows are not built"
  status=1
fi
PYTHONPATH=build-gpu/python "$PYTHON" bench/gpu_models.py || status=1
echo "gpu_check: $([[ $status == 0 ]] && echo passed || echo FAILED) in $(( $(date +%s) - start )) s"
exit $status

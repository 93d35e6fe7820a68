#!/usr/bin/env bash
# Builds opcore with ThreadSanitizer in build-tsan/ and runs the thread tests there: the C++
# ones (opcore_thread_tests: ConcurrencyTest, PluginTest, StressTest) and the Python ones
# (tests/python/test_threads.py); exits non-zero on any report. Only what those tests need is
# built (the library, the test plugin, one test program and opcore._C).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build-tsan/build.ninja ]; then
  # -O0 -g1: the thread tests are small, so the build is nearly all of this part's time, and
  # at -O0 the kernels compile in half the time of -O1 (TSan sees every access at either);
  # -g1 gives its stack traces line numbers.
  cmake -S . -B build-tsan -G Ninja -DOPCORE_SANITIZE=thread -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -g1 -DNDEBUG"
fi
cmake --build build-tsan --target opcore_thread_tests opcore_test_plugin opcore_python
# OpenMP's runtime (libgomp) is not instrumented, so TSan cannot see the barriers of its
# thread pool and reports races between a parallel region's threads and later users of the
# same memory that cannot happen. These tests are about opcore's own threads (callers,
# registrations, the allocator, backward), so the kernels run on the calling thread:
# OPCORE_NUM_THREADS=1 keeps parallel_for out of OpenMP and OMP_NUM_THREADS=1 keeps OpenBLAS
# and oneDNN on one thread. Nothing is suppressed. halt_on_error: the first report fails the
# run (exit status 66).
export OPCORE_NUM_THREADS=1 OMP_NUM_THREADS=1
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
status=0
build-tsan/opcore_thread_tests || status=$?
# The interpreter is not instrumented: the TSan runtime is preloaded (as ASan's is for the
# Python tests, cmake/PythonExtension.cmake). Its GIL is a pthread mutex, which TSan sees, so
# opcore code run from Python threads is checked like the C++ tests' (a deliberate race between
# two Python threads' add_() on one tensor is reported).
LD_PRELOAD="$("${CXX:-c++}" -print-file-name=libtsan.so)" \
  PYTHONPATH=build-tsan/python:tests/python PYTHONDONTWRITEBYTECODE=1 \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python/test_threads.py || status=$?
exit "$status"

#!/usr/bin/env bash
# Builds opcore with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ and runs
# the whole test suite there (scripts/test.sh runs this after the normal suite).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build-asan/build.ninja ]; then
  # -O1 -g1, as scripts/tsan.sh: ASan's recommended optimization and line tables for its
  # reports; the library compiles about twice as fast as with RelWithDebInfo's -O2 -g.
  cmake -S . -B build-asan -G Ninja -DOPCORE_SANITIZE=address -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
fi
cmake --build build-asan
# detect_leaks: the dispatcher's published tables are reachable from the leaked singleton,
# so anything LeakSanitizer reports is a real leak. OPCORE_CPU_ALLOCATOR=system: a cached block
# handed out again would hide a use after free from ASan. OPCORE_SHORT_TRAINING: the showcase
# models train for a few steps only (tests/train): this run looks for memory errors, and the
# normal suite checks that they reach the README's figures. intercept_tls_get_addr=0: GCC 12's
# LeakSanitizer crashed in its tracer at exit ("Tracer caught signal 11"), every test of the
# shard passed, first with the commits that run the random fills on the OpenMP threads, and
# every time since; the flag is the workaround for the sanitizer runtime's known trouble with
# threads' dynamic TLS (google/sanitizers#1267), and leaves LeakSanitizer blind only to
# pointers held nowhere but in dynamic TLS.
OPCORE_SHORT_TRAINING=1 OPCORE_CPU_ALLOCATOR=system \
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:intercept_tls_get_addr=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --test-dir build-asan --output-on-failure -j2 -E '^pytest$'

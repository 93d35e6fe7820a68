// parallel_for over OpenMP, and the thread-count setting.
#include <opcore/core/Parallel.h>

#include <opcore/core/Error.h>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>

namespace opcore {

// Note [Threads]
// One pool for everything: parallel_for uses OpenMP's threads, and opcore links the OpenMP
// builds of OpenBLAS and oneDNN, so a matrix product and an elementwise loop never leave two
// pools spinning against each other. The thread count is one process-wide setting, as in
// PyTorch, passed to every parallel region explicitly (OpenMP's own setting is per calling
// thread). The matrix libraries run on one thread per block of the result, inside
// parallel_for (Note [Thread-count-independent products] in kernels/cpu/Gemm.h).
// Chunks are contiguous and as few as the threads, so each thread streams one block.

namespace {

int initialThreads() {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const char* v = std::getenv("OPCORE_NUM_THREADS");
  if (v == nullptr || *v == '\0') return cores;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 1 || n > 4096) {
    std::fprintf(stderr, "opcore: OPCORE_NUM_THREADS=%s is not a positive thread count; using %d\n", v, cores);
    return cores;
  }
  return static_cast<int>(n);
}

std::atomic<int>& numThreads() {
  static std::atomic<int> n = initialThreads();
  return n;
}

}  // namespace

int get_num_threads() { return numThreads().load(std::memory_order_relaxed); }

void set_num_threads(int n) {
  OPCORE_CHECK(n >= 1, "set_num_threads: expected a positive number of threads, but got ", n);
  numThreads().store(n, std::memory_order_relaxed);
}

bool in_parallel_region() { return omp_in_parallel() != 0; }

namespace detail {

int64_t numChunks(int64_t n, int64_t grain_size) {
  if (in_parallel_region()) return 1;
  const int64_t by_size = (n + std::max<int64_t>(grain_size, 1) - 1) / std::max<int64_t>(grain_size, 1);
  return std::min<int64_t>(get_num_threads(), by_size);
}

void parallelChunks(int64_t begin, int64_t end, int64_t chunks, ChunkFn chunk, const void* context) {
  std::exception_ptr error;
  std::once_flag first_error;
  const int64_t n = end - begin;
#pragma omp parallel for num_threads(static_cast<int>(chunks)) schedule(static, 1)
  for (int64_t c = 0; c < chunks; ++c) {
    try {
      chunk(context, begin + n * c / chunks, begin + n * (c + 1) / chunks);
    } catch (...) {
      std::call_once(first_error, [&] { error = std::current_exception(); });
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace detail
}  // namespace opcore

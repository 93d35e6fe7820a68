// STREAM's "add" kernel (c[i] = a[i] + b[i]) on 16M floats with OpenMP: the machine's memory
// bandwidth for the access pattern of add_out, the ceiling bench/kernels_bench.py compares
// opcore with. Prints the median, min and max GB/s over the runs, counting 12 bytes per
// element as STREAM does; with "copy" as third argument, STREAM's copy (c[i] = a[i], 8 bytes
// per element), the ceiling of a dtype conversion; with "read", the sum of a[i] (4 bytes per
// element, as STREAM's other kernels with OpenMP's static split), the ceiling of a reduction,
// which only reads:
//   build/opcore_stream [threads] [runs] [add|copy|read]  ->  "stream_add 38.1 36.9 39.4"
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

namespace {

constexpr long kN = 16L << 20;

// The sum of a[first, last) in 64 independent float sums, which vectorize. An AVX2 copy, since
// the point is the machine's ceiling: SSE2's loop does not keep up with memory on one thread
// (bench/README.md, issue #33).
__attribute__((target_clones("default", "arch=x86-64-v3"))) float sumOf(const float* a, long first, long last) {
  constexpr int kLanes = 64;
  float lanes[kLanes] = {};
  long i = first;
  for (; i + kLanes <= last; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] += a[i + j];
  }
  for (; i < last; ++i) lanes[0] += a[i];
  float total = 0;
  for (float lane : lanes) total += lane;
  return total;
}

// The sum of a[0, kN) on `threads` threads, each summing the part schedule(static) gives it (the
// pages it first touched).
double readAll(const float* a, int threads) {
  double total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
  {
    const long t = omp_get_thread_num(), nt = omp_get_num_threads();
    total += sumOf(a, kN * t / nt, kN * (t + 1) / nt);
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : omp_get_max_threads();
  const int runs = argc > 2 ? std::atoi(argv[2]) : 7;
  const std::string_view kernel = argc > 3 ? argv[3] : "add";
  const bool copy = kernel == "copy", read = kernel == "read";
  if (threads < 1 || runs < 1 || (!copy && !read && kernel != "add")) {
    std::fprintf(stderr, "usage: opcore_stream [threads >= 1] [runs >= 1] [add|copy|read]\n");
    return 2;
  }
  std::unique_ptr<float[]> a(new float[kN]), b(new float[kN]), c(new float[kN]);
  // First touch on the threads that use each page, as STREAM does.
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long i = 0; i < kN; ++i) a[i] = 1.0f, b[i] = 2.0f, c[i] = 0.0f;
  std::vector<double> rates;
  double sum = 0;
  for (int r = 0; r < runs + 1; ++r) {  // the first run warms up
    const auto start = std::chrono::steady_clock::now();
    int calls = 0;
    double elapsed = 0;
    do {
      if (read) {
        sum += readAll(a.get(), threads);
      } else if (copy) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (long i = 0; i < kN; ++i) c[i] = a[i];
      } else {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (long i = 0; i < kN; ++i) c[i] = a[i] + b[i];
      }
      ++calls;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < 0.1);
    if (r > 0) rates.push_back((read ? 4.0 : copy ? 8.0 : 12.0) * kN * calls / elapsed / 1e9);
    if (read && sum != static_cast<double>(kN) * calls) return 1;
    sum = 0;
  }
  std::sort(rates.begin(), rates.end());
  std::printf("stream_%.*s %.1f %.1f %.1f\n", static_cast<int>(kernel.size()), kernel.data(), rates[rates.size() / 2],
              rates.front(), rates.back());
  return read || c[kN / 2] == (copy ? 1.0f : 3.0f) ? 0 : 1;
}

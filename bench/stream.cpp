// STREAM's "add" kernel (c[i] = a[i] + b[i]) on 16M floats with OpenMP: the machine's memory
// bandwidth for the access pattern of add_out, the ceiling bench/kernels_bench.py compares
// opcore with. Prints the median, min and max GB/s over the runs, counting 12 bytes per
// element as STREAM does; with "copy" as third argument, STREAM's copy (c[i] = a[i], 8 bytes
// per element), the ceiling of a dtype conversion:
//   build/opcore_stream [threads] [runs] [add|copy]  ->  "stream_add 38.1 36.9 39.4"
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : omp_get_max_threads();
  const int runs = argc > 2 ? std::atoi(argv[2]) : 7;
  const bool copy = argc > 3 && std::string_view(argv[3]) == "copy";
  if (threads < 1 || runs < 1 || (argc > 3 && !copy && std::string_view(argv[3]) != "add")) {
    std::fprintf(stderr, "usage: opcore_stream [threads >= 1] [runs >= 1] [add|copy]\n");
    return 2;
  }
  constexpr long kN = 16L << 20;
  std::unique_ptr<float[]> a(new float[kN]), b(new float[kN]), c(new float[kN]);
  // First touch on the threads that use each page, as STREAM does.
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long i = 0; i < kN; ++i) a[i] = 1.0f, b[i] = 2.0f, c[i] = 0.0f;
  std::vector<double> rates;
  for (int r = 0; r < runs + 1; ++r) {  // the first run warms up
    const auto start = std::chrono::steady_clock::now();
    int calls = 0;
    double elapsed = 0;
    do {
      if (copy) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (long i = 0; i < kN; ++i) c[i] = a[i];
      } else {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (long i = 0; i < kN; ++i) c[i] = a[i] + b[i];
      }
      ++calls;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < 0.1);
    if (r > 0) rates.push_back((copy ? 8.0 : 12.0) * kN * calls / elapsed / 1e9);
  }
  std::sort(rates.begin(), rates.end());
  std::printf("stream_%s %.1f %.1f %.1f\n", copy ? "copy" : "add", rates[rates.size() / 2], rates.front(),
              rates.back());
  return c[kN / 2] == (copy ? 1.0f : 3.0f) ? 0 : 1;
}

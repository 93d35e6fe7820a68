// Dispatcher overhead, measured with Google Benchmark (see bench/README.md for figures):
//   - a trivial operator (returns its input) called through a typed handle, vs. the same
//     kernel called directly;
//   - add on 1-element tensors through the generated API, vs. the out= kernel called
//     directly with a preallocated output (what remains is allocation and promotion).
// Build: cmake --build build --target opcore_bench; run: ./build/opcore_bench
#include <opcore/NativeFunctions.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/library/Library.h>
#include <opcore/opcore.h>

#include <benchmark/benchmark.h>

namespace {

using opcore::Tensor;

// Not inlined, so the direct call is a real call, as through the dispatcher.
__attribute__((noinline)) Tensor identity(const Tensor& self) { return self; }

OPCORE_LIBRARY(bench, m) { m.def("identity(Tensor self) -> Tensor"); }
OPCORE_LIBRARY_IMPL(bench, CPU, m) { m.impl("identity", OPCORE_FN(identity)); }

void BM_IdentityDirect(benchmark::State& state) {
  const Tensor t = opcore::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(identity(t));
}
BENCHMARK(BM_IdentityDirect);

void BM_IdentityDispatched(benchmark::State& state) {
  const Tensor t = opcore::ones({1});
  const auto op = opcore::Dispatcher::singleton()
                      .findSchemaOrThrow("bench::identity", "")
                      .typed<Tensor(const Tensor&)>();
  for (auto _ : state) benchmark::DoNotOptimize(op.call(t));
}
BENCHMARK(BM_IdentityDispatched);

void BM_AddOutDirect(benchmark::State& state) {
  const Tensor a = opcore::ones({1}), b = opcore::ones({1});
  Tensor out = opcore::empty({1});
  for (auto _ : state) benchmark::DoNotOptimize(opcore::native::add_out(a, b, 1, out));
}
BENCHMARK(BM_AddOutDirect);

void BM_AddOutDispatched(benchmark::State& state) {
  const Tensor a = opcore::ones({1}), b = opcore::ones({1});
  Tensor out = opcore::empty({1});
  for (auto _ : state) benchmark::DoNotOptimize(opcore::add_out(out, a, b));
}
BENCHMARK(BM_AddOutDispatched);

void BM_AddFunctional(benchmark::State& state) {
  const Tensor a = opcore::ones({1}), b = opcore::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(opcore::add(a, b));
}
BENCHMARK(BM_AddFunctional);

}  // namespace

BENCHMARK_MAIN();

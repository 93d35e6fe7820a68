// libtorch's side of opcore_bench: the same benchmarks as bench/dispatch_bench.cpp, named
// libtorch/<name>, so bench/main.cpp can print opcore/<name> / libtorch/<name>. Built only when
// CMake finds Debian's libtorch-dev (bench/setup.sh installs it); the only translation unit
// that includes libtorch's headers. libtorch runs as a user would call it: grad mode on, no
// InferenceMode, tensors that don't require grad.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <torch/library.h>

#include <benchmark/benchmark.h>

namespace {

// Not inlined, so the direct call is a real call, as through the dispatcher.
__attribute__((noinline)) at::Tensor identity(const at::Tensor& self) { return self; }

TORCH_LIBRARY(opcore_bench, m) { m.def("identity(Tensor self) -> Tensor"); }
TORCH_LIBRARY_IMPL(opcore_bench, CPU, m) { m.impl("identity", TORCH_FN(identity)); }

c10::OperatorHandle identityOp() {
  return c10::Dispatcher::singleton().findSchemaOrThrow("opcore_bench::identity", "");
}

void directCall(benchmark::State& state) {
  const at::Tensor t = at::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(identity(t));
}
BENCHMARK(directCall)->Name("libtorch/direct_call");

void typedCall(benchmark::State& state) {
  const at::Tensor t = at::ones({1});
  const auto op = identityOp().typed<at::Tensor(const at::Tensor&)>();
  for (auto _ : state) benchmark::DoNotOptimize(op.call(t));
}
BENCHMARK(typedCall)->Name("libtorch/typed_call");

// The stack is refilled every iteration, as a boxed caller (an interpreter) would do.
void boxedCall(benchmark::State& state) {
  const at::Tensor t = at::ones({1});
  const c10::OperatorHandle op = identityOp();
  torch::jit::Stack stack;
  stack.reserve(1);
  for (auto _ : state) {
    stack.clear();
    stack.emplace_back(t);
    op.callBoxed(stack);
    benchmark::DoNotOptimize(stack.back());
  }
}
BENCHMARK(boxedCall)->Name("libtorch/boxed_call");

void add1Elem(benchmark::State& state) {
  const at::Tensor a = at::ones({1}), b = at::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(at::add(a, b));
}
BENCHMARK(add1Elem)->Name("libtorch/add_1elem");

void empty1(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(at::empty({1}));
}
BENCHMARK(empty1)->Name("libtorch/empty_1");

void add16M(benchmark::State& state) {
  const at::Tensor a = at::ones({16 << 20}), b = at::ones({16 << 20});
  for (auto _ : state) benchmark::DoNotOptimize(at::add(a, b));
}
BENCHMARK(add16M)->Name("libtorch/add_16M")->Unit(benchmark::kMillisecond);

// As opcore/add_1elem_cuda and opcore/add_out_1elem_cuda (skipped without a GPU).
template <bool kOut>
void add1ElemCuda(benchmark::State& state) {
  if (!at::hasCUDA()) {
    state.SkipWithError("no GPU");
    return;
  }
  const at::Tensor a = at::ones({1}, at::kCUDA), b = at::ones({1}, at::kCUDA);
  at::Tensor out = at::empty({1}, at::kCUDA);
  for (auto _ : state) benchmark::DoNotOptimize(kOut ? at::add_out(out, a, b) : (out = at::add(a, b)));
  benchmark::DoNotOptimize(out.to(at::kCPU));
}
BENCHMARK(add1ElemCuda<false>)->Name("libtorch/add_1elem_cuda");
BENCHMARK(add1ElemCuda<true>)->Name("libtorch/add_out_1elem_cuda");

// As opcore/autograd_1elem: forward, backward into both leaves, gradients reset.
void autograd1Elem(benchmark::State& state) {
  at::Tensor a = at::ones({1}), b = at::ones({1});
  a.requires_grad_();
  b.requires_grad_();
  for (auto _ : state) {
    const at::Tensor y = ((a * b) + a).sum();
    y.backward();
    a.mutable_grad().reset();
    b.mutable_grad().reset();
  }
}
BENCHMARK(autograd1Elem)->Name("libtorch/autograd_1elem");

void autogradForward1Elem(benchmark::State& state) {
  at::Tensor a = at::ones({1}), b = at::ones({1});
  a.requires_grad_();
  b.requires_grad_();
  for (auto _ : state) benchmark::DoNotOptimize(((a * b) + a).sum());
}
BENCHMARK(autogradForward1Elem)->Name("libtorch/autograd_forward_1elem");

}  // namespace

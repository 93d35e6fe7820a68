// opcore's side of opcore_bench (see bench/README.md for figures; bench/main.cpp prints the
// ratios against bench/libtorch_bench.cpp's benchmarks of the same names):
//   - opcore/direct_call, opcore/typed_call, opcore/boxed_call: a trivial operator (returns
//     its input) called directly, through a typed handle, and boxed (a Stack of IValues);
//     opcore/boxed_call_borrowed: boxed, its argument pushed borrowed (Note [Borrowed IValues]);
//   - opcore/add_1elem: add on 1-element tensors through the generated API;
//   - opcore/add_out_direct, opcore/add_out_1elem: the out= kernel called directly with a
//     preallocated output, and through the generated API (what remains is allocation).
//   - opcore/autograd_1elem: one training-style step on 1-element float tensors a, b that
//     require grad: y = ((a * b) + a).sum(), y.backward(), then both gradients reset;
//     opcore/autograd_forward_1elem: its forward alone (the graph is recorded, then freed);
//   - opcore/add_1elem_privateuse1, opcore/sub_1elem_cpu_fallback: the same on a PrivateUse1
//     device, by the backend's own kernel and by the CPU fallback (against opcore/add_1elem
//     and opcore/sub_1elem); opcore/empty_1_privateuse1: the device's allocation alone.
//   - opcore/add_1elem_cuda, opcore/add_out_1elem_cuda: add and add_out on 1-element GPU
//     tensors (issue #35; skipped without a GPU): the caching allocator and the launch path.
// Build: cmake --build build --target opcore_bench; run: ./build/opcore_bench
#include <opcore/NativeFunctions.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/library/Library.h>
#include <opcore/opcore.h>

#include <benchmark/benchmark.h>

#include <dlfcn.h>

namespace {

using opcore::Tensor;

// Not inlined, so the direct call is a real call, as through the dispatcher.
__attribute__((noinline)) Tensor identity(const Tensor& self) { return self; }

OPCORE_LIBRARY(bench, m) { m.def("identity(Tensor self) -> Tensor"); }
OPCORE_LIBRARY_IMPL(bench, CPU, m) { m.impl("identity", OPCORE_FN(identity)); }

void directCall(benchmark::State& state) {
  const Tensor t = opcore::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(identity(t));
}
BENCHMARK(directCall)->Name("opcore/direct_call");

void typedCall(benchmark::State& state) {
  const Tensor t = opcore::ones({1});
  const auto op = opcore::Dispatcher::singleton()
                      .findSchemaOrThrow("bench::identity", "")
                      .typed<Tensor(const Tensor&)>();
  for (auto _ : state) benchmark::DoNotOptimize(op.call(t));
}
BENCHMARK(typedCall)->Name("opcore/typed_call");

// The stack is refilled every iteration, as a boxed caller (an interpreter) would do. The
// kernel is the unboxed `identity`, reached through its generated boxed adapter. kBorrow:
// the argument is pushed without a reference (the caller keeps `t` alive meanwhile).
template <bool kBorrow>
void boxedCall(benchmark::State& state) {
  const Tensor t = opcore::ones({1});
  const auto op = opcore::Dispatcher::singleton().findSchemaOrThrow("bench::identity", "");
  opcore::Stack stack;
  stack.reserve(1);
  for (auto _ : state) {
    stack.clear();
    if constexpr (kBorrow) {
      stack.push_back(opcore::IValue::borrow(t));
    } else {
      stack.emplace_back(t);  // as libtorch/boxed_call does
    }
    op.callBoxed(stack);
    benchmark::DoNotOptimize(stack.back());
  }
}
BENCHMARK(boxedCall<false>)->Name("opcore/boxed_call");
BENCHMARK(boxedCall<true>)->Name("opcore/boxed_call_borrowed");

void add1Elem(benchmark::State& state) {
  const Tensor a = opcore::ones({1}), b = opcore::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(opcore::add(a, b));
}
BENCHMARK(add1Elem)->Name("opcore/add_1elem");

// The allocator's share (issue #16, caching CPU allocator): a 1-element result, and an
// allocating add of 16M floats (64 MB per result: a fresh mmap() and its page faults every
// iteration without a cache).
void empty1(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(opcore::empty({1}));
}
BENCHMARK(empty1)->Name("opcore/empty_1");

void add16M(benchmark::State& state) {
  const Tensor a = opcore::ones({16 << 20}), b = opcore::ones({16 << 20});
  for (auto _ : state) benchmark::DoNotOptimize(opcore::add(a, b));
}
BENCHMARK(add16M)->Name("opcore/add_16M")->Unit(benchmark::kMillisecond);

void addOutDirect(benchmark::State& state) {
  const Tensor a = opcore::ones({1}), b = opcore::ones({1});
  Tensor out = opcore::empty({1});
  for (auto _ : state) {
    opcore::native::add_out(a, b, 1, out);  // a structured impl: returns nothing
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(addOutDirect)->Name("opcore/add_out_direct");

void addOut1Elem(benchmark::State& state) {
  const Tensor a = opcore::ones({1}), b = opcore::ones({1});
  Tensor out = opcore::empty({1});
  for (auto _ : state) benchmark::DoNotOptimize(opcore::add_out(out, a, b));
}
BENCHMARK(addOut1Elem)->Name("opcore/add_out_1elem");

// Forward (three recorded operations), backward through the engine into both leaves'
// AccumulateGrad nodes, and the reset a training loop does before its next step.
void autograd1Elem(benchmark::State& state) {
  Tensor a = opcore::ones({1}), b = opcore::ones({1});
  a.requires_grad_();
  b.requires_grad_();
  for (auto _ : state) {
    const Tensor y = ((a * b) + a).sum();
    y.backward();
    a.mutable_grad() = Tensor();
    b.mutable_grad() = Tensor();
  }
}
BENCHMARK(autograd1Elem)->Name("opcore/autograd_1elem");

void autogradForward1Elem(benchmark::State& state) {
  Tensor a = opcore::ones({1}), b = opcore::ones({1});
  a.requires_grad_();
  b.requires_grad_();
  for (auto _ : state) benchmark::DoNotOptimize(((a * b) + a).sum());
}
BENCHMARK(autogradForward1Elem)->Name("opcore/autograd_forward_1elem");

// PrivateUse1 (issue #36): the example backend (examples/backend, "npu", host memory), loaded
// once. add is one of its own kernels (structured: opcore's meta function, the device's
// allocator, then its impl); sub is not, so it goes through the CPU fallback: both arguments
// copied to the CPU, the CPU kernel, the result copied back. opcore/add_1elem and
// opcore/sub_1elem are the same calls on CPU tensors.
void* npuBackend() {
  static void* const handle = dlopen(OPCORE_TEST_BACKEND_PATH, RTLD_NOW | RTLD_LOCAL);
  return handle;
}

template <bool kFallback>
void onPrivateUse1(benchmark::State& state) {
  if (npuBackend() == nullptr) {
    state.SkipWithError(dlerror());
    return;
  }
  const opcore::Device npu(opcore::DeviceType::PrivateUse1, 0);
  const Tensor a = opcore::ones({1}).to(npu), b = opcore::ones({1}).to(npu);
  for (auto _ : state) benchmark::DoNotOptimize(kFallback ? opcore::sub(a, b) : opcore::add(a, b));
}
BENCHMARK(onPrivateUse1<false>)->Name("opcore/add_1elem_privateuse1");

// The device's allocation alone (against opcore/empty_1): what add_1elem_privateuse1 may cost
// beyond opcore/add_1elem.
void empty1PrivateUse1(benchmark::State& state) {
  if (npuBackend() == nullptr) {
    state.SkipWithError(dlerror());
    return;
  }
  const opcore::TensorOptions npu = opcore::TensorOptions().device(opcore::Device(opcore::DeviceType::PrivateUse1, 0));
  for (auto _ : state) benchmark::DoNotOptimize(opcore::empty({1}, npu));
}
BENCHMARK(empty1PrivateUse1)->Name("opcore/empty_1_privateuse1");
BENCHMARK(onPrivateUse1<true>)->Name("opcore/sub_1elem_cpu_fallback");

void sub1Elem(benchmark::State& state) {
  const Tensor a = opcore::ones({1}), b = opcore::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(opcore::sub(a, b));
}
BENCHMARK(sub1Elem)->Name("opcore/sub_1elem");

// On the GPU (issue #35, scripts/gpu_check.sh runs these): the time on the host of an
// allocating add, which the caching allocator keeps free of cudaMalloc and of any
// synchronization, and of add_out. The launches are asynchronous; the copy of the last result
// to the host after the loop (not timed) waits for them.
template <bool kOut>
void add1ElemCuda(benchmark::State& state) {
  if (opcore::deviceCount(opcore::DeviceType::CUDA) == 0) {
    state.SkipWithError("no GPU");
    return;
  }
  const opcore::TensorOptions gpu = opcore::TensorOptions().device(opcore::Device(opcore::kCUDA, 0));
  const Tensor a = opcore::ones({1}, gpu), b = opcore::ones({1}, gpu);
  Tensor out = opcore::empty({1}, gpu);
  for (auto _ : state) benchmark::DoNotOptimize(kOut ? opcore::add_out(out, a, b) : (out = opcore::add(a, b)));
  benchmark::DoNotOptimize(out.to(opcore::kCPU));
}
BENCHMARK(add1ElemCuda<false>)->Name("opcore/add_1elem_cuda");
BENCHMARK(add1ElemCuda<true>)->Name("opcore/add_out_1elem_cuda");

}  // namespace

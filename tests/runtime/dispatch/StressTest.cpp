// Many threads at once (issue #32): operators called typed and boxed, with autograd, while
// other threads register and remove kernels, fallbacks and whole plugin libraries; tensors
// freed on other threads than the one that made them; backward() running concurrently on
// independent graphs and on one shared graph; random draws from one generator. Every thread
// checks real results against values computed serially. scripts/tsan.sh runs this under
// ThreadSanitizer, where it is the regression test of the races fixed for issue #32.
#include "DispatchTestUtil.h"

#include <opcore/TensorOperators.h>
#include <opcore/autograd/Engine.h>
#include <opcore/autograd/GradMode.h>
#include <opcore/core/Allocator.h>
#include <opcore/ops/add.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/neg.h>
#include <opcore/ops/rand.h>
#include <opcore/ops/select.h>
#include <opcore/ops/sum.h>

#include "../../api/TestUtil.h"

#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace opcore {
namespace {

using namespace ::opcore::dispatch_test;
using ::opcore::testing::fromVector;
using ::opcore::testing::toVector;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// Under the sanitizers everything runs several times slower: the loops stay a few seconds
// long there too.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr int kScale = 2;
#else
constexpr int kScale = 4;
#endif

void answerSeven(const OperatorHandle& op, Stack* stack) {
  stack->resize(stack->size() - op.schema().arguments().size());
  stack->emplace_back(int64_t{7});
}

int64_t returnsFive(const TensorBase&) { return 5; }

Tensor leafOf(std::vector<double> values) {
  Tensor t = fromVector<double>(values);
  t.requires_grad_();
  return t;
}

// Counts failures of a check made on a worker thread; the test asserts on them after joining
// (gtest's assertions are not meant to be called from many threads at once).
struct Failures {
  std::atomic<int64_t> count{0};
  std::mutex mutex;
  std::string first;
  void add(const std::string& what) {
    if (count.fetch_add(1) == 0) {
      std::lock_guard<std::mutex> lock(mutex);
      first = what;
    }
  }
};

// A CPU float tensor of `n` elements, all `value` (small ones live inline in their storage,
// larger ones come from the caching allocator, the largest are its large blocks). Filled on
// the calling thread: fill_'s parallel_for would make each large one an OpenMP region, slow
// on a loaded machine with every core busy with the test's other threads.
Tensor filled(int64_t n, float value) {
  Tensor t = opcore::empty({n}, ScalarType::Float);
  std::fill_n(t.data_ptr<float>(), n, value);
  return t;
}

bool allEqual(const Tensor& t, float value) {
  const float* p = t.data_ptr<float>();
  const int64_t n = t.numel();
  return p[0] == value && p[n / 2] == value && p[n - 1] == value;
}

// The caller threads' work, one iteration: a typed call with autograd, a boxed call with
// autograd, a call of an operator whose kernels come and go, and one of a built-in operator
// the plugin adds a kernel to. `k` varies the values.
void callEverything(int64_t k, const TypedOperatorHandle<UnaryFn>& f, const OperatorHandle& add_op,
                    Failures& failures) {
  const double a = static_cast<double>(k % 5), b = static_cast<double>(k % 3) + 1;
  // y = sum((x + w) * x): dy/dx = 2x + w, dy/dw = x.
  Tensor x = leafOf({a, a + 1, a + 2}), w = leafOf({b, b, 2 * b});
  Tensor y = opcore::sum(opcore::mul(opcore::add(x, w), x));
  y.backward();
  if (toVector<double>(x.grad()) != std::vector<double>{2 * a + b, 2 * a + 2 + b, 2 * a + 4 + 2 * b} ||
      toVector<double>(w.grad()) != std::vector<double>{a, a + 1, a + 2}) {
    failures.add("typed add/mul/sum backward gave wrong gradients");
  }
  // Boxed: add(x, w, alpha=2), then backward through its result: dx = 1, dw = 2.
  Tensor x2 = leafOf({a, b}), w2 = leafOf({b, a});
  Stack stack{x2, w2, 2};
  add_op.callBoxed(stack);
  Tensor r = stack.at(0).toTensorBase();
  if (toVector<double>(r) != std::vector<double>{a + 2 * b, b + 2 * a} || !r.requires_grad()) {
    failures.add("boxed add gave a wrong result");
  }
  opcore::sum(r).backward();
  if (toVector<double>(x2.grad()) != std::vector<double>{1, 1} ||
      toVector<double>(w2.grad()) != std::vector<double>{2, 2}) {
    failures.add("boxed add backward gave wrong gradients");
  }
  const int64_t v = f.call(cpuTensor());  // 1, or 2 while the override is registered
  if (v != 1 && v != 2) failures.add("st::f returned " + std::to_string(v));
  // Through the autograd layer: the autograd fallback, or the fallthrough registered meanwhile.
  const int64_t v_grad = f.call(Tensor(cpuTensor()).requires_grad_());
  if (v_grad != 1 && v_grad != 2) failures.add("st::f with autograd returned " + std::to_string(v_grad));
  if (toVector<float>(opcore::neg(filled(3, 1.5f))) != std::vector<float>{-1.5f, -1.5f, -1.5f}) {
    failures.add("neg gave a wrong result");
  }
}

TEST(StressTest, CallsRunWhileKernelsFallbacksAndPluginsComeAndGo) {
  auto def = defLib("st");
  def.def("f(Tensor self) -> int");
  auto cpu = implLib("st", DispatchKey::CPU);
  cpu.impl("f", OPCORE_FN(returnsOne));
  auto composite = implLib("st", DispatchKey::CompositeExplicitAutograd);
  composite.impl("f", OPCORE_FN(returnsThree));
  const OperatorHandle f_op = opNamed("st::f");
  const auto f = f_op.typed<UnaryFn>();
  const OperatorHandle add_op = opNamed("aten::add", "Tensor");
  const OperatorHandle neg_op = opNamed("aten::neg");
  const std::string f_state = f_op.dumpState(), neg_state = neg_op.dumpState();
  const std::string fallbacks = Dispatcher::singleton().dumpFallbacks();
  const CpuAllocatorStats before = cpu_allocator_stats();

  const int kRegistrations = 150 * kScale, kPluginLoads = 10 * kScale, kTensors = 200 * kScale;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> calls{0}, registrations{0}, plugin_loads{0}, queries{0}, consumed{0};
  Failures failures;
  std::vector<std::thread> threads;

  for (int t = 0; t < 2; ++t) {  // callers
    threads.emplace_back([&, t] {
      for (int64_t k = t; !stop.load(std::memory_order_relaxed); k += 2) {
        callEverything(k, f, add_op, failures);
        calls.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  threads.emplace_back([&] {  // introspection, as opcore._C's _dispatch_has_kernel* do
    while (!stop.load(std::memory_order_relaxed)) {
      if (!f_op.hasKernelForDispatchKey(DispatchKey::CPU) ||
          !f_op.hasComputedKernelForDispatchKey(DispatchKey::CPU) ||
          f_op.hasKernelForDispatchKey(DispatchKey::CUDA)) {
        failures.add("st::f's introspection is wrong");
      }
      // Not every time: dumping holds the registry mutex long enough to starve the registrations.
      if (queries.load(std::memory_order_relaxed) % 16 == 0 &&
          f_op.dumpState().find("CPU: [registered at") == std::string::npos) {
        failures.add("st::f lost its CPU kernel");
      }
      Stack stack{cpuTensor()};  // the kernel registered at an alias key (OpOverload.decompose)
      f_op.callBoxedForDispatchKey(DispatchKey::CompositeExplicitAutograd, stack);
      if (stack.at(0).toInt() != 3) failures.add("st::f's composite kernel returned a wrong value");
      queries.fetch_add(1, std::memory_order_relaxed);
    }
  });
  threads.emplace_back([&] {  // kernels, operators and fallbacks come and go
    for (int i = 0; i < kRegistrations; ++i) {
      auto override_cpu = implLib("st", DispatchKey::CPU);
      override_cpu.impl("f", OPCORE_FN(returnsTwo));
      auto skip_autograd = implLib("st", DispatchKey::AutogradCPU);
      skip_autograd.impl("f", KernelFunction::makeFallthrough());
      auto composite_too = implLib("st", DispatchKey::CompositeExplicitAutograd);  // the same, newer
      composite_too.impl("f", OPCORE_FN(returnsThree));
      auto more = defLib("st_more");  // an operator defined, given a kernel, called, removed
      more.def(("g" + std::to_string(i % 5) + "(Tensor self) -> int").c_str());
      more.impl(("g" + std::to_string(i % 5)).c_str(), DispatchKey::CPU, OPCORE_FN(returnsFive));
      if (callOp(("st_more::g" + std::to_string(i % 5)).c_str(), cpuTensor()) != 5) {
        failures.add("st_more::g returned a wrong value");
      }
      // A fallback change recomputes (and publishes) every operator's table: a few of them
      // (published tables are never freed, Note [Lock-free calls]).
      if (i % 50 == 0) {
        auto fallback = Library(Library::IMPL, "_", DispatchKey::AutocastPrivateUse1, "StressTest.cpp", 1);
        fallback.fallback(KernelFunction::makeFromBoxedFunction<&answerSeven>());
        if (Dispatcher::singleton().dumpFallbacks().find("AutocastPrivateUse1: [registered at StressTest.cpp:1]") ==
            std::string::npos) {
          failures.add("the AutocastPrivateUse1 fallback is missing");
        }
      }
      registrations.fetch_add(1);
    }
  });
  threads.emplace_back([&] {  // a whole library loaded and unloaded (Note [Loading an operator library])
    for (int i = 0; i < kPluginLoads; ++i) {
      void* plugin = dlopen(OPCORE_TEST_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
      if (plugin == nullptr) {
        failures.add(std::string("dlopen failed: ") + dlerror());
        return;
      }
      if (callOp("plugin_ops::triple", detail::emptyCpu({2, 5}, ScalarType::Float)) != 30 ||
          !neg_op.hasKernelForDispatchKey(DispatchKey::PrivateUse1)) {
        failures.add("the plugin's registrations are wrong");
      }
      if (dlclose(plugin) != 0) failures.add(std::string("dlclose failed: ") + dlerror());
      if (Dispatcher::singleton().findSchema({"plugin_ops::triple", ""}).has_value()) {
        failures.add("plugin_ops::triple outlived its library");
      }
      plugin_loads.fetch_add(1);
    }
  });
  // The allocator: blocks made on one thread and freed on another, across its size classes.
  std::mutex queue_mutex;
  std::condition_variable queue_cv;
  std::deque<std::pair<Tensor, float>> queue;
  threads.emplace_back([&] {
    const int64_t sizes[] = {1, 40, 300, 5000, 70000, 300000};  // 300000 floats: a large block
    for (int i = 0; i < kTensors; ++i) {
      const float value = static_cast<float>(i % 97);
      Tensor t = filled(sizes[i % 6], value);
      std::lock_guard<std::mutex> lock(queue_mutex);
      queue.emplace_back(std::move(t), value);
      queue_cv.notify_one();
    }
  });
  threads.emplace_back([&] {
    for (int i = 0; i < kTensors; ++i) {
      std::unique_lock<std::mutex> lock(queue_mutex);
      queue_cv.wait(lock, [&] { return !queue.empty(); });
      auto [t, value] = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      if (!allEqual(t, value)) failures.add("a tensor handed to another thread changed");
      t = Tensor();  // freed here, allocated on the producer's thread
      if (i % 50 == 49) cpu_allocator_empty_cache();  // while the producer allocates
      consumed.fetch_add(1);
    }
  });

  // The callers and the introspection run until every changing thread is done.
  const size_t changers = 4;
  for (size_t i = threads.size() - changers; i < threads.size(); ++i) threads[i].join();
  stop = true;
  for (size_t i = 0; i < threads.size() - changers; ++i) threads[i].join();

  EXPECT_EQ(failures.count.load(), 0) << "first failure: " << failures.first;
  EXPECT_EQ(registrations.load(), kRegistrations);
  EXPECT_EQ(plugin_loads.load(), kPluginLoads);
  EXPECT_EQ(consumed.load(), kTensors);
  EXPECT_GT(calls.load(), 0);
  EXPECT_GT(queries.load(), 0);
  std::printf("%lld calls, %lld queries during %d registration rounds and %d plugin loads\n",
              static_cast<long long>(calls.load()), static_cast<long long>(queries.load()), kRegistrations,
              kPluginLoads);
  // Everything came back as it was.
  EXPECT_EQ(f_op.dumpState(), f_state);
  EXPECT_EQ(neg_op.dumpState(), neg_state);
  EXPECT_EQ(Dispatcher::singleton().dumpFallbacks(), fallbacks);
  EXPECT_FALSE(Dispatcher::singleton().findSchema({"st_more::g0", ""}).has_value());
  Dispatcher::singleton().checkInvariants();
  EXPECT_EQ(f.call(cpuTensor()), 1);
  EXPECT_EQ(cpu_allocator_stats().allocated_bytes, before.allocated_bytes) << "every block made here was freed";
}

TEST(StressTest, RandomDrawsFromThreadsAreTheSerialDraws) {
  // Each call reserves its own blocks of the shared generator's stream (Note [Generator thread
  // safety]): the threads' tensors, in whatever order they were drawn, are the serial ones.
  constexpr int kThreads = 4;
  const int kDraws = 50 * kScale;
  const Generator g = Generator::create(Device(DeviceType::CPU), /*seed=*/2026);
  const Generator serial_g = g.clone();
  std::vector<std::vector<float>> serial;
  for (int i = 0; i < kThreads * kDraws; ++i) serial.push_back(toVector<float>(opcore::rand({7}, serial_g)));
  std::vector<std::vector<std::vector<float>>> drawn(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kDraws; ++i) drawn[t].push_back(toVector<float>(opcore::rand({7}, g)));
    });
  }
  for (auto& t : threads) t.join();
  std::vector<std::vector<float>> all;
  for (auto& d : drawn) all.insert(all.end(), d.begin(), d.end());
  std::sort(all.begin(), all.end());
  std::sort(serial.begin(), serial.end());
  EXPECT_EQ(all, serial);
  EXPECT_EQ(g.get_offset(), serial_g.get_offset());
}

TEST(StressTest, ThreadsSharingAViewOfAWeightChangedInPlaceGetItsGradient) {
  // A view of a weight, the weight then changed in place without grad (an optimizer step): the
  // view's grad_fn is regenerated when next read (Note [Views and in-place changes]), here by
  // every thread that uses the view at once.
  constexpr int kThreads = 4;
  Tensor weight = fromVector<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  weight.requires_grad_();
  const Tensor row = opcore::select(weight, 0, 1);
  std::vector<Tensor> xs;
  for (int t = 0; t < kThreads; ++t) xs.push_back(fromVector<double>({1.0 + t, -2.0, 0.5}));
  for (int round = 0; round < 5 * kScale; ++round) {
    {
      autograd::NoGradGuard no_grad;
      weight.mul_(0.5);
    }
    Failures failures;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        // d/dweight of sum(row * x): x in row 1, zeros in row 0.
        const auto g = autograd::grad({opcore::sum(opcore::mul(row, xs[t]))}, {weight});
        const std::vector<double> x = toVector<double>(xs[t]);
        if (toVector<double>(g[0]) != std::vector<double>{0, 0, 0, x[0], x[1], x[2]}) {
          failures.add("the gradient through the view is wrong");
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(failures.count.load(), 0) << "round " << round << ": " << failures.first;
  }
}

// y = sum(exp(x * w) + x * x): a graph with saved inputs and outputs.
Tensor smallGraph(const Tensor& x, const Tensor& w) {
  return opcore::sum(opcore::add(opcore::exp(opcore::mul(x, w)), opcore::mul(x, x)));
}

TEST(StressTest, ConcurrentBackwardEqualsSerial) {
  constexpr int kThreads = 4;
  const int kRounds = 25 * kScale;
  // Serial results first.
  Tensor w = leafOf({0.5, -0.25, 0.125});  // shared by every graph, as a model's weight
  std::vector<Tensor> xs;
  std::vector<std::vector<double>> serial_dx, serial_dw;
  for (int t = 0; t < kThreads; ++t) {
    xs.push_back(leafOf({1.0 + t, 2.0 - t, 0.5 * t}));
    const auto g = autograd::grad({smallGraph(xs[t], w)}, {xs[t], w});
    serial_dx.push_back(toVector<double>(g[0]));
    serial_dw.push_back(toVector<double>(g[1]));
  }
  // The shared graph: its gradient once, serially.
  Tensor shared_x = leafOf({0.75, 1.5, -1.0});
  Tensor shared_y = smallGraph(shared_x, w);
  const auto shared_g = autograd::grad({shared_y}, {shared_x}, {}, /*retain_graph=*/true);
  const std::vector<double> serial_shared = toVector<double>(shared_g[0]);

  Failures failures;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        // An independent graph (sharing the leaf w), built and differentiated on this thread.
        const auto g = autograd::grad({smallGraph(xs[t], w)}, {xs[t], w});
        if (toVector<double>(g[0]) != serial_dx[t] || toVector<double>(g[1]) != serial_dw[t]) {
          failures.add("grad() of an independent graph differs from the serial result");
        }
        // The shared graph, through grad() and through backward() into shared_x.grad.
        const auto s = autograd::grad({shared_y}, {shared_x}, {}, /*retain_graph=*/true);
        if (toVector<double>(s[0]) != serial_shared) failures.add("grad() of the shared graph differs");
        autograd::backward({shared_y}, {}, /*retain_graph=*/true);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.count.load(), 0) << "first failure: " << failures.first;
  // backward() ran kThreads * kRounds times: .grad is that many serial gradients, added one by
  // one (adding equal values gives the same sum in any order).
  std::vector<double> expected(serial_shared.size(), 0.0);
  for (int i = 0; i < kThreads * kRounds; ++i) {
    for (size_t j = 0; j < expected.size(); ++j) expected[j] += serial_shared[j];
  }
  EXPECT_THAT(toVector<double>(shared_x.grad()), ElementsAreArray(expected));
  // w.grad: d(shared_y)/dw from each backward() (w is a leaf of the shared graph too).
  const auto dw_once = autograd::grad({shared_y}, {w}, {}, /*retain_graph=*/true);
  std::vector<double> expected_w(3, 0.0);
  for (int i = 0; i < kThreads * kRounds; ++i) {
    for (size_t j = 0; j < 3; ++j) expected_w[j] += toVector<double>(dw_once[0])[j];
  }
  EXPECT_THAT(toVector<double>(w.grad()), ElementsAreArray(expected_w));
}

TEST(StressTest, ConcurrentBackwardThroughARetainedGradientEqualsSerial) {
  // The same graph twice, with an intermediate that retains its gradient: one run serially,
  // the other by threads at once. Every backward() adds the same gradients, so the sums match.
  constexpr int kThreads = 4;
  const int kRounds = 25 * kScale;
  auto build = [](Tensor& x, Tensor& h) {
    x = leafOf({0.75, 1.5, -1.0});
    h = opcore::mul(x, x);
    h.retain_grad();
    return opcore::sum(opcore::exp(h));
  };
  Tensor serial_x, serial_h, x, h;
  const Tensor serial_y = build(serial_x, serial_h), y = build(x, h);
  for (int i = 0; i < kThreads * kRounds; ++i) autograd::backward({serial_y}, {}, /*retain_graph=*/true);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) autograd::backward({y}, {}, /*retain_graph=*/true);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(toVector<double>(h.grad()), toVector<double>(serial_h.grad()));
  EXPECT_EQ(toVector<double>(x.grad()), toVector<double>(serial_x.grad()));
}

}  // namespace
}  // namespace opcore

// Intra-op parallelism: the number of threads CPU kernels may use, and parallel_for, which
// splits a range into chunks run on those threads (OpenMP underneath; see Note [Threads]).
//   opcore::set_num_threads(1);           // every kernel runs on the calling thread
//   opcore::parallel_for(0, n, kGrainSize, [&](int64_t begin, int64_t end) { ... });
#pragma once

#include <cstdint>

namespace opcore {

// Elements below which a loop is not worth splitting: starting a parallel region costs about
// as much as a simple elementwise pass over this many floats.
constexpr int64_t kGrainSize = 32768;

// The grain, in items, of a loop whose items cost `item_cost` elements' work each (a row's
// length, a plane's outputs times its window): items for kGrainSize elements, at least one.
constexpr int64_t grainFor(int64_t item_cost) {
  return item_cost >= kGrainSize ? 1 : kGrainSize / (item_cost > 1 ? item_cost : 1);
}

// The threads a kernel may use. Starts at OPCORE_NUM_THREADS when set, else at the number of
// cores. Affects the whole process, BLAS calls included.
int get_num_threads();
// n >= 1; throws otherwise.
void set_num_threads(int n);
// Whether the caller runs inside parallel_for (where a nested parallel_for runs serially).
bool in_parallel_region();

namespace detail {
// How many chunks parallel_for would use for `n` items of at least `grain_size` each.
int64_t numChunks(int64_t n, int64_t grain_size);
// Runs chunk(context, b, e) on `chunks` disjoint subranges of [begin, end), one per thread. A
// function pointer and its context rather than std::function: no allocation, and no
// <functional> in a header every kernel includes.
using ChunkFn = void (*)(const void* context, int64_t begin, int64_t end);
void parallelChunks(int64_t begin, int64_t end, int64_t chunks, ChunkFn chunk, const void* context);
}  // namespace detail

// Calls f(b, e) on disjoint subranges covering [begin, end), concurrently when the range
// holds more than grain_size items and threads are available. An exception thrown by f
// propagates to the caller (the first one; the other chunks still finish).
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain_size, const F& f) {
  if (begin >= end) return;
  const int64_t chunks = detail::numChunks(end - begin, grain_size);
  if (chunks <= 1) {
    f(begin, end);
    return;
  }
  detail::parallelChunks(begin, end, chunks, [](const void* context, int64_t b, int64_t e) {
    (*static_cast<const F*>(context))(b, e);
  }, &f);
}

}  // namespace opcore

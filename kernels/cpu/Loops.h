// Elementwise loop machinery for CPU kernels (a small TensorIterator): operands broadcast
// against an iteration shape, dimensions coalesced, and a typed inner loop whose contiguous
// paths the compiler vectorises. See Note [Elementwise loops].
//   ElementwiseOp op("mul", out, dtype, {{self, dtype}, {other, dtype}});
//   op.run<float, float, float>([](float a, float b) { return a * b; });
#pragma once

#include <opcore/core/Empty.h>
#include <opcore/core/Macros.h>
#include <opcore/core/Parallel.h>
#include <opcore/core/TensorBase.h>

#include "common/Shape.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <tuple>
#include <type_traits>
#include <utility>

namespace opcore::native::cpu {

// Note [Elementwise loops]
// A LoopPlan holds, for every operand, its byte strides over the
// iteration shape (0 where the operand is broadcast). Size-1 dimensions are dropped and
// neighbouring dimensions that are laid out as one are merged, so same-shape contiguous
// operands become a single 1-D loop. forEachPlane() walks the outer dimensions and hands each
// plane of innermost rows (Note [Row planes]) to a typed loop, which picks for each row one
// of: all operands dense (a plain indexed loop the compiler vectorises), dense except one
// input broadcast along the row (a tensor-scalar op; also vectorised), or a general strided
// loop. Dtype conversions happen once per operand, before the loop, never per element, with
// one exception: Note [Reduced precision].
//
// Note [Reduced precision]
// A kernel's function sees each element as opmath_t<T> (ScalarType.h) and returns one: for
// Half and BFloat16 that is float, so an operation computes in float and rounds once, when
// the loop stores its result, as ATen's do. A dense row with a 16-bit float operand runs in
// blocks that fit in L1: the 16-bit inputs of a block are converted to float buffers, the
// function runs over floats (vectorized as a float kernel is), and the results are rounded
// into the output. The conversions (toFloat, fromFloat) use the widest instructions the CPU
// has, chosen at load time: F16C's for Half, AVX-512's for BFloat16. Converting in the
// element loop instead left the compiler a loop it vectorized poorly for BFloat16 and not at
// all for Half (bench/README.md, issue #31). The data still crosses memory once, in 16 bits.
//
// Note [Parallel loops]
// parallelForEach() splits the outermost dimension of the coalesced plan into one block per
// thread (a contiguous same-shape operation has one dimension, split into ranges of
// elements); each block is a narrowed() plan walked by forEach(). Every element is computed
// by exactly the code a serial run uses, so results do not depend on the thread count. A plan
// whose operand 0 has stride 0 along that dimension (a reduction's output) would have two
// threads write one element, and runs serially; reductions split themselves (Reduce.cpp).

// Note [Instruction sets]
// The binary targets plain x86-64 (SSE2), so that it runs on any x86-64 machine. A function
// marked OPCORE_CPU_CLONES is compiled twice, for x86-64 and for x86-64-v3 (AVX2, FMA), and
// the dynamic loader binds its callers to the one the CPU supports (GCC's target_clones: an
// ifunc). The loop of every elementwise kernel and reduction is one: its operator inlines into
// each copy, which the compiler vectorizes for that width. There is no AVX-512 copy: on the
// project's machine (Zen 4) GCC's 512-bit loops were no faster than AVX2 in cache and 10% slower
// streaming from memory (bench/README.md); the vectorized math, where it pays, has one
// (Note [Vectorized math]), and so have the sum's loop (OPCORE_CPU_CLONES_WITH_AVX512), the
// BFloat16 conversions (Note [Converting 16-bit floats] in Loops.cpp), the transposed copies
// and the sum scans (written with intrinsics per cpuCapability(): Note [Transposed copies],
// Note [Vectorized sum scans] in Scan.cpp). Results do not change with the width: the loops
// compute every element, and every partial sum, in the order the source gives (floating-point
// additions are never reassociated; the sum scans associate theirs per vector of eight, in
// every form alike), and never fuse a product into an addition (-ffp-contract=off, CMakeLists.txt:
// only the AVX2 copy could).
// OPCORE_LOAD_TIME_CLONES is 0 in the ThreadSanitizer build (OPCORE_SANITIZE=thread): GCC
// instruments the ifunc resolvers it writes like any function, and the dynamic loader runs
// them while relocating libopcore, before TSan's runtime is set up, which crashes. That build
// keeps the x86-64 copy only (results do not change with the width, see above).
#if defined(__SANITIZE_THREAD__)
#define OPCORE_LOAD_TIME_CLONES 0
#define OPCORE_CPU_CLONES
#define OPCORE_CPU_CLONES_WITH_AVX512
#else
#define OPCORE_LOAD_TIME_CLONES 1
#define OPCORE_CPU_CLONES __attribute__((target_clones("default", "arch=x86-64-v3")))
// The same with an x86-64-v4 (AVX-512) copy too, for the sum's inner loop alone: reading
// 16-bit elements (Half, BFloat16) and widening them to float costs more instructions per
// byte than the float loops, and with the widest registers the bfloat16 sum went from short
// of torch's to memory speed, float32's unchanged (bench/README.md, issue #31).
#define OPCORE_CPU_CLONES_WITH_AVX512 __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#endif

constexpr int kMaxOperands = 4;

class LoopPlan {
 public:
  // operands[0] is usually the output; every operand must broadcast to `shape`.
  LoopPlan(IntArrayRef shape, std::initializer_list<const TensorBase*> operands);
  // The plan of operands that are all contiguous with one shape of `numel` elements: one
  // dimension, built without looking at the shape.
  static LoopPlan dense(int64_t numel, std::initializer_list<const TensorBase*> operands);

  int64_t numel() const { return numel_; }

  // Calls inner(char* const* data, const int64_t* strides, int64_t n) once per innermost
  // row: data[k] points at operand k's first element of the row, strides[k] is its step.
  template <typename Inner>
  void forEach(Inner&& inner) const;
  // forEach() on the threads of parallel_for when the plan is large (Note [Parallel loops]).
  template <typename Inner>
  void parallelForEach(const Inner& inner) const;
  // The same by planes of rows (Note [Row planes]): inner(data, strides, n, outer_strides,
  // rows) covers `rows` rows of n elements, row r's operand k starting at data[k] + r *
  // outer_strides[k].
  template <typename Inner>
  void forEachPlane(Inner&& inner) const;
  template <typename Inner>
  void parallelForEachPlane(const Inner& inner) const;

  // The outermost dimension's size (1 for a 0-dim plan), and the plan restricted to
  // [begin, end) along it.
  int64_t outerSize() const { return ndim_ == 0 ? 1 : sizes_[ndim_ - 1]; }
  LoopPlan narrowed(int64_t begin, int64_t end) const;
  // Moves operand k's base by `bytes` (to run the plan over a same-strided buffer).
  void offsetOperand(int k, int64_t bytes) { data_[k] += bytes; }
  // Whether operand k stays put along the outermost dimension (it is reduced there).
  bool outerStrideIsZero(int k) const { return ndim_ > 0 && strides_[ndim_ - 1][k] == 0; }

 private:
  LoopPlan() = default;
  // Note [Tiling]
  // When an operand steps faster along dimension 1 than along the innermost
  // dimension 0 (a transposed input or output), rows of dimension 0 touch a new cache line per
  // element of that operand. Walking dims 0 and 1 in small tiles keeps those lines in L1 until
  // their neighbouring elements are used. The tile is short along dim 0 because power-of-two
  // strides map all of its lines to one cache set (16 x 64 measured best on 1024^2 floats).
  // A same-dtype copy of that layout does not come here: Note [Transposed copies] (Loops.cpp).
  static constexpr int64_t kTileInner = 16;  // along dim 0: few lines of a strided operand
  static constexpr int64_t kTileOuter = 64;  // along dim 1
  template <typename Inner>
  void forEachTile(char* const* base, Inner& inner) const;
  // A plane kernel that calls the row kernel `inner` on each of its rows.
  template <typename Inner>
  auto byRows(Inner& inner) const {
    return [&inner, n_ops = ntensors_](char* const* data, const int64_t* strides, int64_t n, const int64_t* outer,
                                       int64_t rows) {
      char* ptrs[kMaxOperands];
      for (int k = 0; k < n_ops; ++k) ptrs[k] = data[k];
      for (int64_t r = 0; r < rows; ++r) {
        inner(static_cast<char* const*>(ptrs), strides, n);
        for (int k = 0; k < n_ops; ++k) ptrs[k] += outer[k];
      }
    };
  }
  void coalesce();
  void decideTiling();

  int ntensors_ = 0;
  int ndim_ = 0;  // after dropping size-1 dims and coalescing; dim 0 is the innermost
  bool tiled_ = false;
  int64_t numel_ = 1;
  // Only the first ndim_ entries are meaningful; left uninitialised, because zeroing 2.5 KB
  // per operation was 7% of a one-element autograd step.
  int64_t sizes_[TensorImpl::kMaxDims];
  int64_t strides_[TensorImpl::kMaxDims][kMaxOperands];
  char* data_[kMaxOperands] = {};
};

// Note [Row planes]
// A kernel called once per row pays for the call and its set-up (which layout the row has, a
// vector loop's prologue) on every row: on rows of a few elements (the windows of a small
// image, a convolution's columns added back) that cost more than the elements. The plan
// therefore hands out planes: dimension 0 as rows and dimension 1 as their count (or, tiled,
// one tile at a time), and an elementwise kernel walks the rows of a plane in its own loop.
template <typename Inner>
void LoopPlan::forEachPlane(Inner&& inner) const {
  if (numel_ == 0) return;
  static constexpr int64_t kZeroStrides[kMaxOperands] = {};
  char* ptrs[kMaxOperands];
  for (int k = 0; k < ntensors_; ++k) ptrs[k] = data_[k];
  if (ndim_ <= 1) {
    inner(static_cast<char* const*>(ptrs), ndim_ == 0 ? kZeroStrides : strides_[0], ndim_ == 0 ? 1 : sizes_[0],
          kZeroStrides, int64_t{1});
    return;
  }
  int64_t counter[TensorImpl::kMaxDims];
  std::fill_n(counter, ndim_, int64_t{0});
  for (;;) {
    if (tiled_) {
      forEachTile(ptrs, inner);
    } else {
      inner(static_cast<char* const*>(ptrs), strides_[0], sizes_[0], strides_[1], sizes_[1]);
    }
    int d = 2;
    for (; d < ndim_; ++d) {  // odometer over the dimensions above the plane
      for (int k = 0; k < ntensors_; ++k) ptrs[k] += strides_[d][k];
      if (++counter[d] < sizes_[d]) break;
      for (int k = 0; k < ntensors_; ++k) ptrs[k] -= strides_[d][k] * sizes_[d];
      counter[d] = 0;
    }
    if (d >= ndim_) return;
  }
}

template <typename Inner>
void LoopPlan::forEach(Inner&& inner) const {
  forEachPlane(byRows(inner));
}

template <typename Inner>
void LoopPlan::parallelForEachPlane(const Inner& inner) const {
  const int64_t outer = outerSize();
  if (numel_ < 2 * kGrainSize || outer < 2 || outerStrideIsZero(0)) {
    forEachPlane(inner);
    return;
  }
  const int64_t rows_per_grain = grainFor(numel_ / outer);
  parallel_for(0, outer, rows_per_grain, [&](int64_t begin, int64_t end) {
    narrowed(begin, end).forEachPlane(inner);
  });
}

template <typename Inner>
void LoopPlan::parallelForEach(const Inner& inner) const {
  parallelForEachPlane(byRows(inner));
}

template <typename Inner>
void LoopPlan::forEachTile(char* const* base, Inner& inner) const {
  char* ptrs[kMaxOperands];
  for (int64_t j0 = 0; j0 < sizes_[1]; j0 += kTileOuter) {
    const int64_t rows = std::min(sizes_[1], j0 + kTileOuter) - j0;
    for (int64_t i0 = 0; i0 < sizes_[0]; i0 += kTileInner) {
      const int64_t n = std::min(kTileInner, sizes_[0] - i0);
      for (int k = 0; k < ntensors_; ++k) ptrs[k] = base[k] + i0 * strides_[0][k] + j0 * strides_[1][k];
      inner(static_cast<char* const*>(ptrs), strides_[0], n, strides_[1], rows);
    }
  }
}

namespace loops_detail {

// Element reads give opmath_t<T> (Note [Reduced precision]). A bool is read as its byte: GCC
// has no vector type for bool and never vectorizes a loop that loads bools (where's condition
// ran at a fifth of the speed of the same loop over bytes).
template <typename T>
struct DenseAccess {
  const T* p;
  OPCORE_ALWAYS_INLINE opmath_t<T> operator[](int64_t i) const {
    if constexpr (std::is_same_v<T, bool>) {
      return reinterpret_cast<const uint8_t*>(p)[i] != 0;
    } else {
      return static_cast<opmath_t<T>>(p[i]);
    }
  }
};
template <typename T>
struct BroadcastAccess {
  opmath_t<T> v;  // read once, before the loop
  OPCORE_ALWAYS_INLINE opmath_t<T> operator[](int64_t) const { return v; }
};

template <typename T, bool kBroadcast>
OPCORE_ALWAYS_INLINE auto makeAccess(const char* p) {
  if constexpr (kBroadcast) {
    return BroadcastAccess<T>{static_cast<opmath_t<T>>(*reinterpret_cast<const T*>(p))};
  } else {
    return DenseAccess<T>{reinterpret_cast<const T*>(p)};
  }
}

template <typename T>
constexpr int64_t kSize = static_cast<int64_t>(sizeof(T));

// n contiguous 16-bit floats to float and back (round to nearest even, NaN to the one quiet
// NaN of Half.h and BFloat16.h): the conversions of Note [Reduced precision].
void toFloat(const Half* in, float* out, int64_t n);
void toFloat(const BFloat16* in, float* out, int64_t n);
void fromFloat(const float* in, Half* out, int64_t n);
void fromFloat(const float* in, BFloat16* out, int64_t n);

// Note [Streaming stores]
// A row whose output is larger than the last-level cache gains nothing from leaving it
// there: plain stores first read every output line from memory (to own it), then evict it.
// Non-temporal stores write whole lines without reading them, a quarter less traffic for a
// binary op. A dense row whose output is at least half the last-level cache (counted as at
// most 64 MiB: a virtual machine may see its host's whole L3 as its own) is computed a block
// at a time into a buffer in L1, which is copied out that way (the 16-bit float rows round
// their results into that buffer: Note [Reduced precision]); the values written are the same
// either way. Float rows gained as much as the 16-bit ones, at one thread most (figures in
// bench/README.md, "Issue #33's families on a Xeon with AVX-512"). A row that streamed ends
// with a store fence, so that its results are visible when the row's thread is joined.
bool streamStores(int64_t bytes);
// memcpy of [src, src + bytes) to dst with non-temporal stores where dst is 16-byte aligned.
void streamCopy(void* dst, const void* src, int64_t bytes);
void streamFence();

template <typename T>
constexpr bool kReduced = is_reduced_floating_point_v<T>;

// Reads of one input of a block: a 16-bit float input from the block's float buffer, another
// from the row itself, a broadcast one from its value.
template <typename T, bool kBroadcast>
struct BlockAccess {
  const T* p;
  const float* buffer;
  opmath_t<T> value;
  OPCORE_ALWAYS_INLINE opmath_t<T> operator[](int64_t i) const {
    if constexpr (kBroadcast) {
      return value;
    } else if constexpr (kReduced<T>) {
      return buffer[i];
    } else {
      return static_cast<opmath_t<T>>(p[i]);
    }
  }
};

// The reads of input `row` (a T) for the block starting at `start`; a 16-bit float input is
// first converted into `buffer`.
template <typename T, bool kBroadcast>
OPCORE_ALWAYS_INLINE BlockAccess<T, kBroadcast> loadBlock(const char* row, int64_t start, int64_t len,
                                                         float* buffer) {
  const T* p = reinterpret_cast<const T*>(row);
  if constexpr (kBroadcast) {
    return {p, nullptr, static_cast<opmath_t<T>>(*p)};
  } else {
    if constexpr (kReduced<T>) toFloat(p + start, buffer, len);
    return {p + start, buffer, opmath_t<T>()};
  }
}

// denseLoop for a row with a 16-bit float operand, in blocks (Note [Reduced precision]).
template <int kBroadcastArg, typename Out, typename... In, typename F, size_t... I>
OPCORE_ALWAYS_INLINE void reducedDenseLoop(char* const* data, int64_t n, bool stream, const F& f,
                                           std::index_sequence<I...>) {
  constexpr int64_t kBlock = 512;
  float buffers[sizeof...(In) + 1][kBlock];
  Out* out = reinterpret_cast<Out*>(data[0]);
  alignas(64) Out streamed[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    const auto access = std::make_tuple(
        loadBlock<In, static_cast<int>(I) == kBroadcastArg>(data[I + 1], start, len, buffers[I])...);
    Out* results = stream ? streamed : out + start;
    if constexpr (kReduced<Out>) {
      float* values = buffers[sizeof...(In)];
      for (int64_t i = 0; i < len; ++i) values[i] = static_cast<float>(f(std::get<I>(access)[i]...));
      fromFloat(values, results, len);
    } else {
      for (int64_t i = 0; i < len; ++i) results[i] = static_cast<Out>(f(std::get<I>(access)[i]...));
    }
    if (stream) streamCopy(out + start, streamed, len * kSize<Out>);
  }
  if (stream) streamFence();
}

// out[i] = f(in[i]...), every operand dense except input kBroadcastArg (-1: none), whose
// value is the same along the row; stream: streamStores(n * kSize<Out>), which the caller
// asks once for a plane of rows of one length.
template <int kBroadcastArg, typename Out, typename... In, typename F, size_t... I>
OPCORE_ALWAYS_INLINE void denseLoop(char* const* data, int64_t n, bool stream, const F& f,
                                    std::index_sequence<I...>) {
  if constexpr (kReduced<Out> || (kReduced<In> || ...)) {
    reducedDenseLoop<kBroadcastArg, Out, In...>(data, n, stream, f, std::index_sequence<I...>{});
  } else {
    Out* out = reinterpret_cast<Out*>(data[0]);
    [[maybe_unused]] const auto access =
        std::make_tuple(makeAccess<In, static_cast<int>(I) == kBroadcastArg>(data[I + 1])...);
    if (stream) {  // Note [Streaming stores]
      constexpr int64_t kBlock = 512;
      alignas(64) Out streamed[kBlock];
      for (int64_t start = 0; start < n; start += kBlock) {
        const int64_t len = std::min(kBlock, n - start);
        for (int64_t i = 0; i < len; ++i) streamed[i] = static_cast<Out>(f(std::get<I>(access)[start + i]...));
        streamCopy(out + start, streamed, len * kSize<Out>);
      }
      streamFence();
      return;
    }
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(std::get<I>(access)[i]...));
  }
}

template <typename Out, typename... In, typename F, size_t... I>
void stridedLoop(char* const* data, const int64_t* s, int64_t n, const F& f,
                 std::index_sequence<I...>) {
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<Out*>(data[0] + i * s[0]) = static_cast<Out>(
        f(static_cast<opmath_t<In>>(*reinterpret_cast<const In*>(data[I + 1] + i * s[I + 1]))...));
  }
}

// Runs the dense loop with input K broadcast when that is the row's layout.
template <size_t K, typename Out, typename... In, typename F, size_t... I>
OPCORE_ALWAYS_INLINE bool tryBroadcastAt(char* const* data, const int64_t* s, int64_t n, bool stream,
                                         const F& f, std::index_sequence<I...> seq) {
  const bool match = ((I == K ? s[I + 1] == 0 : s[I + 1] == kSize<In>) && ...);
  if (match) denseLoop<static_cast<int>(K), Out, In...>(data, n, stream, f, seq);
  return match;
}

template <typename Out, typename... In, typename F, size_t... I>
OPCORE_ALWAYS_INLINE void rowLoop(char* const* data, const int64_t* s, int64_t n, bool stream, const F& f,
                                  std::index_sequence<I...> seq) {
  if (s[0] == kSize<Out>) {
    if (((s[I + 1] == kSize<In>) && ...)) {
      denseLoop<-1, Out, In...>(data, n, stream, f, seq);
      return;
    }
    if ((tryBroadcastAt<I, Out, In...>(data, s, n, stream, f, seq) || ...)) return;
  }
  stridedLoop<Out, In...>(data, s, n, f, seq);
}

// The rows of a plane (Note [Row planes]), each by rowLoop. Whether a row streams is asked
// once: a plane of short rows (a convolution's window of a small image) would otherwise pay
// a call per row of a few elements for it.
template <typename Out, typename... In, typename F, size_t... I>
OPCORE_CPU_CLONES void planeLoop(char* const* data, const int64_t* s, int64_t n, const int64_t* outer, int64_t rows,
                                 const F& f, std::index_sequence<I...> seq) {
  const bool stream = streamStores(n * kSize<Out>);
  char* ptrs[sizeof...(In) + 1];
  for (size_t k = 0; k <= sizeof...(In); ++k) ptrs[k] = data[k];
  for (int64_t r = 0; r < rows; ++r) {
    rowLoop<Out, In...>(ptrs, s, n, stream, f, seq);
    for (size_t k = 0; k <= sizeof...(In); ++k) ptrs[k] += outer[k];
  }
}

// block[i] = the element at src + i * stride, as opmath_t<T>, and back: the rows a
// vectorized unary function needs contiguous (ElementwiseOp::runRows).
template <typename T>
OPCORE_CPU_CLONES void gatherRow(opmath_t<T>* block, const char* src, int64_t stride, int64_t n) {
  for (int64_t i = 0; i < n; ++i) block[i] = static_cast<opmath_t<T>>(*reinterpret_cast<const T*>(src + i * stride));
}
template <typename T>
OPCORE_CPU_CLONES void scatterRow(char* dst, int64_t stride, const opmath_t<T>* block, int64_t n) {
  for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(dst + i * stride) = static_cast<T>(block[i]);
}

}  // namespace loops_detail

// The sum of a contiguous row of float or double (softmax's and the normalizations' rows): a
// cache line's worth of independent lanes, which vectorize, then the rest, then the lanes in
// order.
template <typename A>
OPCORE_CPU_CLONES A rowSum(const A* x, int64_t n) {
  constexpr int64_t kLanes = 64 / static_cast<int64_t>(sizeof(A));
  A lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) lanes[j] += x[i + j];
  }
  A sum = 0;
  for (; i < n; ++i) sum += x[i];
  for (int64_t j = 0; j < kLanes; ++j) sum += lanes[j];
  return sum;
}

// Runs out = f(inputs...) over a plan whose operand 0 has type Out and operand k+1 type In_k;
// f takes and returns opmath types (Note [Reduced precision]).
template <typename Out, typename... In, typename F>
void runElementwise(const LoopPlan& plan, const F& f) {
  plan.parallelForEachPlane([&f](char* const* data, const int64_t* strides, int64_t n, const int64_t* outer,
                                 int64_t rows) {
    loops_detail::planeLoop<Out, In...>(data, strides, n, outer, rows, f, std::index_sequence_for<In...>{});
  });
}

// One input of an ElementwiseOp and the dtype the kernel reads it as.
struct ElementwiseInput {
  const TensorBase& tensor;
  ScalarType dtype;
};

// An out= elementwise operator, prepared: inputs converted to their compute dtypes, the
// broadcast shape computed, `out` checked and resized. The kernel writes `output_dtype`
// values, into `out` itself or, when out has another dtype or overlaps an input, into a
// temporary that run() copies into out at the end. An undefined `out` is allocated.
class ElementwiseOp {
 public:
  ElementwiseOp(const char* name, TensorBase out, ScalarType output_dtype,
                std::initializer_list<ElementwiseInput> inputs);
  ElementwiseOp(const ElementwiseOp&) = delete;  // operands_ may point into the object
  ElementwiseOp& operator=(const ElementwiseOp&) = delete;

  // Runs f over every element: Out must be output_dtype's C++ type, In... the inputs'; f
  // takes and returns their opmath types (Note [Reduced precision]).
  template <typename Out, typename... In, typename F>
  void run(const F& f);
  // For a unary op with input and output of type T: row(in, out, n) computes n contiguous
  // elements of opmath_t<T> (a vectorized function); strided rows, and the rows of a 16-bit
  // float type, are gathered into a contiguous opmath block for it and scattered back, so
  // every element goes through the same function.
  template <typename T, typename Row>
  void runRows(const Row& row);
  // The same for a binary op whose inputs and output are all of type T:
  // row(in0, in1, out, n) over contiguous opmath_t<T> rows (gathered into blocks when strided,
  // broadcast or 16-bit).
  template <typename T, typename Row>
  void runBinaryRows(const Row& row);

  const TensorBase& output() const { return out_; }

 private:
  bool isDense(ScalarType output_dtype, std::initializer_list<ElementwiseInput> inputs) const;
  LoopPlan plan(std::initializer_list<const TensorBase*> operands) const;
  bool captureInputs(std::initializer_list<ElementwiseInput> inputs);
  void checkTypes(ScalarType out, std::initializer_list<ScalarType> inputs) const;
  void finish();

  const char* name_;
  TensorBase out_;     // what the caller sees
  TensorBase target_;  // what the kernel writes when not out_: a temporary
  TensorBase inputs_[kMaxOperands - 1];  // converted or copied inputs, when needed
  // What the kernel writes (out_ or target_) and reads (the caller's tensors or inputs_):
  // pointers, so the common case takes no reference (Note [Dense operands]).
  const TensorBase* operands_[kMaxOperands] = {};
  int ninputs_ = 0;
  bool dense_ = false;
  DimVector shape_;  // the broadcast shape (not computed when dense_)
};

template <typename Out, typename... In, typename F>
void ElementwiseOp::run(const F& f) {
  checkTypes(CppTypeToScalarType<Out>::value, {CppTypeToScalarType<In>::value...});
  [&]<size_t... I>(std::index_sequence<I...>) {
    runElementwise<Out, In...>(plan({operands_[0], operands_[I + 1]...}), f);
  }(std::index_sequence_for<In...>{});
  finish();
}

template <typename T, typename Row>
void ElementwiseOp::runRows(const Row& row) {
  checkTypes(CppTypeToScalarType<T>::value, {CppTypeToScalarType<T>::value});
  using Math = opmath_t<T>;
  plan({operands_[0], operands_[1]}).parallelForEach([&row](char* const* data, const int64_t* s, int64_t n) {
    constexpr auto kSize = static_cast<int64_t>(sizeof(T));
    if (std::is_same_v<T, Math> && s[0] == kSize && s[1] == kSize) {
      row(reinterpret_cast<const Math*>(data[1]), reinterpret_cast<Math*>(data[0]), n);
      return;
    }
    constexpr int64_t kBlock = 256;
    Math block[kBlock];
    for (int64_t start = 0; start < n; start += kBlock) {
      const int64_t len = std::min(kBlock, n - start);
      const char* in = data[1] + start * s[1];
      char* out = data[0] + start * s[0];
      if constexpr (loops_detail::kReduced<T>) {
        if (s[1] == kSize) {
          loops_detail::toFloat(reinterpret_cast<const T*>(in), block, len);
        } else {
          loops_detail::gatherRow<T>(block, in, s[1], len);
        }
        row(block, block, len);
        if (s[0] == kSize) {
          loops_detail::fromFloat(block, reinterpret_cast<T*>(out), len);
        } else {
          loops_detail::scatterRow<T>(out, s[0], block, len);
        }
      } else {
        loops_detail::gatherRow<T>(block, in, s[1], len);
        row(block, block, len);
        loops_detail::scatterRow<T>(out, s[0], block, len);
      }
    }
  });
  finish();
}

template <typename T, typename Row>
void ElementwiseOp::runBinaryRows(const Row& row) {
  checkTypes(CppTypeToScalarType<T>::value, {CppTypeToScalarType<T>::value, CppTypeToScalarType<T>::value});
  using Math = opmath_t<T>;
  plan({operands_[0], operands_[1], operands_[2]}).parallelForEach([&row](char* const* data, const int64_t* s,
                                                                          int64_t n) {
    constexpr auto kSize = static_cast<int64_t>(sizeof(T));
    if (std::is_same_v<T, Math> && s[0] == kSize && s[1] == kSize && s[2] == kSize) {
      row(reinterpret_cast<const Math*>(data[1]), reinterpret_cast<const Math*>(data[2]),
          reinterpret_cast<Math*>(data[0]), n);
      return;
    }
    constexpr int64_t kBlock = 256;
    Math a[kBlock], b[kBlock], o[kBlock];
    for (int64_t start = 0; start < n; start += kBlock) {
      const int64_t len = std::min(kBlock, n - start);
      const char* in0 = data[1] + start * s[1];
      const char* in1 = data[2] + start * s[2];
      char* out = data[0] + start * s[0];
      if constexpr (loops_detail::kReduced<T>) {
        if (s[1] == kSize) loops_detail::toFloat(reinterpret_cast<const T*>(in0), a, len);
        else loops_detail::gatherRow<T>(a, in0, s[1], len);
        if (s[2] == kSize) loops_detail::toFloat(reinterpret_cast<const T*>(in1), b, len);
        else loops_detail::gatherRow<T>(b, in1, s[2], len);
        row(a, b, o, len);
        if (s[0] == kSize) loops_detail::fromFloat(o, reinterpret_cast<T*>(out), len);
        else loops_detail::scatterRow<T>(out, s[0], o, len);
      } else {
        loops_detail::gatherRow<T>(a, in0, s[1], len);
        loops_detail::gatherRow<T>(b, in1, s[2], len);
        row(a, b, o, len);
        loops_detail::scatterRow<T>(out, s[0], o, len);
      }
    }
  });
  finish();
}

// Copies `src` (broadcast to dst's shape) into `dst`, converting the dtype. Both on the CPU;
// the caller makes sure they do not overlap.
void copyInto(const TensorBase& dst, const TensorBase& src);

// Note [Dense copies]
// A contiguous copy in one dtype (copyInto's, cat's) is a memcpy shared among the threads in
// pieces of kCopyPiece bytes, since one thread's memcpy drains well below the bandwidth two
// reach; a copy larger than half the last-level cache streams its stores (Note [Streaming
// stores]: without reading the destination first) and each thread ends with a store fence.
constexpr int64_t kCopyPiece = 256 * 1024;
// One piece of such a copy (`stream`: with streaming stores).
void copyPiece(char* dst, const char* src, int64_t bytes, bool stream);

// `t` itself when it already has `dtype`, else a contiguous converted copy.
TensorBase convertTo(const TensorBase& t, ScalarType dtype);
// A contiguous tensor with t's values: t itself when already contiguous.
TensorBase contiguousCopy(const TensorBase& t);
// A new contiguous tensor with t's values (never t's storage).
TensorBase ownedCopy(const TensorBase& t);

// Whether two tensors share storage (so writing one may change the other).
bool sharesStorage(const TensorBase& a, const TensorBase& b);
// Whether a and b address exactly the same elements in the same order with the same dtype.
bool sameLayout(const TensorBase& a, const TensorBase& b);
// Throws when some element of `t` is reachable twice (an expanded tensor written to).
void checkNoInternalOverlap(const TensorBase& t);
// Throws unless every tensor is on the CPU.
void checkCpu(const char* name, std::initializer_list<const TensorBase*> tensors);

}  // namespace opcore::native::cpu

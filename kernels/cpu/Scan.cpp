// CPU scans of issue #33: cumsum and cumprod along one dimension (the impls of the structured
// cumsum.out and cumprod.out), in the result's dtype, accumulating as PyTorch's CPU kernels do.
#include <opcore/ops/cumprod_native.h>
#include <opcore/ops/cumsum_native.h>
#include <opcore/core/Empty.h>

#include "common/Shape.h"
#include "cpu/Loops.h"
#include "cpu/VecMath.h"
#include "common/Wrapping.h"
#include "common/pointwise/Scan.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <atomic>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

namespace opcore::native {

namespace {

// out[i] = start (op) in[0] (op) ... (op) in[i], for a contiguous row.
template <bool kSum, typename T>
OPCORE_CPU_CLONES void scanRow(const T* in, T* out, int64_t n, typename ScanAcc<T>::type start) {
  using A = typename ScanAcc<T>::type;
  A acc = start;
  for (int64_t i = 0; i < n; ++i) {
    acc = scanStep<kSum>(acc, static_cast<A>(in[i]));
    out[i] = static_cast<T>(acc);
  }
}

// scanRow of kChains rows at once (in[c], out[c], n[c] elements, from start[c]): their chains
// of additions are independent, so they overlap where one row's waits on each addition's
// latency; each row's results are scanRow's, bit for bit.
constexpr int kChains = 4;
template <bool kSum, typename T>
OPCORE_CPU_CLONES void scanRows(const T* const* in, T* const* out, const int64_t* n,
                                const typename ScanAcc<T>::type* start) {
  using A = typename ScanAcc<T>::type;
  A acc[kChains];
  int64_t common = n[0];
  for (int c = 0; c < kChains; ++c) {
    acc[c] = start[c];
    common = std::min(common, n[c]);
  }
  for (int64_t i = 0; i < common; ++i) {
    for (int c = 0; c < kChains; ++c) {
      acc[c] = scanStep<kSum>(acc[c], static_cast<A>(in[c][i]));
      out[c][i] = static_cast<T>(acc[c]);
    }
  }
  for (int c = 0; c < kChains; ++c) scanRow<kSum>(in[c] + common, out[c] + common, n[c] - common, acc[c]);
}

// A block's total in kTotalLanes independent lanes: lane j adds the elements j, j + 16, ..., lane
// 0 then the last n % 16 elements, and the lanes are added in order. foldTotal goes on from
// element i, the lanes holding the elements before it.
constexpr int kTotalLanes = 16;

template <bool kSum, typename T, typename A>
OPCORE_ALWAYS_INLINE A foldTotal(A (&lanes)[kTotalLanes], const T* in, int64_t i, int64_t n) {
  for (; i + kTotalLanes <= n; i += kTotalLanes) {
    // Unrolled, GCC keeps the lanes in registers; as a loop, in memory (a third of the speed).
#pragma GCC unroll 16
    for (int j = 0; j < kTotalLanes; ++j) lanes[j] = scanStep<kSum>(lanes[j], static_cast<A>(in[i + j]));
  }
  for (; i < n; ++i) lanes[0] = scanStep<kSum>(lanes[0], static_cast<A>(in[i]));
  A total = lanes[0];
  for (int j = 1; j < kTotalLanes; ++j) total = scanStep<kSum>(total, lanes[j]);
  return total;
}

template <bool kSum, typename T>
OPCORE_CPU_CLONES_WITH_AVX512 typename ScanAcc<T>::type totalOf(const T* in, int64_t n) {
  using A = typename ScanAcc<T>::type;
  A lanes[kTotalLanes];
  for (A& l : lanes) l = scanIdentity<kSum, A>();
  return foldTotal<kSum>(lanes, in, 0, n);
}

// Note [Vectorized sum scans]
// A float or double sum scan (accumulating in double) in vectors of eight doubles: a vector's
// own running sums first (three shifted additions: by one, two and four lanes), then the
// running total before it added to every lane. Converting one element at a time to double and
// back was the scan's bound, not its chain of additions; a vector costs a few instructions per
// eight elements, and what waits on the previous vector is one addition. Three forms, one per
// CpuCapability, with the same additions in the same order, so that a row's bits depend only
// on its values and its blocks, not on the CPU:
// - sumScanRows: GCC's vector extensions, on four SSE2 registers;
// - sumScanRowsAvx2: intrinsics on two AVX2 registers of four doubles. GCC's AVX2 clone of the
//   first spilled the eight lanes' shuffles and converted through 128-bit halves, at less than
//   half this form's speed on an EPYC (Zen 3) (bench/README.md, "Issue #33's families on
//   a Zen 3 EPYC without AVX-512");
// - sumScanRowsAvx512: intrinsics on one AVX-512 register. GCC's AVX-512 clone of the first
//   loaded and converted each vector in halves; this form's loop has a third fewer
//   instructions, and a float cumsum of 16M went a sixth faster on a Xeon, where the scan and
//   the totals keep the two ports of 512-bit arithmetic busy (bench/README.md, "The same Xeon,
//   later"). There the group's totals are taken together too (sumTotalsAvx512), and the
//   running total is broadcast by a load, off the shuffle port: 6-8% more (bench/README.md,
//   "The same Xeon, a third time").
// The additions are associated per vector, so a result may differ from a serial double scan's
// in the double's last bit.
template <typename T>
constexpr bool kVectorSumScan = std::is_same_v<T, float> || std::is_same_v<T, double>;

typedef double Double8 __attribute__((vector_size(8 * sizeof(double))));
template <typename T>
struct Vec8;  // eight elements of T in one vector
template <>
struct Vec8<float> {
  typedef float type __attribute__((vector_size(8 * sizeof(float))));
};
template <>
struct Vec8<double> {
  using type = Double8;
};

// The lines of the group of blocks a thread is likely to take next, requested a few at each
// vector step of the group it scans (Note [Parallel scans]); none when p is null.
class AheadLines {
 public:
  AheadLines() = default;
  // `bytes` from p, over `steps` steps.
  AheadLines(const char* p, int64_t bytes, int64_t steps)
      : p_(p), bytes_(bytes), per_step_(((bytes + steps - 1) / steps + 63) / 64 * 64) {}
  OPCORE_ALWAYS_INLINE void step() {
    if (done_ >= bytes_) return;
    for (int64_t b = 0; b < per_step_; b += 64) _mm_prefetch(p_ + done_ + b, _MM_HINT_T0);
    done_ += per_step_;
  }

 private:
  const char* p_ = nullptr;
  int64_t bytes_ = 0, per_step_ = 0, done_ = 0;
};

// The rows of a sum scan's kChains blocks, as local copies (the scan's stores cannot change
// them), and the length they all have.
template <typename T>
struct ScanChains {
  const T* in[kChains];
  T* out[kChains];
  int64_t common;
  ScanChains(const T* const* ins, T* const* outs, const int64_t* n) : common(n[0]) {
    for (int c = 0; c < kChains; ++c) {
      in[c] = ins[c];
      out[c] = outs[c];
      common = std::min(common, n[c]);
    }
  }
};

// scanRows for the sum of float or double: each row's vectors in turn, kChains rows at once.
template <typename T>
void sumScanRows(const T* const* in, T* const* out, const int64_t* n, const double* start, AheadLines ahead) {
  const ScanChains<T> rows(in, out, n);
  const T* const* ins = rows.in;
  T* const* outs = rows.out;
  const int64_t common = rows.common;
  Double8 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = Double8{} + start[c];
  const Double8 zero{};
  int64_t i = 0;
  for (; i + 8 <= common; i += 8) {
    ahead.step();
    for (int c = 0; c < kChains; ++c) {
      typename Vec8<T>::type x;
      std::memcpy(&x, ins[c] + i, sizeof x);
      Double8 p = __builtin_convertvector(x, Double8);
      p += __builtin_shufflevector(p, zero, 8, 0, 1, 2, 3, 4, 5, 6);
      p += __builtin_shufflevector(p, zero, 8, 8, 0, 1, 2, 3, 4, 5);
      p += __builtin_shufflevector(p, zero, 8, 8, 8, 8, 0, 1, 2, 3);
      x = __builtin_convertvector(acc[c] + p, typename Vec8<T>::type);
      std::memcpy(outs[c] + i, &x, sizeof x);
      acc[c] += __builtin_shufflevector(p, p, 7, 7, 7, 7, 7, 7, 7, 7);
    }
  }
  for (int c = 0; c < kChains; ++c) scanRow<true>(ins[c] + i, outs[c] + i, n[c] - i, acc[c][0]);
}

// Four elements of a float or double row as doubles, and back.
__attribute__((target("avx2"))) OPCORE_ALWAYS_INLINE __m256d load4(const float* p) {
  return _mm256_cvtps_pd(_mm_loadu_ps(p));
}
__attribute__((target("avx2"))) OPCORE_ALWAYS_INLINE __m256d load4(const double* p) { return _mm256_loadu_pd(p); }
__attribute__((target("avx2"))) OPCORE_ALWAYS_INLINE void store4(float* p, __m256d v) {
  _mm_storeu_ps(p, _mm256_cvtpd_ps(v));
}
__attribute__((target("avx2"))) OPCORE_ALWAYS_INLINE void store4(double* p, __m256d v) { _mm256_storeu_pd(p, v); }

// sumScanRows with AVX2 (Note [Vectorized sum scans]): the eight lanes are lo (0-3) and hi (4-7).
template <typename T>
__attribute__((target("avx2"))) void sumScanRowsAvx2(const T* const* in, T* const* out, const int64_t* n,
                                                     const double* start, AheadLines ahead) {
  const ScanChains<T> rows(in, out, n);
  const T* const* ins = rows.in;
  T* const* outs = rows.out;
  const int64_t common = rows.common;
  __m256d acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_pd(start[c]);
  int64_t i = 0;
  for (; i + 8 <= common; i += 8) {
    ahead.step();
#pragma GCC unroll 4
    for (int c = 0; c < kChains; ++c) {
      __m256d lo = load4(ins[c] + i), hi = load4(ins[c] + i + 4);
      // By one lane: hi gets (l3, h0, h1, h2), lo (0, l0, l1, l2).
      hi = _mm256_add_pd(hi, _mm256_shuffle_pd(_mm256_permute2f128_pd(lo, hi, 0x21), hi, 0x5));
      lo = _mm256_add_pd(lo, _mm256_shuffle_pd(_mm256_permute2f128_pd(lo, lo, 0x08), lo, 0x5));
      // By two: hi gets (l2, l3, h0, h1), lo (0, 0, l0, l1); by four: hi gets lo.
      hi = _mm256_add_pd(hi, _mm256_permute2f128_pd(lo, hi, 0x21));
      lo = _mm256_add_pd(lo, _mm256_permute2f128_pd(lo, lo, 0x08));
      hi = _mm256_add_pd(hi, lo);
      store4(outs[c] + i, _mm256_add_pd(acc[c], lo));
      store4(outs[c] + i + 4, _mm256_add_pd(acc[c], hi));
      acc[c] = _mm256_add_pd(acc[c], _mm256_permute4x64_pd(hi, 0xff));
    }
  }
  for (int c = 0; c < kChains; ++c) scanRow<true>(ins[c] + i, outs[c] + i, n[c] - i, _mm256_cvtsd_f64(acc[c]));
}

// GCC 12's AVX-512 conversion and shuffle intrinsics pass a deliberately undefined vector,
// which it then warns of.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// Eight elements of a float or double row as doubles, and back.
__attribute__((target("avx512f"))) OPCORE_ALWAYS_INLINE __m512d load8(const float* p) {
  return _mm512_cvtps_pd(_mm256_loadu_ps(p));
}
__attribute__((target("avx512f"))) OPCORE_ALWAYS_INLINE __m512d load8(const double* p) { return _mm512_loadu_pd(p); }
__attribute__((target("avx512f"))) OPCORE_ALWAYS_INLINE void store8(float* p, __m512d v) {
  _mm256_storeu_ps(p, _mm512_cvtpd_ps(v));
}
__attribute__((target("avx512f"))) OPCORE_ALWAYS_INLINE void store8(double* p, __m512d v) { _mm512_storeu_pd(p, v); }

// v's lanes moved up by kLanes, zeros shifted in.
template <int kLanes>
__attribute__((target("avx512f"))) OPCORE_ALWAYS_INLINE __m512d shiftUp(__m512d v) {
  return _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(v), _mm512_setzero_si512(), 8 - kLanes));
}

// totalOf of kChains float or double blocks at once, with the same bits: each block's sixteen
// lanes are two vectors of eight, whose additions wait on the one before; one block alone
// kept two additions in flight where the two ports can take eight (Note [Vectorized sum
// scans]).
template <typename T>
__attribute__((target("avx512f"))) void sumTotalsAvx512(const T* const* in, const int64_t* n, double* totals) {
  static_assert(kTotalLanes == 16);
  __m512d lo[kChains], hi[kChains];  // lanes 0-7 and 8-15
  int64_t common = n[0];
  for (int c = 0; c < kChains; ++c) {
    lo[c] = hi[c] = _mm512_setzero_pd();
    common = std::min(common, n[c]);
  }
  int64_t i = 0;
  for (; i + kTotalLanes <= common; i += kTotalLanes) {
#pragma GCC unroll 4
    for (int c = 0; c < kChains; ++c) {
      lo[c] = _mm512_add_pd(lo[c], load8(in[c] + i));
      hi[c] = _mm512_add_pd(hi[c], load8(in[c] + i + 8));
    }
  }
  for (int c = 0; c < kChains; ++c) {
    alignas(64) double lanes[kTotalLanes];
    _mm512_store_pd(lanes, lo[c]);
    _mm512_store_pd(lanes + 8, hi[c]);
    totals[c] = foldTotal<true>(lanes, in[c], i, n[c]);
  }
}

// sumScanRows with AVX-512 intrinsics (Note [Vectorized sum scans]).
template <typename T>
__attribute__((target("avx512f"))) void sumScanRowsAvx512(const T* const* in, T* const* out, const int64_t* n,
                                                         const double* start, AheadLines ahead) {
  const ScanChains<T> rows(in, out, n);
  const T* const* ins = rows.in;
  T* const* outs = rows.out;
  const int64_t common = rows.common;
  __m512d acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_pd(start[c]);
  alignas(64) double sums[kChains][8];  // each row's last vector of running sums
  int64_t i = 0;
  for (; i + 8 <= common; i += 8) {
    ahead.step();
#pragma GCC unroll 4
    for (int c = 0; c < kChains; ++c) {
      __m512d p = load8(ins[c] + i);
      p = _mm512_add_pd(p, shiftUp<1>(p));
      p = _mm512_add_pd(p, shiftUp<2>(p));
      p = _mm512_add_pd(p, shiftUp<4>(p));
      // Every lane of acc is the running total, so lane 7 of acc + p is acc + p[7]: the next
      // running total without another addition. It is broadcast from memory, a load, rather
      // than by a permutation, which would take the shuffle port the scan's shifts need.
      p = _mm512_add_pd(acc[c], p);
      store8(outs[c] + i, p);
      _mm512_store_pd(sums[c], p);
      acc[c] = _mm512_set1_pd(sums[c][7]);
    }
  }
  for (int c = 0; c < kChains; ++c) scanRow<true>(ins[c] + i, outs[c] + i, n[c] - i, _mm512_cvtsd_f64(acc[c]));
}

#pragma GCC diagnostic pop

// out[o, j, k] = in[o, 0, k] (op) ... (op) in[o, j, k], columns k in [k0, k1), for inner > 1:
// the inner loop runs along k, which vectorizes.
template <bool kSum, typename T>
OPCORE_CPU_CLONES void scanColumns(const T* in, T* out, int64_t len, int64_t inner, int64_t k0, int64_t k1) {
  using A = typename ScanAcc<T>::type;
  std::unique_ptr<A[]> acc(new A[static_cast<size_t>(k1 - k0)]);
  std::fill(acc.get(), acc.get() + (k1 - k0), scanIdentity<kSum, A>());
  A* a = acc.get() - k0;
  for (int64_t j = 0; j < len; ++j) {
    const T* src = in + j * inner;
    T* dst = out + j * inner;
    for (int64_t k = k0; k < k1; ++k) {
      a[k] = scanStep<kSum>(a[k], static_cast<A>(src[k]));
      dst[k] = static_cast<T>(a[k]);
    }
  }
}

// Note [Parallel scans]
// Scans along many rows (or columns) run one row per thread. A long row is cut into blocks of
// kScanBlockBytes, kChains blocks to a group. Threads take the groups in order from a counter:
// a group's blocks are totalled, the group waits for the running total of the groups before it
// (published by whoever took the previous group as soon as it knew it), publishes its own, and
// scans its blocks from their running totals while they are still in the cache. So the row is
// read from memory once (totalling every block in a first pass over the row read it twice),
// and a thread only ever waits for a group taken before its own by a thread that is running:
// the chain moves on with any number of threads, one included. The blocks depend only on the
// length and the element size and their totals are added in order, so the result does not
// depend on the thread count; but a long float scan associates its additions per block, not
// one after the other (PyTorch's is serial). A group's kChains blocks are scanned at once
// (scanRows): a block alone ran at the latency of one double addition per element. A thread's
// time on a group is a read from memory (its totals), then arithmetic on what is in the cache;
// so while the vector sum scans work on a group, they request the lines of the group the
// thread likely takes next (threads take them in turn: the group `threads` on), a few lines
// per step (AheadLines), and the next totals read from the cache: a float cumsum of 16M went
// a seventh faster on two threads, nearly a quarter on one (bench/README.md).
constexpr int64_t kScanBlockBytes = 64 * 1024;
// Rows at least this long take scanLongRow when there are few of them.
constexpr int64_t kLongScanRow = 8 * kGrainSize;

// start[c] = the total of block c, for the count blocks of a group.
template <bool kSum, typename T>
void groupTotals(const T* const* ins, const int64_t* lens, int64_t count, typename ScanAcc<T>::type* start) {
  if constexpr (kSum && kVectorSumScan<T>) {
    if (count == kChains && cpu::cpuCapability() == cpu::CpuCapability::Avx512) {
      sumTotalsAvx512<T>(ins, lens, start);
      return;
    }
  }
  for (int64_t c = 0; c < count; ++c) start[c] = totalOf<kSum>(ins[c], lens[c]);
}

template <bool kSum, typename T>
void scanLongRow(const T* in, T* out, int64_t n) {
  using A = typename ScanAcc<T>::type;
  constexpr int64_t kBlock = kScanBlockBytes / static_cast<int64_t>(sizeof(T));
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  const int64_t groups = (blocks + kChains - 1) / kChains;
  std::atomic<int64_t> next_group{0};
  std::atomic<int64_t> published{0};  // groups whose running total `carry` holds
  A carry = scanIdentity<kSum, A>();
  // Group g's thread likely takes group g + threads next: its lines are requested while g is
  // scanned (the vector scans' steps: 8 elements of each block).
  const int64_t threads = std::min<int64_t>(groups, get_num_threads());
  const auto aheadOf = [&](int64_t g) {
    const int64_t next = (g + threads) * kChains * kBlock;
    if (next >= n) return AheadLines();
    return AheadLines(reinterpret_cast<const char*>(in + next),
                      std::min(kChains * kBlock, n - next) * static_cast<int64_t>(sizeof(T)), kBlock / 8);
  };
  const auto work = [&] {
    for (int64_t g = next_group.fetch_add(1, std::memory_order_relaxed); g < groups;
         g = next_group.fetch_add(1, std::memory_order_relaxed)) {
      const int64_t first = g * kChains, count = std::min<int64_t>(kChains, blocks - first);
      const T* ins[kChains];
      T* outs[kChains];
      int64_t lens[kChains];
      A start[kChains];
      for (int64_t c = 0; c < count; ++c) {
        const int64_t begin = (first + c) * kBlock;
        ins[c] = in + begin;
        outs[c] = out + begin;
        lens[c] = std::min(kBlock, n - begin);
      }
      groupTotals<kSum>(ins, lens, count, start);
      while (published.load(std::memory_order_acquire) != g) std::this_thread::yield();
      for (int64_t c = 0; c < count; ++c) {
        const A total = start[c];
        start[c] = carry;
        carry = scanStep<kSum>(carry, total);
      }
      published.store(g + 1, std::memory_order_release);
      if (count == kChains) {
        if constexpr (kSum && kVectorSumScan<T>) {
          const AheadLines ahead = aheadOf(g);
          switch (cpu::cpuCapability()) {
            case cpu::CpuCapability::Avx512:
              sumScanRowsAvx512<T>(ins, outs, lens, start, ahead);
              break;
            case cpu::CpuCapability::Avx2:
              sumScanRowsAvx2<T>(ins, outs, lens, start, ahead);
              break;
            case cpu::CpuCapability::Default:
              sumScanRows<T>(ins, outs, lens, start, ahead);
              break;
          }
        } else {
          scanRows<kSum>(ins, outs, lens, start);
        }
      } else {
        for (int64_t c = 0; c < count; ++c) scanRow<kSum>(ins[c], outs[c], lens[c], start[c]);
      }
    }
  };
  parallel_for(0, threads, 1, [&](int64_t, int64_t) { work(); });
}

template <bool kSum, typename T>
void scanContiguous(const T* in, T* out, int64_t outer, int64_t len, int64_t inner) {
  using A = typename ScanAcc<T>::type;
  if (inner == 1) {
    if (outer < 8 && len >= kLongScanRow) {
      for (int64_t o = 0; o < outer; ++o) scanLongRow<kSum>(in + o * len, out + o * len, len);
      return;
    }
    const int64_t grain = grainFor(len);
    parallel_for(0, outer, grain, [&](int64_t first, int64_t last) {
      for (int64_t o = first; o < last; ++o) scanRow<kSum>(in + o * len, out + o * len, len, scanIdentity<kSum, A>());
    });
    return;
  }
  if (outer > 1) {
    const int64_t grain = grainFor(len * inner);
    parallel_for(0, outer, grain, [&](int64_t first, int64_t last) {
      for (int64_t o = first; o < last; ++o) {
        scanColumns<kSum>(in + o * len * inner, out + o * len * inner, len, inner, 0, inner);
      }
    });
    return;
  }
  const int64_t grain = grainFor(len);
  parallel_for(0, inner, grain, [&](int64_t k0, int64_t k1) { scanColumns<kSum>(in, out, len, inner, k0, k1); });
}

template <bool kSum>
void scanInto(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out, const char* name) {
  cpu::checkCpu(name, {&self, &out});
  cpu::checkNoInternalOverlap(out);
  const ScalarType out_dtype = dtype.value_or(out.scalar_type());
  TensorBase in = cpu::contiguousCopy(cpu::convertTo(self, out_dtype));
  if (cpu::sharesStorage(in, out)) in = cpu::ownedCopy(in);
  detail::resizeOutput(out, in.sizes());
  const int64_t len = in.dim() == 0 ? 1 : in.sizes()[static_cast<size_t>(dim)];
  const int64_t outer = in.dim() == 0 ? 1 : checkedNumel(in.sizes().slice(0, static_cast<size_t>(dim)));
  const int64_t inner = in.numel() / std::max<int64_t>(outer * len, 1);
  const bool direct = out.is_contiguous() && out.scalar_type() == out_dtype;
  const TensorBase result = direct ? TensorBase(out) : detail::emptyCpu(in.sizes(), out_dtype);
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(kHalf, kBFloat16, kBool, out_dtype, name, [&] {
    if (in.numel() > 0) scanContiguous<kSum>(in.data_ptr<scalar_t>(), result.data_ptr<scalar_t>(), outer, len, inner);
  });
  if (!direct) cpu::copyInto(out, result);
}

}  // namespace

void cumsum_out(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  scanInto<true>(self, dim, dtype, out, "cumsum");
}

void cumprod_out(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  scanInto<false>(self, dim, dtype, out, "cumprod");
}

}  // namespace opcore::native

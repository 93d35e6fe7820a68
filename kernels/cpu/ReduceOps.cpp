// CPU reductions of issue #33: amax/amin, argmax/argmin, max()/min() of every element, min.dim,
// any/all, prod along a dimension, var/std (and with the mean). Each rearranges its input as
// rows, one per output element (Note [Reduction rows]), and reduces the rows in parallel.
#include <opcore/ops/all_native.h>
#include <opcore/ops/amax_native.h>
#include <opcore/ops/amin_native.h>
#include <opcore/ops/any_native.h>
#include <opcore/ops/argmax_native.h>
#include <opcore/ops/argmin_native.h>
#include <opcore/ops/linalg_vector_norm_native.h>
#include <opcore/ops/max_native.h>
#include <opcore/ops/min_native.h>
#include <opcore/ops/norm_native.h>
#include <opcore/ops/prod_native.h>
#include <opcore/ops/std_mean_native.h>
#include <opcore/ops/std_native.h>
#include <opcore/ops/var_mean_native.h>
#include <opcore/ops/var_native.h>
#include <opcore/core/Empty.h>

#include "common/Shape.h"
#include "common/pointwise/Reduce.h"
#include "cpu/Loops.h"
#include "cpu/ReduceRows.h"
#include "common/Wrapping.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace opcore::native {

namespace {

// Note [Reduction rows]
// A reduction over the dimensions in `mask` views its input with the kept dimensions first and
// the reduced ones last, and makes that contiguous (no copy when the reduced dimensions are
// already the innermost ones of a contiguous tensor: argmax(dim=-1), a full reduction): row o,
// `len` elements, is everything output o reduces. Rows are reduced in parallel, each by one
// thread; when there are few long rows (a full reduction) each row is cut into blocks whose
// number depends only on its length, reduced in parallel and combined in block order, so a
// result never depends on the thread count.
constexpr int64_t kMinBlock = 4 * kGrainSize;  // elements per block of a long row, at least
constexpr int64_t kMaxBlocks = 64;
constexpr int64_t kFewRows = 8;  // fewer rows than this are cut into blocks (a size, not a thread count)

// out[o] = op.project(op.run(row o)) for every row. Op: Acc run(const T* p, int64_t n, int64_t
// first) (first: the index of p[0] in its row), Acc combine(Acc earlier, Acc later), Out
// project(Acc).
template <typename T, typename Out, typename Op>
void reduceRows(const T* in, int64_t outer, int64_t len, Out* out, const Op& op) {
  using Acc = decltype(op.run(in, len, 0));
  const int64_t blocks = std::min(kMaxBlocks, len / kMinBlock);
  if (outer >= kFewRows || blocks < 2) {
    const int64_t grain = grainFor(len);
    parallel_for(0, outer, grain, [&](int64_t first, int64_t last) {
      for (int64_t o = first; o < last; ++o) out[o] = op.project(op.run(in + o * len, len, 0));
    });
    return;
  }
  // One slot per block, each a separate object: a std::vector<bool> (any/all's Acc) packs its
  // elements into shared words, which two threads writing neighbouring blocks would race on.
  struct Slot {
    Acc acc;
  };
  std::vector<Slot> partial(static_cast<size_t>(blocks));
  for (int64_t o = 0; o < outer; ++o) {
    const T* row = in + o * len;
    parallel_for(0, blocks, 1, [&](int64_t first, int64_t last) {
      for (int64_t b = first; b < last; ++b) {
        const int64_t start = len * b / blocks, end = len * (b + 1) / blocks;
        partial[static_cast<size_t>(b)].acc = op.run(row + start, end - start, start);
      }
    });
    Acc acc = partial[0].acc;
    for (int64_t b = 1; b < blocks; ++b) acc = op.combine(acc, partial[static_cast<size_t>(b)].acc);
    out[o] = op.project(acc);
  }
}

constexpr int kLanes = 16;  // independent accumulators, which the compiler vectorizes

template <typename T>
constexpr bool kIsComplexType = std::is_same_v<T, complex<float>> || std::is_same_v<T, complex<double>>;

// An unsigned integer as wide as T (the NaN flags of extremeOf, which then vectorize with T).
template <typename T>
using FlagOf = std::conditional_t<sizeof(T) == 8, uint64_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint8_t>>;

// The maximum (kMax) or minimum of n > 0 values, NaN if one is NaN, in opmath: 32 independent
// lanes of a compare-and-select and, for floating types, an "is NaN" mask as wide as the value,
// so that both vectorize. One mask serves two lanes (an unordered compare of a pair of vectors:
// is either NaN), and is all ones rather than 1 (no masking of the compare's result): fewer
// instructions per vector, which read faster from memory (bench/README.md, issue #33).
template <bool kMax, typename T>
OPCORE_CPU_CLONES opmath_t<T> extremeOf(const T* p, int64_t n) {
  using M = opmath_t<T>;
  using F = FlagOf<M>;
  constexpr int kWide = 32, kHalf = kWide / 2;
  constexpr F kAll = static_cast<F>(~F(0));
  M lanes[kWide];
  F nan[kHalf] = {};
  for (int j = 0; j < kWide; ++j) lanes[j] = static_cast<M>(p[0]);
  int64_t i = 0;
  for (; i + kWide <= n; i += kWide) {
    for (int j = 0; j < kHalf; ++j) {
      const M x = static_cast<M>(p[i + j]), y = static_cast<M>(p[i + j + kHalf]);
      lanes[j] = (kMax ? x > lanes[j] : x < lanes[j]) ? x : lanes[j];
      lanes[j + kHalf] = (kMax ? y > lanes[j + kHalf] : y < lanes[j + kHalf]) ? y : lanes[j + kHalf];
      if constexpr (!std::is_integral_v<M>) nan[j] |= std::isunordered(x, y) ? kAll : F(0);
    }
  }
  for (; i < n; ++i) {
    const M x = static_cast<M>(p[i]);
    lanes[0] = (kMax ? x > lanes[0] : x < lanes[0]) ? x : lanes[0];
    if constexpr (!std::is_integral_v<M>) nan[0] |= x != x ? kAll : F(0);
  }
  M best = lanes[0];
  F any_nan = 0;
  for (int j = 1; j < kWide; ++j) best = (kMax ? lanes[j] > best : lanes[j] < best) ? lanes[j] : best;
  for (int j = 0; j < kHalf; ++j) any_nan |= nan[j];
  if constexpr (!std::is_integral_v<M>) {
    if (any_nan) return std::numeric_limits<M>::quiet_NaN();
  }
  return best;
}

// The first i in [0, n) with p[i] == value (kNan: the first NaN); blocks of 64 compared whole
// into a flag as wide as the value (which vectorizes as extremeOf's flags do; a bool flag did
// not), then the block that holds it element by element. Precondition: one exists.
template <bool kNan, typename T>
OPCORE_CPU_CLONES int64_t firstMatch(const T* p, int64_t n, opmath_t<T> value) {
  using M = opmath_t<T>;
  using F = FlagOf<M>;
  constexpr int kBlock = 64;
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    F hit = 0;
    for (int j = 0; j < kBlock; ++j) {
      const M x = static_cast<M>(p[i + j]);
      hit |= static_cast<F>(kNan ? (x != x) : (x == value));
    }
    if (hit != 0) break;
  }
  for (;; ++i) {
    const M x = static_cast<M>(p[i]);
    if (kNan ? (x != x) : (x == value)) return i;
  }
}

template <typename T>
int64_t firstEqual(const T* p, int64_t n, opmath_t<T> value) {
  return reduce::isNan(value) ? firstMatch<true>(p, n, value) : firstMatch<false>(p, n, value);
}

template <bool kMax, typename T>
OPCORE_ALWAYS_INLINE bool replaces(opmath_t<T> x, opmath_t<T> best) {
  return kMax ? reduce::greaterOrNan(x, best) : reduce::lessOrNan(x, best);
}

// amax / amin (and max() / min()): the extreme value, NaN propagating.
template <bool kMax, typename T>
struct ExtremeOp {
  using M = opmath_t<T>;
  M run(const T* p, int64_t n, int64_t) const { return extremeOf<kMax>(p, n); }
  M combine(M a, M b) const { return replaces<kMax, T>(b, a) ? b : a; }
  T project(M a) const { return static_cast<T>(a); }
};

// argmax / argmin and max.dim / min.dim: the extreme value and the index of its first
// occurrence (of the first NaN), in two passes that both vectorize: the extreme, then a search.
template <bool kMax, typename T>
struct ArgOp {
  using M = opmath_t<T>;
  struct Acc {
    M value;
    int64_t index;
  };
  Acc run(const T* p, int64_t n, int64_t first) const {
    const M best = extremeOf<kMax>(p, n);
    return {best, first + firstEqual(p, n, best)};
  }
  Acc combine(Acc a, Acc b) const { return replaces<kMax, T>(b.value, a.value) ? b : a; }
  int64_t project(Acc a) const { return a.index; }
};

// Whether some element (kAny) is nonzero / every element is, on the bits: an element is zero
// when its bits are (floating: but the sign's, -0.0 is zero; NaN is nonzero; complex: both
// parts). Each chunk of 4 KiB is reduced to one word as wide as a part (any: the OR of the
// bits; all: the OR of "is zero" flags), which vectorizes; then the answer may be known.
template <typename T>
struct PartOf {  // a complex number's part type; T itself otherwise
  using type = T;
};
template <typename V>
struct PartOf<complex<V>> {
  using type = V;
};

template <typename T>
struct ZeroBits {  // the unsigned type of one part and the bits that count
  static constexpr bool kComplex = kIsComplexType<T>;
  using Part = typename PartOf<T>::type;
  using U = std::conditional_t<sizeof(Part) == 8, uint64_t,
            std::conditional_t<sizeof(Part) == 4, uint32_t, std::conditional_t<sizeof(Part) == 2, uint16_t, uint8_t>>>;
  static constexpr U kMask = std::is_integral_v<Part> ? static_cast<U>(~U(0)) : static_cast<U>(static_cast<U>(~U(0)) >> 1);
  static constexpr int kParts = kComplex ? 2 : 1;
};

template <bool kAny, typename T>
OPCORE_CPU_CLONES bool anyAllOf(const T* p, int64_t n) {
  using Z = ZeroBits<T>;
  using U = typename Z::U;
  const U* bits = reinterpret_cast<const U*>(p);
  constexpr int64_t kChunk = 4096 / static_cast<int64_t>(sizeof(T));
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t end = std::min(n, start + kChunk);
    U found = 0;  // any: the OR of the elements' bits; all: nonzero when an element is zero
    for (int64_t i = start; i < end; ++i) {
      U part = 0;
      for (int k = 0; k < Z::kParts; ++k) part |= static_cast<U>(bits[i * Z::kParts + k] & Z::kMask);
      found |= kAny ? part : static_cast<U>(part == 0);
    }
    if (found != 0) return kAny;
  }
  return !kAny;
}

template <bool kAny, typename T>
struct AnyAllOp {
  bool run(const T* p, int64_t n, int64_t) const { return anyAllOf<kAny>(p, n); }
  bool combine(bool a, bool b) const { return kAny ? (a || b) : (a && b); }
  bool project(bool a) const { return a; }
};

template <typename M>
OPCORE_ALWAYS_INLINE M times(M a, M b) {
  if constexpr (std::is_same_v<M, bool>) {
    return a && b;
  } else {
    return wrappingMul(a, b);
  }
}

// The product of n values in opmath (float for Half and BFloat16), integers wrapping: 256 bytes
// of independent lanes (64 for float), eight vectors at a time with AVX2, which keep up with
// memory where 16 lanes did not.
template <typename T>
OPCORE_CPU_CLONES opmath_t<T> productOf(const T* p, int64_t n) {
  using M = opmath_t<T>;
  constexpr int kWide = std::clamp<int>(static_cast<int>(256 / sizeof(M)), kLanes, 64);
  M lanes[kWide];
  for (int j = 0; j < kWide; ++j) lanes[j] = M(1);
  int64_t i = 0;
  for (; i + kWide <= n; i += kWide) {
    for (int j = 0; j < kWide; ++j) lanes[j] = times(lanes[j], static_cast<M>(p[i + j]));
  }
  for (; i < n; ++i) lanes[0] = times(lanes[0], static_cast<M>(p[i]));
  for (int width = kWide / 2; width > 0; width /= 2) {
    for (int j = 0; j < width; ++j) lanes[j] = times(lanes[j], lanes[j + width]);
  }
  return lanes[0];
}

// prod in T (the result's dtype).
template <typename T>
struct ProdOp {
  using M = opmath_t<T>;
  M run(const T* p, int64_t n, int64_t) const { return productOf(p, n); }
  M combine(M a, M b) const { return times(a, b); }
  T project(M a) const { return static_cast<T>(a); }
};

// Note [Variance]
// var and std accumulate in double, as PyTorch's CPU kernels (complex: both parts), and blocks
// merge by Chan's formula: the result does not depend on the thread count.
// - double and complex inputs: two passes per block (the mean, then the squared deviations from
//   it), momentsOf.
// - float, Half and BFloat16 inputs: one pass per chunk of kMomentChunk elements, shiftedMomentsOf.
//   The two passes converted every element to double twice and did five vector operations per
//   vector of it; that arithmetic, not memory, bounded the float32 var (bench/README.md, issue
//   #33). A chunk is read once, summing d and d*d for d = x - shift in double (the shift: the
//   previous chunk's mean, the first element for the first chunk), and its m2 is
//   sum(d^2) - sum(d)^2 / n. The rounding errors are relative to d^2 <= 2 (x - M)^2 +
//   2 (shift - M)^2 (M: the block's mean), and (shift - M)^2 is at most the mean of (y - M)^2
//   over the previous chunk's values y (for the first chunk, the first element's own term), so
//   they stay a small multiple of double's rounding of the block's m2, however far apart the
//   chunks' means are; merged by Chan's formula, chunks of 4096 add up less rounding than one
//   long sum of squares per block. A chunk whose own m2 would lose more than 8 bits in the
//   subtraction (a jump in the data, an outlier, a constant run) is summed again in two passes,
//   from the L1 cache, so that each chunk's moments are as accurate as before too; inf and NaN
//   go to Welford's method for the whole block, as in momentsOf. Double inputs keep the two
//   passes: the bits a chunk may lose would show in a double result, and no conversion is saved.
struct Moments {
  double n = 0, mean_re = 0, mean_im = 0, m2 = 0;
};

template <typename T>
constexpr bool kIsComplex = std::is_same_v<T, complex<float>> || std::is_same_v<T, complex<double>>;

template <typename T>
OPCORE_ALWAYS_INLINE double realPart(T x) {
  if constexpr (kIsComplex<T>) {
    return static_cast<double>(x.real());
  } else {
    return static_cast<double>(static_cast<opmath_t<T>>(x));
  }
}

template <typename T>
OPCORE_ALWAYS_INLINE double imagPart(T x) {
  if constexpr (kIsComplex<T>) {
    return static_cast<double>(x.imag());
  } else {
    return 0.0;
  }
}

// Welford's one-pass moments (PyTorch's CPU algorithm): the fallback where the two-pass sum
// overflows (two values near double's largest: their mean is finite, their sum is not).
template <typename T>
Moments welfordOf(const T* p, int64_t n) {
  double mr = 0, mi = 0, m2 = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double k = static_cast<double>(i + 1);
    const double xr = realPart(p[i]), xi = imagPart(p[i]);
    const double dr = xr - mr, di = xi - mi;
    mr += dr / k;
    mi += di / k;
    m2 += dr * (xr - mr) + di * (xi - mi);
  }
  return {static_cast<double>(n), mr, mi, m2};
}

// The count, mean and sum of squared deviations of n values, in double, two passes.
template <typename T>
OPCORE_CPU_CLONES Moments momentsOf(const T* p, int64_t n) {
  constexpr bool kComplex = kIsComplex<T>;
  if (n == 0) return {};
  double sr[kLanes] = {}, si[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      sr[j] += realPart(p[i + j]);
      if constexpr (kComplex) si[j] += imagPart(p[i + j]);
    }
  }
  for (; i < n; ++i) {
    sr[0] += realPart(p[i]);
    if constexpr (kComplex) si[0] += imagPart(p[i]);
  }
  double total_re = 0, total_im = 0;
  for (int j = 0; j < kLanes; ++j) {
    total_re += sr[j];
    total_im += si[j];
  }
  const double mr = total_re / static_cast<double>(n), mi = total_im / static_cast<double>(n);
  if (!std::isfinite(mr) || !std::isfinite(mi)) return welfordOf(p, n);  // the sum overflowed, or inf / NaN
  double q[kLanes] = {};
  i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const double dr = realPart(p[i + j]) - mr;
      q[j] += dr * dr;
      if constexpr (kComplex) {
        const double di = imagPart(p[i + j]) - mi;
        q[j] += di * di;
      }
    }
  }
  for (; i < n; ++i) {
    const double dr = realPart(p[i]) - mr, di = imagPart(p[i]) - mi;
    q[0] += dr * dr + di * di;
  }
  double m2 = 0;
  for (double v : q) m2 += v;
  return {static_cast<double>(n), mr, mi, m2};
}

Moments mergeMoments(const Moments& a, const Moments& b) {
  if (a.n == 0) return b;
  if (b.n == 0) return a;
  const double n = a.n + b.n, dr = b.mean_re - a.mean_re, di = b.mean_im - a.mean_im;
  return {n, a.mean_re + dr * b.n / n, a.mean_im + di * b.n / n, a.m2 + b.m2 + (dr * dr + di * di) * a.n * b.n / n};
}

constexpr int64_t kMomentChunk = 4096;  // elements: 16 KiB of float, summed again from L1 where needed
constexpr int kMomentLanes = 32;        // independent sums: 4 vectors of each with AVX-512, 8 with AVX2

// The moments of n values of a real type narrower than double, one pass per chunk (Note [Variance]).
template <typename T>
OPCORE_CPU_CLONES_WITH_AVX512 Moments shiftedMomentsOf(const T* p, int64_t n) {
  Moments acc;
  double shift = n > 0 ? realPart(p[0]) : 0.0;
  if (!std::isfinite(shift)) shift = 0.0;
  for (int64_t start = 0; start < n; start += kMomentChunk) {
    const int64_t c = std::min(kMomentChunk, n - start);
    const T* q = p + start;
    double s1[kMomentLanes] = {}, s2[kMomentLanes] = {};
    int64_t i = 0;
    for (; i + kMomentLanes <= c; i += kMomentLanes) {
      for (int j = 0; j < kMomentLanes; ++j) {
        const double d = realPart(q[i + j]) - shift;
        s1[j] += d;
        s2[j] += d * d;
      }
    }
    for (; i < c; ++i) {
      const double d = realPart(q[i]) - shift;
      s1[0] += d;
      s2[0] += d * d;
    }
    for (int width = kMomentLanes / 2; width > 0; width /= 2) {
      for (int j = 0; j < width; ++j) {
        s1[j] += s1[j + width];
        s2[j] += s2[j + width];
      }
    }
    const double dm = s1[0] / static_cast<double>(c);
    // At most 8 bits lost: sum(d)^2 / n <= (1 - 2^-8) sum(d^2), and no inf or NaN.
    const bool accurate = std::isfinite(s2[0]) && s1[0] * dm <= s2[0] * (1.0 - 1.0 / 256);
    const Moments chunk = accurate ? Moments{static_cast<double>(c), shift + dm, 0.0, s2[0] - s1[0] * dm} : momentsOf(q, c);
    // An inf or NaN: the whole block by Welford's method, as momentsOf does (PyTorch's results:
    // NaN where an inf is followed by other values).
    if (!std::isfinite(chunk.mean_re)) return welfordOf(p, n);
    acc = mergeMoments(acc, chunk);
    shift = chunk.mean_re;
  }
  return acc;
}

template <typename T>
struct MomentsOp {
  Moments run(const T* p, int64_t n, int64_t) const {
    if constexpr (kIsComplex<T> || std::is_same_v<T, double>) {
      return momentsOf(p, n);
    } else {
      return shiftedMomentsOf(p, n);
    }
  }
  Moments combine(const Moments& a, const Moments& b) const { return mergeMoments(a, b); }
  Moments project(const Moments& m) const { return m; }
};

// The extremes of self over `mask` into out (values; out already has the reduced shape, or is
// resized here when it shares memory with self).
template <bool kMax>
void extremeInto(const TensorBase& out, const TensorBase& self, const std::vector<bool>& mask, const char* name) {
  const TensorBase in = readInput(self, {&out});
  const Rows rows = reductionRows(in, mask);
  detail::resizeOutput(out, reducedShape(in.sizes(), mask, /*keepdim=*/false));
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, in.scalar_type(), name, [&] {
    writeOutput<scalar_t>(out, in.scalar_type(), [&](scalar_t* o) {
      reduceRows(rows.data.data_ptr<scalar_t>(), rows.outer, rows.len, o, ExtremeOp<kMax, scalar_t>{});
    });
  });
}

// The index of the extreme of every row of self along `dim` (nullopt: of the flattened self).
template <bool kMax>
void argInto(const TensorBase& out, const TensorBase& self, std::optional<int64_t> dim, bool keepdim, const char* name) {
  const TensorBase in = readInput(self, {&out});
  std::vector<bool> mask(static_cast<size_t>(in.dim()), !dim.has_value());
  if (dim && in.dim() > 0) mask[static_cast<size_t>(in.wrapDim(*dim))] = true;
  const Rows rows = reductionRows(in, mask);
  DimVector shape = reducedShape(in.sizes(), mask, keepdim);
  detail::resizeOutput(out, shape);
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, in.scalar_type(), name, [&] {
    writeOutput<int64_t>(out, kLong, [&](int64_t* o) {
      reduceRows(rows.data.data_ptr<scalar_t>(), rows.outer, rows.len, o, ArgOp<kMax, scalar_t>{});
    });
  });
}

template <bool kAny>
void anyAllInto(const TensorBase& out, const TensorBase& self, const std::vector<bool>& mask, bool keepdim,
                const char* name) {
  cpu::checkCpu(name, {&self, &out});
  const TensorBase in = readInput(self, {&out});
  const Rows rows = reductionRows(in, mask);
  detail::resizeOutput(out, reducedShape(in.sizes(), mask, keepdim));
  OPCORE_DISPATCH_EVERY_TYPE(in.scalar_type(), name, [&] {
    writeOutput<bool>(out, kBool, [&](bool* o) {
      reduceRows(rows.data.data_ptr<scalar_t>(), rows.outer, rows.len, o, AnyAllOp<kAny, scalar_t>{});
    });
  });
}

// min.dim / max.dim-like: values and indices along `dim`.
template <bool kMax>
void valuesAndIndices(const TensorBase& self, int64_t dim, bool keepdim, const TensorBase& values,
                      const TensorBase& indices, const char* name) {
  cpu::checkCpu(name, {&self, &values, &indices});
  cpu::checkNoInternalOverlap(values);
  cpu::checkNoInternalOverlap(indices);
  const TensorBase in = readInput(self, {&values, &indices});
  const std::vector<bool> mask = oneDimMask(in.dim(), dim);
  const Rows rows = reductionRows(in, mask);
  const DimVector shape = reducedShape(in.sizes(), mask, keepdim);
  detail::resizeOutput(values, shape);
  detail::resizeOutput(indices, shape);
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, in.scalar_type(), name, [&] {
    const TensorBase idx = detail::emptyCpu(shape, kLong);
    int64_t* ip = idx.data_ptr<int64_t>();
    reduceRows(rows.data.data_ptr<scalar_t>(), rows.outer, rows.len, ip, ArgOp<kMax, scalar_t>{});
    writeOutput<scalar_t>(values, in.scalar_type(), [&](scalar_t* v) {
      const scalar_t* data = rows.data.data_ptr<scalar_t>();
      for (int64_t o = 0; o < rows.outer; ++o) v[o] = data[o * rows.len + ip[o]];
    });
    cpu::copyInto(indices, idx);
  });
}

void checkVarDtype(const TensorBase& self) {
  const ScalarType t = self.scalar_type();
  OPCORE_CHECK(isFloatingType(t) || isComplexType(t), "std and var only support floating point and complex dtypes");
}

double dof(const Moments& m, const std::optional<Scalar>& correction) {
  const double c = correction ? correction->toDouble() : 1.0;
  return std::max(0.0, m.n - c);
}

// var (kStd: its square root) of self over `dim` into `out`, and the mean into `mean` when it
// is defined. Meta tensors only get their shapes.
template <bool kStd>
void momentsInto(const TensorBase& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                 bool keepdim, const TensorBase& out, const TensorBase& mean) {
  checkVarDtype(self);
  const std::vector<bool> mask = reductionMask(dim, self.dim());
  const DimVector shape = reducedShape(self.sizes(), mask, keepdim);
  if (self.is_meta()) return;
  const TensorBase in = mean.defined() ? readInput(self, {&out, &mean}) : readInput(self, {&out});
  const Rows rows = reductionRows(in, mask);
  std::vector<Moments> m(static_cast<size_t>(rows.outer));
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, in.scalar_type(), kStd ? "std" : "var", [&] {
    reduceRows(rows.data.data_ptr<scalar_t>(), rows.outer, rows.len, m.data(), MomentsOp<scalar_t>{});
  });
  const bool complex_input = isComplexType(in.scalar_type());
  const TensorBase v = detail::emptyCpu(shape, kDouble);
  double* vp = v.data_ptr<double>();
  for (size_t o = 0; o < m.size(); ++o) {
    const double var = m[o].m2 / dof(m[o], correction);
    vp[o] = kStd ? std::sqrt(var) : var;
    if (m[o].n == 0) vp[o] = std::numeric_limits<double>::quiet_NaN();
  }
  detail::resizeOutput(out, shape);
  cpu::copyInto(out, v);
  if (!mean.defined()) return;
  const TensorBase mu = detail::emptyCpu(shape, complex_input ? kComplexDouble : kDouble);
  for (size_t o = 0; o < m.size(); ++o) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double re = m[o].n == 0 ? nan : m[o].mean_re, im = m[o].n == 0 ? nan : m[o].mean_im;
    if (complex_input) {
      mu.data_ptr<complex<double>>()[o] = complex<double>(re, im);
    } else {
      mu.data_ptr<double>()[o] = re;
    }
  }
  detail::resizeOutput(mean, shape);
  cpu::copyInto(mean, mu);
}

TensorBase newResult(const TensorBase& self, IntArrayRef shape, ScalarType dtype) {
  return detail::empty(shape, dtype, self.device());
}

// The shape and dtypes of var/std (real) and the mean (self's dtype).
DimVector momentsShape(const TensorBase& self, OptionalIntArrayRef dim, bool keepdim) {
  return reducedShape(self.sizes(), reductionMask(dim, self.dim()), keepdim);
}

}  // namespace

void amax_out(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  cpu::checkCpu("amax", {&self, &out});
  cpu::checkNoInternalOverlap(out);
  const std::vector<bool> mask = reductionMask(dim, self.dim());
  const TensorBase in = readInput(self, {&out});
  const Rows rows = reductionRows(in, mask);
  detail::resizeOutput(out, reducedShape(in.sizes(), mask, keepdim));
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, in.scalar_type(), "amax", [&] {
    writeOutput<scalar_t>(out, in.scalar_type(), [&](scalar_t* o) {
      reduceRows(rows.data.data_ptr<scalar_t>(), rows.outer, rows.len, o, ExtremeOp<true, scalar_t>{});
    });
  });
}

void amin_out(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  cpu::checkCpu("amin", {&self, &out});
  cpu::checkNoInternalOverlap(out);
  const std::vector<bool> mask = reductionMask(dim, self.dim());
  const TensorBase in = readInput(self, {&out});
  const Rows rows = reductionRows(in, mask);
  detail::resizeOutput(out, reducedShape(in.sizes(), mask, keepdim));
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, in.scalar_type(), "amin", [&] {
    writeOutput<scalar_t>(out, in.scalar_type(), [&](scalar_t* o) {
      reduceRows(rows.data.data_ptr<scalar_t>(), rows.outer, rows.len, o, ExtremeOp<false, scalar_t>{});
    });
  });
}

void argmax_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  cpu::checkCpu("argmax", {&self, &out});
  cpu::checkNoInternalOverlap(out);
  argInto<true>(out, self, dim, keepdim, "argmax");
}

void argmin_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  cpu::checkCpu("argmin", {&self, &out});
  cpu::checkNoInternalOverlap(out);
  argInto<false>(out, self, dim, keepdim, "argmin");
}

// max() and min() of every element: PyTorch's kernels are not structured; these serve the CPU
// and the Meta keys.
Tensor max_all(const Tensor& self) {
  OPCORE_CHECK(self.numel() > 0, "max(): Expected reduction dim to be specified for input.numel() == 0. "
               "Specify the reduction dim with the 'dim' argument.");
  Tensor out(newResult(self, {}, self.scalar_type()));
  if (self.is_meta()) return out;
  extremeInto<true>(out, self, std::vector<bool>(static_cast<size_t>(self.dim()), true), "max_all");
  return out;
}

Tensor min_all(const Tensor& self) {
  OPCORE_CHECK(self.numel() > 0, "min(): Expected reduction dim to be specified for input.numel() == 0. "
               "Specify the reduction dim with the 'dim' argument.");
  Tensor out(newResult(self, {}, self.scalar_type()));
  if (self.is_meta()) return out;
  extremeInto<false>(out, self, std::vector<bool>(static_cast<size_t>(self.dim()), true), "min_all");
  return out;
}

void min_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& min, const Tensor& min_indices) {
  OPCORE_CHECK(!cpu::sharesStorage(min, min_indices), "min(): the values and indices outputs share memory");
  valuesAndIndices<false>(self, dim, keepdim, min, min_indices, "min");
}

void any_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& out) {
  anyAllInto<true>(out, self, oneDimMask(self.dim(), dim), keepdim, "any");
}

void any_dims_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, const Tensor& out) {
  anyAllInto<true>(out, self, reductionMask(dim, self.dim()), keepdim, "any");
}

void any_all_out(const Tensor& self, const Tensor& out) {
  anyAllInto<true>(out, self, std::vector<bool>(static_cast<size_t>(self.dim()), true), false, "any");
}

void all_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& out) {
  anyAllInto<false>(out, self, oneDimMask(self.dim(), dim), keepdim, "all");
}

void all_dims_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, const Tensor& out) {
  anyAllInto<false>(out, self, reductionMask(dim, self.dim()), keepdim, "all");
}

void all_all_out(const Tensor& self, const Tensor& out) {
  anyAllInto<false>(out, self, std::vector<bool>(static_cast<size_t>(self.dim()), true), false, "all");
}

// The product along `dim` in out's dtype (the input converted first, as sum's), Half and
// BFloat16 multiplied in float.
void prod_out(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype, const Tensor& out) {
  cpu::checkCpu("prod", {&self, &out});
  cpu::checkNoInternalOverlap(out);
  const ScalarType out_dtype = dtype.value_or(out.scalar_type());
  TensorBase in = cpu::convertTo(self, out_dtype);
  in = readInput(in, {&out});
  const std::vector<bool> mask = oneDimMask(in.dim(), dim);
  const Rows rows = reductionRows(in, mask);
  detail::resizeOutput(out, reducedShape(in.sizes(), mask, keepdim));
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(kHalf, kBFloat16, kBool, out_dtype, "prod", [&] {
    if constexpr (std::is_same_v<scalar_t, bool>) {
      writeOutput<bool>(out, out_dtype, [&](bool* o) {
        reduceRows(rows.data.data_ptr<bool>(), rows.outer, rows.len, o, AnyAllOp<false, bool>{});
      });
    } else {
      writeOutput<scalar_t>(out, out_dtype, [&](scalar_t* o) {
        reduceRows(rows.data.data_ptr<scalar_t>(), rows.outer, rows.len, o, ProdOp<scalar_t>{});
      });
    }
  });
}

// var, std, var_mean, std_mean with a correction (PyTorch's CPU kernels; Note [Variance]).
// They serve the Meta key too.
Tensor var(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  checkVarDtype(self);
  Tensor out(newResult(self, momentsShape(self, dim, keepdim), toRealValueType(self.scalar_type())));
  momentsInto<false>(self, dim, correction, keepdim, out, TensorBase());
  return out;
}

Tensor std(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  checkVarDtype(self);
  Tensor out(newResult(self, momentsShape(self, dim, keepdim), toRealValueType(self.scalar_type())));
  momentsInto<true>(self, dim, correction, keepdim, out, TensorBase());
  return out;
}

namespace {
void checkMomentsOut(const Tensor& self, const Tensor& out, const char* name) {
  const ScalarType want = toRealValueType(self.scalar_type());
  OPCORE_CHECK(out.scalar_type() == want, name, ": Expected out tensor to have dtype ", want, ", but got ",
               out.scalar_type(), " instead");
  OPCORE_CHECK(out.device() == self.device(), name, ": Expected out tensor to be on ", self.device());
}
}  // namespace

Tensor& var_out(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim,
                Tensor& out) {
  checkVarDtype(self);
  checkMomentsOut(self, out, "var");
  if (self.is_meta()) {
    detail::resizeOutput(out, momentsShape(self, dim, keepdim));
    return out;
  }
  momentsInto<false>(self, dim, correction, keepdim, out, TensorBase());
  return out;
}

Tensor& std_out(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim,
                Tensor& out) {
  checkVarDtype(self);
  checkMomentsOut(self, out, "std");
  if (self.is_meta()) {
    detail::resizeOutput(out, momentsShape(self, dim, keepdim));
    return out;
  }
  momentsInto<true>(self, dim, correction, keepdim, out, TensorBase());
  return out;
}

std::tuple<Tensor, Tensor> var_mean(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                                    bool keepdim) {
  checkVarDtype(self);
  const DimVector shape = momentsShape(self, dim, keepdim);
  Tensor out(newResult(self, shape, toRealValueType(self.scalar_type())));
  Tensor mean(newResult(self, shape, self.scalar_type()));
  momentsInto<false>(self, dim, correction, keepdim, out, mean);
  return {out, mean};
}

std::tuple<Tensor, Tensor> std_mean(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                                    bool keepdim) {
  checkVarDtype(self);
  const DimVector shape = momentsShape(self, dim, keepdim);
  Tensor out(newResult(self, shape, toRealValueType(self.scalar_type())));
  Tensor mean(newResult(self, shape, self.scalar_type()));
  momentsInto<true>(self, dim, correction, keepdim, out, mean);
  return {out, mean};
}


// --- vector norms (linalg_vector_norm, norm) ---

namespace {

// The ord-norm of |x| values, accumulated in double (Note [Vector norms]).
struct NormAcc {
  double value = 0;
};

enum class NormKind { kZero, kOne, kTwo, kInf, kNegInf, kPower };

template <typename T>
OPCORE_ALWAYS_INLINE double magnitude(T x) {
  if constexpr (kIsComplex<T>) {
    return std::hypot(static_cast<double>(x.real()), static_cast<double>(x.imag()));
  } else {
    return std::abs(static_cast<double>(static_cast<opmath_t<T>>(x)));
  }
}

// Note [Vector norms]
// Every ord reduces |x| in double: a sum (0: of x != 0; 1: of |x|; 2: of |x|^2, then the square
// root; p: of |x|^p, then the 1/p-th power) or an extreme (inf: max, -inf: min, NaN
// propagating), so a float32 norm is the exact norm rounded once (PyTorch accumulates in float).
template <typename T>
OPCORE_CPU_CLONES double normPartOf(const T* p, int64_t n, NormKind kind, double ord) {
  double lanes[kLanes];
  const double init = kind == NormKind::kNegInf ? std::numeric_limits<double>::infinity() : 0.0;
  for (double& l : lanes) l = init;
  bool nan = false;
  const auto step = [&](double acc, double a) {
    switch (kind) {
      case NormKind::kZero: return acc + (a != 0 ? 1.0 : 0.0);
      case NormKind::kOne: return acc + a;
      case NormKind::kTwo: return acc + a * a;
      case NormKind::kInf: return a > acc ? a : acc;
      case NormKind::kNegInf: return a < acc ? a : acc;
      case NormKind::kPower: return acc + std::pow(a, ord);
    }
    return acc;
  };
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const double a = magnitude(p[i + j]);
      nan |= (a != a);
      lanes[j] = step(lanes[j], a);
    }
  }
  for (; i < n; ++i) {
    const double a = magnitude(p[i]);
    nan |= (a != a);
    lanes[0] = step(lanes[0], a);
  }
  double acc = init;
  for (double l : lanes) {
    acc = (kind == NormKind::kInf || kind == NormKind::kNegInf) ? step(acc, l) : acc + l;
  }
  return nan && kind != NormKind::kZero ? std::numeric_limits<double>::quiet_NaN() : acc;
}

template <typename T>
struct NormOp {
  NormKind kind;
  double ord;
  double run(const T* p, int64_t n, int64_t) const { return normPartOf(p, n, kind, ord); }
  double combine(double a, double b) const {
    if (kind == NormKind::kInf) return (a != a || b != b) ? std::numeric_limits<double>::quiet_NaN() : std::max(a, b);
    if (kind == NormKind::kNegInf) return (a != a || b != b) ? std::numeric_limits<double>::quiet_NaN() : std::min(a, b);
    return a + b;
  }
  double project(double a) const {
    switch (kind) {
      case NormKind::kTwo: return std::sqrt(a);
      case NormKind::kPower: return std::pow(a, 1.0 / ord);
      default: return a;
    }
  }
};

NormKind normKind(double ord) {
  if (ord == 0) return NormKind::kZero;
  if (ord == 1) return NormKind::kOne;
  if (ord == 2) return NormKind::kTwo;
  if (ord == std::numeric_limits<double>::infinity()) return NormKind::kInf;
  if (ord == -std::numeric_limits<double>::infinity()) return NormKind::kNegInf;
  return NormKind::kPower;
}

// The norm of self (converted to `dtype` first when given) over `dim` into out.
void vectorNormInto(const Tensor& self, const Scalar& ord, OptionalIntArrayRef dim, bool keepdim,
                    std::optional<ScalarType> dtype, const Tensor& out, const char* name) {
  cpu::checkCpu(name, {&self, &out});
  cpu::checkNoInternalOverlap(out);
  TensorBase in = dtype ? cpu::convertTo(self, *dtype) : TensorBase(self);
  in = readInput(in, {&out});
  const std::vector<bool> mask = reductionMask(dim, in.dim());
  const Rows rows = reductionRows(in, mask);
  detail::resizeOutput(out, reducedShape(in.sizes(), mask, keepdim));
  const double p = ord.toDouble();
  std::vector<double> result(static_cast<size_t>(rows.outer));
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, in.scalar_type(), name, [&] {
    reduceRows(rows.data.data_ptr<scalar_t>(), rows.outer, rows.len, result.data(), NormOp<scalar_t>{normKind(p), p});
  });
  const TensorBase r = detail::emptyCpu(out.sizes(), kDouble);
  std::copy(result.begin(), result.end(), r.data_ptr<double>());
  cpu::copyInto(out, r);
}

}  // namespace

void linalg_vector_norm_out(const Tensor& self, const Scalar& ord, OptionalIntArrayRef dim, bool keepdim,
                            std::optional<ScalarType> dtype, const Tensor& out) {
  vectorNormInto(self, ord, dim, keepdim, dtype, out, "linalg_vector_norm");
}

void norm_out(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim, const Tensor& out) {
  vectorNormInto(self, p.value_or(Scalar(2.0)), dim, keepdim, std::nullopt, out, "norm");
}

void norm_dtype_out(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim, ScalarType dtype,
                    const Tensor& out) {
  vectorNormInto(self, p.value_or(Scalar(2.0)), dim, keepdim, dtype, out, "norm");
}

}  // namespace opcore::native

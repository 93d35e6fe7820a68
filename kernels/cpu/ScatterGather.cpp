// CPU gather, scatter (src, value, reduce forms), scatter_add, scatter_reduce.two and
// index_select: reads and writes along one dimension at positions an index tensor gives.
// See Note [Scatter and gather].
#include <opcore/ops/gather_native.h>
#include <opcore/ops/index_add_native.h>
#include <opcore/ops/index_select_native.h>
#include <opcore/ops/scatter_add_native.h>
#include <opcore/ops/scatter_native.h>
#include <opcore/ops/scatter_reduce_native.h>

#include "common/ScatterGather.h"
#include "common/pointwise/Indexing.h"
#include "cpu/Loops.h"
#include "common/Wrapping.h"
#include "cpu/ScalarConvert.h"
#include "cpu/ScatterGatherLoop.h"

#include <opcore/core/Empty.h>

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace opcore::native {

// Note [Scatter and gather]
// gather reads `out[p] = self[p with p[dim] replaced by index[p]]` for every position p of
// index; scatter writes `out[p with p[dim] replaced by index[p]] = src[p]`. Both walk index's
// positions as rows along `dim` (cpu::RowLoop): the rows are independent, so threads take
// whole rows. Two scattered elements can only meet when they lie in one row (their other
// coordinates are equal), and a row is walked in order by one thread: so the result of
// scatter (the last element wins) and scatter_add (the elements are added in their order
// along `dim`) are the same for every thread count, as PyTorch's CPU kernels are. A gather
// of a single long row splits that row instead. Every index is checked before it is used,
// a row at a time (a branch-free pass the compiler vectorizes), so an index out of range
// raises IndexError "index 5 is out of bounds for dimension 0 with size 4" and nothing is read
// or written outside the tensor. PyTorch raises a RuntimeError for gather and scatter (an
// IndexError for index_select); opcore raises IndexError for all, as issue #33 asks.

namespace {

using cpu::RowLoop;

// Whether every index of the row lies in [0, bound): a branch-free pass, vectorized in each
// instruction-set clone (Note [Instruction sets] in cpu/Loops.h).
OPCORE_CPU_CLONES bool rowInBounds(const int64_t* index, int64_t stride, int64_t n, int64_t bound) {
  bool ok = true;
  if (stride == 1) {
    for (int64_t j = 0; j < n; ++j) ok &= static_cast<uint64_t>(index[j]) < static_cast<uint64_t>(bound);
  } else {
    for (int64_t j = 0; j < n; ++j) ok &= static_cast<uint64_t>(index[j * stride]) < static_cast<uint64_t>(bound);
  }
  return ok;
}

// Throws IndexError for the first index of the row outside [0, bound).
void checkRow(const int64_t* index, int64_t stride, int64_t n, int64_t bound, int64_t dim) {
  if (OPCORE_LIKELY(rowInBounds(index, stride, n, bound))) return;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t v = index[j * stride];
    OPCORE_CHECK_INDEX(v >= 0 && v < bound, "index ", v, " is out of bounds for dimension ", dim, " with size ", bound);
  }
}

// to[j * os] = from[row[j * is] * ss] for j < n, the indices already checked.
template <typename T>
OPCORE_CPU_CLONES bool gatherRow(T* to, int64_t os, const T* from, int64_t ss, const int64_t* row, int64_t is,
                                 int64_t n, int64_t bound) {
  const uint64_t b = static_cast<uint64_t>(bound);
  if (os == 1 && is == 1 && ss == 1) {
    for (int64_t j = 0; j < n; ++j) {
      const int64_t i = row[j];
      if (OPCORE_UNLIKELY(static_cast<uint64_t>(i) >= b)) return false;
      to[j] = from[i];
    }
  } else {
    for (int64_t j = 0; j < n; ++j) {
      const int64_t i = row[j * is];
      if (OPCORE_UNLIKELY(static_cast<uint64_t>(i) >= b)) return false;
      to[j * os] = from[i * ss];
    }
  }
  return true;
}

// Note [Prefetching the indexed row]
// The elements a row of gather or scatter reads or updates lie at random places of one
// dimension of self (or out); when that dimension is dense and small enough to stay in the
// cache (kPrefetchedRow bytes), its lines are requested ahead. Left to the random accesses,
// each line's first use waited on memory alone (a 4096-float row: 256 misses the hardware's
// prefetchers could not foresee). The first row a thread takes is requested whole before it
// starts; while a row is walked, the lines of the thread's next row are requested a few at a
// time, spread over the row's pieces, so that they have arrived when it starts. Requested all
// at once at a row's start, most lines found the core's misses in flight at their limit and
// waited: spreading them took a gather of 4096-float rows a quarter to a third faster
// (bench/README.md).
constexpr int64_t kPrefetchedRow = 64 * 1024;
constexpr int64_t kLinesPerPiece = 8;

// Whether the row at p (n elements of esize bytes, `stride` apart) is requested ahead.
inline bool prefetched(int64_t stride, int64_t n, int64_t esize) { return stride == 1 && n * esize <= kPrefetchedRow; }

inline void prefetchRow(const void* p, int64_t stride, int64_t n, int64_t esize) {
  if (!prefetched(stride, n, esize)) return;
  const auto* c = static_cast<const char*>(p);
  for (int64_t b = 0; b < n * esize; b += 64) _mm_prefetch(c + b, _MM_HINT_T0);
}

// body(b, e) over the pieces of [begin, end), the lines of `next` (a row as prefetchRow's, or
// null) requested kLinesPerPiece before each piece.
template <typename Body>
void walkPrefetchingNext(const void* next, int64_t stride, int64_t n, int64_t esize, int64_t begin, int64_t end,
                         const Body& body) {
  if (next == nullptr || !prefetched(stride, n, esize)) return body(begin, end);
  const auto* c = static_cast<const char*>(next);
  const int64_t lines = (n * esize + 63) / 64;
  const int64_t piece = std::max<int64_t>(1, (end - begin) * kLinesPerPiece / lines);
  int64_t line = 0;
  for (int64_t b = begin; b < end; b += piece) {
    for (const int64_t stop = std::min(lines, line + kLinesPerPiece); line < stop; ++line) {
      _mm_prefetch(c + line * 64, _MM_HINT_T0);
    }
    body(b, std::min(end, b + piece));
  }
  for (; line < lines; ++line) _mm_prefetch(c + line * 64, _MM_HINT_T0);
}

template <typename T>
const T* constData(const TensorBase& t) {
  return static_cast<const T*>(t.data_ptr());
}

template <typename T>
T* mutableData(const TensorBase& t) {
  return static_cast<T*>(t.data_ptr());
}

// An input that out= shares memory with, copied (the kernel writes out while it reads it).
TensorBase unaliased(const TensorBase& out, const TensorBase& input) {
  return cpu::sharesStorage(out, input) ? cpu::ownedCopy(input) : input;
}

}  // namespace

// --- gather -------------------------------------------------------------------------------------

void gather_out(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/, const Tensor& out) {
  cpu::checkCpu("gather", {&self, &index, &out});
  if (index.numel() == 0) return;
  checkNoOverlap(out, self);
  checkNoOverlap(out, index);
  const int64_t d = self.wrapDim(dim);
  const RowLoop loop(d, index.sizes(), {self.strides(), index.strides(), out.strides()});
  const int64_t bound = self.dim() == 0 ? 1 : self.size(d);
  const int64_t* idx = constData<int64_t>(index);
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "gather", [&] {
    const scalar_t* src = constData<scalar_t>(self);
    scalar_t* dst = mutableData<scalar_t>(out);
    const int64_t ss = loop.dimStride(0), is = loop.dimStride(1), os = loop.dimStride(2);
    constexpr auto esize = static_cast<int64_t>(sizeof(scalar_t));
    loop.forEach(/*split_rows=*/true, [&](const cpu::RowPart& part) {
      const int64_t* base = part.base;
      if (part.first) prefetchRow(src + base[0], ss, bound, esize);
      const scalar_t* next = part.next ? src + part.next[0] : nullptr;
      walkPrefetchingNext(next, ss, bound, esize, part.begin, part.end, [&](int64_t begin, int64_t end) {
        const int64_t* row = idx + base[1] + begin * is;
        if (!gatherRow(dst + base[2] + begin * os, os, src + base[0], ss, row, is, end - begin, bound)) {
          checkRow(row, is, end - begin, bound, d);
        }
      });
    });
  });
}

// --- scatter --------------------------------------------------------------------------------------

namespace {

// to[row[j * is] * os] = op(that element, from[j * ss]) for j < n, in order, the indices
// already checked.
template <typename T, typename Op>
OPCORE_CPU_CLONES bool scatterRow(T* to, int64_t os, const T* from, int64_t ss, const int64_t* row, int64_t is,
                                  int64_t n, int64_t bound, const Op& op) {
  using Math = opmath_t<T>;
  const uint64_t b = static_cast<uint64_t>(bound);
  if (os == 1 && is == 1 && ss == 1) {
    for (int64_t j = 0; j < n; ++j) {
      const int64_t i = row[j];
      if (OPCORE_UNLIKELY(static_cast<uint64_t>(i) >= b)) return false;
      to[i] = static_cast<T>(op(static_cast<Math>(to[i]), static_cast<Math>(from[j])));
    }
  } else {
    for (int64_t j = 0; j < n; ++j) {
      const int64_t i = row[j * is];
      if (OPCORE_UNLIKELY(static_cast<uint64_t>(i) >= b)) return false;
      T& place = to[i * os];
      place = static_cast<T>(op(static_cast<Math>(place), static_cast<Math>(from[j * ss])));
    }
  }
  return true;
}

// to[j * ts] = from[j * fs] for j < n.
template <typename T>
void copyRow(T* to, int64_t ts, const T* from, int64_t fs, int64_t n) {
  if (ts == 1 && fs == 1) {
    std::memcpy(to, from, static_cast<size_t>(n) * sizeof(T));
  } else {
    for (int64_t j = 0; j < n; ++j) to[j * ts] = from[j * fs];
  }
}

// out[p with p[dim] = index[p]] = op(that element, src[p]) for every position p of index, where
// src is a tensor (src_strides its strides) or one value (src_strides empty: stride 0). `start`,
// when given, is what each row of out holds before (self, for an out= that is not self, see
// startsRowByRow): copied into the row just before the row is scattered.
template <typename T, typename Op>
void scatterRows(const TensorBase& out, int64_t dim, const TensorBase& index, const T* src, IntArrayRef src_strides,
                 const Op& op, const TensorBase* start = nullptr) {
  const IntArrayRef srcs = src_strides;  // empty: stride 0 (RowLoop reads missing strides as 0)
  const RowLoop loop(dim, index.sizes(), {out.strides(), index.strides(), srcs, start ? start->strides() : IntArrayRef()});
  const int64_t bound = out.dim() == 0 ? 1 : out.size(dim);
  const int64_t* idx = constData<int64_t>(index);
  T* dst = mutableData<T>(out);
  const T* first = start ? constData<T>(*start) : nullptr;
  const int64_t os = loop.dimStride(0), is = loop.dimStride(1), ss = loop.dimStride(2), fs = loop.dimStride(3);
  constexpr auto esize = static_cast<int64_t>(sizeof(T));
  loop.forEach(/*split_rows=*/false, [&](const cpu::RowPart& part) {
    const int64_t* base = part.base;
    // A row started from `first` is in the cache once copied; otherwise the row of out is
    // requested ahead (Note [Prefetching the indexed row]).
    const T* next = nullptr;
    if (first) {
      copyRow(dst + base[0], os, first + base[3], fs, bound);
    } else {
      if (part.first) prefetchRow(dst + base[0], os, bound, esize);
      if (part.next) next = dst + part.next[0];
    }
    walkPrefetchingNext(next, os, bound, esize, part.begin, part.end, [&](int64_t begin, int64_t end) {
      const int64_t* row = idx + base[1] + begin * is;
      if (!scatterRow<T>(dst + base[0], os, src + base[2] + begin * ss, ss, row, is, end - begin, bound, op)) {
        checkRow(row, is, end - begin, bound, dim);
      }
    });
  });
}

// Whether an out= scatter can start each row of out as self's inside the scatter rather than
// copying all of self first: out is not self and shares no memory with it, and index reaches
// every row of out along dim. Then the row is copied into the cache and updated there, and
// out is written to memory once instead of written, read back and written again.
bool startsRowByRow(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  if (out.is_same(self) || cpu::sharesStorage(out, self) || index.numel() == 0 || index.dim() != out.dim()) {
    return false;
  }
  for (int64_t k = 0; k < out.dim(); ++k) {
    if (k != dim && index.size(k) != out.size(k)) return false;
  }
  return true;
}

// Starts out= as a copy of self (in-place: out is self).
void prepareScatterOut(const Tensor& self, const Tensor& out) {
  if (!out.is_same(self)) cpu::copyInto(out, unaliased(out, self));
}

// prepareScatterOut, or self as the start of each row when the scatter can copy it row by row
// (startsRowByRow); null when out already holds its start.
const TensorBase* scatterStart(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  if (startsRowByRow(self, dim, index, out)) return &self;
  prepareScatterOut(self, out);
  return nullptr;
}

template <typename T>
void scatterReduceTyped(const TensorBase& out, int64_t dim, const TensorBase& index, const T* src,
                        IntArrayRef src_strides, ScatterReduce reduce, const TensorBase* start = nullptr) {
  switch (reduce) {
    case ScatterReduce::Assign:
      return scatterRows(out, dim, index, src, src_strides, pointwise::ScatterAssign{}, start);
    case ScatterReduce::Add:
    case ScatterReduce::Mean:
      return scatterRows(out, dim, index, src, src_strides, pointwise::ScatterAdd{}, start);
    case ScatterReduce::Multiply:
      return scatterRows(out, dim, index, src, src_strides, pointwise::ScatterMultiply{}, start);
    case ScatterReduce::Max:
    case ScatterReduce::Min:
      if constexpr (!is_complex_v<T>) {
        if (reduce == ScatterReduce::Max) {
          return scatterRows(out, dim, index, src, src_strides, pointwise::ScatterMax{}, start);
        }
        return scatterRows(out, dim, index, src, src_strides, pointwise::ScatterMin{}, start);
      }
      break;
  }
  OPCORE_INTERNAL_ASSERT(false, "scatter: a reduction its dtype does not support reached the kernel");
}

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) for the C++ type T of dtype, over the dtypes PyTorch's CPU kernels
// take for the reduction (mean: no Bool; amax, amin: no complex).
template <typename F>
void dispatchScatter(ScalarType dtype, ScatterReduce reduce, const char* name, const F& f) {
  switch (reduce) {
    case ScatterReduce::Mean:
      OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, dtype, name, [&] { f(TypeTag<scalar_t>{}); });
      return;
    case ScatterReduce::Max:
    case ScatterReduce::Min:
      OPCORE_DISPATCH_ALL_TYPES_AND3(kBool, kHalf, kBFloat16, dtype, name, [&] { f(TypeTag<scalar_t>{}); });
      return;
    default:
      OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] { f(TypeTag<scalar_t>{}); });
  }
}

void scatterTensor(const char* name, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                   ScatterReduce reduce, const Tensor& out) {
  cpu::checkCpu(name, {&self, &index, &src, &out});
  const TensorBase source = unaliased(out, src), positions = unaliased(out, index);
  const int64_t d = self.wrapDim(dim);
  const TensorBase* start = scatterStart(self, d, index, out);
  if (index.numel() == 0) return;
  dispatchScatter(self.scalar_type(), reduce, name, [&](auto tag) {
    using scalar_t = typename decltype(tag)::type;
    scatterReduceTyped<scalar_t>(out, d, positions, constData<scalar_t>(source), source.strides(), reduce, start);
  });
}

void scatterValue(const char* name, const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                  ScatterReduce reduce, const Tensor& out) {
  cpu::checkCpu(name, {&self, &index, &out});
  const TensorBase positions = unaliased(out, index);
  const int64_t d = self.wrapDim(dim);
  const TensorBase* start = scatterStart(self, d, index, out);
  if (index.numel() == 0) return;
  dispatchScatter(self.scalar_type(), reduce, name, [&](auto tag) {
    using scalar_t = typename decltype(tag)::type;
    const scalar_t v = cpu::checkedConvert<scalar_t>(value);
    scatterReduceTyped<scalar_t>(out, d, positions, &v, IntArrayRef(), reduce, start);
  });
}

}  // namespace

void scatter_src_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const Tensor& out) {
  scatterTensor("scatter", self, dim, index, src, ScatterReduce::Assign, out);
}

void scatter_value_out(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, const Tensor& out) {
  scatterValue("scatter", self, dim, index, value, ScatterReduce::Assign, out);
}

void scatter_reduce_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        std::string_view reduce, const Tensor& out) {
  scatterTensor("scatter", self, dim, index, src, parseScatterReduce(reduce), out);
}

void scatter_value_reduce_out(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                              std::string_view reduce, const Tensor& out) {
  scatterValue("scatter", self, dim, index, value, parseScatterReduce(reduce), out);
}

void scatter_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const Tensor& out) {
  scatterTensor("scatter_add", self, dim, index, src, ScatterReduce::Add, out);
}

// --- scatter_reduce.two ---------------------------------------------------------------------------

namespace {

// mean: each place that received n elements is divided by n (+ 1 with include_self); floor
// division for integers, as PyTorch's div_(count, rounding_mode="floor").
template <typename T>
void divideByCounts(const TensorBase& out, int64_t dim, const TensorBase& index, bool include_self) {
  const TensorBase counts = detail::emptyCpu(out.sizes(), ScalarType::Long);
  std::fill_n(mutableData<int64_t>(counts), counts.numel(), include_self ? 1 : 0);
  const int64_t one = 1;
  scatterRows(counts, dim, index, &one, IntArrayRef(), pointwise::ScatterAdd{});
  const RowLoop loop(0, out.sizes(), {out.strides(), counts.strides(), counts.strides()});
  T* dst = mutableData<T>(out);
  const int64_t* n = constData<int64_t>(counts);
  const int64_t os = loop.dimStride(0), cs = loop.dimStride(1);
  using Math = opmath_t<T>;
  loop.forEach(false, [&](const cpu::RowPart& part) {
    const int64_t* base = part.base;
    for (int64_t j = part.begin; j < part.end; ++j) {
      const int64_t c = std::max<int64_t>(n[base[1] + j * cs], 1);
      T& v = dst[base[0] + j * os];
      if constexpr (std::is_integral_v<T>) {
        const T q = static_cast<T>(v / c), r = static_cast<T>(v % c);
        v = static_cast<T>(r != 0 && v < 0 ? q - 1 : q);
      } else {
        v = static_cast<T>(static_cast<Math>(v) / static_cast<Math>(static_cast<double>(c)));
      }
    }
  });
}

}  // namespace

void scatter_reduce_two_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                            std::string_view reduce, bool include_self, const Tensor& out) {
  cpu::checkCpu("scatter_reduce", {&self, &index, &src, &out});
  const ScatterReduce op = parseScatterReduceTwo(reduce);
  const TensorBase source = unaliased(out, src), positions = unaliased(out, index);
  prepareScatterOut(self, out);
  if (index.numel() == 0) return;
  const int64_t d = self.wrapDim(dim);
  dispatchScatter(self.scalar_type(), op, "scatter_reduce", [&](auto tag) {
    using scalar_t = typename decltype(tag)::type;
    if (!include_self) {
      const scalar_t identity = scatterReductionIdentity<scalar_t>(op);
      scatterRows(out, d, positions, &identity, IntArrayRef(), pointwise::ScatterAssign{});
    }
    scatterReduceTyped<scalar_t>(out, d, positions, constData<scalar_t>(source), source.strides(), op);
    if constexpr (!std::is_same_v<scalar_t, bool>) {
      if (op == ScatterReduce::Mean) divideByCounts<scalar_t>(out, d, positions, include_self);
    }
  });
}

// --- index_add ------------------------------------------------------------------------------------

// A scatter along dim whose index is `index` broadcast over source's other dimensions: one
// thread walks each row along dim, so repeated indices add in their order.
void index_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha,
                   const Tensor& out) {
  cpu::checkCpu("index_add_", {&self, &index, &source, &out});
  const TensorBase src = unaliased(out, source);
  const TensorBase longs = cpu::ownedCopy(cpu::convertTo(index, ScalarType::Long));
  prepareScatterOut(self, out);
  if (longs.numel() == 0 || src.numel() == 0) return;
  const int64_t d = self.wrapDim(dim);
  const DimVector shape = src.dim() == 0 ? DimVector{1} : src.sizes().vec();
  DimVector index_strides(shape.size(), 0);
  index_strides[static_cast<size_t>(d)] = 1;
  const TensorBase positions = detail::makeView(longs, shape, index_strides, 0);
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "index_add_", [&] {
    using Math = opmath_t<scalar_t>;
    const Math a = static_cast<Math>(cpu::checkedConvert<scalar_t>(alpha));
    scatterRows(out, d, positions, constData<scalar_t>(src), src.dim() == 0 ? IntArrayRef() : src.strides(),
                [a](Math now, Math s) { return wrappingAdd(now, wrappingMul(a, s)); });
  });
}

// --- index_select ---------------------------------------------------------------------------------

namespace {

// The index as a contiguous Long vector, every value checked against `bound`.
TensorBase checkedSelectIndex(const TensorBase& index, int64_t dim, int64_t bound) {
  OPCORE_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  const ScalarType t = index.scalar_type();
  OPCORE_CHECK(t == ScalarType::Long || t == ScalarType::Int,
               "index_select(): Expected dtype int32 or int64 for index");
  const TensorBase longs = cpu::contiguousCopy(cpu::convertTo(index, ScalarType::Long));
  checkRow(constData<int64_t>(longs), 1, longs.numel(), bound, dim);
  return longs;
}

DimVector selectShape(const TensorBase& self, int64_t dim, const TensorBase& index) {
  DimVector shape = self.sizes().vec();
  if (self.dim() > 0) shape[static_cast<size_t>(dim)] = index.numel();
  return shape;
}

void checkSelectArgs(const TensorBase& self, int64_t dim, const TensorBase& index) {
  OPCORE_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  OPCORE_CHECK(index.scalar_type() == ScalarType::Long || index.scalar_type() == ScalarType::Int,
               "index_select(): Expected dtype int32 or int64 for index");
  OPCORE_CHECK(self.dim() > 0 || index.numel() == 1,
               "index_select(): Index to scalar can have only 1 value, got ", index.numel(), " value(s)");
  (void)dim;
}

// out (contiguous, selectShape) = self's slices along dim at idx, for a contiguous self: one
// memcpy per slice, the slices shared among the threads.
void selectContiguous(const TensorBase& self, int64_t dim, const int64_t* idx, int64_t n, const TensorBase& out) {
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < self.dim(); ++k) {
    if (k < dim) outer *= self.size(k);
    if (k > dim) inner *= self.size(k);
  }
  const int64_t item = static_cast<int64_t>(elementSize(self.scalar_type()));
  const char* src = static_cast<const char*>(self.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  if (inner == 1) {
    OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "index_select", [&] {
      const scalar_t* s = reinterpret_cast<const scalar_t*>(src);
      scalar_t* o = reinterpret_cast<scalar_t*>(dst);
      parallel_for(0, outer * n, kGrainSize, [&](int64_t begin, int64_t end) {
        for (int64_t e = begin; e < end; ++e) {
          const int64_t a = e / n, i = e - a * n;
          o[e] = s[a * size + idx[i]];
        }
      });
    });
    return;
  }
  const int64_t bytes = inner * item;
  parallel_for(0, outer * n, grainFor(inner), [&](int64_t begin, int64_t end) {
    for (int64_t e = begin; e < end; ++e) {
      const int64_t a = e / n, i = e - a * n;
      std::memcpy(dst + e * bytes, src + (a * size + idx[i]) * bytes, static_cast<size_t>(bytes));
    }
  });
}

// Any layout: a gather whose index is idx broadcast along the other dimensions.
void selectStrided(const TensorBase& self, int64_t dim, const TensorBase& longs, const TensorBase& out) {
  DimVector index_strides(static_cast<size_t>(std::max<int64_t>(out.dim(), 1)), 0);
  if (out.dim() > 0) index_strides[static_cast<size_t>(dim)] = 1;
  const RowLoop loop(dim, out.sizes(), {self.strides(), IntArrayRef(index_strides), out.strides()});
  const int64_t* idx = constData<int64_t>(longs);
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "index_select", [&] {
    const scalar_t* src = constData<scalar_t>(self);
    scalar_t* dst = mutableData<scalar_t>(out);
    const int64_t ss = loop.dimStride(0), os = loop.dimStride(2);
    loop.forEach(true, [&](const cpu::RowPart& part) {
      for (int64_t j = part.begin; j < part.end; ++j) dst[part.base[2] + j * os] = src[part.base[0] + idx[j] * ss];
    });
  });
}

}  // namespace

Tensor& index_select_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  cpu::checkCpu("index_select", {&self, &index, &out});
  const int64_t d = self.wrapDim(dim);
  checkSelectArgs(self, d, index);
  OPCORE_CHECK(out.scalar_type() == self.scalar_type(), "index_select(): self and result must have the same scalar type");
  checkNoOverlap(out, self);
  checkNoOverlap(out, index);
  const TensorBase longs = checkedSelectIndex(index, d, self.dim() == 0 ? 1 : self.size(d));
  detail::resizeOutput(out, selectShape(self, d, index));
  if (out.numel() == 0) return out;
  if (self.is_contiguous() && out.is_contiguous()) {
    selectContiguous(self, d, constData<int64_t>(longs), longs.numel(), out);
  } else {
    selectStrided(self, d, longs, out);
  }
  return out;
}

Tensor index_select_cpu(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor out = detail::emptyCpu({0}, self.scalar_type());
  return index_select_out_cpu(self, dim, index, out);
}

Tensor& index_select_out_meta(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  const int64_t d = self.wrapDim(dim);
  checkSelectArgs(self, d, index);
  OPCORE_CHECK(out.scalar_type() == self.scalar_type(), "index_select(): self and result must have the same scalar type");
  detail::resizeOutput(out, selectShape(self, d, index));
  return out;
}

Tensor index_select_meta(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = self.wrapDim(dim);
  checkSelectArgs(self, d, index);
  return detail::empty(selectShape(self, d, index), self.scalar_type(), self.device());
}

}  // namespace opcore::native

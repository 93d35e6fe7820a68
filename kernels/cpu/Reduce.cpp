// CPU reductions, the impls of structured sum and max.dim: sum_out (over all or some
// dimensions, keepdim, dtype) and max_out (values and Long indices, first index on ties, NaN
// wins).
#include <opcore/ops/max.h>
#include <opcore/ops/max_native.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/sum_native.h>

#include "common/Shape.h"
#include "cpu/Loops.h"
#include "common/Wrapping.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace opcore::native {

using cpu::LoopPlan;

namespace {

template <typename T>
OPCORE_ALWAYS_INLINE T plus(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    return wrappingAdd(a, b);  // integer sums wrap (Note [Wrapping integer arithmetic])
  }
}

// Sum of n contiguous values of type In, in Acc: blocks of independent partial sums, which
// the compiler vectorises and which round far less than one running sum.
template <typename Acc, typename In>
OPCORE_ALWAYS_INLINE Acc sumContiguous(const In* p, int64_t n) {  // inlined into the clones
  constexpr int kLanes = 32;  // independent additions enough to hide the adder latency at any width
  constexpr int64_t kBlock = 4096;
  if (n < kLanes) {
    // A short row (a bias's gradient summed over 4x4 images): one running sum. The lanes'
    // zeroing and reduction below cost several times such a row's additions. Four partial sums
    // in an array here were miscompiled by GCC 12 at -O3 (its vectorized epilogue dropped
    // partial sums: 16 int8 ones summed to 4 in the x86-64-v3 clone, 8 to 4 in the v4 one).
    Acc total = Acc(0);
    for (int64_t i = 0; i < n; ++i) total = plus(total, static_cast<Acc>(p[i]));
    return total;
  }
  Acc total = Acc(0);
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = std::min(n, start + kBlock);
    Acc lanes[kLanes] = {};
    int64_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) lanes[j] = plus(lanes[j], static_cast<Acc>(p[i + j]));
    }
    for (; i < end; ++i) lanes[0] = plus(lanes[0], static_cast<Acc>(p[i]));
    for (int width = kLanes / 2; width > 0; width /= 2) {
      for (int j = 0; j < width; ++j) lanes[j] = plus(lanes[j], lanes[j + width]);
    }
    total = plus(total, lanes[0]);
  }
  return total;
}

// One innermost row of out += in (out of type Acc, in of type In), where out's stride is 0
// along a reduced row.
template <typename Acc, typename In>
OPCORE_CPU_CLONES_WITH_AVX512 void accumulateRow(char* const* data, const int64_t* s, int64_t n) {
  constexpr auto kAccSize = static_cast<int64_t>(sizeof(Acc));
  constexpr auto kInSize = static_cast<int64_t>(sizeof(In));
  const auto read = [](const char* p) { return static_cast<Acc>(*reinterpret_cast<const In*>(p)); };
  Acc* out = reinterpret_cast<Acc*>(data[0]);
  const char* in = data[1];
  if (s[0] == 0) {
    Acc acc = Acc(0);
    if (s[1] == kInSize) {
      acc = sumContiguous<Acc>(reinterpret_cast<const In*>(in), n);
    } else {
      for (int64_t i = 0; i < n; ++i) acc = plus(acc, read(in + i * s[1]));
    }
    *out = plus(*out, acc);
  } else if (s[0] == kAccSize && s[1] == kInSize) {
    const In* src = reinterpret_cast<const In*>(in);
    for (int64_t i = 0; i < n; ++i) out[i] = plus(out[i], static_cast<Acc>(src[i]));
  } else {
    for (int64_t i = 0; i < n; ++i) {
      Acc* o = reinterpret_cast<Acc*>(data[0] + i * s[0]);
      *o = plus(*o, read(in + i * s[1]));
    }
  }
}

// `t` (the reduction result) with the reduced dimensions present as size 1 when keepdim was
// false, so that it broadcasts against the input.
TensorBase keptDimsView(const TensorBase& t, const std::vector<bool>& mask) {
  if (t.dim() == static_cast<int64_t>(mask.size())) return t;
  DimVector sizes, strides;
  int64_t k = 0;
  for (bool reduced : mask) {
    sizes.push_back(reduced ? 1 : t.sizes()[k]);
    strides.push_back(reduced ? 0 : t.strides()[k]);
    k += reduced ? 0 : 1;
  }
  return detail::makeView(t, sizes, strides, t.storage_offset());
}

// Note [Parallel sums]
// A plan whose outermost dimension is kept (sum(dim=1) of a matrix: an output per row) runs
// on parallelForEach, each output summed by one thread. One whose outermost dimension is
// reduced (a full sum, a sum over dim 0) is cut along it into blocks whose number depends
// only on the sizes, never on the thread count: each block sums into its own zeroed buffer,
// and the buffers are added in block order. Every run thus gives the same bits.
constexpr int64_t kMaxSumBlocks = 64;
constexpr int64_t kMinSumBlock = 4 * kGrainSize;  // elements of input per block, at least

// out = the sum of `in` over the dimensions in `mask` (out already has the reduced shape),
// out of type T, in of type In.
template <typename T, typename In>
void sumInto(const TensorBase& out, const TensorBase& in, const std::vector<bool>& mask) {
  const TensorBase kept = keptDimsView(out, mask);
  const LoopPlan plan(in.sizes(), {&kept, &in});
  const int64_t blocks = plan.outerStrideIsZero(0)
                             ? std::min({kMaxSumBlocks, plan.outerSize(), plan.numel() / kMinSumBlock})
                             : 1;
  if (blocks <= 1) {
    cpu::runElementwise<T>(LoopPlan(kept.sizes(), {&kept}), [] { return T(0); });
    plan.parallelForEach(&accumulateRow<T, In>);
    return;
  }
  // Block b sums into row b of `partial`, a zeroed [blocks, out.numel()] buffer.
  const int64_t m = out.numel();
  const TensorBase partial = detail::emptyCpu(DimVector{blocks, m}, out.scalar_type());
  T* p = partial.data_ptr<T>();
  std::fill(p, p + blocks * m, T(0));
  const TensorBase row0 = detail::makeView(partial, out.sizes(), contiguousStrides(out.sizes(), MemoryFormat::Contiguous), 0);
  const TensorBase row0_kept = keptDimsView(row0, mask);
  const LoopPlan blocked(in.sizes(), {&row0_kept, &in});
  const int64_t outer = blocked.outerSize();
  parallel_for(0, blocks, 1, [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) {
      LoopPlan part = blocked.narrowed(outer * b / blocks, outer * (b + 1) / blocks);
      part.offsetOperand(0, b * m * static_cast<int64_t>(sizeof(T)));
      part.forEach(&accumulateRow<T, In>);
    }
  });
  for (int64_t b = 1; b < blocks; ++b) {
    for (int64_t j = 0; j < m; ++j) p[j] = plus(p[j], p[b * m + j]);
  }
  cpu::copyInto(out, row0);
}

template <typename T>
OPCORE_ALWAYS_INLINE bool replacesMax(T candidate_value, T best_value) {
  const opmath_t<T> candidate = candidate_value, best = best_value;
  if constexpr (!std::is_integral_v<T>) {
    return candidate > best || (std::isnan(candidate) && !std::isnan(best));
  } else {
    return candidate > best;
  }
}

// values/indices[o, k] = max over j of in[o, j, k] for a contiguous [outer, len, inner] input,
// for the columns k in [k0, k1).
template <typename T>
OPCORE_CPU_CLONES void maxAlongDim(const T* in, T* values, int64_t* indices, int64_t o, int64_t len, int64_t inner,
                 int64_t k0, int64_t k1) {
  const T* base = in + o * len * inner;
  T* v = values + o * inner;
  int64_t* idx = indices + o * inner;
  for (int64_t k = k0; k < k1; ++k) {
    v[k] = base[k];
    idx[k] = 0;
  }
  for (int64_t j = 1; j < len; ++j) {
    const T* row = base + j * inner;
    for (int64_t k = k0; k < k1; ++k) {
      if (replacesMax(row[k], v[k])) {
        v[k] = row[k];
        idx[k] = j;
      }
    }
  }
}

// maxAlongDim over every [o, :, :], in parallel over o, or over the columns when outer is 1;
// each result is computed by one thread, as a serial run would.
template <typename T>
void maxAlongDimParallel(const T* in, T* values, int64_t* indices, int64_t outer, int64_t len, int64_t inner) {
  const int64_t per_item = std::max<int64_t>(1, outer > 1 ? len * inner : len);
  const int64_t grain = grainFor(per_item);
  if (outer > 1 || inner == 1) {
    parallel_for(0, outer, grain, [&](int64_t first, int64_t last) {
      for (int64_t o = first; o < last; ++o) maxAlongDim(in, values, indices, o, len, inner, 0, inner);
    });
  } else {
    parallel_for(0, inner, grain, [&](int64_t k0, int64_t k1) {
      maxAlongDim(in, values, indices, 0, len, inner, k0, k1);
    });
  }
}

}  // namespace

// The impl of structured sum: meta::sum (common/ReductionMeta.cpp) has computed the result's
// shape and dtype and prepared `out` (left for here to resize when out is also the input).
void sum_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
             const Tensor& out) {
  cpu::checkCpu("sum", {&self, &out});
  OPCORE_CHECK(!dtype || out.scalar_type() == *dtype, "Expected out tensor to have dtype ", *dtype,
               ", but got ", out.scalar_type(), " instead");
  const std::vector<bool> mask = reductionMask(dim, self.dim());
  cpu::checkNoInternalOverlap(out);
  // The sum is computed in out's dtype, or float for Half and BFloat16: their elements are
  // read as they are and the sums rounded once.
  const ScalarType out_dtype = out.scalar_type();
  TensorBase in = cpu::convertTo(self, out_dtype);
  // out is zeroed and resized before the input is read: never let them share memory.
  if (cpu::sharesStorage(in, out)) in = cpu::ownedCopy(in);
  detail::resizeOutput(out, reducedShape(in.sizes(), mask, keepdim));  // self may be out
  if (isReducedFloatingType(out_dtype)) {
    const TensorBase acc = detail::emptyCpu(out.sizes(), kFloat);
    OPCORE_DISPATCH_SWITCH(out_dtype, "sum", OPCORE_DISPATCH_CASE(kHalf, [&] { sumInto<float, scalar_t>(acc, in, mask); })
                                                 OPCORE_DISPATCH_CASE(kBFloat16, [&] { sumInto<float, scalar_t>(acc, in, mask); }));
    cpu::copyInto(out, acc);
    return;
  }
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND(kBool, out_dtype, "sum", [&] { sumInto<scalar_t, scalar_t>(out, in, mask); });
}

// The impl of structured max.dim: meta::max (common/ReductionMeta.cpp) has wrapped `dim`,
// checked it and prepared both outputs (their dtypes are exactly self's and Long), except that
// a resize is left for here when one shares memory with self: self is read first.
void max_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values, const Tensor& indices) {
  cpu::checkCpu("max", {&self, &values, &indices});
  cpu::checkNoInternalOverlap(values);
  cpu::checkNoInternalOverlap(indices);
  OPCORE_CHECK(!cpu::sharesStorage(values, indices), "max(): the values and indices outputs share memory");
  const int64_t len = self.dim() == 0 ? 1 : self.size(dim);
  std::vector<bool> mask(static_cast<size_t>(self.dim()), false);
  if (self.dim() > 0) mask[static_cast<size_t>(dim)] = true;
  const DimVector shape = reducedShape(self.sizes(), mask, keepdim);
  // Everything about self is read before the outputs are resized: self may be one of them.
  const int64_t outer = self.dim() == 0 ? 1 : checkedNumel(self.sizes().slice(0, dim));
  const int64_t inner = self.numel() / std::max<int64_t>(outer * len, 1);
  TensorBase in = cpu::contiguousCopy(self);
  if (cpu::sharesStorage(in, values) || cpu::sharesStorage(in, indices)) in = cpu::ownedCopy(in);
  detail::resizeOutput(values, shape);
  detail::resizeOutput(indices, shape);
  // Written directly when contiguous, else through a temporary.
  const TensorBase v = values.is_contiguous() ? TensorBase(values) : detail::emptyCpu(shape, values.scalar_type());
  const TensorBase i = indices.is_contiguous() ? TensorBase(indices) : detail::emptyCpu(shape, ScalarType::Long);
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, in.scalar_type(), "max", [&] {
    maxAlongDimParallel(in.data_ptr<scalar_t>(), v.data_ptr<scalar_t>(), i.data_ptr<int64_t>(), outer, len, inner);
  });
  if (!v.is_same(values)) cpu::copyInto(values, v);
  if (!i.is_same(indices)) cpu::copyInto(indices, i);
}

}  // namespace opcore::native

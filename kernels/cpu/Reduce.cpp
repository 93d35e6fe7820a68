// CPU reductions, the impls of structured sum and max.dim: sum_out (over all or some
// dimensions, keepdim, dtype) and max_out (values and Long indices, first index on ties, NaN
// wins).
#include <opcore/ops/max.h>
#include <opcore/ops/max_native.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/sum_native.h>

#include "common/Shape.h"
#include "cpu/Loops.h"

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
    return static_cast<T>(a + b);
  }
}

// Sum of n contiguous values: blocks of independent partial sums, which the compiler
// vectorises and which round far less than one running sum.
template <typename T>
T sumContiguous(const T* p, int64_t n) {
  constexpr int kLanes = 16;
  constexpr int64_t kBlock = 4096;
  T total = T(0);
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = std::min(n, start + kBlock);
    T lanes[kLanes] = {};
    int64_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) lanes[j] = plus(lanes[j], p[i + j]);
    }
    for (; i < end; ++i) lanes[0] = plus(lanes[0], p[i]);
    for (int width = kLanes / 2; width > 0; width /= 2) {
      for (int j = 0; j < width; ++j) lanes[j] = plus(lanes[j], lanes[j + width]);
    }
    total = plus(total, lanes[0]);
  }
  return total;
}

// One innermost row of out += in, where out's stride is 0 along a reduced row.
template <typename T>
void accumulateRow(char* const* data, const int64_t* s, int64_t n) {
  constexpr auto kSize = static_cast<int64_t>(sizeof(T));
  T* out = reinterpret_cast<T*>(data[0]);
  const char* in = data[1];
  if (s[0] == 0) {
    T acc = T(0);
    if (s[1] == kSize) {
      acc = sumContiguous(reinterpret_cast<const T*>(in), n);
    } else {
      for (int64_t i = 0; i < n; ++i) acc = plus(acc, *reinterpret_cast<const T*>(in + i * s[1]));
    }
    *out = plus(*out, acc);
  } else if (s[0] == kSize && s[1] == kSize) {
    const T* src = reinterpret_cast<const T*>(in);
    for (int64_t i = 0; i < n; ++i) out[i] = plus(out[i], src[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      T* o = reinterpret_cast<T*>(data[0] + i * s[0]);
      *o = plus(*o, *reinterpret_cast<const T*>(in + i * s[1]));
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

template <typename T>
OPCORE_ALWAYS_INLINE bool replacesMax(T candidate, T best) {
  if constexpr (std::is_floating_point_v<T>) {
    return candidate > best || (std::isnan(candidate) && !std::isnan(best));
  } else {
    return candidate > best;
  }
}

// values/indices[o, k] = max over j of in[o, j, k] for a contiguous [outer, len, inner] input.
template <typename T>
void maxAlongDim(const T* in, T* values, int64_t* indices, int64_t outer, int64_t len, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o) {
    const T* base = in + o * len * inner;
    T* v = values + o * inner;
    int64_t* idx = indices + o * inner;
    for (int64_t k = 0; k < inner; ++k) {
      v[k] = base[k];
      idx[k] = 0;
    }
    for (int64_t j = 1; j < len; ++j) {
      const T* row = base + j * inner;
      for (int64_t k = 0; k < inner; ++k) {
        if (replacesMax(row[k], v[k])) {
          v[k] = row[k];
          idx[k] = j;
        }
      }
    }
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
  const ScalarType acc = out.scalar_type();  // the sum is computed in out's dtype
  TensorBase in = cpu::convertTo(self, acc);
  // out is zeroed and resized before the input is read: never let them share memory.
  if (cpu::sharesStorage(in, out)) in = cpu::ownedCopy(in);
  detail::resizeOutput(out, reducedShape(in.sizes(), mask, keepdim));  // self may be out
  const TensorBase kept = keptDimsView(out, mask);
  OPCORE_DISPATCH_ALL_TYPES(acc, "sum", [&] {
    cpu::runElementwise<scalar_t>(LoopPlan(kept.sizes(), {&kept}), [] { return scalar_t(0); });
    LoopPlan(in.sizes(), {&kept, &in}).forEach(&accumulateRow<scalar_t>);
  });
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
  OPCORE_DISPATCH_ALL_TYPES(in.scalar_type(), "max", [&] {
    maxAlongDim(in.data_ptr<scalar_t>(), v.data_ptr<scalar_t>(), i.data_ptr<int64_t>(), outer, len, inner);
  });
  if (!v.is_same(values)) cpu::copyInto(values, v);
  if (!i.is_same(indices)) cpu::copyInto(indices, i);
}

}  // namespace opcore::native

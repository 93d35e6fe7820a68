// CPU kernels of the mask and flat-index operators: masked_fill_, masked_scatter_,
// masked_select, nonzero, take, put_ and index_fill_, with their Meta kernels (the checks
// that need no data). An index out of range is an IndexError, checked before any write.
#include <opcore/ops/fill_native.h>
#include <opcore/ops/index_fill_native.h>
#include <opcore/ops/masked_fill_native.h>
#include <opcore/ops/masked_scatter_native.h>
#include <opcore/ops/masked_select_native.h>
#include <opcore/ops/nonzero_native.h>
#include <opcore/ops/put_native.h>
#include <opcore/ops/take_native.h>

#include "common/Shape.h"
#include "common/pointwise/Indexing.h"
#include "cpu/Loops.h"
#include "cpu/ScalarConvert.h"

#include <opcore/core/Empty.h>

#include <algorithm>
#include <vector>

namespace opcore::native {
namespace {

// PyTorch's masks are Bool (Byte was deprecated and is refused here).
void checkMask(const char* op, const TensorBase& mask) {
  OPCORE_CHECK(mask.scalar_type() == ScalarType::Bool, op, " only supports boolean masks, but got mask with dtype ",
               toString(mask.scalar_type()));
}

// In-place mask operators: the mask must broadcast to self's shape.
void checkMaskBroadcastsToSelf(const char* op, const TensorBase& self, const TensorBase& mask) {
  const DimVector shape = broadcastShapes(self.sizes(), mask.sizes());
  OPCORE_CHECK(IntArrayRef(shape) == self.sizes(), op, ": output with shape ", self.sizes(),
               " doesn't match the broadcast shape ", IntArrayRef(shape));
}

// t's values broadcast to `shape`, contiguous, in a buffer of their own.
TensorBase expandedCopy(const TensorBase& t, IntArrayRef shape) {
  const TensorBase out = detail::emptyCpu(shape, t.scalar_type());
  if (out.numel() > 0) cpu::copyInto(out, t);
  return out;
}

// Calls f(k, offset) for the elements of a tensor of `sizes` and `strides` in row-major order.
template <typename F>
void forEachOffset(IntArrayRef sizes, IntArrayRef strides, const F& f) {
  int64_t n = 1;
  for (const int64_t s : sizes) n *= s;
  std::vector<int64_t> pos(sizes.size(), 0);
  int64_t offset = 0;
  for (int64_t k = 0; k < n; ++k) {
    f(k, offset);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++pos[d] < sizes[d]) {
        offset += strides[d];
        break;
      }
      offset -= (sizes[d] - 1) * strides[d];
      pos[d] = 0;
    }
  }
}

// The element offset of row-major position `flat` in a tensor of `sizes` and `strides`.
int64_t offsetOf(int64_t flat, IntArrayRef sizes, IntArrayRef strides) {
  int64_t offset = 0;
  for (size_t d = sizes.size(); d-- > 0;) {
    offset += (flat % sizes[d]) * strides[d];
    flat /= sizes[d];
  }
  return offset;
}

}  // namespace

// --- masked_fill_ ----------------------------------------------------------------------------------

Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  cpu::checkCpu("masked_fill_", {&self, &mask});
  checkMask("masked_fill_", mask);
  checkMaskBroadcastsToSelf("masked_fill_", self, mask);
  cpu::checkNoInternalOverlap(self);
  const TensorBase m = cpu::sharesStorage(self, mask) ? cpu::ownedCopy(mask) : TensorBase(mask);
  const cpu::LoopPlan plan(self.sizes(), {&self, &self, &m});
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "masked_fill_", [&] {
    using Math = opmath_t<scalar_t>;
    const Math v = static_cast<Math>(cpu::checkedConvert<scalar_t>(value));
    cpu::runElementwise<scalar_t, scalar_t, bool>(plan, [v](Math x, bool on) { return on ? v : x; });
  });
  return self;
}

Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value) {
  OPCORE_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
               value.dim(), " dimension(s).");
  cpu::checkCpu("masked_fill_", {&value});
  return masked_fill_(self, mask, detail::elementAt(value, 0));
}

Tensor& masked_fill_meta_(Tensor& self, const Tensor& mask, const Scalar& /*value*/) {
  checkMask("masked_fill_", mask);
  checkMaskBroadcastsToSelf("masked_fill_", self, mask);
  return self;
}

Tensor& masked_fill_meta_(Tensor& self, const Tensor& mask, const Tensor& value) {
  OPCORE_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
               value.dim(), " dimension(s).");
  checkMask("masked_fill_", mask);
  checkMaskBroadcastsToSelf("masked_fill_", self, mask);
  return self;
}

// --- masked_scatter_ -------------------------------------------------------------------------------

Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source) {
  cpu::checkCpu("masked_scatter_", {&self, &mask, &source});
  checkMask("masked_scatter_", mask);
  OPCORE_CHECK(self.scalar_type() == source.scalar_type(),
               "masked_scatter: expected self and source to have same dtypes but got ", toString(self.scalar_type()),
               " and ", toString(source.scalar_type()));
  checkMaskBroadcastsToSelf("masked_scatter_", self, mask);
  cpu::checkNoInternalOverlap(self);
  const TensorBase flags = expandedCopy(mask, self.sizes());
  const bool* on = static_cast<const bool*>(flags.data_ptr());
  const int64_t count = std::count(on, on + flags.numel(), true);
  OPCORE_CHECK(count <= source.numel(), "masked_scatter: Number of elements of source (", source.numel(),
               ") < number of ones in mask (", count, ")");
  if (count == 0) return self;
  const TensorBase src = cpu::ownedCopy(source);  // row-major, and apart from self
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "masked_scatter_", [&] {
    scalar_t* dst = static_cast<scalar_t*>(self.data_ptr());
    const scalar_t* from = static_cast<const scalar_t*>(src.data_ptr());
    int64_t next = 0;
    forEachOffset(self.sizes(), self.strides(), [&](int64_t k, int64_t offset) {
      if (on[k]) dst[offset] = from[next++];
    });
  });
  return self;
}

Tensor& masked_scatter_meta_(Tensor& self, const Tensor& mask, const Tensor& source) {
  checkMask("masked_scatter_", mask);
  OPCORE_CHECK(self.scalar_type() == source.scalar_type(),
               "masked_scatter: expected self and source to have same dtypes but got ", toString(self.scalar_type()),
               " and ", toString(source.scalar_type()));
  checkMaskBroadcastsToSelf("masked_scatter_", self, mask);
  return self;
}

// --- masked_select -----------------------------------------------------------------------------------

Tensor& masked_select_out(const Tensor& self, const Tensor& mask, Tensor& out) {
  cpu::checkCpu("masked_select", {&self, &mask, &out});
  checkMask("masked_select", mask);
  OPCORE_CHECK(out.scalar_type() == self.scalar_type(), "masked_select(): self and result must have the same scalar type");
  const DimVector shape = broadcastShapes(self.sizes(), mask.sizes());
  const TensorBase flags = expandedCopy(mask, shape);
  const TensorBase values = expandedCopy(self, shape);  // also apart from out
  const bool* on = static_cast<const bool*>(flags.data_ptr());
  const int64_t count = std::count(on, on + flags.numel(), true);
  detail::resizeOutput(out, {count});
  if (count == 0) return out;
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "masked_select", [&] {
    const scalar_t* from = static_cast<const scalar_t*>(values.data_ptr());
    scalar_t* dst = static_cast<scalar_t*>(out.data_ptr());
    const int64_t step = out.stride(0);
    int64_t next = 0;
    for (int64_t k = 0; k < flags.numel(); ++k) {
      if (on[k]) dst[step * next++] = from[k];
    }
  });
  return out;
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  Tensor out = detail::emptyCpu({0}, self.scalar_type());
  return masked_select_out(self, mask, out);
}

// --- nonzero -------------------------------------------------------------------------------------------

// Note [Parallel nonzero]
// Large inputs are split into one fixed block per thread: each counts its nonzero elements,
// the prefix sums of the counts place each block's rows, and each block writes its rows. The
// rows come out in row-major order whatever the thread count.
Tensor& nonzero_out(const Tensor& self, Tensor& out) {
  cpu::checkCpu("nonzero", {&self, &out});
  OPCORE_CHECK(out.scalar_type() == ScalarType::Long, "nonzero(): Expected out tensor to have scalar type Long but got ",
               toString(out.scalar_type()));
  const TensorBase values = cpu::contiguousCopy(self);
  const int64_t n = values.numel(), ndim = self.dim();
  const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), n / kGrainSize));
  std::vector<int64_t> counts(static_cast<size_t>(blocks) + 1, 0);
  const auto blockBegin = [&](int64_t b) { return n * b / blocks; };
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "nonzero", [&] {
    using Math = opmath_t<scalar_t>;
    const scalar_t* p = static_cast<const scalar_t*>(values.data_ptr());
    const auto isNonzero = [p](int64_t i) { return static_cast<Math>(p[i]) != Math(0); };
    parallel_for(0, blocks, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        int64_t c = 0;
        for (int64_t i = blockBegin(b); i < blockBegin(b + 1); ++i) c += isNonzero(i);
        counts[static_cast<size_t>(b) + 1] = c;
      }
    });
    for (int64_t b = 0; b < blocks; ++b) counts[b + 1] += counts[b];
    detail::resizeOutput(out, {counts[blocks], ndim});
    if (counts[blocks] == 0 || ndim == 0) return;
    int64_t* dst = out.data_ptr<int64_t>();
    const int64_t rs = out.stride(0), cs = out.stride(1);
    const IntArrayRef sizes = self.sizes();
    parallel_for(0, blocks, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        std::vector<int64_t> pos(static_cast<size_t>(ndim), 0);
        int64_t rest = blockBegin(b);
        for (int64_t d = ndim; d-- > 0;) {
          pos[d] = rest % sizes[d];
          rest /= sizes[d];
        }
        int64_t row = counts[b];
        for (int64_t i = blockBegin(b); i < blockBegin(b + 1); ++i) {
          if (isNonzero(i)) {
            for (int64_t d = 0; d < ndim; ++d) dst[row * rs + d * cs] = pos[d];
            ++row;
          }
          for (int64_t d = ndim; d-- > 0;) {
            if (++pos[d] < sizes[d]) break;
            pos[d] = 0;
          }
        }
      }
    });
  });
  return out;
}

Tensor nonzero(const Tensor& self) {
  Tensor out = detail::emptyCpu({0}, ScalarType::Long);
  return nonzero_out(self, out);
}

// --- take, put_ --------------------------------------------------------------------------------------

namespace {

// index's values as a contiguous Long vector, negative ones wrapped, all in [0, numel).
TensorBase flatIndices(const char* op, const TensorBase& index, int64_t numel) {
  OPCORE_CHECK(index.scalar_type() == ScalarType::Long, op, "(): Expected a long tensor for index, but got ",
               toString(index.scalar_type()));
  const TensorBase longs = cpu::ownedCopy(index);
  int64_t* p = static_cast<int64_t*>(longs.data_ptr());
  for (int64_t i = 0; i < longs.numel(); ++i) {
    OPCORE_CHECK_INDEX(p[i] >= -numel && p[i] < numel, "out of range: tried to access index ", p[i],
                       " on a tensor of ", numel, " elements.");
    if (p[i] < 0) p[i] += numel;
  }
  return longs;
}

}  // namespace

Tensor& take_out(const Tensor& self, const Tensor& index, Tensor& out) {
  cpu::checkCpu("take", {&self, &index, &out});
  OPCORE_CHECK(out.scalar_type() == self.scalar_type(), "take(): self and out expected to have the same dtype, but got ",
               "self.dtype = ", toString(self.scalar_type()), " and out.dtype = ", toString(out.scalar_type()));
  OPCORE_CHECK_INDEX(self.numel() > 0 || index.numel() == 0, "take(): tried to take from an empty tensor");
  const TensorBase idx = flatIndices("take", index, self.numel());
  const TensorBase values = cpu::contiguousCopy(self);
  const TensorBase src = cpu::sharesStorage(values, out) ? cpu::ownedCopy(values) : values;
  detail::resizeOutput(out, index.sizes());
  if (out.numel() == 0) return out;
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "take", [&] {
    const scalar_t* from = static_cast<const scalar_t*>(src.data_ptr());
    const int64_t* at = static_cast<const int64_t*>(idx.data_ptr());
    scalar_t* dst = static_cast<scalar_t*>(out.data_ptr());
    if (out.is_contiguous()) {
      parallel_for(0, out.numel(), kGrainSize, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) dst[i] = from[at[i]];
      });
    } else {
      forEachOffset(out.sizes(), out.strides(), [&](int64_t k, int64_t offset) { dst[offset] = from[at[k]]; });
    }
  });
  return out;
}

Tensor take(const Tensor& self, const Tensor& index) {
  Tensor out = detail::emptyCpu({0}, self.scalar_type());
  return take_out(self, index, out);
}

Tensor take_meta(const Tensor& self, const Tensor& index) {
  OPCORE_CHECK(index.scalar_type() == ScalarType::Long, "take(): Expected a long tensor for index, but got ",
               toString(index.scalar_type()));
  return detail::empty(index.sizes(), self.scalar_type(), self.device());
}

namespace {

void checkPut(const Tensor& self, const Tensor& index, const Tensor& source) {
  OPCORE_CHECK(index.scalar_type() == ScalarType::Long, "put_(): Expected a long tensor for index, but got ",
               toString(index.scalar_type()));
  OPCORE_CHECK(self.scalar_type() == source.scalar_type(),
               "put_(): self and source expected to have the same dtype, but got self.dtype = ",
               toString(self.scalar_type()), " and source.dtype = ", toString(source.scalar_type()));
  OPCORE_CHECK(source.numel() == index.numel(),
               "put_(): Expected source and index to have the same number of elements, but got source.numel() = ",
               source.numel(), ", index.numel() = ", index.numel());
}

}  // namespace

Tensor& put_(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  cpu::checkCpu("put_", {&self, &index, &source});
  checkPut(self, index, source);
  OPCORE_CHECK_INDEX(self.numel() > 0 || index.numel() == 0, "put_(): Tried to put elements into an empty tensor");
  cpu::checkNoInternalOverlap(self);
  const TensorBase idx = flatIndices("put_", index, self.numel());
  const TensorBase src = cpu::ownedCopy(source);
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "put_", [&] {
    using Math = opmath_t<scalar_t>;
    scalar_t* dst = static_cast<scalar_t*>(self.data_ptr());
    const scalar_t* from = static_cast<const scalar_t*>(src.data_ptr());
    const int64_t* at = static_cast<const int64_t*>(idx.data_ptr());
    const bool dense = self.is_contiguous();
    for (int64_t i = 0; i < idx.numel(); ++i) {
      scalar_t& place = dst[dense ? at[i] : offsetOf(at[i], self.sizes(), self.strides())];
      place = accumulate ? static_cast<scalar_t>(pointwise::ScatterAdd{}(static_cast<Math>(place), static_cast<Math>(from[i])))
                         : from[i];
    }
  });
  return self;
}

Tensor& put_meta_(Tensor& self, const Tensor& index, const Tensor& source, bool /*accumulate*/) {
  checkPut(self, index, source);
  return self;
}

// --- index_fill_ -------------------------------------------------------------------------------------

namespace {

// The wrapped, checked positions along dim (self.size(dim), or 1 for a 0-dim self).
std::vector<int64_t> fillPositions(const Tensor& self, int64_t dim, const Tensor& index) {
  OPCORE_CHECK(index.scalar_type() == ScalarType::Long, "index_fill_(): Expected dtype int64 for index.");
  OPCORE_CHECK_INDEX(index.dim() <= 1, "index_fill_(): Index has to be a vector/scalar");
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  const TensorBase longs = cpu::contiguousCopy(index);
  const int64_t* p = static_cast<const int64_t*>(longs.data_ptr());
  std::vector<int64_t> positions(p, p + longs.numel());
  for (int64_t& v : positions) {
    OPCORE_CHECK_INDEX(v >= -size && v < size, "index ", v, " is out of bounds for dimension ", dim, " with size ",
                       size);
    if (v < 0) v += size;
  }
  return positions;
}

}  // namespace

Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  cpu::checkCpu("index_fill_", {&self, &index});
  const int64_t d = self.wrapDim(dim);
  const std::vector<int64_t> positions = fillPositions(self, d, index);
  cpu::checkNoInternalOverlap(self);
  for (const int64_t i : positions) {
    if (self.dim() == 0) {
      fill_(self, value);
      continue;
    }
    DimVector sizes = self.sizes().vec(), strides = self.strides().vec();
    sizes.erase(sizes.begin() + d);
    strides.erase(strides.begin() + d);
    Tensor slice(detail::makeView(self, sizes, strides, self.storage_offset() + i * self.stride(d)));
    fill_(slice, value);
  }
  return self;
}

Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  OPCORE_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
               value.dim(), " dimension(s).");
  cpu::checkCpu("index_fill_", {&value});
  return index_fill_(self, dim, index, detail::elementAt(value, 0));
}

Tensor& index_fill_meta_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& /*value*/) {
  self.wrapDim(dim);
  OPCORE_CHECK(index.scalar_type() == ScalarType::Long, "index_fill_(): Expected dtype int64 for index.");
  OPCORE_CHECK_INDEX(index.dim() <= 1, "index_fill_(): Index has to be a vector/scalar");
  return self;
}

Tensor& index_fill_meta_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  OPCORE_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
               value.dim(), " dimension(s).");
  return index_fill_meta_(self, dim, index, Scalar(0));
}

}  // namespace opcore::native

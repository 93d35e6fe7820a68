// CPU advanced indexing: index.Tensor, `self[indices]` with integer tensors, Bool masks and
// None (a whole dimension), and index_put_, `self[indices] = values`. See Note [Advanced indexing].
#include "common/AdvancedIndex.h"
#include "common/Shape.h"
#include "common/pointwise/Indexing.h"
#include "cpu/Loops.h"

#include <opcore/ops/index_native.h>
#include <opcore/ops/index_put_native.h>
#include <opcore/core/Empty.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

namespace opcore::native {

// See Note [Advanced indexing] in common/AdvancedIndex.h.
namespace {

// Calls f(e, offset) for every element e of the result of self[indices] (row-major), with
// the element offset of self it reads (index) or writes (index_put_). Serial: writes to
// repeated places happen in order. Where the result's last dimension is a slice of self's
// (`x[idx]` reads whole rows) the offset is worked out once per run of it and then stepped by
// its stride; otherwise once per element, in a loop of its own (as runs of one, the run's loop
// would cost more than the element).
template <typename F>
void forEachIndexed(const Tensor& self, const std::vector<DimIndex>& dims, const IndexPlan& plan, const F& f) {
  int64_t n = 1;
  for (const int64_t s : plan.out_sizes) n *= s;
  if (n == 0) return;
  const IntArrayRef strides = self.strides();
  const auto walk = [&](auto runs) {
    constexpr bool kRuns = decltype(runs)::value;
    const int64_t run = kRuns ? plan.out_sizes.back() : 1;
    const int64_t step = kRuns ? strides[plan.source_dim.back()] : 0;
    const size_t outer = plan.out_sizes.size() - (kRuns ? 1 : 0);
    std::vector<int64_t> pos(outer, 0);  // the result position of the run, odometer-style
    for (int64_t e = 0; e < n; e += run) {
      int64_t offset = 0;
      for (size_t o = 0; o < outer; ++o) {
        if (plan.source_dim[o] >= 0) offset += pos[o] * strides[plan.source_dim[o]];
      }
      for (size_t k = 0; k < dims.size(); ++k) {
        int64_t at = 0;
        for (size_t j = 0; j < plan.b_rank; ++j) at += pos[plan.b_start + j] * plan.b_strides[k][j];
        offset += dims[k].values[at] * strides[dims[k].dim];
      }
      if constexpr (kRuns) {
        for (int64_t i = 0; i < run; ++i) f(e + i, offset + i * step);
      } else {
        f(e, offset);
      }
      for (size_t o = outer; o-- > 0;) {
        if (++pos[o] < plan.out_sizes[o]) break;
        pos[o] = 0;
      }
    }
  };
  if (!plan.out_sizes.empty() && plan.source_dim.back() >= 0) {
    walk(std::true_type{});
  } else {
    walk(std::false_type{});
  }
}

}  // namespace

Tensor index(const Tensor& self, OptionalTensorList indices) {
  cpu::checkCpu("index", {&self});
  const std::vector<DimIndex> dims = readIndices(self, indices);
  const IndexPlan plan = planIndex(self, dims);
  Tensor out = detail::emptyCpu(plan.out_sizes, self.scalar_type());
  if (out.numel() == 0) return out;
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "index", [&] {
    const scalar_t* src = static_cast<const scalar_t*>(self.data_ptr());
    scalar_t* dst = out.data_ptr<scalar_t>();
    forEachIndexed(self, dims, plan, [&](int64_t e, int64_t offset) { dst[e] = src[offset]; });
  });
  return out;
}

// The result of index without its values: integer indices only (readIndices).
Tensor index_meta(const Tensor& self, OptionalTensorList indices) {
  const IndexPlan plan = planIndex(self, readIndices(self, indices, /*with_values=*/false));
  return detail::empty(plan.out_sizes, self.scalar_type(), self.device());
}

// Every index is read and checked (readIndices) before the first write.
Tensor& index_put_(Tensor& self, OptionalTensorList indices, const Tensor& values, bool accumulate) {
  cpu::checkCpu("index_put_", {&self, &values});
  const std::vector<DimIndex> dims = readIndices(self, indices);
  const IndexPlan plan = planIndex(self, dims);
  const DimVector shape = checkIndexPut(self, plan, values);
  cpu::checkNoInternalOverlap(self);
  // values broadcast to the indexed shape, in a buffer of their own (they may alias self).
  const TensorBase v = detail::emptyCpu(shape, self.scalar_type());
  if (v.numel() == 0) return self;
  cpu::copyInto(v, values);
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "index_put_", [&] {
    scalar_t* dst = static_cast<scalar_t*>(self.data_ptr());
    const scalar_t* src = static_cast<const scalar_t*>(v.data_ptr());
    if (accumulate) {
      using Math = opmath_t<scalar_t>;
      forEachIndexed(self, dims, plan, [&](int64_t e, int64_t offset) {
        dst[offset] = static_cast<scalar_t>(pointwise::ScatterAdd{}(static_cast<Math>(dst[offset]), static_cast<Math>(src[e])));
      });
    } else {
      forEachIndexed(self, dims, plan, [&](int64_t e, int64_t offset) { dst[offset] = src[e]; });
    }
  });
  return self;
}

// The checks that need no data: dtypes, the indices' dtypes and shapes (values of Bool masks
// and integer indices are not read).
Tensor& index_put_meta_(Tensor& self, OptionalTensorList indices, const Tensor& values, bool /*accumulate*/) {
  OPCORE_CHECK(self.scalar_type() == values.scalar_type(),
               "Index put requires the source and destination dtypes match, got ", toString(self.scalar_type()),
               " for the destination and ", toString(values.scalar_type()), " for the source.");
  int64_t dim = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::optional<Tensor>& index = indices[i];
    if (index && index->defined()) {
      const ScalarType t = index->scalar_type();
      OPCORE_CHECK(t == ScalarType::Long || t == ScalarType::Int || t == ScalarType::Bool,
                   "index: tensors used as indices must be Long, Int or Bool tensors, got ", toString(t));
      dim += t == ScalarType::Bool ? index->dim() : 1;
    } else {
      ++dim;
    }
  }
  OPCORE_CHECK(dim <= self.dim(), "index: too many indices for a tensor of ", self.dim(), " dimensions");
  return self;
}

}  // namespace opcore::native

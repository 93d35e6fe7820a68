// CPU advanced indexing: index.Tensor, `self[indices]` with integer tensors, Bool masks and
// None (a whole dimension), and index_put_, `self[indices] = values`. See Note [Advanced indexing].
#include "common/Shape.h"
#include "common/pointwise/Indexing.h"
#include "cpu/Loops.h"

#include <opcore/ops/index_native.h>
#include <opcore/ops/index_put_native.h>
#include <opcore/core/Empty.h>

#include <algorithm>
#include <string>
#include <vector>

namespace opcore::native {

// Note [Advanced indexing]
// indices[i] indexes dimension i of self (a Bool mask of k dimensions indexes k of them and
// stands for the k integer tensors of its true positions, as nonzero() would give). Missing
// trailing indices and None are whole dimensions. The integer index tensors broadcast to one
// shape B. When the indexed dimensions are adjacent, B replaces them in the result's shape
// (x[:, idx] of a [2, 3, 4] tensor with a [5] idx is [2, 5, 4]); otherwise B comes first and
// the other dimensions follow in order (x[idx, :, idx] is [5, 3]), as in NumPy and PyTorch.
// Element e of the result reads self at: the plain dimensions' positions in e, and for each
// indexed dimension d, the value of its index tensor at e's position in B.

namespace {

// An integer index tensor, read into row-major values, for dimension `dim` of self.
struct DimIndex {
  int64_t dim = 0;
  DimVector sizes;
  std::vector<int64_t> values;
};

std::vector<int64_t> readLongs(const TensorBase& t) {
  const TensorBase longs = cpu::contiguousCopy(cpu::convertTo(t, ScalarType::Long));
  const int64_t* p = longs.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + longs.numel());
}

// The positions of a mask's true elements, one integer index per mask dimension (nonzero()).
void appendMaskIndices(const TensorBase& mask, int64_t first_dim, IntArrayRef self_sizes, size_t position,
                       std::vector<DimIndex>& out) {
  const int64_t k = mask.dim();
  OPCORE_CHECK(k > 0, "index: a 0-dimensional Bool index (at index ", position, ") is not supported");
  OPCORE_CHECK(first_dim + k <= static_cast<int64_t>(self_sizes.size()), "index: too many indices for a tensor of ",
               self_sizes.size(), " dimensions");
  for (int64_t j = 0; j < k; ++j) {
    OPCORE_CHECK(mask.size(j) == self_sizes[first_dim + j], "index: the shape of the mask ", mask.sizes(),
                 " at index ", position, " does not match the shape of the indexed tensor ", self_sizes,
                 " at dimension ", first_dim + j);
  }
  const std::vector<int64_t> flags = readLongs(mask);
  std::vector<DimIndex> dims(static_cast<size_t>(k));
  for (int64_t j = 0; j < k; ++j) dims[j].dim = first_dim + j;
  for (int64_t flat = 0; flat < static_cast<int64_t>(flags.size()); ++flat) {
    if (flags[flat] == 0) continue;
    int64_t rest = flat;
    for (int64_t j = k; j-- > 0;) {
      dims[j].values.push_back(rest % mask.size(j));
      rest /= mask.size(j);
    }
  }
  for (DimIndex& d : dims) {
    d.sizes = {static_cast<int64_t>(d.values.size())};
    out.push_back(std::move(d));
  }
}

// Reads every index, checks its values against self's sizes and wraps negative ones. Without
// values (a Meta self), only the integer indices' dimensions and sizes: a Bool mask's result
// depends on its values.
std::vector<DimIndex> readIndices(const Tensor& self, OptionalTensorList indices, bool with_values = true) {
  std::vector<DimIndex> result;
  int64_t dim = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::optional<Tensor>& index = indices[i];
    if (!index || !index->defined()) {
      ++dim;
      continue;
    }
    if (with_values) cpu::checkCpu("index", {&*index});
    const ScalarType type = index->scalar_type();
    if (type == ScalarType::Bool) {
      OPCORE_CHECK_NOT_IMPLEMENTED(with_values, "index: a Bool index (at index ", i, ") on a Meta tensor: the "
                                   "result's size depends on the mask's values, which a Meta tensor does not have");
      appendMaskIndices(*index, dim, self.sizes(), i, result);
      dim += index->dim();
      continue;
    }
    OPCORE_CHECK(type == ScalarType::Long || type == ScalarType::Int,
                 "index: tensors used as indices must be Long, Int or Bool tensors, got ", toString(type));
    OPCORE_CHECK(dim < self.dim(), "index: too many indices for a tensor of ", self.dim(), " dimensions");
    result.push_back(DimIndex{dim, index->sizes().vec(), with_values ? readLongs(*index) : std::vector<int64_t>{}});
    ++dim;
  }
  OPCORE_CHECK(dim <= self.dim(), "index: too many indices for a tensor of ", self.dim(), " dimensions");
  // An error names the index's position among the indexed dimensions, as PyTorch's does (its
  // kernel moves them to the front): t[:, [4]] on a 3 x 4 tensor is out of bounds for dimension 0.
  for (size_t k = 0; k < result.size(); ++k) {
    DimIndex& d = result[k];
    const int64_t size = self.size(d.dim);
    for (int64_t& v : d.values) {
      OPCORE_CHECK_INDEX(v >= -size && v < size, "index ", v, " is out of bounds for dimension ", k, " with size ",
                         size);
      if (v < 0) v += size;
    }
  }
  return result;
}

// Where each result dimension reads from: a dimension of self, or a dimension of B.
struct IndexPlan {
  DimVector out_sizes;
  std::vector<int64_t> source_dim;  // per result dimension: a dimension of self, or -1 (part of B)
  size_t b_start = 0;               // the first result dimension of B
  size_t b_rank = 0;
  // Per index: its stride in B's row-major order for each B dimension (0 where broadcast).
  std::vector<std::vector<int64_t>> b_strides;
};

// The shape all index tensors broadcast to; throws listing them when they do not.
DimVector broadcastIndexShapes(const std::vector<DimIndex>& indices) {
  DimVector b;
  for (const DimIndex& d : indices) {
    for (size_t j = 0; j < std::min(b.size(), d.sizes.size()); ++j) {
      const int64_t x = b[b.size() - 1 - j], y = d.sizes[d.sizes.size() - 1 - j];
      if (x != y && x != 1 && y != 1) {
        std::string shapes;
        for (const DimIndex& e : indices) shapes += (shapes.empty() ? "" : ", ") + detail::strCat(IntArrayRef(e.sizes));
        OPCORE_FAIL("index: shape mismatch: indexing tensors could not be broadcast together with shapes ", shapes);
      }
    }
    b = broadcastShapes(b, d.sizes);
  }
  return b;
}

IndexPlan planIndex(const Tensor& self, const std::vector<DimIndex>& indices) {
  IndexPlan plan;
  const DimVector b = broadcastIndexShapes(indices);
  plan.b_rank = b.size();
  bool adjacent = true;
  for (size_t k = 1; k < indices.size(); ++k) adjacent = adjacent && indices[k].dim == indices[k - 1].dim + 1;
  std::vector<bool> indexed(static_cast<size_t>(self.dim()), false);
  for (const DimIndex& d : indices) indexed[d.dim] = true;
  const int64_t first = indices.empty() ? 0 : indices.front().dim;
  auto addB = [&] {
    plan.b_start = plan.out_sizes.size();
    for (const int64_t s : b) {
      plan.out_sizes.push_back(s);
      plan.source_dim.push_back(-1);
    }
  };
  if (!adjacent) addB();
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (adjacent && d == first) addB();
    if (indexed[d]) continue;
    plan.out_sizes.push_back(self.size(d));
    plan.source_dim.push_back(d);
  }
  if (adjacent && first == self.dim()) addB();  // no dimensions at all
  for (const DimIndex& d : indices) {
    // Right-aligned against B; contiguous strides of the index, 0 where it has size 1 or no dimension.
    std::vector<int64_t> strides(b.size(), 0);
    int64_t stride = 1;
    for (size_t j = d.sizes.size(); j-- > 0;) {
      if (d.sizes[j] != 1) strides[b.size() - d.sizes.size() + j] = stride;
      stride *= d.sizes[j];
    }
    plan.b_strides.push_back(std::move(strides));
  }
  return plan;
}

}  // namespace

namespace {

// Calls f(e, offset) for every element e of the result of self[indices] (row-major), with
// the element offset of self it reads (index) or writes (index_put_). Serial: writes to
// repeated places happen in order.
template <typename F>
void forEachIndexed(const Tensor& self, const std::vector<DimIndex>& dims, const IndexPlan& plan, const F& f) {
  int64_t n = 1;
  for (const int64_t s : plan.out_sizes) n *= s;
  if (n == 0) return;
  const IntArrayRef strides = self.strides();
  std::vector<int64_t> pos(plan.out_sizes.size(), 0);  // the result position, odometer-style
  for (int64_t e = 0; e < n; ++e) {
    int64_t offset = 0;
    for (size_t o = 0; o < pos.size(); ++o) {
      if (plan.source_dim[o] >= 0) offset += pos[o] * strides[plan.source_dim[o]];
    }
    for (size_t k = 0; k < dims.size(); ++k) {
      int64_t at = 0;
      for (size_t j = 0; j < plan.b_rank; ++j) at += pos[plan.b_start + j] * plan.b_strides[k][j];
      offset += dims[k].values[at] * strides[dims[k].dim];
    }
    f(e, offset);
    for (size_t o = pos.size(); o-- > 0;) {
      if (++pos[o] < plan.out_sizes[o]) break;
      pos[o] = 0;
    }
  }
}

// index_put_'s checks, shared with its Meta kernel: the dtypes, and values broadcasting to
// the indexed shape. Returns that shape.
DimVector checkIndexPut(const Tensor& self, const std::vector<DimIndex>& dims, const IndexPlan& plan,
                        const Tensor& values) {
  (void)dims;
  OPCORE_CHECK(self.scalar_type() == values.scalar_type(),
               "Index put requires the source and destination dtypes match, got ", toString(self.scalar_type()),
               " for the destination and ", toString(values.scalar_type()), " for the source.");
  const IntArrayRef v = values.sizes();
  const DimVector& r = plan.out_sizes;
  bool ok = v.size() <= r.size();
  for (size_t j = 0; ok && j < v.size(); ++j) {
    const int64_t a = v[v.size() - 1 - j], b = r[r.size() - 1 - j];
    ok = a == b || a == 1;
  }
  OPCORE_CHECK(ok, "shape mismatch: value tensor of shape ", v, " cannot be broadcast to indexing result of shape ",
               IntArrayRef(r));
  return r;
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
  for (const std::optional<Tensor>& index : indices) {
    OPCORE_CHECK(!index || !index->defined() || index->is_cpu() || index->device() == self.device(),
                 "indices should be either on cpu or on the same device as the indexed tensor (", self.device(), ")");
  }
  const IndexPlan plan = planIndex(self, readIndices(self, indices, /*with_values=*/false));
  return detail::empty(plan.out_sizes, self.scalar_type(), self.device());
}

// Every index is read and checked (readIndices) before the first write.
Tensor& index_put_(Tensor& self, OptionalTensorList indices, const Tensor& values, bool accumulate) {
  cpu::checkCpu("index_put_", {&self, &values});
  const std::vector<DimIndex> dims = readIndices(self, indices);
  const IndexPlan plan = planIndex(self, dims);
  const DimVector shape = checkIndexPut(self, dims, plan, values);
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

// The planning of advanced indexing (index.Tensor, index_put_) shared by the CPU and CUDA
// kernels and their Meta kernels: the indices read and checked, and the result's shape.
// See Note [Advanced indexing] in AdvancedIndex.h.
#include "common/AdvancedIndex.h"

#include "common/Shape.h"

#include <algorithm>
#include <string>

namespace opcore::native {
namespace {

// t's values on the host (copied from its device), as int64.
std::vector<int64_t> readLongs(const Tensor& t) {
  const Tensor longs = t.to(Device(DeviceType::CPU)).to(ScalarType::Long).contiguous();
  const int64_t* p = longs.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + longs.numel());
}

// The positions of a mask's true elements, one integer index per mask dimension (nonzero()).
void appendMaskIndices(const Tensor& mask, int64_t first_dim, IntArrayRef self_sizes, size_t position,
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

}  // namespace

std::vector<DimIndex> readIndices(const Tensor& self, OptionalTensorList indices, bool with_values) {
  std::vector<DimIndex> result;
  int64_t dim = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::optional<Tensor>& index = indices[i];
    if (!index || !index->defined()) {
      ++dim;
      continue;
    }
    OPCORE_CHECK(index->is_cpu() || index->device() == self.device(),
                 "indices should be either on cpu or on the same device as the indexed tensor (", self.device(), ")");
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

DimVector checkIndexPut(const Tensor& self, const IndexPlan& plan, const Tensor& values) {
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

}  // namespace opcore::native

// Advanced indexing's plan, shared by the CPU and CUDA kernels of index.Tensor and index_put_
// (kernels/cpu/Indexing.cpp, kernels/cuda/CudaAdvancedIndex.cpp) and their Meta kernels: the
// indices read to the host and checked, where each result dimension reads from, and PyTorch's
// errors.
//   const std::vector<DimIndex> dims = readIndices(self, indices);
//   const IndexPlan plan = planIndex(self, dims);   // plan.out_sizes: the result's shape
#pragma once

#include <common/Shape.h>

#include <opcore/Tensor.h>

#include <cstdint>
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

// An integer index tensor, read into row-major values, for dimension `dim` of self.
struct DimIndex {
  int64_t dim = 0;
  DimVector sizes;
  std::vector<int64_t> values;
};

// Where each result dimension reads from: a dimension of self, or a dimension of B.
struct IndexPlan {
  DimVector out_sizes;
  std::vector<int64_t> source_dim;  // per result dimension: a dimension of self, or -1 (part of B)
  size_t b_start = 0;               // the first result dimension of B
  size_t b_rank = 0;
  // Per index: its stride in B's row-major order for each B dimension (0 where broadcast).
  std::vector<std::vector<int64_t>> b_strides;
};

// Reads every index to the host (from any device: indices may be on the CPU or on self's
// device), checks its values against self's sizes and wraps negative ones. Without values (a
// Meta self), only the integer indices' dimensions and sizes: a Bool mask's result depends on
// its values.
std::vector<DimIndex> readIndices(const Tensor& self, OptionalTensorList indices, bool with_values = true);

// The result's shape and where each of its dimensions reads from; throws PyTorch's error when
// the index tensors do not broadcast together.
IndexPlan planIndex(const Tensor& self, const std::vector<DimIndex>& indices);

// index_put_'s checks, shared with its Meta kernel: the dtypes, and values broadcasting to
// the indexed shape. Returns that shape.
DimVector checkIndexPut(const Tensor& self, const IndexPlan& plan, const Tensor& values);

}  // namespace opcore::native

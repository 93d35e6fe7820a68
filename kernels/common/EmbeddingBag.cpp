// The checks, bags and gradient entries of _embedding_bag and its backward operators, whatever
// the device (common/EmbeddingBag.h).
#include "common/EmbeddingBag.h"

#include <opcore/ops/empty.h>

#include <algorithm>

namespace opcore::native {

// Note [Embedding bags]
// Bag b of _embedding_bag holds the indices i with offsets[b] <= i < end(b), end(b) being
// offsets[b + 1], or for the last bag the number of indices (with include_last_offset, where
// offsets has one more element than there are bags, offsets[num_bags], and indices past it
// belong to no bag). Offsets must start at 0, not decrease and not pass the number of indices,
// and every index must name a row of weight: all checked before any row is read. The forward
// computes each bag's row of the output (on the CPU, a thread per bag; on the GPU, a thread per
// element), adding (or comparing, in max mode) its rows in the order of its indices, in float
// for 16-bit weights (rounded once). The other outputs are PyTorch's: offset2bag[i] is the number of offsets at or
// before i, less one (the bag of index i; num_bags for indices past the last offset, -1 for all
// of them without offsets), left empty in sum mode where PyTorch takes its fast path (float32
// or float16 weights with unit column stride, no padding_idx, per_sample_weights of unit
// stride), since PyTorch's backward recomputes it there; bag_size counts each bag's indices
// other than padding_idx in mean and max modes and is zero in sum mode; max_indices is
// [num_bags, embedding_dim] in max mode (the row of each column's maximum: the first of equal
// ones, 0 in an empty bag) and a copy of bag_size otherwise. The offsets, indices and the
// backward's bag assignments are read to the host and checked there (planEmbeddingBag and the
// backward plans), whatever the device.

namespace {

void checkIndexType(const Tensor& t, const char* name, int position, const char* op = "embedding_bag") {
  const ScalarType s = t.scalar_type();
  OPCORE_CHECK(s == kLong || s == kInt, "Expected tensor for argument #", position, " '", name,
               "' to have one of the following scalar types: Long, Int; but got ", s,
               " instead (while checking arguments for ", op, ")");
}

void checkFloatingType(const Tensor& t, const char* name, int position) {
  const ScalarType s = t.scalar_type();
  OPCORE_CHECK(s == kHalf || s == kBFloat16 || s == kFloat || s == kDouble, "Expected tensor for argument #",
               position, " '", name, "' to have one of the following scalar types: Half, BFloat16, Float, "
               "Double; but got ", s, " instead (while checking arguments for embedding_bag)");
}

void checkDim(const Tensor& t, const char* op, const char* name, int64_t dim) {
  OPCORE_CHECK(t.dim() == dim, op, ": expected '", name, "' to be ", dim, "-D, but got a tensor of ", t.dim(),
               " dimensions");
}

void checkMode(int64_t mode, const char* op) {
  OPCORE_CHECK(mode == kEmbeddingBagSum || mode == kEmbeddingBagMean || mode == kEmbeddingBagMax, op,
               ": mode must be 0 (sum), 1 (mean) or 2 (max), but got ", mode);
}

std::vector<int64_t> readLongs(const Tensor& t) {
  const Tensor longs = t.to(Device(DeviceType::CPU), kLong).contiguous();
  const int64_t* p = longs.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + longs.numel());
}

void checkOffsets(const std::vector<int64_t>& off, int64_t num_indices) {
  if (off.empty()) return;
  OPCORE_CHECK(off[0] == 0, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
               "position 0. However, got ", off[0]);
  OPCORE_CHECK(off.back() <= num_indices, "offsets[-1] can not be greater than input's length ", num_indices,
               " but got offsets[-1] of ", off.back());
  for (size_t b = 1; b < off.size(); ++b) {
    OPCORE_CHECK(off[b] >= off[b - 1], "embedding_bag: offsets must not decrease, but offsets[", b, "] = ", off[b],
                 " is less than offsets[", b - 1, "] = ", off[b - 1]);
  }
}

void checkIndices(const std::vector<int64_t>& idx, int64_t num_weights, const char* op) {
  for (const int64_t i : idx) {
    OPCORE_CHECK(i >= 0 && i < num_weights, op, ": Expected idx >= 0 && idx < num_embeddings but found idx to be ",
                 i);
  }
}

template <typename V>
Tensor hostValuesOn(const std::vector<V>& values, ScalarType type, Device device) {
  Tensor host =
      opcore::empty({static_cast<int64_t>(values.size())}, TensorOptions().dtype(CppTypeToScalarType<V>::value));
  std::copy(values.begin(), values.end(), host.data_ptr<V>());
  return host.to(device, type);
}

}  // namespace

Tensor valuesOn(const std::vector<int64_t>& values, ScalarType type, Device device) {
  return hostValuesOn(values, type, device);
}
Tensor valuesOn(const std::vector<double>& values, ScalarType type, Device device) {
  return hostValuesOn(values, type, device);
}

int64_t checkEmbeddingBag(const Tensor& weight, const Tensor& indices, const Tensor& offsets, int64_t mode,
                          const std::optional<Tensor>& per_sample_weights, bool include_last_offset) {
  checkIndexType(indices, "indices", 1);
  checkIndexType(offsets, "offsets", 1);
  checkFloatingType(weight, "weight", 1);
  checkDim(weight, "embedding_bag", "weight", 2);
  checkDim(indices, "embedding_bag", "indices", 1);
  checkDim(offsets, "embedding_bag", "offsets", 1);
  checkMode(mode, "embedding_bag");
  if (per_sample_weights && per_sample_weights->defined()) {
    const Tensor& psw = *per_sample_weights;
    OPCORE_CHECK(mode == kEmbeddingBagSum, "embedding_bag: per_sample_weights only supported with mode='sum'");
    OPCORE_CHECK(psw.scalar_type() == weight.scalar_type(), "Expected tensor for argument #1 'weight' to have the "
                 "same type as tensor for argument #1 'per_sample_weights'; but type ", weight.scalar_type(),
                 " does not equal ", psw.scalar_type(), " (while checking arguments for embedding_bag)");
    OPCORE_CHECK(psw.dim() == 1, "Expected per_sample_weights.value().dim() == 1 to be true, but got false. "
                 "(per_sample_weights has ", psw.dim(), " dimensions)");
    OPCORE_CHECK(psw.numel() == indices.numel(), "Expected per_sample_weights.value().numel() == indices.numel() "
                 "to be true, but got false. (", psw.numel(), " per-sample weights for ", indices.numel(),
                 " indices)");
  }
  if (include_last_offset) {
    OPCORE_CHECK(offsets.size(0) >= 1, "include_last_offset: number of offset should be at least 1");
  }
  return offsets.size(0) - (include_last_offset ? 1 : 0);
}

bool sumFastPath(const Tensor& weight, int64_t mode, const std::optional<Tensor>& per_sample_weights,
                 int64_t padding_idx) {
  const ScalarType t = weight.scalar_type();
  if (mode != kEmbeddingBagSum || padding_idx >= 0 || weight.stride(1) != 1) return false;
  if (per_sample_weights && per_sample_weights->defined() && per_sample_weights->stride(0) != 1) return false;
  return t == kFloat || t == kHalf;
}

ScalarType indexResultType(const Tensor& indices, const Tensor& offsets) {
  return indices.scalar_type() == kInt && offsets.scalar_type() == kInt ? kInt : kLong;
}

EmbeddingBagPlan planEmbeddingBag(const Tensor& weight, const Tensor& indices, const Tensor& offsets, int64_t mode,
                                  const std::optional<Tensor>& per_sample_weights, bool include_last_offset,
                                  int64_t padding_idx) {
  EmbeddingBagPlan plan;
  plan.num_bags = checkEmbeddingBag(weight, indices, offsets, mode, per_sample_weights, include_last_offset);
  plan.index_type = indexResultType(indices, offsets);
  plan.idx = readLongs(indices);
  const std::vector<int64_t> off = readLongs(offsets);
  const auto n = static_cast<int64_t>(plan.idx.size());
  checkOffsets(off, n);
  checkIndices(plan.idx, weight.size(0), "embedding_bag");
  if (!sumFastPath(weight, mode, per_sample_weights, padding_idx)) {
    // Indices past the last bag (include_last_offset), or every index when there are no offsets.
    plan.offset2bag.assign(static_cast<size_t>(n), static_cast<int64_t>(off.size()) - 1);
    for (int64_t b = 0; b < plan.num_bags; ++b) {
      const int64_t end = b + 1 < static_cast<int64_t>(off.size()) ? off[b + 1] : n;
      for (int64_t i = off[b]; i < end; ++i) plan.offset2bag[i] = b;
    }
  }
  // The bags' bounds: the offsets, and the number of indices closing the last bag unless the
  // last offset does (include_last_offset).
  plan.ends = off;
  if (!include_last_offset) plan.ends.push_back(n);
  plan.sizes.assign(static_cast<size_t>(plan.num_bags), 0);
  for (int64_t b = 0; b < plan.num_bags; ++b) {
    for (int64_t i = plan.ends[b]; i < plan.ends[b + 1]; ++i) plan.sizes[b] += plan.idx[i] != padding_idx;
  }
  return plan;
}

std::tuple<Tensor, Tensor, Tensor, Tensor> embeddingBagResults(const EmbeddingBagPlan& plan, int64_t mode,
                                                               const Tensor& output, const Tensor& maxima) {
  const Device device = output.device();
  const std::vector<int64_t> zeros(plan.sizes.size(), 0);
  const std::vector<int64_t>& bag_size = mode == kEmbeddingBagSum ? zeros : plan.sizes;
  const Tensor max_indices =
      mode == kEmbeddingBagMax ? maxima.to(plan.index_type) : valuesOn(bag_size, plan.index_type, device);
  return {output, valuesOn(plan.offset2bag, plan.index_type, device), valuesOn(bag_size, plan.index_type, device),
          max_indices};
}

void checkDenseBackward(const Tensor& grad, const Tensor& indices, const Tensor& offset2bag, const Tensor& bag_size,
                        const Tensor& maximum_indices, int64_t num_weights, int64_t mode,
                        const std::optional<Tensor>& per_sample_weights) {
  const char* op = "_embedding_bag_dense_backward";
  checkFloatingType(grad, "grad", 1);
  checkDim(grad, op, "grad", 2);
  checkIndexType(indices, "indices", 2, op);
  checkDim(indices, op, "indices", 1);
  checkMode(mode, op);
  OPCORE_CHECK(num_weights >= 0, op, ": num_weights must be non-negative, got ", num_weights);
  const int64_t num_bags = grad.size(0);
  if (mode == kEmbeddingBagMax) {
    checkIndexType(maximum_indices, "maximum_indices", 5, op);
    OPCORE_CHECK(maximum_indices.dim() == 2 && maximum_indices.size(0) == num_bags &&
                     maximum_indices.size(1) == grad.size(1),
                 op, ": expected maximum_indices of grad's shape ", grad.sizes(), " in max mode, got ",
                 maximum_indices.sizes());
  } else {
    checkIndexType(offset2bag, "offset2bag", 3, op);
    OPCORE_CHECK(offset2bag.dim() == 1 && offset2bag.numel() == indices.numel(), op,
                 ": expected offset2bag of indices' shape ", indices.sizes(), ", got ", offset2bag.sizes());
  }
  if (mode != kEmbeddingBagSum) {
    checkIndexType(bag_size, "bag_size", 4, op);
    OPCORE_CHECK(bag_size.dim() == 1 && bag_size.numel() == num_bags, op, ": expected bag_size of shape [",
                 num_bags, "] (a size per row of grad), got ", bag_size.sizes());
  }
  if (per_sample_weights && per_sample_weights->defined()) {
    const Tensor& psw = *per_sample_weights;
    OPCORE_CHECK(mode == kEmbeddingBagSum, op, ": per_sample_weights only supported with mode='sum'");
    OPCORE_CHECK(psw.scalar_type() == grad.scalar_type(), op, ": expected per_sample_weights of grad's dtype ",
                 grad.scalar_type(), ", got ", psw.scalar_type());
    OPCORE_CHECK(psw.dim() == 1 && psw.numel() == indices.numel(), op,
                 ": expected per_sample_weights of indices' shape ", indices.sizes(), ", got ", psw.sizes());
  }
}

EmbeddingBagGradPlan planDenseBackward(const Tensor& grad, const Tensor& indices, const Tensor& offset2bag,
                                       const Tensor& bag_size, const Tensor& maximum_indices, int64_t num_weights,
                                       bool scale_grad_by_freq, int64_t mode,
                                       const std::optional<Tensor>& per_sample_weights, int64_t padding_idx) {
  const char* op = "_embedding_bag_dense_backward";
  checkDenseBackward(grad, indices, offset2bag, bag_size, maximum_indices, num_weights, mode, per_sample_weights);
  const int64_t num_bags = grad.size(0), dim = grad.size(1);
  EmbeddingBagGradPlan plan;
  if (mode == kEmbeddingBagMax) {
    // The bags of non-zero size, each column's gradient going to the row of its maximum.
    const std::vector<int64_t> sizes = readLongs(bag_size);
    plan.maxima = readLongs(maximum_indices);
    for (int64_t b = 0; b < num_bags; ++b) {
      if (sizes[b] <= 0) continue;
      plan.bags.push_back(b);
      for (int64_t c = 0; c < dim; ++c) {
        const int64_t r = plan.maxima[b * dim + c];
        OPCORE_CHECK(r >= 0 && r < num_weights, op, ": maximum_indices[", b, ", ", c, "] = ", r,
                     " is out of range for ", num_weights, " weights");
      }
    }
    return plan;
  }
  const std::vector<int64_t> idx = readLongs(indices), bag_of = readLongs(offset2bag);
  const std::vector<int64_t> sizes = mode == kEmbeddingBagMean ? readLongs(bag_size) : std::vector<int64_t>();
  checkIndices(idx, num_weights, op);
  std::vector<double> psw;
  if (per_sample_weights && per_sample_weights->defined()) {
    const Tensor p = per_sample_weights->to(Device(DeviceType::CPU), ScalarType::Double).contiguous();
    psw.assign(p.data_ptr<double>(), p.data_ptr<double>() + p.numel());
  }
  std::vector<int64_t> counts;
  if (scale_grad_by_freq) {
    counts.assign(static_cast<size_t>(num_weights), 0);
    for (const int64_t r : idx) ++counts[static_cast<size_t>(r)];
  }
  // An index of no bag (offset2bag outside [0, num_bags): past the last offset) has none.
  for (size_t i = 0; i < idx.size(); ++i) {
    const int64_t r = idx[i], b = bag_of[i];
    if (r == padding_idx || b < 0 || b >= num_bags) continue;
    double scale = psw.empty() ? 1.0 : psw[i];
    if (mode == kEmbeddingBagMean) scale /= static_cast<double>(sizes[static_cast<size_t>(b)]);
    if (scale_grad_by_freq) scale /= static_cast<double>(counts[static_cast<size_t>(r)]);
    plan.rows.push_back(r);
    plan.bags.push_back(b);
    plan.scales.push_back(scale);
  }
  return plan;
}

void checkPerSampleWeightsBackward(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                   const Tensor& offsets, const Tensor& offset2bag, int64_t mode) {
  const char* op = "_embedding_bag_per_sample_weights_backward";
  OPCORE_CHECK(mode == kEmbeddingBagSum, "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  checkFloatingType(grad, "grad", 1);
  checkDim(grad, op, "grad", 2);
  checkDim(weight, op, "weight", 2);
  OPCORE_CHECK(weight.scalar_type() == grad.scalar_type(), op, ": expected weight of grad's dtype ",
               grad.scalar_type(), ", got ", weight.scalar_type());
  OPCORE_CHECK(weight.size(1) == grad.size(1), op, ": expected grad and weight to have the same number of columns, "
               "got ", grad.sizes(), " and ", weight.sizes());
  checkIndexType(indices, "indices", 3, op);
  checkDim(indices, op, "indices", 1);
  checkIndexType(offsets, "offsets", 4, op);
  checkDim(offsets, op, "offsets", 1);
  checkIndexType(offset2bag, "offset2bag", 5, op);
  OPCORE_CHECK(offset2bag.dim() == 1 && (offset2bag.numel() == indices.numel() || offset2bag.numel() == 0), op,
               ": expected offset2bag of indices' shape ", indices.sizes(), " (or empty), got ", offset2bag.sizes());
}

PerSampleWeightsPlan planPerSampleWeightsBackward(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                                  const Tensor& offsets, const Tensor& offset2bag, int64_t mode) {
  const char* op = "_embedding_bag_per_sample_weights_backward";
  checkPerSampleWeightsBackward(grad, weight, indices, offsets, offset2bag, mode);
  PerSampleWeightsPlan plan;
  plan.idx = readLongs(indices);
  const auto n = static_cast<int64_t>(plan.idx.size());
  checkIndices(plan.idx, weight.size(0), op);
  if (offset2bag.numel() == 0 && n != 0) {
    // Left empty by the forward's fast path: the number of offsets at or before each index, less one.
    const std::vector<int64_t> off = readLongs(offsets);
    std::vector<int64_t> starts(static_cast<size_t>(n) + 1, 0);
    for (const int64_t o : off) {
      OPCORE_CHECK(o >= 0 && o <= n, op, ": offset ", o, " is out of range for ", n, " indices");
      ++starts[static_cast<size_t>(o)];
    }
    plan.bag_of.resize(static_cast<size_t>(n));
    int64_t seen = 0;
    for (int64_t i = 0; i < n; ++i) plan.bag_of[i] = (seen += starts[i]) - 1;
  } else {
    plan.bag_of = readLongs(offset2bag);
  }
  return plan;
}

}  // namespace opcore::native

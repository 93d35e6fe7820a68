// _embedding_bag and its backward operators' device-independent part (Note [Embedding bags] in
// kernels/common/EmbeddingBag.cpp): the checks (the Meta kernels' too), and plans that read the
// offsets and indices to the host and check their values before any row is read. The CPU
// kernels (kernels/cpu/EmbeddingBag.cpp) and the CUDA ones (kernels/cuda/CudaEmbeddingBag.cpp)
// compute from the plans.
//   const EmbeddingBagPlan plan = planEmbeddingBag(weight, indices, offsets, mode, psw, last, padding_idx);
#pragma once

#include <opcore/Tensor.h>

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

namespace opcore::native {

constexpr int64_t kEmbeddingBagSum = 0;
constexpr int64_t kEmbeddingBagMean = 1;
constexpr int64_t kEmbeddingBagMax = 2;

// The checks of _embedding_bag that need no values; returns the number of bags.
int64_t checkEmbeddingBag(const Tensor& weight, const Tensor& indices, const Tensor& offsets, int64_t mode,
                          const std::optional<Tensor>& per_sample_weights, bool include_last_offset);
// Whether PyTorch's CPU kernel takes its sum fast path, where offset2bag is left empty.
bool sumFastPath(const Tensor& weight, int64_t mode, const std::optional<Tensor>& per_sample_weights,
                 int64_t padding_idx);
// The index results are Int when indices and offsets both are, else Long (PyTorch promotes).
ScalarType indexResultType(const Tensor& indices, const Tensor& offsets);

// A plan's values as a 1-d tensor of `type` on `device` (copied from the host).
Tensor valuesOn(const std::vector<int64_t>& values, ScalarType type, Device device);
Tensor valuesOn(const std::vector<double>& values, ScalarType type, Device device);

// _embedding_bag's bags, checked: bag b holds idx[ends[b]] .. idx[ends[b + 1] - 1] (every one a
// row of weight); offset2bag (empty on the fast path) and each bag's count of indices other than
// padding_idx.
struct EmbeddingBagPlan {
  int64_t num_bags = 0;
  ScalarType index_type = ScalarType::Long;
  std::vector<int64_t> idx, ends, offset2bag, sizes;
};
EmbeddingBagPlan planEmbeddingBag(const Tensor& weight, const Tensor& indices, const Tensor& offsets, int64_t mode,
                                  const std::optional<Tensor>& per_sample_weights, bool include_last_offset,
                                  int64_t padding_idx);
// _embedding_bag's four results on output's device: output (computed), offset2bag, bag_size and
// max_indices (in max mode `maxima`, computed: [num_bags, dim] Long; else the bag sizes).
std::tuple<Tensor, Tensor, Tensor, Tensor> embeddingBagResults(const EmbeddingBagPlan& plan, int64_t mode,
                                                               const Tensor& output, const Tensor& maxima);

// _embedding_bag_dense_backward's checks, with the shapes named.
void checkDenseBackward(const Tensor& grad, const Tensor& indices, const Tensor& offset2bag, const Tensor& bag_size,
                        const Tensor& maximum_indices, int64_t num_weights, int64_t mode,
                        const std::optional<Tensor>& per_sample_weights);
// Its entries, checked: entry k adds grad's row bags[k] times scales[k] into the weight's row
// rows[k]; in max mode, `bags` lists the non-empty bags and each column c of bag b's gradient
// goes to row maxima[b * dim + c] (scales and rows are empty).
struct EmbeddingBagGradPlan {
  std::vector<int64_t> rows, bags, maxima;
  std::vector<double> scales;
};
EmbeddingBagGradPlan planDenseBackward(const Tensor& grad, const Tensor& indices, const Tensor& offset2bag,
                                       const Tensor& bag_size, const Tensor& maximum_indices, int64_t num_weights,
                                       bool scale_grad_by_freq, int64_t mode,
                                       const std::optional<Tensor>& per_sample_weights, int64_t padding_idx);

// _embedding_bag_per_sample_weights_backward's checks, and its indices with their bags, checked
// (offset2bag recomputed from offsets when the forward left it empty).
void checkPerSampleWeightsBackward(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                   const Tensor& offsets, const Tensor& offset2bag, int64_t mode);
struct PerSampleWeightsPlan {
  std::vector<int64_t> idx, bag_of;
};
PerSampleWeightsPlan planPerSampleWeightsBackward(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                                  const Tensor& offsets, const Tensor& offset2bag, int64_t mode);

}  // namespace opcore::native

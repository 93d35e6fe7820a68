// Embedding bags written with other operators: embedding_bag (and its padding_idx overload),
// _embedding_bag after PyTorch's check and wrapping of padding_idx; _embedding_bag_backward,
// _embedding_bag_dense_backward after refusing the sparse gradient opcore has no layout for,
// with offset2bag rebuilt from the offsets where the forward left it empty (Note [Embedding
// bags], kernels/cpu/EmbeddingBag.cpp).
#include <opcore/ops/_embedding_bag.h>
#include <opcore/ops/_embedding_bag_backward_native.h>
#include <opcore/ops/_embedding_bag_dense_backward.h>
#include <opcore/ops/cumsum.h>
#include <opcore/ops/embedding_bag_native.h>
#include <opcore/ops/index_add.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/zeros.h>

namespace opcore::native {

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(const Tensor& weight, const Tensor& indices,
                                                         const Tensor& offsets, bool scale_grad_by_freq, int64_t mode,
                                                         bool sparse, const std::optional<Tensor>& per_sample_weights,
                                                         bool include_last_offset, std::optional<int64_t> padding_idx) {
  int64_t padding = -1;
  if (padding_idx) {
    const int64_t num_embeddings = weight.size(0);
    padding = *padding_idx;
    OPCORE_CHECK(padding >= -num_embeddings && padding < num_embeddings, "padding_idx must be within the number of "
                 "embeddings, -", num_embeddings, " through ", num_embeddings - 1, ", but got ", padding);
    if (padding < 0) padding += num_embeddings;
  }
  return opcore::_embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                                include_last_offset, padding);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(const Tensor& weight, const Tensor& indices,
                                                         const Tensor& offsets, bool scale_grad_by_freq, int64_t mode,
                                                         bool sparse, const std::optional<Tensor>& per_sample_weights,
                                                         bool include_last_offset) {
  return embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                       include_last_offset, std::nullopt);
}

Tensor _embedding_bag_backward(const Tensor& grad, const Tensor& indices, const Tensor& offsets,
                               const Tensor& offset2bag, const Tensor& bag_size, const Tensor& maximum_indices,
                               int64_t num_weights, bool scale_grad_by_freq, int64_t mode, bool sparse,
                               const std::optional<Tensor>& per_sample_weights, int64_t padding_idx) {
  OPCORE_CHECK_NOT_IMPLEMENTED(!sparse, "_embedding_bag_backward: sparse=True asks for a sparse gradient, and opcore "
                               "has no sparse layout; use sparse=False");
  Tensor bags = offset2bag;
  const int64_t n = indices.numel();
  if (n != 0 && offset2bag.numel() == 0) {
    // Each index's bag: the number of offsets at or before it, less one.
    const Tensor starts = opcore::index_add(opcore::zeros({n + 1}, offsets.options()), 0,
                                            offsets, opcore::ones({offsets.numel()}, offsets.options()));
    bags = opcore::sub(opcore::cumsum(starts, 0).narrow(0, 0, n), 1);
  }
  return opcore::_embedding_bag_dense_backward(grad, indices, bags, bag_size, maximum_indices, num_weights,
                                               scale_grad_by_freq, mode, per_sample_weights, padding_idx);
}

}  // namespace opcore::native

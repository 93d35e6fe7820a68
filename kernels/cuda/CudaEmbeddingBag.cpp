// The CUDA kernels of _embedding_bag and its two backward operators: the bags read to the host
// and checked there, as the CPU kernels' (common/EmbeddingBag.cpp's plans), copied to the GPU
// (a wait for the stream, as index.Tensor's), then the forward's kernel
// (CudaIndexingKernels.cu's launchEmbeddingBag) or tensor operations on the GPU: the dense
// gradient an index_add of the scaled rows (atomic, in the GPU's order), the per-sample
// weights' gradient the row products summed.
#include "CudaOperands.h"

#include "common/EmbeddingBag.h"

#include <opcore/ops/_embedding_bag_dense_backward_native.h>
#include <opcore/ops/_embedding_bag_native.h>
#include <opcore/ops/_embedding_bag_per_sample_weights_backward_native.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/zeros.h>

#include <algorithm>
#include <vector>

namespace opcore::native {
std::tuple<Tensor, Tensor, Tensor, Tensor> _embedding_bag_cuda(const Tensor& weight, const Tensor& indices,
                                                               const Tensor& offsets, bool /*scale_grad_by_freq*/,
                                                               int64_t mode, bool /*sparse*/,
                                                               const std::optional<Tensor>& per_sample_weights,
                                                               bool include_last_offset, int64_t padding_idx) {
  const EmbeddingBagPlan plan = planEmbeddingBag(weight, indices, offsets, mode, per_sample_weights,
                                                 include_last_offset, padding_idx);
  const Device device = weight.device();
  const int64_t dim = weight.size(1);
  Tensor output = opcore::empty({plan.num_bags, dim}, weight.options());
  Tensor maxima = opcore::empty({mode == kEmbeddingBagMax ? plan.num_bags : 0, dim}, weight.options().dtype(kLong));
  const Tensor idx = valuesOn(plan.idx, kLong, device), ends = valuesOn(plan.ends, kLong, device);
  Tensor psw;
  if (per_sample_weights && per_sample_weights->defined()) psw = per_sample_weights->contiguous();
  cuda::EmbeddingBagProblem p;
  p.weight = static_cast<const char*>(weight.data_ptr());
  p.row_stride = weight.stride(0);
  p.col_stride = weight.stride(1);
  p.idx = idx.data_ptr<int64_t>();
  p.ends = ends.data_ptr<int64_t>();
  p.per_sample_weights = psw.defined() ? static_cast<const char*>(psw.data_ptr()) : nullptr;
  p.num_bags = plan.num_bags;
  p.dim = dim;
  p.padding_idx = padding_idx;
  p.mode = mode;
  p.out = static_cast<char*>(output.data_ptr());
  p.maxima = mode == kEmbeddingBagMax ? maxima.data_ptr<int64_t>() : nullptr;
  cuda::launchEmbeddingBag(weight.scalar_type(), p);
  return embeddingBagResults(plan, mode, output, maxima);
}

Tensor _embedding_bag_dense_backward_cuda(const Tensor& grad, const Tensor& indices, const Tensor& offset2bag,
                                          const Tensor& bag_size, const Tensor& maximum_indices, int64_t num_weights,
                                          bool scale_grad_by_freq, int64_t mode,
                                          const std::optional<Tensor>& per_sample_weights, int64_t padding_idx) {
  const EmbeddingBagGradPlan plan = planDenseBackward(grad, indices, offset2bag, bag_size, maximum_indices,
                                                      num_weights, scale_grad_by_freq, mode, per_sample_weights,
                                                      padding_idx);
  const Device device = grad.device();
  const int64_t dim = grad.size(1);
  const ScalarType acc = cuda::opmathType(grad.scalar_type());
  const Tensor sums = opcore::zeros({num_weights, dim}, grad.options().dtype(acc));
  if (!plan.bags.empty() && dim > 0) {
    const Tensor bags = valuesOn(plan.bags, kLong, device);
    const Tensor rows_of = grad.index_select(0, bags).to(acc);
    if (mode == kEmbeddingBagMax) {
      // column c of bag b into element maxima[b, c] * dim + c of the flattened sums
      const Tensor maxima = valuesOn(plan.maxima, kLong, device).view({-1, dim}).index_select(0, bags);
      const Tensor targets = maxima.mul(dim).add(opcore::arange(dim, maxima.options()));
      sums.view({-1}).index_add_(0, targets.reshape({-1}), rows_of.reshape({-1}));
    } else {
      const Tensor scales = valuesOn(plan.scales, kDouble, device).to(acc).unsqueeze(1);
      sums.index_add_(0, valuesOn(plan.rows, kLong, device), rows_of.mul(scales));
    }
  }
  return sums.to(grad.scalar_type());
}

Tensor _embedding_bag_per_sample_weights_backward_cuda(const Tensor& grad, const Tensor& weight,
                                                       const Tensor& indices, const Tensor& offsets,
                                                       const Tensor& offset2bag, int64_t mode, int64_t padding_idx) {
  const PerSampleWeightsPlan plan = planPerSampleWeightsBackward(grad, weight, indices, offsets, offset2bag, mode);
  const auto n = static_cast<int64_t>(plan.idx.size());
  const int64_t num_bags = grad.size(0);
  // the indices with a bag and a row other than padding_idx; the others' gradient is 0
  std::vector<int64_t> at, rows, bags;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = plan.idx[i], b = plan.bag_of[i];
    if (r == padding_idx || b < 0 || b >= num_bags) continue;
    at.push_back(i);
    rows.push_back(r);
    bags.push_back(b);
  }
  Tensor result = opcore::zeros({n}, grad.options());
  if (at.empty()) return result;
  const Device device = grad.device();
  const ScalarType acc = cuda::opmathType(grad.scalar_type());
  const Tensor products = grad.index_select(0, valuesOn(bags, kLong, device))
                              .to(acc)
                              .mul(weight.index_select(0, valuesOn(rows, kLong, device)).to(acc))
                              .sum(IntArrayRef{1});
  result.scatter_(0, valuesOn(at, kLong, device), products.to(grad.scalar_type()));
  return result;
}

}  // namespace opcore::native

// embedding's gradient on the CPU (embedding_dense_backward) and its Meta kernel: the rows of
// grad_output added into the weight rows their indices name. Every thread takes a range of the
// embedding's columns through all the indices, so the work is even whatever the indices are
// (a vocabulary's few frequent rows take most of a language model's gradient), no two threads
// write one element, and each element's additions run in the order of the indices: the result
// does not depend on the thread count. 16-bit floats are accumulated in float and rounded once;
// float, double and complex in their own type.
#include <opcore/core/Empty.h>
#include <opcore/ops/embedding_dense_backward_native.h>

#include "cpu/Loops.h"

#include <algorithm>
#include <vector>

namespace opcore::native {

namespace {

// PyTorch's checks, with the shapes named: grad_output is indices.shape + [embedding_dim].
void checkEmbeddingBackward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights) {
  const ScalarType t = indices.scalar_type();
  OPCORE_CHECK(t == kLong || t == kInt, "Expected tensor for argument #1 'indices' to have one of the following "
               "scalar types: Long, Int; but got ", t, " instead (while checking arguments for "
               "embedding_backward)");
  const ScalarType dtype = grad_output.scalar_type();
  // PyTorch's CPU kernel also takes integers and bool, through index_add_, where a scaled
  // gradient is truncated (or meaningless); opcore refuses them.
  if (!isFloatingType(dtype) && !isComplexType(dtype)) detail::throwNotImplementedForDtype("embedding_dense_backward", dtype);
  OPCORE_CHECK(num_weights >= 0, "embedding_dense_backward: num_weights must be non-negative, got ", num_weights);
  OPCORE_CHECK(grad_output.dim() == indices.dim() + 1 &&
                   grad_output.sizes().slice(0, static_cast<size_t>(indices.dim())) == indices.sizes(),
               "embedding_dense_backward: expected grad_output of shape indices.shape + [embedding_dim] = ",
               indices.sizes(), " + [embedding_dim], got ", grad_output.sizes());
  OPCORE_CHECK(grad_output.device() == indices.device(), "embedding_dense_backward: expected all tensors to be on "
               "the same device, but found at least two devices, ", grad_output.device(), " and ", indices.device());
}

}  // namespace

Tensor embedding_dense_backward_cpu(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                    int64_t padding_idx, bool scale_grad_by_freq) {
  cpu::checkCpu("embedding_dense_backward", {&grad_output, &indices});
  checkEmbeddingBackward(grad_output, indices, num_weights);
  const int64_t dim = grad_output.size(-1), n = indices.numel();
  const TensorBase longs = cpu::contiguousCopy(cpu::convertTo(indices, kLong));
  const int64_t* idx = longs.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    OPCORE_CHECK_INDEX(idx[i] >= 0 && idx[i] < num_weights, "embedding_dense_backward: index ", idx[i],
                       " is out of range for ", num_weights, " weights");
  }
  // 1 / (the number of times each row is named), when the gradient is scaled by it.
  std::vector<double> inverse_count;
  if (scale_grad_by_freq) {
    inverse_count.assign(static_cast<size_t>(num_weights), 0.0);
    for (int64_t i = 0; i < n; ++i) inverse_count[static_cast<size_t>(idx[i])] += 1;
    for (double& c : inverse_count) c = c > 0 ? 1 / c : 0;
  }
  const ScalarType dtype = grad_output.scalar_type();
  Tensor result = detail::emptyCpu({num_weights, dim}, dtype);
  if (result.numel() == 0) return result;
  const TensorBase grad = cpu::contiguousCopy(grad_output);
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, "embedding_dense_backward", [&] {
    using M = opmath_t<scalar_t>;
    const bool exact = std::is_same_v<M, scalar_t>;
    TensorBase sums = exact ? TensorBase(result) : detail::emptyCpu({num_weights, dim}, CppTypeToScalarType<M>::value);
    M* acc = sums.data_ptr<M>();
    const scalar_t* g = grad.data_ptr<scalar_t>();
    scalar_t* out = result.data_ptr<scalar_t>();
    // Column ranges of at least 16 elements (a 64-byte line of float), and serial when small.
    const int64_t grain = std::max<int64_t>(16, (kGrainSize + n - 1) / std::max<int64_t>(n, 1));
    parallel_for(0, dim, grain, [&](int64_t begin, int64_t end) {
      const size_t width = static_cast<size_t>(end - begin);
      for (int64_t r = 0; r < num_weights; ++r) std::fill_n(acc + r * dim + begin, width, M(0));
      for (int64_t i = 0; i < n; ++i) {
        const int64_t row = idx[i];
        if (row == padding_idx) continue;
        const M scale = scale_grad_by_freq ? static_cast<M>(inverse_count[static_cast<size_t>(row)]) : M(1);
        M* dst = acc + row * dim;
        const scalar_t* src = g + i * dim;
        for (int64_t c = begin; c < end; ++c) dst[c] += static_cast<M>(src[c]) * scale;
      }
      if constexpr (!exact) {
        for (int64_t r = 0; r < num_weights; ++r) {
          for (int64_t c = begin; c < end; ++c) out[r * dim + c] = static_cast<scalar_t>(acc[r * dim + c]);
        }
      }
    });
    (void)out;
  });
  return result;
}

Tensor embedding_dense_backward_meta(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                     int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/) {
  checkEmbeddingBackward(grad_output, indices, num_weights);
  return detail::empty({num_weights, grad_output.size(-1)}, grad_output.scalar_type(), kMeta);
}

}  // namespace opcore::native

// Embedding and dropout written with other operators: embedding, one index_select of the
// flattened indices (its gradient is embedding_dense_backward's, derivatives.yaml);
// embedding_backward, which refuses the sparse gradient opcore has no layout for; dropout and
// dropout_, native_dropout where it draws a mask, the input itself where it does not, and the
// input times a zero of its own dtype for p = 1, as PyTorch's (so every dtype but where a mask
// is drawn).
#include <opcore/core/ScalarType.h>
#include <opcore/ops/dropout_native.h>
#include <opcore/ops/embedding_backward_native.h>
#include <opcore/ops/embedding_dense_backward.h>
#include <opcore/ops/embedding_native.h>
#include <opcore/ops/index_select.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/native_dropout.h>
#include <opcore/ops/zeros.h>

#include <opcore/autograd/GradMode.h>

#include "common/Shape.h"

namespace opcore::native {

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/,
                 bool /*sparse*/) {
  OPCORE_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  const ScalarType t = indices.scalar_type();
  OPCORE_CHECK(t == kLong || t == kInt, "Expected tensor for argument #1 'indices' to have one of the following "
               "scalar types: Long, Int; but got ", t, " instead (while checking arguments for embedding)");
  DimVector shape = indices.sizes().vec();
  shape.push_back(weight.size(1));
  return opcore::index_select(weight, 0, indices.reshape({-1})).view(shape);
}

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx,
                          bool scale_grad_by_freq, bool sparse) {
  OPCORE_CHECK_NOT_IMPLEMENTED(!sparse, "embedding_backward: sparse=True asks for a sparse gradient, and opcore has "
                               "no sparse layout; use sparse=False");
  return opcore::embedding_dense_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq);
}

namespace {

void checkDropoutProbability(double p) {
  OPCORE_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
}

}  // namespace

Tensor dropout(const Tensor& input, double p, bool train) {
  checkDropoutProbability(p);
  if (!train || p == 0 || input.numel() == 0) return input;
  if (p == 1) return opcore::mul(input, opcore::zeros({}, input.options()));
  return std::get<0>(opcore::native_dropout(input, p, train));
}

Tensor& dropout_(Tensor& self, double p, bool train) {
  checkDropoutProbability(p);
  if (!train || p == 0 || self.numel() == 0) return self;
  if (p == 1) return self.mul_(opcore::zeros({}, self.options()));
  Tensor mask;
  {
    // Only the mask is wanted; the scaled copy native_dropout also makes is not recorded.
    autograd::NoGradGuard no_grad;
    mask = std::get<1>(opcore::native_dropout(self, p, train));
  }
  return self.mul_(mask).mul_(1 / (1 - p));
}

}  // namespace opcore::native

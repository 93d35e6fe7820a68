// The CUDA kernels of native_layer_norm and native_layer_norm_backward: the CPU kernels'
// checks, shapes and dtypes (common/LayerNorm.h; Half and BFloat16 computed in float, the
// statistics in the input's dtype), the rows of CudaNormalizationKernels.cu.
#include "CudaOperands.h"

#include "common/LayerNorm.h"

#include <opcore/core/DeviceGuard.h>
#include <opcore/core/Empty.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/native_layer_norm_backward_native.h>
#include <opcore/ops/native_layer_norm_native.h>

#include <array>
#include <tuple>

namespace opcore::native {
namespace {

// weight or bias in the accumulation type, contiguous (undefined when absent).
Tensor parameterIn(const std::optional<Tensor>& p, ScalarType acc) {
  if (!p || !p->defined()) return Tensor();
  return p->to(acc).contiguous();
}

const void* dataOrNull(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_cuda(const Tensor& input, IntArrayRef normalized_shape,
                                                          const std::optional<Tensor>& weight,
                                                          const std::optional<Tensor>& bias, double eps) {
  const LayerNormShape shape = checkLayerNorm(input, normalized_shape, weight, bias);
  const ScalarType dtype = input.scalar_type();
  checkLayerNormDtype("LayerNormKernelImpl", dtype);
  const TensorOptions options = input.options();
  Tensor out = opcore::empty(input.sizes(), options);
  Tensor mean = opcore::empty(shape.stats_shape, options);
  Tensor rstd = opcore::empty(shape.stats_shape, options);
  const ScalarType acc = cuda::opmathType(dtype);
  const Tensor x = input.contiguous();
  const Tensor w = parameterIn(weight, acc), b = parameterIn(bias, acc);
  cuda::LayerNormProblem p;
  p.M = shape.M;
  p.N = shape.N;
  p.x = static_cast<const char*>(x.data_ptr());
  p.weight = dataOrNull(w);
  p.bias = dataOrNull(b);
  cuda::launchLayerNorm(dtype, p, eps, static_cast<char*>(out.data_ptr()), static_cast<char*>(mean.data_ptr()),
                        static_cast<char*>(rstd.data_ptr()));
  return {out, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_cuda(const Tensor& grad_out, const Tensor& input,
                                                                   IntArrayRef normalized_shape, const Tensor& mean,
                                                                   const Tensor& rstd,
                                                                   const std::optional<Tensor>& weight,
                                                                   const std::optional<Tensor>& bias,
                                                                   std::array<bool, 3> output_mask) {
  const LayerNormShape shape = checkLayerNormBackward(grad_out, input, normalized_shape, mean, rstd, weight, bias);
  const ScalarType dtype = input.scalar_type();
  const TensorOptions options = input.options();
  Tensor dx, dw, db;
  if (output_mask[0]) dx = opcore::empty(input.sizes(), options);
  if (output_mask[1]) dw = opcore::empty(normalized_shape, options);
  if (output_mask[2]) db = opcore::empty(normalized_shape, options);
  const ScalarType acc = cuda::opmathType(dtype);
  const Tensor dy = grad_out.to(dtype).contiguous(), x = input.contiguous();
  const Tensor m = mean.to(acc).contiguous(), r = rstd.to(acc).contiguous();
  const Tensor w = parameterIn(weight, acc);
  cuda::LayerNormProblem p;
  p.M = shape.M;
  p.N = shape.N;
  p.x = static_cast<const char*>(x.data_ptr());
  p.weight = dataOrNull(w);
  const auto data = [](const Tensor& t) { return t.defined() ? static_cast<char*>(t.data_ptr()) : nullptr; };
  cuda::launchLayerNormBackward(dtype, p, static_cast<const char*>(dy.data_ptr()), m.data_ptr(), r.data_ptr(),
                                data(dx), data(dw), data(db));
  return {dx, dw, db};
}

}  // namespace opcore::native

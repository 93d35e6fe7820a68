// The CUDA kernels of native_layer_norm and native_layer_norm_backward (the CPU kernels'
// checks, shapes and dtypes, common/LayerNorm.h; Half and BFloat16 computed in float, the
// statistics in the input's dtype; the rows of CudaNormalizationKernels.cu), and of
// native_batch_norm, native_group_norm and their backward operators (the checks of
// common/BatchNorm.h, tensor operations on the GPU: reductions and an affine map).
#include "CudaOperands.h"

#include "common/BatchNorm.h"
#include "common/LayerNorm.h"

#include <opcore/core/DeviceGuard.h>
#include <opcore/core/Empty.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/native_batch_norm_backward_native.h>
#include <opcore/ops/native_batch_norm_native.h>
#include <opcore/ops/native_group_norm_backward_native.h>
#include <opcore/ops/native_group_norm_native.h>
#include <opcore/ops/native_layer_norm_backward_native.h>
#include <opcore/ops/native_layer_norm_native.h>
#include <opcore/ops/ones.h>

#include <array>
#include <limits>
#include <tuple>
#include <vector>

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

// ---- batch norm ------------------------------------------------------------------------------------

namespace {

// A per-channel tensor ([C]) viewed to broadcast along dimension 1 of an input of `dim` dimensions.
Tensor perChannel(const Tensor& t, int64_t dim) {
  std::vector<int64_t> shape(static_cast<size_t>(dim), 1);
  shape[1] = -1;
  return t.reshape(shape);
}

// Every dimension of the input but the channels': what the statistics reduce.
std::vector<int64_t> nonChannelDims(int64_t dim) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < dim; ++d) dims.push_back(d);
  return dims;
}

// weight (or ones) as `like`'s dtype, on its GPU.
Tensor weightIn(const std::optional<Tensor>& weight, int64_t channels, const Tensor& like) {
  return isDefined(weight) ? weight->to(like.scalar_type()) : opcore::ones({channels}, like.options());
}

}  // namespace

// Batch norm as tensor operations on the GPU in the accumulation type (float for 16-bit
// inputs), the CPU kernel's formulas (kernels/cpu/Normalization.cpp): the biased variance
// normalizes, the unbiased one updates running_var, and 1 / sqrt(var + eps) is saved.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_cuda(const Tensor& input, const std::optional<Tensor>& weight,
                                                          const std::optional<Tensor>& bias,
                                                          const std::optional<Tensor>& running_mean,
                                                          const std::optional<Tensor>& running_var, bool training,
                                                          double momentum, double eps) {
  const BatchNormResults r = batchNormResults(input, weight, bias, running_mean, running_var, training);
  const ScalarType acc = cuda::opmathType(input.scalar_type());
  const int64_t channels = input.size(1), dim = input.dim();
  const Tensor x = input.to(acc);
  Tensor mean, invstd;
  if (training) {
    const std::vector<int64_t> dims = nonChannelDims(dim);
    mean = x.mean(dims);
    const Tensor var = x.var(dims, Scalar(0));
    const int64_t count = channels == 0 ? 0 : input.numel() / channels;
    const double unbiased = count > 1 ? static_cast<double>(count) / static_cast<double>(count - 1)
                                      : std::numeric_limits<double>::infinity();
    // Without values the statistics are NaN (0 / 0) and the running ones stay, as on the CPU.
    if (isDefined(running_mean) && count > 0) {
      running_mean->copy_(running_mean->to(acc).mul(1 - momentum).add(mean, momentum));
    }
    if (isDefined(running_var) && count > 0) {
      running_var->copy_(running_var->to(acc).mul(1 - momentum).add(var.mul(unbiased), momentum));
    }
    invstd = var.add(eps).sqrt().reciprocal();
    r.save_mean.copy_(mean);
    r.save_invstd.copy_(invstd);
  } else {
    mean = running_mean->to(acc);
    invstd = running_var->to(acc).add(eps).sqrt().reciprocal();
  }
  Tensor y = x.sub(perChannel(mean, dim)).mul(perChannel(invstd.mul(weightIn(weight, channels, x)), dim));
  if (isDefined(bias)) y = y.add(perChannel(bias->to(acc), dim));
  r.out.copy_(y);
  return {r.out, r.save_mean, r.save_invstd};
}

// With xhat = (x - mean) * invstd per channel: grad_bias = sum(dy), grad_weight = sum(dy *
// xhat), and grad_input = weight * invstd * (dy - sum(dy) / n - xhat * sum(dy * xhat) / n) when
// training (the statistics depend on x), weight * invstd * dy in evaluation.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward_cuda(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  const BatchNormGrads g = batchNormGrads(grad_out, input, weight, running_mean, running_var, save_mean,
                                          save_invstd, train, output_mask);
  const ScalarType acc = cuda::opmathType(input.scalar_type());
  const int64_t channels = input.size(1), dim = input.dim();
  const std::vector<int64_t> dims = nonChannelDims(dim);
  const Tensor x = input.to(acc), dy = grad_out.to(acc);
  const Tensor mean = g.mean->to(acc);
  const Tensor invstd = train ? g.var->to(acc) : g.var->to(acc).add(eps).sqrt().reciprocal();
  const Tensor xhat = x.sub(perChannel(mean, dim)).mul(perChannel(invstd, dim));
  const Tensor sum_dy = dy.sum(dims), dot = dy.mul(xhat).sum(dims);
  if (g.grad_weight.defined()) g.grad_weight.copy_(dot);
  if (g.grad_bias.defined()) g.grad_bias.copy_(sum_dy);
  if (g.grad_input.defined()) {
    const Tensor scale = perChannel(invstd.mul(weightIn(weight, channels, x)), dim);
    if (train) {
      const double n = static_cast<double>(channels == 0 ? 0 : input.numel() / channels);
      g.grad_input.copy_(
          dy.sub(perChannel(sum_dy.div(n), dim)).sub(xhat.mul(perChannel(dot.div(n), dim))).mul(scale));
    } else {
      g.grad_input.copy_(dy.mul(scale));
    }
  }
  return {g.grad_input, g.grad_weight, g.grad_bias};
}

// ---- group norm --------------------------------------------------------------------------------------

// Group norm as tensor operations on the GPU in the accumulation type, the CPU kernel's formulas
// (Note [Group norm rows] in kernels/cpu/Normalization.cpp): each (sample, group) row of
// C / group * HxW elements normalized by its mean and biased variance, then weight and bias per
// channel.
std::tuple<Tensor, Tensor, Tensor> native_group_norm_cuda(const Tensor& input, const std::optional<Tensor>& weight,
                                                          const std::optional<Tensor>& bias, int64_t N, int64_t C,
                                                          int64_t HxW, int64_t group, double eps) {
  const GroupNormResults r = groupNormResults(input, weight, bias, N, C, HxW, group);
  if (N * group == 0) return {r.out, r.mean, r.rstd};
  const Tensor rows = input.to(cuda::opmathType(input.scalar_type())).reshape({N, group, -1});
  const std::vector<int64_t> last{-1};
  const Tensor mean = rows.mean(last, true);
  const Tensor rstd = rows.var(last, Scalar(0), true).add(eps).sqrt().reciprocal();
  Tensor y = rows.sub(mean).mul(rstd).reshape({N, C, HxW});
  if (isDefined(weight)) y = y.mul(weight->to(y.scalar_type()).reshape({C, 1}));
  if (isDefined(bias)) y = y.add(bias->to(y.scalar_type()).reshape({C, 1}));
  r.out.copy_(y.reshape(input.sizes()));
  r.mean.copy_(mean.reshape({N, group}));
  if (rows.size(2) == 0) r.mean.fill_(0);  // an empty row's mean is 0 (its rstd NaN), as on the CPU
  r.rstd.copy_(rstd.reshape({N, group}));
  return {r.out, r.mean, r.rstd};
}

// With xhat the normalized input and g = dy * weight per channel, each row of D elements:
// grad_input = rstd * (g - mean(g) - xhat * mean(g * xhat)); grad_weight = sum(dy * xhat) and
// grad_bias = sum(dy) over the samples and HxW.
std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward_cuda(const Tensor& grad_out, const Tensor& input,
                                                                   const Tensor& mean, const Tensor& rstd,
                                                                   const std::optional<Tensor>& weight, int64_t N,
                                                                   int64_t C, int64_t HxW, int64_t group,
                                                                   std::array<bool, 3> output_mask) {
  const GroupNormGrads g = groupNormGrads(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask);
  if (N * group == 0) {  // no rows: the parameters' gradients are empty sums
    if (g.grad_weight.defined()) g.grad_weight.fill_(0);
    if (g.grad_bias.defined()) g.grad_bias.fill_(0);
    return {g.grad_input, g.grad_weight, g.grad_bias};
  }
  const ScalarType acc = cuda::opmathType(input.scalar_type());
  const Tensor m = mean.to(acc).reshape({N, group, 1}), r = rstd.to(acc).reshape({N, group, 1});
  const Tensor xhat = input.to(acc).reshape({N, group, -1}).sub(m).mul(r).reshape({N, C, HxW});
  const Tensor dy = grad_out.to(acc).reshape({N, C, HxW});
  const std::vector<int64_t> samples_and_positions{0, 2}, last{-1};
  if (g.grad_weight.defined()) g.grad_weight.copy_(dy.mul(xhat).sum(samples_and_positions));
  if (g.grad_bias.defined()) g.grad_bias.copy_(dy.sum(samples_and_positions));
  if (g.grad_input.defined()) {
    const Tensor scaled = isDefined(weight) ? dy.mul(weight->to(acc).reshape({C, 1})) : dy;
    const Tensor gr = scaled.reshape({N, group, -1}), xr = xhat.reshape({N, group, -1});
    const Tensor dx = gr.sub(gr.mean(last, true)).sub(xr.mul(gr.mul(xr).mean(last, true))).mul(r);
    g.grad_input.copy_(dx.reshape(input.sizes()));
  }
  return {g.grad_input, g.grad_weight, g.grad_bias};
}

}  // namespace opcore::native

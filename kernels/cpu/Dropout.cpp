// native_dropout and its backward on the CPU, with their Meta kernels. The mask is drawn from
// the default CPU generator (Note [Philox generator]): element i of the input's row-major
// order is kept when word i % 4 of Philox block i / 4 is below (1 - p) * 2^32, so the mask
// depends only on the generator's state and the input's shape, never on the strides, the
// dtype or the thread count. One pass writes the mask and the scaled output.
#include <opcore/core/Empty.h>
#include <opcore/ops/native_dropout_backward_native.h>
#include <opcore/ops/native_dropout_native.h>

#include "common/Shape.h"
#include "cpu/Loops.h"

#include <cmath>
#include <cstring>

namespace opcore::native {

using cpu::ElementwiseOp;

namespace {

void checkDropout(const Tensor& input, double p) {
  OPCORE_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  const ScalarType t = input.scalar_type();
  if (!isFloatingType(t) && !isComplexType(t)) detail::throwNotImplementedForDtype("native_dropout", t);
}

bool isTraining(std::optional<bool> train) { return !train.has_value() || *train; }

void checkDropoutBackward(const Tensor& grad_output, const Tensor& mask) {
  OPCORE_CHECK(mask.scalar_type() == kBool, "Mask should be Bool Scalar Type ", mask.scalar_type());
  const ScalarType t = grad_output.scalar_type();
  if (!isFloatingType(t) && !isComplexType(t)) detail::throwNotImplementedForDtype("native_dropout_backward", t);
  OPCORE_CHECK(grad_output.device() == mask.device(), "native_dropout_backward: expected all tensors to be on the "
               "same device, but found at least two devices, ", grad_output.device(), " and ", mask.device());
}

}  // namespace

std::tuple<Tensor, Tensor> native_dropout_cpu(const Tensor& input, double p, std::optional<bool> train) {
  cpu::checkCpu("native_dropout", {&input});
  checkDropout(input, p);
  const int64_t n = input.numel();
  Tensor output = detail::emptyCpu(input.sizes(), input.scalar_type());
  Tensor mask = detail::emptyCpu(input.sizes(), kBool);
  if (!isTraining(train)) {
    cpu::copyInto(output, input);
    std::memset(mask.data_ptr(), 1, static_cast<size_t>(n));
    return {output, mask};
  }
  const PhiloxBlocks blocks = generatorOrDefault(std::nullopt, DeviceType::CPU).reserveBlocks((n + 3) / 4);
  if (n == 0) return {output, mask};
  const double keep = 1 - p;
  const uint64_t threshold = static_cast<uint64_t>(std::ldexp(keep, 32));  // 2^32 for p = 0: every word
  const TensorBase src = cpu::contiguousCopy(input);
  bool* m = mask.data_ptr<bool>();
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, input.scalar_type(), "native_dropout", [&] {
    using M = opmath_t<scalar_t>;
    const M scale = static_cast<M>(keep == 0 ? 0.0 : 1 / keep);
    const scalar_t* in = src.data_ptr<scalar_t>();
    scalar_t* out = output.data_ptr<scalar_t>();
    parallel_for(0, (n + 3) / 4, kGrainSize / 4, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const auto words = blocks.block(static_cast<uint64_t>(b));
        for (int64_t j = 0, i = 4 * b; j < 4 && i < n; ++j, ++i) {
          const bool kept = words[static_cast<size_t>(j)] < threshold;
          m[i] = kept;
          // A product, as PyTorch's input * mask * scale: a dropped NaN stays NaN.
          out[i] = static_cast<scalar_t>(static_cast<M>(in[i]) * (static_cast<M>(kept) * scale));
        }
      }
    });
  });
  return {output, mask};
}

std::tuple<Tensor, Tensor> native_dropout_meta(const Tensor& input, double p, std::optional<bool> /*train*/) {
  checkDropout(input, p);
  return {detail::empty(input.sizes(), input.scalar_type(), kMeta), detail::empty(input.sizes(), kBool, kMeta)};
}

Tensor native_dropout_backward_cpu(const Tensor& grad_output, const Tensor& mask, double scale) {
  cpu::checkCpu("native_dropout_backward", {&grad_output, &mask});
  checkDropoutBackward(grad_output, mask);
  const ScalarType dtype = grad_output.scalar_type();
  ElementwiseOp op("native_dropout_backward", TensorBase(), dtype, {{grad_output, dtype}, {mask, kBool}});
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, "native_dropout_backward", [&] {
    using M = opmath_t<scalar_t>;
    const M s = static_cast<M>(scale);
    op.run<scalar_t, scalar_t, bool>([s](M g, bool kept) { return g * (static_cast<M>(kept) * s); });
  });
  return Tensor(op.output());
}

Tensor native_dropout_backward_meta(const Tensor& grad_output, const Tensor& mask, double /*scale*/) {
  checkDropoutBackward(grad_output, mask);
  return detail::empty(broadcastShapes(grad_output.sizes(), mask.sizes()), grad_output.scalar_type(), kMeta);
}

}  // namespace opcore::native

// The meta functions of the structured reflection and replication paddings (Note [Structured
// kernels] in gen/api/structured.py) and the checks they share with the CPU kernels
// (common/Resample.h), with PyTorch's messages.
#include <opcore/ops/reflection_pad1d_backward_native.h>
#include <opcore/ops/reflection_pad1d_native.h>
#include <opcore/ops/reflection_pad2d_backward_native.h>
#include <opcore/ops/reflection_pad2d_native.h>
#include <opcore/ops/reflection_pad3d_backward_native.h>
#include <opcore/ops/reflection_pad3d_native.h>
#include <opcore/ops/replication_pad1d_backward_native.h>
#include <opcore/ops/replication_pad1d_native.h>
#include <opcore/ops/replication_pad2d_backward_native.h>
#include <opcore/ops/replication_pad2d_native.h>
#include <opcore/ops/replication_pad3d_backward_native.h>
#include <opcore/ops/replication_pad3d_native.h>

#include "common/Resample.h"

namespace opcore::native {

namespace {

bool isPaddable(ScalarType t) {
  return t == kFloat || t == kDouble || t == kHalf || t == kBFloat16 || t == kComplexFloat || t == kComplexDouble;
}

}  // namespace

PadShape checkPad(const char* name, const Tensor& self, IntArrayRef padding, PadMode mode, int spatial) {
  OPCORE_CHECK(static_cast<int>(padding.size()) == 2 * spatial, "padding size is expected to be ", 2 * spatial);
  const int64_t dims = self.dim();
  bool valid = dims == spatial + 1 || dims == spatial + 2;
  for (int64_t d = dims - spatial - 1; valid && d < dims; ++d) valid = self.size(d) != 0;
  const char* what = spatial == 1 ? "2D or 3D" : spatial == 2 ? "3D or 4D" : "4D or 5D";
  if (mode == PadMode::kReflect && spatial < 3) {
    OPCORE_CHECK(valid, what, " (batch mode) tensor expected for input, but got: ", self.sizes());
  } else {
    OPCORE_CHECK(valid, "Expected ", what, " (batch mode) tensor with possibly 0 batch size and other non-zero "
                 "dimensions for input, but got: ", self.sizes());
  }
  if (!isPaddable(self.scalar_type())) detail::throwNotImplementedForDtype(name, self.scalar_type());
  // (left, right) of the width, then (top, bottom) of the height, then (front, back) of the depth
  auto size = [&](int axis) { return axis < spatial ? self.size(dims - 1 - axis) : 1; };
  auto pad = [&](int axis, int side) { return axis < spatial ? padding[static_cast<size_t>(2 * axis + side)] : 0; };
  if (mode == PadMode::kReflect) {
    for (int axis = 0; axis < spatial; ++axis) {
      OPCORE_CHECK(pad(axis, 0) < size(axis) && pad(axis, 1) < size(axis), "Argument #", 4 + 2 * axis,
                   ": Padding size should be less than the corresponding input dimension, but got: padding (",
                   pad(axis, 0), ", ", pad(axis, 1), ") at dimension ", dims - 1 - axis, " of input ", self.sizes());
    }
  }
  PadShape p{mode, spatial, 0, size(2), size(1), size(0), size(2) + pad(2, 0) + pad(2, 1),
             size(1) + pad(1, 0) + pad(1, 1), size(0) + pad(0, 0) + pad(0, 1), pad(2, 0), pad(1, 0), pad(0, 0),
             self.sizes().vec()};
  if (spatial == 1) {
    OPCORE_CHECK(p.out_width >= 1, "input (W: ", p.width, ") is too small. Calculated output W: ", p.out_width);
  } else if (spatial == 2) {
    OPCORE_CHECK(p.out_width >= 1 && p.out_height >= 1, "input (H: ", p.height, ", W: ", p.width,
                 ") is too small. Calculated output H: ", p.out_height, " W: ", p.out_width);
  } else {
    OPCORE_CHECK(p.out_width >= 1 && p.out_height >= 1 && p.out_depth >= 1, "input (D: ", p.depth, " H: ", p.height,
                 ", W: ", p.width, ") is too small. Calculated output D: ", p.out_depth, " H: ", p.out_height, " W: ",
                 p.out_width);
  }
  const int64_t out[] = {p.out_width, p.out_height, p.out_depth};
  for (int axis = 0; axis < spatial; ++axis) p.output_sizes[static_cast<size_t>(dims - 1 - axis)] = out[axis];
  p.planes = self.numel() / (p.depth * p.height * p.width);
  return p;
}

void checkPadGradOutput(const PadShape& p, const Tensor& grad_output, const Tensor& self) {
  OPCORE_CHECK(grad_output.dim() == self.dim(), "Expected grad_output of ", self.dim(), " dimensions (",
               IntArrayRef(p.output_sizes), "), but got: ", grad_output.sizes());
  // PyTorch's words: the 3-d paddings say grad_output, the others gradOutput
  const char* grad = p.spatial == 3 ? "grad_output" : "gradOutput";
  OPCORE_CHECK(grad_output.size(-1) == p.out_width, grad, " width unexpected. Expected: ", p.out_width, ", Got: ",
               grad_output.size(-1));
  OPCORE_CHECK(p.spatial < 2 || grad_output.size(-2) == p.out_height, grad, " height unexpected. Expected: ",
               p.out_height, ", Got: ", grad_output.size(-2));
  OPCORE_CHECK(p.spatial < 3 || grad_output.size(-3) == p.out_depth, grad, " depth unexpected. Expected: ",
               p.out_depth, ", Got: ", grad_output.size(-3));
  OPCORE_CHECK(grad_output.sizes() == IntArrayRef(p.output_sizes), "Expected grad_output of size ",
               IntArrayRef(p.output_sizes), ", but got: ", grad_output.sizes());
  OPCORE_CHECK(grad_output.scalar_type() == self.scalar_type(), "expected scalar type ", self.scalar_type(),
               " but found ", grad_output.scalar_type());
}

}  // namespace opcore::native

namespace opcore::meta {

namespace {

TensorSpec padded(const Tensor& self, IntArrayRef padding, native::PadMode mode, int spatial, const char* name) {
  const native::PadShape p = native::checkPad(name, self, padding, mode, spatial);
  return TensorSpec{p.output_sizes, self.scalar_type(), self.device(), /*exact_dtype=*/true};
}

TensorSpec padGrad(const Tensor& grad_output, const Tensor& self, IntArrayRef padding, native::PadMode mode,
                   int spatial, const char* name) {
  const native::PadShape p = native::checkPad(name, self, padding, mode, spatial);
  native::checkPadGradOutput(p, grad_output, self);
  return TensorSpec{self.sizes().vec(), self.scalar_type(), self.device(), /*exact_dtype=*/true};
}

}  // namespace

reflection_pad1d_out reflection_pad1d(const Tensor& self, IntArrayRef padding) {
  return {padded(self, padding, native::PadMode::kReflect, 1, "reflection_pad1d")};
}

reflection_pad2d_out reflection_pad2d(const Tensor& self, IntArrayRef padding) {
  return {padded(self, padding, native::PadMode::kReflect, 2, "reflection_pad2d")};
}

replication_pad1d_out replication_pad1d(const Tensor& self, IntArrayRef padding) {
  return {padded(self, padding, native::PadMode::kReplicate, 1, "replication_pad1d")};
}

replication_pad2d_out replication_pad2d(const Tensor& self, IntArrayRef padding) {
  return {padded(self, padding, native::PadMode::kReplicate, 2, "replication_pad2d")};
}

reflection_pad3d_out reflection_pad3d(const Tensor& self, IntArrayRef padding) {
  return {padded(self, padding, native::PadMode::kReflect, 3, "reflection_pad3d")};
}

replication_pad3d_out replication_pad3d(const Tensor& self, IntArrayRef padding) {
  return {padded(self, padding, native::PadMode::kReplicate, 3, "replication_pad3d")};
}

reflection_pad1d_backward_grad_input reflection_pad1d_backward(const Tensor& grad_output, const Tensor& self,
                                                               IntArrayRef padding) {
  return {padGrad(grad_output, self, padding, native::PadMode::kReflect, 1, "reflection_pad1d_backward")};
}

reflection_pad2d_backward_grad_input reflection_pad2d_backward(const Tensor& grad_output, const Tensor& self,
                                                               IntArrayRef padding) {
  return {padGrad(grad_output, self, padding, native::PadMode::kReflect, 2, "reflection_pad2d_backward")};
}

replication_pad1d_backward_grad_input replication_pad1d_backward(const Tensor& grad_output, const Tensor& self,
                                                                 IntArrayRef padding) {
  return {padGrad(grad_output, self, padding, native::PadMode::kReplicate, 1, "replication_pad1d_backward")};
}

replication_pad2d_backward_grad_input replication_pad2d_backward(const Tensor& grad_output, const Tensor& self,
                                                                 IntArrayRef padding) {
  return {padGrad(grad_output, self, padding, native::PadMode::kReplicate, 2, "replication_pad2d_backward")};
}

reflection_pad3d_backward_grad_input reflection_pad3d_backward(const Tensor& grad_output, const Tensor& self,
                                                               IntArrayRef padding) {
  return {padGrad(grad_output, self, padding, native::PadMode::kReflect, 3, "reflection_pad3d_backward")};
}

replication_pad3d_backward_grad_input replication_pad3d_backward(const Tensor& grad_output, const Tensor& self,
                                                                 IntArrayRef padding) {
  return {padGrad(grad_output, self, padding, native::PadMode::kReplicate, 3, "replication_pad3d_backward")};
}

}  // namespace opcore::meta

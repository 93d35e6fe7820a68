// The meta functions of the structured reflection and replication paddings (Note [Structured
// kernels] in gen/api/structured.py) and the checks they share with the CPU kernels
// (common/Resample.h), with PyTorch's messages.
#include <opcore/ops/reflection_pad1d_backward_native.h>
#include <opcore/ops/reflection_pad1d_native.h>
#include <opcore/ops/reflection_pad2d_backward_native.h>
#include <opcore/ops/reflection_pad2d_native.h>
#include <opcore/ops/replication_pad1d_backward_native.h>
#include <opcore/ops/replication_pad1d_native.h>
#include <opcore/ops/replication_pad2d_backward_native.h>
#include <opcore/ops/replication_pad2d_native.h>

#include "common/Resample.h"

namespace opcore::native {

namespace {

bool isPaddable(ScalarType t) {
  return t == kFloat || t == kDouble || t == kHalf || t == kBFloat16 || t == kComplexFloat || t == kComplexDouble;
}

}  // namespace

Pad2d checkPad(const char* name, const Tensor& self, IntArrayRef padding, PadMode mode, int spatial) {
  OPCORE_CHECK(static_cast<int>(padding.size()) == 2 * spatial, "padding size is expected to be ", 2 * spatial);
  const int64_t dims = self.dim();
  bool valid = dims == spatial + 1 || dims == spatial + 2;
  for (int64_t d = dims - spatial - 1; valid && d < dims; ++d) valid = self.size(d) != 0;
  if (mode == PadMode::kReflect) {
    OPCORE_CHECK(valid, spatial == 1 ? "2D or 3D" : "3D or 4D", " (batch mode) tensor expected for input, but got: ",
                 self.sizes());
  } else {
    OPCORE_CHECK(valid, "Expected ", spatial == 1 ? "2D or 3D" : "3D or 4D", " (batch mode) tensor with possibly 0 "
                 "batch size and other non-zero dimensions for input, but got: ", self.sizes());
  }
  if (!isPaddable(self.scalar_type())) detail::throwNotImplementedForDtype(name, self.scalar_type());
  Pad2d p{mode, spatial, 0, spatial == 2 ? self.size(-2) : 1, self.size(-1), 0, 0, spatial == 2 ? padding[2] : 0, padding[0],
          self.sizes().vec()};
  const int64_t pad_right = padding[1], pad_bottom = spatial == 2 ? padding[3] : 0;
  if (mode == PadMode::kReflect) {
    OPCORE_CHECK(p.pad_left < p.width && pad_right < p.width, "Argument #4: Padding size should be less than the "
                 "corresponding input dimension, but got: padding (", p.pad_left, ", ", pad_right, ") at dimension ",
                 dims - 1, " of input ", self.sizes());
    OPCORE_CHECK(spatial == 1 || (p.pad_top < p.height && pad_bottom < p.height), "Argument #6: Padding size should "
                 "be less than the corresponding input dimension, but got: padding (", p.pad_top, ", ", pad_bottom,
                 ") at dimension ", dims - 2, " of input ", self.sizes());
  }
  p.out_width = p.width + p.pad_left + pad_right;
  p.out_height = p.height + p.pad_top + pad_bottom;
  if (spatial == 1) {
    OPCORE_CHECK(p.out_width >= 1, "input (W: ", p.width, ") is too small. Calculated output W: ", p.out_width);
  } else {
    OPCORE_CHECK(p.out_width >= 1 && p.out_height >= 1, "input (H: ", p.height, ", W: ", p.width,
                 ") is too small. Calculated output H: ", p.out_height, " W: ", p.out_width);
    p.output_sizes[static_cast<size_t>(dims - 2)] = p.out_height;
  }
  p.output_sizes[static_cast<size_t>(dims - 1)] = p.out_width;
  p.planes = self.numel() / (p.height * p.width);
  return p;
}

void checkPadGradOutput(const Pad2d& p, const Tensor& grad_output, const Tensor& self) {
  OPCORE_CHECK(grad_output.dim() == self.dim(), "Expected grad_output of ", self.dim(), " dimensions (",
               IntArrayRef(p.output_sizes), "), but got: ", grad_output.sizes());
  OPCORE_CHECK(grad_output.size(-1) == p.out_width, "gradOutput width unexpected. Expected: ", p.out_width, ", Got: ",
               grad_output.size(-1));
  OPCORE_CHECK(p.spatial == 1 || grad_output.size(-2) == p.out_height, "gradOutput height unexpected. Expected: ",
               p.out_height, ", Got: ", grad_output.size(-2));
  OPCORE_CHECK(grad_output.sizes() == IntArrayRef(p.output_sizes), "Expected grad_output of size ",
               IntArrayRef(p.output_sizes), ", but got: ", grad_output.sizes());
  OPCORE_CHECK(grad_output.scalar_type() == self.scalar_type(), "expected scalar type ", self.scalar_type(),
               " but found ", grad_output.scalar_type());
}

}  // namespace opcore::native

namespace opcore::meta {

namespace {

TensorSpec padded(const Tensor& self, IntArrayRef padding, native::PadMode mode, int spatial, const char* name) {
  const native::Pad2d p = native::checkPad(name, self, padding, mode, spatial);
  return TensorSpec{p.output_sizes, self.scalar_type(), self.device(), /*exact_dtype=*/true};
}

TensorSpec padGrad(const Tensor& grad_output, const Tensor& self, IntArrayRef padding, native::PadMode mode,
                   int spatial, const char* name) {
  const native::Pad2d p = native::checkPad(name, self, padding, mode, spatial);
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

}  // namespace opcore::meta

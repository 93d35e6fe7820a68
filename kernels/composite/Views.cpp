// Composite view and copy operators: reshape (a view when possible, else a copy), t,
// clone, the two overloads of to (dtype, device), and conj, real, imag. contiguous is in
// MemoryFormat.cpp.
#include <opcore/ops/_to_copy.h>
#include <opcore/ops/clone.h>
#include <opcore/ops/clone_native.h>
#include <opcore/ops/conj_native.h>
#include <opcore/ops/conj_physical.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/imag_native.h>
#include <opcore/ops/real_native.h>
#include <opcore/ops/reshape.h>
#include <opcore/ops/reshape_native.h>
#include <opcore/ops/select.h>
#include <opcore/ops/t.h>
#include <opcore/ops/t_native.h>
#include <opcore/ops/to_native.h>
#include <opcore/ops/transpose.h>
#include <opcore/ops/view_as_real.h>

#include "common/Shape.h"

namespace opcore::native {

namespace {

// A new tensor on `device` with self's shape and values, converted to `dtype`.
Tensor copyTo(const Tensor& self, ScalarType dtype, Device device) {
  Tensor out = opcore::empty(self.sizes(), dtype, std::nullopt, device);
  if (!device.is_meta()) out.copy_(self);  // a Meta tensor has no values to copy
  return out;
}

bool sameDevice(Device have, Device want) {
  return have.type() == want.type() && (want.index() < 0 || want.index() == have.index());
}

}  // namespace

Tensor reshape(const Tensor& self, IntArrayRef shape) {
  const DimVector sizes = inferSize(shape, self.numel());
  if (computeViewStrides(self.sizes(), self.strides(), sizes)) return self.view(sizes);
  return opcore::clone(self).view(sizes);
}

Tensor t(const Tensor& self) {
  OPCORE_CHECK(self.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ",
               self.dim(), "D");
  return opcore::transpose(self, 0, self.dim() < 2 ? 0 : 1);
}

Tensor clone(const Tensor& self) { return copyTo(self, self.scalar_type(), self.device()); }

// `self` when nothing changes and no copy is asked for; else _to_copy's copy (which keeps self's
// strides where it can, and pins the result of a non-blocking copy to the CPU).
Tensor to(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy) {
  if (dtype == self.scalar_type() && !copy) return self;
  return opcore::_to_copy(self, dtype, std::nullopt, std::nullopt, std::nullopt, non_blocking, std::nullopt);
}

Tensor to(const Tensor& self, Device device, std::optional<ScalarType> dtype, bool non_blocking, bool copy) {
  const ScalarType target = dtype.value_or(self.scalar_type());
  if (sameDevice(self.device(), device) && target == self.scalar_type() && !copy) return self;
  return opcore::_to_copy(self, target, std::nullopt, device, std::nullopt, non_blocking, std::nullopt);
}

// Complex numbers, as in PyTorch except that conj is eager (no conjugate bit; docs/dtypes.md).
Tensor conj(const Tensor& self) { return isComplexType(self.scalar_type()) ? opcore::conj_physical(self) : self; }

Tensor real(const Tensor& self) {
  return isComplexType(self.scalar_type()) ? opcore::view_as_real(self).select(-1, 0) : self;
}

Tensor imag(const Tensor& self) {
  OPCORE_CHECK(isComplexType(self.scalar_type()), "imag is not implemented for tensors with non-complex dtypes.");
  return opcore::view_as_real(self).select(-1, 1);
}

}  // namespace opcore::native

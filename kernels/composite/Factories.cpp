// Composite factories: zeros, ones, full (dtype inferred from the fill value) and arange,
// built on empty + fill_ / arange.out so that they work on every backend; the *_like ones on
// empty_like (laid out as it lays them out), the new_* ones in self's dtype and on its device.
#include <opcore/ops/arange.h>
#include <opcore/ops/arange_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/empty_native.h>
#include <opcore/ops/randperm.h>
#include <opcore/ops/randperm_native.h>
#include <opcore/ops/full.h>
#include <opcore/ops/full_native.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/ones_native.h>
#include <opcore/ops/zeros.h>
#include <opcore/ops/zeros_native.h>
#include <opcore/ops/_local_scalar_dense.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/copy_native.h>
#include <opcore/ops/empty_like.h>
#include <opcore/ops/eye.h>
#include <opcore/ops/eye_native.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/fill_native.h>
#include <opcore/ops/full_like_native.h>
#include <opcore/ops/linspace.h>
#include <opcore/ops/linspace_native.h>
#include <opcore/ops/new_empty_native.h>
#include <opcore/ops/new_empty_strided_native.h>
#include <opcore/ops/new_full_native.h>
#include <opcore/ops/new_ones_native.h>
#include <opcore/ops/new_zeros_native.h>
#include <opcore/ops/ones_like_native.h>
#include <opcore/ops/zeros_like_native.h>
#include <opcore/ops/empty_strided.h>
#include <opcore/ops/scalar_tensor_native.h>

#include "common/Shape.h"

#include <opcore/core/Empty.h>

namespace opcore::native {

namespace {

// full()'s dtype when none is given, as in PyTorch: bool -> Bool, int -> Long, float ->
// the default float dtype.
ScalarType dtypeOfFillValue(const Scalar& s) {
  if (s.isBoolean()) return ScalarType::Bool;
  if (s.isComplex()) return kDefaultComplex;
  return s.isIntegral(/*include_bool=*/false) ? ScalarType::Long : kDefaultFloat;
}

// full, zeros and ones: a new strided tensor filled with `value` (`name` in the layout's error).
Tensor filled(const char* name, IntArrayRef size, const Scalar& value, ScalarType dtype, std::optional<Layout> layout,
              std::optional<Device> device, std::optional<bool> pin_memory) {
  detail::checkStridedLayout(name, layout);
  Tensor out = opcore::empty(size, dtype, layout, device, pin_memory);
  out.fill_(value);
  return out;
}

}  // namespace

Tensor full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory) {
  return filled("full", size, fill_value, dtype.value_or(dtypeOfFillValue(fill_value)), layout, device, pin_memory);
}

Tensor zeros(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory) {
  return filled("zeros", size, Scalar(0), dtype.value_or(kDefaultFloat), layout, device, pin_memory);
}

Tensor ones(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory) {
  return filled("ones", size, Scalar(1), dtype.value_or(kDefaultFloat), layout, device, pin_memory);
}

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype,
              std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  detail::checkStridedLayout("arange", layout);
  const bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  const int64_t length = arangeLength(start, end, step);
  Tensor out =
      opcore::empty({length}, dtype.value_or(integral ? ScalarType::Long : kDefaultFloat), layout, device, pin_memory);
  opcore::arange_outf(start, end, step, out);
  return out;
}

Tensor arange(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Layout> layout,
              std::optional<Device> device, std::optional<bool> pin_memory) {
  return native::arange(Scalar(0), end, Scalar(1), dtype, layout, device, pin_memory);
}

Tensor arange(const Scalar& start, const Scalar& end, std::optional<ScalarType> dtype, std::optional<Layout> layout,
              std::optional<Device> device, std::optional<bool> pin_memory) {
  return native::arange(start, end, Scalar(1), dtype, layout, device, pin_memory);
}

// Core ATen part 1 (issue #33): factories and conversions.

Tensor& fill_(Tensor& self, const Tensor& value) {
  OPCORE_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
               " dimensions.");
  if (self.is_meta()) return self;
  return self.fill_(opcore::_local_scalar_dense(value));
}

Tensor& full_out(IntArrayRef size, const Scalar& fill_value, Tensor& out) {
  detail::resizeOutput(out, size);
  return out.fill_(fill_value);
}

Tensor& zeros_out(IntArrayRef size, Tensor& out) { return native::full_out(size, Scalar(0), out); }

Tensor& ones_out(IntArrayRef size, Tensor& out) { return native::full_out(size, Scalar(1), out); }

Tensor& arange_out(const Scalar& end, Tensor& out) { return opcore::arange_outf(Scalar(0), end, Scalar(1), out); }

Tensor& empty_out(IntArrayRef size, std::optional<MemoryFormat> memory_format, Tensor& out) {
  OPCORE_CHECK(memory_format != MemoryFormat::Preserve, "empty: preserve_format names no layout");
  detail::resizeOutput(out, size);
  if (memory_format && *memory_format != MemoryFormat::Contiguous) {
    out.unsafeGetTensorImpl()->setSizesAndStrides(size, contiguousStrides(size, *memory_format), out.storage_offset());
  }
  return out;
}

Tensor randperm(int64_t n, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  OPCORE_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  detail::checkStridedLayout("randperm", layout);
  Tensor out = opcore::empty({n}, dtype.value_or(ScalarType::Long), layout, device, pin_memory);
  return opcore::randperm_outf(n, generator, out);
}

namespace {

Tensor filledLike(const Tensor& self, const Scalar& value, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  Tensor out = opcore::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  if (!out.device().is_meta()) out.fill_(value);
  return out;
}

}  // namespace

Tensor full_like(const Tensor& self, const Scalar& fill_value, std::optional<ScalarType> dtype,
                 std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return filledLike(self, fill_value, dtype, layout, device, pin_memory, memory_format);
}

Tensor zeros_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return filledLike(self, Scalar(0), dtype, layout, device, pin_memory, memory_format);
}

Tensor ones_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return filledLike(self, Scalar(1), dtype, layout, device, pin_memory, memory_format);
}

// The new_* factories: what is not given is self's (dtype, device), as PyTorch's.
Tensor new_empty(const Tensor& self, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory) {
  return opcore::empty(size, dtype.value_or(self.scalar_type()), layout, device.value_or(self.device()), pin_memory,
                       std::nullopt);
}

Tensor new_empty_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                         std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return opcore::empty_strided(size, stride, dtype.value_or(self.scalar_type()), layout,
                               device.value_or(self.device()), pin_memory);
}

Tensor new_full(const Tensor& self, IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype,
                std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  Tensor out = native::new_empty(self, size, dtype, layout, device, pin_memory);
  if (!out.device().is_meta()) out.fill_(fill_value);
  return out;
}

Tensor new_zeros(const Tensor& self, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory) {
  return native::new_full(self, size, Scalar(0), dtype, layout, device, pin_memory);
}

Tensor new_ones(const Tensor& self, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory) {
  return native::new_full(self, size, Scalar(1), dtype, layout, device, pin_memory);
}

Tensor scalar_tensor(const Scalar& s, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                     std::optional<Device> device, std::optional<bool> pin_memory) {
  detail::checkStridedLayout("scalar_tensor", layout);
  Tensor out = opcore::empty({}, dtype.value_or(kDefaultFloat), layout, device, pin_memory);
  if (!out.device().is_meta()) out.fill_(s);
  return out;
}

Tensor eye(int64_t n, int64_t m, std::optional<ScalarType> dtype, std::optional<Layout> layout,
           std::optional<Device> device, std::optional<bool> pin_memory) {
  OPCORE_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  OPCORE_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  detail::checkStridedLayout("eye", layout);
  Tensor out = opcore::empty({n, m}, dtype.value_or(kDefaultFloat), layout, device, pin_memory);
  if (!out.device().is_meta()) opcore::eye_outf(n, m, out);
  return out;
}

Tensor eye(int64_t n, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
           std::optional<bool> pin_memory) {
  return native::eye(n, n, dtype, layout, device, pin_memory);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType> dtype,
                std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  OPCORE_CHECK(steps >= 0, "number of steps must be non-negative");
  detail::checkStridedLayout("linspace", layout);
  const ScalarType fallback = start.isComplex() || end.isComplex() ? kDefaultComplex : kDefaultFloat;
  Tensor out = opcore::empty({steps}, dtype.value_or(fallback), layout, device, pin_memory);
  if (!out.device().is_meta()) opcore::linspace_outf(start, end, steps, out);
  return out;
}

Tensor copy(const Tensor& self, const Tensor& src, bool non_blocking) {
  Tensor out = opcore::empty_like(self, std::nullopt, std::nullopt, std::nullopt, std::nullopt, MemoryFormat::Preserve);
  if (!out.device().is_meta()) out.copy_(src, non_blocking);
  return out;
}

}  // namespace opcore::native

// Composite factories: zeros, ones, full (dtype inferred from the fill value) and arange,
// built on empty + fill_ / arange.out so that they work on every backend.
#include <opcore/ops/arange.h>
#include <opcore/ops/arange_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/full.h>
#include <opcore/ops/full_native.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/ones_native.h>
#include <opcore/ops/zeros.h>
#include <opcore/ops/zeros_native.h>

#include "common/Shape.h"

namespace opcore::native {

namespace {

// full()'s dtype when none is given, as in PyTorch: bool -> Bool, int -> Long, float ->
// the default float dtype.
ScalarType dtypeOfFillValue(const Scalar& s) {
  if (s.isBoolean()) return ScalarType::Bool;
  if (s.isComplex()) return kDefaultComplex;
  return s.isIntegral(/*include_bool=*/false) ? ScalarType::Long : kDefaultFloat;
}

}  // namespace

Tensor full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype,
            std::optional<Device> device) {
  Tensor out = opcore::empty(size, dtype.value_or(dtypeOfFillValue(fill_value)), device);
  out.fill_(fill_value);
  return out;
}

Tensor zeros(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return native::full(size, Scalar(0), dtype.value_or(kDefaultFloat), device);
}

Tensor ones(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return native::full(size, Scalar(1), dtype.value_or(kDefaultFloat), device);
}

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              std::optional<ScalarType> dtype, std::optional<Device> device) {
  const bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  const int64_t length = arangeLength(start, end, step);
  Tensor out = opcore::empty({length}, dtype.value_or(integral ? ScalarType::Long : kDefaultFloat), device);
  opcore::arange_outf(start, end, step, out);
  return out;
}

Tensor arange(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return native::arange(Scalar(0), end, Scalar(1), dtype, device);
}

}  // namespace opcore::native

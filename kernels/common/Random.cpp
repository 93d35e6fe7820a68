// The random operators' argument checks (Random.h) and their Meta kernels, which check and
// draw nothing: a Meta tensor has no values, and the generator's state does not move.
#include "common/Random.h"

#include <opcore/ops/normal_native.h>
#include <opcore/ops/randperm_native.h>
#include <opcore/ops/uniform_native.h>

#include <opcore/core/Empty.h>

#include <cmath>
#include <limits>

namespace opcore::native {

void checkFloatingOutput(const char* name, const TensorBase& self) {
  OPCORE_CHECK(isFloatingType(self.scalar_type()), name, ": expected a floating-point tensor, got dtype ",
               toString(self.scalar_type()));
}

void checkUniformBounds(const char* name, double from, double to) {
  OPCORE_CHECK(std::isfinite(from) && std::isfinite(to), name, ": expects finite bounds, got from=", from,
               " and to=", to);
  OPCORE_CHECK(from <= to, name, ": expects to return a [from, to) range, but found from=", from, " > to=", to);
}

void checkNormalParameters(const char* name, double mean, double stddev) {
  OPCORE_CHECK(std::isfinite(mean), name, ": expects a finite mean, got ", mean);
  OPCORE_CHECK(std::isfinite(stddev) && stddev >= 0.0, name, ": expects a finite stddev >= 0, got ", stddev);
}

void checkRandpermOutput(int64_t n, const TensorBase& out) {
  OPCORE_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  const ScalarType type = out.scalar_type();
  OPCORE_CHECK(type != ScalarType::Bool && !isComplexType(type), "\"randperm\" not implemented for '", toString(type),
               "'");
  // The largest count whose values 0 .. n - 1 the dtype holds exactly: 2^digits for floating
  // dtypes (digits of the significand), max + 1 for integral ones.
  int64_t limit = 0;
  switch (type) {
    case ScalarType::Byte: limit = 256; break;
    case ScalarType::Char: limit = 128; break;
    case ScalarType::Short: limit = 32768; break;
    case ScalarType::Int: limit = int64_t{1} << 31; break;
    case ScalarType::Half: limit = int64_t{1} << 11; break;
    case ScalarType::BFloat16: limit = int64_t{1} << 8; break;
    case ScalarType::Float: limit = int64_t{1} << 24; break;
    case ScalarType::Double: limit = int64_t{1} << 53; break;
    default: limit = std::numeric_limits<int64_t>::max(); break;
  }
  OPCORE_CHECK(n <= limit, "randperm: n = ", n, " is too large for a result of dtype ", toString(type),
               ", which holds the values 0 .. n - 1 exactly only up to n = ", limit);
}

void checkGeneratorDevice(const char* name, const std::optional<Generator>& generator, Device device) {
  if (!generator || !generator->defined()) return;
  OPCORE_CHECK(generator->device().type() == device.type(), name, ": expected a generator on ",
               toString(device.type()), " for a tensor on ", device, ", got one on ", generator->device());
}

Tensor& uniform_meta_(Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  checkFloatingOutput("uniform_", self);
  checkUniformBounds("uniform_", from, to);
  checkGeneratorDevice("uniform_", generator, self.device());
  return self;
}

Tensor& normal_meta_(Tensor& self, double mean, double stddev, const std::optional<Generator>& generator) {
  checkFloatingOutput("normal_", self);
  checkNormalParameters("normal_", mean, stddev);
  checkGeneratorDevice("normal_", generator, self.device());
  return self;
}


Tensor& randperm_out_meta(int64_t n, const std::optional<Generator>& generator, Tensor& out) {
  checkRandpermOutput(n, out);
  checkGeneratorDevice("randperm", generator, out.device());
  detail::resizeOutput(out, {n});
  return out;
}

}  // namespace opcore::native

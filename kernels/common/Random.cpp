// The random operators' argument checks (Random.h) and their Meta kernels, which check and
// draw nothing: a Meta tensor has no values, and the generator's state does not move.
#include "common/Random.h"

#include <opcore/ops/normal_native.h>
#include <opcore/ops/uniform_native.h>

#include <cmath>

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

}  // namespace opcore::native

// Argument checks shared by every backend's random kernels (uniform_, normal_), so that the
// CPU and Meta kernels reject the same calls with the same messages.
//   checkUniformBounds("uniform_", from, to);
#pragma once

#include <opcore/core/TensorBase.h>
#include <opcore/core/TensorFwd.h>

namespace opcore::native {

// `self` must have a floating dtype.
void checkFloatingOutput(const char* name, const TensorBase& self);
// Finite bounds with from <= to.
void checkUniformBounds(const char* name, double from, double to);
// A finite mean and a finite stddev >= 0.
void checkNormalParameters(const char* name, double mean, double stddev);
// randperm(n, out=out): n >= 0, and out's dtype holds every value of 0 .. n - 1 exactly.
void checkRandpermOutput(int64_t n, const TensorBase& out);
// A given generator must be on the tensor's device type.
void checkGeneratorDevice(const char* name, const std::optional<Generator>& generator, Device device);

}  // namespace opcore::native

// Vectorized pow over contiguous float and double arrays: SLEEF's pow (within 1 ulp, C99's
// special cases), at the width cpuCapability() picks (Note [Vectorized math] in VecMath.h).
//   cpu::vecPow(base, exponent, out, n);        // out[i] = pow(base[i], exponent[i])
//   cpu::vecPow(base, 2.5f, out, n);            // out[i] = pow(base[i], 2.5f)
#pragma once

#include <cstdint>

namespace opcore::native::cpu {

// out may be base or exponent (elementwise, in place).
void vecPow(const float* base, const float* exponent, float* out, int64_t n);
void vecPow(const double* base, const double* exponent, double* out, int64_t n);
void vecPow(const float* base, float exponent, float* out, int64_t n);
void vecPow(const double* base, double exponent, double* out, int64_t n);

}  // namespace opcore::native::cpu

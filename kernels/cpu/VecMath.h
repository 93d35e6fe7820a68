// Vectorized math over contiguous arrays: SLEEF's vector functions, at most 1 ulp from the
// exact result (sqrt exactly rounded), at the widest instruction set this CPU has. See
// Note [Vectorized math].
//   cpu::vecMap(cpu::VecFn::Exp, in, out, n);   // out[i] = exp(in[i]); in may be out
#pragma once

#include <cstdint>

namespace opcore::native::cpu {

// Sigmoid is float only; the functions after it are SLEEF's `_u10` ones too (VecMath.cpp's
// OPCORE_SLEEF_U10_FUNCTIONS), used by the unary pointwise operators of issue #33.
enum class VecFn {
  Exp, Log, Sqrt, Tanh, Sigmoid,
  Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Erf, Expm1, Log10, Log1p, Log2, Exp2,
};

// The instruction sets vecMap (and the transposed copies of Loops.cpp, the sum scans of
// Scan.cpp) choose between. Avx512: AVX-512 F and BW (every AVX-512 CPU but Xeon Phi's).
enum class CpuCapability { Default, Avx2, Avx512 };

// The one they use: the widest the CPU supports, lowered (never raised) by
// OPCORE_CPU_CAPABILITY=default|avx2|avx512.
CpuCapability cpuCapability();
const char* toString(CpuCapability c);

// out[i] = fn(in[i]) for i < n. The same element gets the same bits wherever it sits in the
// array: the tail is computed by the vector function too.
void vecMap(VecFn fn, const float* in, float* out, int64_t n);
void vecMap(VecFn fn, const double* in, double* out, int64_t n);

}  // namespace opcore::native::cpu

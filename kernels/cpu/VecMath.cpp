// vecMap: SLEEF's vector functions at run-time-selected widths.
#include "cpu/VecMath.h"

#include <opcore/core/Error.h>

#include <immintrin.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace opcore::native::cpu {

// Note [Vectorized math]
// exp, log and tanh of float and double tensors go to SLEEF (libsleef, a Debian package),
// whose `_u10` functions stay within 1 ulp of the exact result; its vector variants are several
// times faster than the scalar std:: functions, which the compiler cannot vectorize. exp and log
// are within 1 ulp of std::'s too (VecMathTest); tanh is tested against the exact value, which
// glibc's tanh and tanhf miss by up to 2 ulp at some inputs where SLEEF's does not. Float
// sigmoid, 1 / (1 + exp(-x)), is computed in double precision and rounded once, within 1 ulp of
// the exact value; double sigmoid stays on the scalar formula. sqrt uses the instructions,
// exactly rounded as std::sqrt is. The unary operators of issue #33 use SLEEF's `_u10` sin, cos,
// tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh, erf, expm1, log10, log1p, log2 and
// exp2 the same way (OPCORE_SLEEF_U10_FUNCTIONS; tests/api/UnaryMathTest.cpp checks them against
// the exact value); where some of them overflow early, see Note [Bounded SLEEF functions] in
// kernels/cpu/UnaryOps.cpp.
// The binary runs on any x86-64: each width's loop is compiled for its instruction set
// (`#pragma GCC target`) and cpuCapability() picks one once, from what the CPU reports. sleef.h
// declares a variant only when the whole file is compiled for its instruction set, so the ones
// used are declared here. A tail shorter than a vector goes through a padded vector, so an
// element's result does not depend on its position.

namespace {

// The SLEEF functions with a `_u10` vector variant at every width that vecMap maps one to one
// (VecFn name, SLEEF's name): each width's declarations and switch cases are generated from
// this list. Exp, Log and Tanh are written out below, with Sqrt and Sigmoid.
#define OPCORE_SLEEF_U10_FUNCTIONS(X)                                                                      \
  X(Sin, sin) X(Cos, cos) X(Tan, tan) X(Asin, asin) X(Acos, acos) X(Atan, atan) X(Sinh, sinh) X(Cosh, cosh) \
  X(Asinh, asinh) X(Acosh, acosh) X(Atanh, atanh) X(Erf, erf) X(Expm1, expm1) X(Log10, log10)             \
  X(Log1p, log1p) X(Log2, log2) X(Exp2, exp2)

// mapRow's vectors pass by value in a function compiled for plain x86-64, which GCC warns
// changes the ABI; it is always inlined into a function of the vectors' instruction set.
#pragma GCC diagnostic ignored "-Wpsabi"
// GCC 12's AVX-512 sqrt intrinsics pass a deliberately undefined vector, which it then warns of.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// out = fn over n elements, kWidth at a time; V supplies load/store and the vector type.
// Inlined into the per-width functions below, which carry the instruction set.
template <typename V, typename T, typename VecF>
__attribute__((always_inline)) inline void mapRow(const T* in, T* out, int64_t n, VecF vf) {
  int64_t i = 0;
  for (; i + V::kWidth <= n; i += V::kWidth) V::store(out + i, vf(V::load(in + i)));
  if (i < n) {
    T buffer[V::kWidth] = {};
    std::copy(in + i, in + n, buffer);
    V::store(buffer, vf(V::load(buffer)));
    std::copy(buffer, buffer + (n - i), out + i);
  }
}

#pragma GCC push_options
#pragma GCC target("avx512f")
extern "C" {
__m512 Sleef_expf16_u10avx512f(__m512);
__m512 Sleef_logf16_u10avx512f(__m512);
__m512d Sleef_expd8_u10avx512f(__m512d);
__m512d Sleef_logd8_u10avx512f(__m512d);
__m512 Sleef_tanhf16_u10avx512f(__m512);
__m512d Sleef_tanhd8_u10avx512f(__m512d);
#define OPCORE_DECLARE(fn, name) __m512 Sleef_##name##f16_u10avx512f(__m512); __m512d Sleef_##name##d8_u10avx512f(__m512d);
OPCORE_SLEEF_U10_FUNCTIONS(OPCORE_DECLARE)
#undef OPCORE_DECLARE
}
struct Avx512D {
  static constexpr int kWidth = 8;
  static __m512d load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, __m512d v) { _mm512_storeu_pd(p, v); }
  static __m512d sqrt(__m512d v) { return _mm512_sqrt_pd(v); }
  static __m512d sigmoid(__m512d x) {
    const __m512d one = _mm512_set1_pd(1.0);
    return _mm512_div_pd(one, _mm512_add_pd(one, Sleef_expd8_u10avx512f(_mm512_sub_pd(_mm512_setzero_pd(), x))));
  }
};
struct Avx512F {
  static constexpr int kWidth = 16;
  static __m512 load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, __m512 v) { _mm512_storeu_ps(p, v); }
  static __m512 sqrt(__m512 v) { return _mm512_sqrt_ps(v); }
  // The two halves in double precision, and back.
  static __m512d low(__m512 v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); }
  static __m512d high(__m512 v) {
    return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
  }
  static __m512 join(__m512d lo, __m512d hi) {
    const __m512d lo_in_place = _mm512_castps_pd(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)));
    return _mm512_castpd_ps(_mm512_insertf64x4(lo_in_place, _mm256_castps_pd(_mm512_cvtpd_ps(hi)), 1));
  }
  static __m512 sigmoid(__m512 v) { return join(Avx512D::sigmoid(low(v)), Avx512D::sigmoid(high(v))); }
};
void mapAvx512(VecFn fn, const float* in, float* out, int64_t n) {
  switch (fn) {
    case VecFn::Exp: return mapRow<Avx512F>(in, out, n, Sleef_expf16_u10avx512f);
    case VecFn::Log: return mapRow<Avx512F>(in, out, n, Sleef_logf16_u10avx512f);
    case VecFn::Sqrt: return mapRow<Avx512F>(in, out, n, Avx512F::sqrt);
    case VecFn::Tanh: return mapRow<Avx512F>(in, out, n, Sleef_tanhf16_u10avx512f);
#define OPCORE_CASE(fn, name) \
    case VecFn::fn: return mapRow<Avx512F>(in, out, n, Sleef_##name##f16_u10avx512f);
      OPCORE_SLEEF_U10_FUNCTIONS(OPCORE_CASE)
#undef OPCORE_CASE
    case VecFn::Sigmoid: return mapRow<Avx512F>(in, out, n, Avx512F::sigmoid);
  }
}
void mapAvx512(VecFn fn, const double* in, double* out, int64_t n) {
  switch (fn) {
    case VecFn::Exp: return mapRow<Avx512D>(in, out, n, Sleef_expd8_u10avx512f);
    case VecFn::Log: return mapRow<Avx512D>(in, out, n, Sleef_logd8_u10avx512f);
    case VecFn::Sqrt: return mapRow<Avx512D>(in, out, n, Avx512D::sqrt);
    case VecFn::Tanh: return mapRow<Avx512D>(in, out, n, Sleef_tanhd8_u10avx512f);
#define OPCORE_CASE(fn, name) \
    case VecFn::fn: return mapRow<Avx512D>(in, out, n, Sleef_##name##d8_u10avx512f);
      OPCORE_SLEEF_U10_FUNCTIONS(OPCORE_CASE)
#undef OPCORE_CASE
    case VecFn::Sigmoid: OPCORE_INTERNAL_ASSERT(false, "vecMap: sigmoid is float only");
  }
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
extern "C" {
__m256 Sleef_expf8_u10avx2(__m256);
__m256 Sleef_logf8_u10avx2(__m256);
__m256d Sleef_expd4_u10avx2(__m256d);
__m256d Sleef_logd4_u10avx2(__m256d);
__m256 Sleef_tanhf8_u10avx2(__m256);
__m256d Sleef_tanhd4_u10avx2(__m256d);
#define OPCORE_DECLARE(fn, name) __m256 Sleef_##name##f8_u10avx2(__m256); __m256d Sleef_##name##d4_u10avx2(__m256d);
OPCORE_SLEEF_U10_FUNCTIONS(OPCORE_DECLARE)
#undef OPCORE_DECLARE
}
struct Avx2D {
  static constexpr int kWidth = 4;
  static __m256d load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, __m256d v) { _mm256_storeu_pd(p, v); }
  static __m256d sqrt(__m256d v) { return _mm256_sqrt_pd(v); }
  static __m256d sigmoid(__m256d x) {
    const __m256d one = _mm256_set1_pd(1.0);
    return _mm256_div_pd(one, _mm256_add_pd(one, Sleef_expd4_u10avx2(_mm256_sub_pd(_mm256_setzero_pd(), x))));
  }
};
struct Avx2F {
  static constexpr int kWidth = 8;
  static __m256 load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, __m256 v) { _mm256_storeu_ps(p, v); }
  static __m256 sqrt(__m256 v) { return _mm256_sqrt_ps(v); }
  static __m256d low(__m256 v) { return _mm256_cvtps_pd(_mm256_castps256_ps128(v)); }
  static __m256d high(__m256 v) { return _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)); }
  static __m256 join(__m256d lo, __m256d hi) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1);
  }
  static __m256 sigmoid(__m256 v) { return join(Avx2D::sigmoid(low(v)), Avx2D::sigmoid(high(v))); }
};
void mapAvx2(VecFn fn, const float* in, float* out, int64_t n) {
  switch (fn) {
    case VecFn::Exp: return mapRow<Avx2F>(in, out, n, Sleef_expf8_u10avx2);
    case VecFn::Log: return mapRow<Avx2F>(in, out, n, Sleef_logf8_u10avx2);
    case VecFn::Sqrt: return mapRow<Avx2F>(in, out, n, Avx2F::sqrt);
    case VecFn::Tanh: return mapRow<Avx2F>(in, out, n, Sleef_tanhf8_u10avx2);
#define OPCORE_CASE(fn, name) \
    case VecFn::fn: return mapRow<Avx2F>(in, out, n, Sleef_##name##f8_u10avx2);
      OPCORE_SLEEF_U10_FUNCTIONS(OPCORE_CASE)
#undef OPCORE_CASE
    case VecFn::Sigmoid: return mapRow<Avx2F>(in, out, n, Avx2F::sigmoid);
  }
}
void mapAvx2(VecFn fn, const double* in, double* out, int64_t n) {
  switch (fn) {
    case VecFn::Exp: return mapRow<Avx2D>(in, out, n, Sleef_expd4_u10avx2);
    case VecFn::Log: return mapRow<Avx2D>(in, out, n, Sleef_logd4_u10avx2);
    case VecFn::Sqrt: return mapRow<Avx2D>(in, out, n, Avx2D::sqrt);
    case VecFn::Tanh: return mapRow<Avx2D>(in, out, n, Sleef_tanhd4_u10avx2);
#define OPCORE_CASE(fn, name) \
    case VecFn::fn: return mapRow<Avx2D>(in, out, n, Sleef_##name##d4_u10avx2);
      OPCORE_SLEEF_U10_FUNCTIONS(OPCORE_CASE)
#undef OPCORE_CASE
    case VecFn::Sigmoid: OPCORE_INTERNAL_ASSERT(false, "vecMap: sigmoid is float only");
  }
}
#pragma GCC pop_options

// SSE2 is part of x86-64 itself: no target needed.
extern "C" {
__m128 Sleef_expf4_u10sse2(__m128);
__m128 Sleef_logf4_u10sse2(__m128);
__m128d Sleef_expd2_u10sse2(__m128d);
__m128d Sleef_logd2_u10sse2(__m128d);
__m128 Sleef_tanhf4_u10sse2(__m128);
__m128d Sleef_tanhd2_u10sse2(__m128d);
#define OPCORE_DECLARE(fn, name) __m128 Sleef_##name##f4_u10sse2(__m128); __m128d Sleef_##name##d2_u10sse2(__m128d);
OPCORE_SLEEF_U10_FUNCTIONS(OPCORE_DECLARE)
#undef OPCORE_DECLARE
}
struct Sse2D {
  static constexpr int kWidth = 2;
  static __m128d load(const double* p) { return _mm_loadu_pd(p); }
  static void store(double* p, __m128d v) { _mm_storeu_pd(p, v); }
  static __m128d sqrt(__m128d v) { return _mm_sqrt_pd(v); }
  static __m128d sigmoid(__m128d x) {
    const __m128d one = _mm_set1_pd(1.0);
    return _mm_div_pd(one, _mm_add_pd(one, Sleef_expd2_u10sse2(_mm_sub_pd(_mm_setzero_pd(), x))));
  }
};
struct Sse2F {
  static constexpr int kWidth = 4;
  static __m128 load(const float* p) { return _mm_loadu_ps(p); }
  static void store(float* p, __m128 v) { _mm_storeu_ps(p, v); }
  static __m128 sqrt(__m128 v) { return _mm_sqrt_ps(v); }
  static __m128d low(__m128 v) { return _mm_cvtps_pd(v); }
  static __m128d high(__m128 v) { return _mm_cvtps_pd(_mm_movehl_ps(v, v)); }
  static __m128 join(__m128d lo, __m128d hi) { return _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi)); }
  static __m128 sigmoid(__m128 v) { return join(Sse2D::sigmoid(low(v)), Sse2D::sigmoid(high(v))); }
};
void mapSse2(VecFn fn, const float* in, float* out, int64_t n) {
  switch (fn) {
    case VecFn::Exp: return mapRow<Sse2F>(in, out, n, Sleef_expf4_u10sse2);
    case VecFn::Log: return mapRow<Sse2F>(in, out, n, Sleef_logf4_u10sse2);
    case VecFn::Sqrt: return mapRow<Sse2F>(in, out, n, Sse2F::sqrt);
    case VecFn::Tanh: return mapRow<Sse2F>(in, out, n, Sleef_tanhf4_u10sse2);
#define OPCORE_CASE(fn, name) \
    case VecFn::fn: return mapRow<Sse2F>(in, out, n, Sleef_##name##f4_u10sse2);
      OPCORE_SLEEF_U10_FUNCTIONS(OPCORE_CASE)
#undef OPCORE_CASE
    case VecFn::Sigmoid: return mapRow<Sse2F>(in, out, n, Sse2F::sigmoid);
  }
}
void mapSse2(VecFn fn, const double* in, double* out, int64_t n) {
  switch (fn) {
    case VecFn::Exp: return mapRow<Sse2D>(in, out, n, Sleef_expd2_u10sse2);
    case VecFn::Log: return mapRow<Sse2D>(in, out, n, Sleef_logd2_u10sse2);
    case VecFn::Sqrt: return mapRow<Sse2D>(in, out, n, Sse2D::sqrt);
    case VecFn::Tanh: return mapRow<Sse2D>(in, out, n, Sleef_tanhd2_u10sse2);
#define OPCORE_CASE(fn, name) \
    case VecFn::fn: return mapRow<Sse2D>(in, out, n, Sleef_##name##d2_u10sse2);
      OPCORE_SLEEF_U10_FUNCTIONS(OPCORE_CASE)
#undef OPCORE_CASE
    case VecFn::Sigmoid: OPCORE_INTERNAL_ASSERT(false, "vecMap: sigmoid is float only");
  }
}

CpuCapability detectCapability() {
  __builtin_cpu_init();
  CpuCapability best = CpuCapability::Default;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = CpuCapability::Avx2;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) best = CpuCapability::Avx512;
  const char* v = std::getenv("OPCORE_CPU_CAPABILITY");
  if (v == nullptr || *v == '\0') return best;
  for (CpuCapability c : {CpuCapability::Default, CpuCapability::Avx2, CpuCapability::Avx512}) {
    if (std::strcmp(v, toString(c)) == 0) return std::min(c, best);
  }
  std::fprintf(stderr, "opcore: OPCORE_CPU_CAPABILITY=%s is none of default, avx2, avx512; using %s\n", v,
               toString(best));
  return best;
}

template <typename T>
void dispatchMap(VecFn fn, const T* in, T* out, int64_t n) {
  switch (cpuCapability()) {
    case CpuCapability::Avx512: return mapAvx512(fn, in, out, n);
    case CpuCapability::Avx2: return mapAvx2(fn, in, out, n);
    case CpuCapability::Default: return mapSse2(fn, in, out, n);
  }
}

}  // namespace

CpuCapability cpuCapability() {
  static const CpuCapability capability = detectCapability();
  return capability;
}

const char* toString(CpuCapability c) {
  switch (c) {
    case CpuCapability::Default: return "default";
    case CpuCapability::Avx2: return "avx2";
    case CpuCapability::Avx512: return "avx512";
  }
  return "?";
}

void vecMap(VecFn fn, const float* in, float* out, int64_t n) { dispatchMap(fn, in, out, n); }
void vecMap(VecFn fn, const double* in, double* out, int64_t n) { dispatchMap(fn, in, out, n); }

}  // namespace opcore::native::cpu

// vecPow: SLEEF's vector pow at run-time-selected widths (the pattern of VecMath.cpp, whose
// Note [Vectorized math] explains the per-width functions and the padded tail).
#include "cpu/VecPow.h"

#include "cpu/VecMath.h"

#include <immintrin.h>

#include <algorithm>

namespace opcore::native::cpu {

namespace {

#pragma GCC diagnostic ignored "-Wpsabi"

// out = pow(a, b) over n elements, V::kWidth at a time; the exponent is an array (kScalarB
// false) or one value broadcast (b[0]). A short tail goes through padded vectors.
template <typename V, bool kScalarB, typename T, typename VecF>
__attribute__((always_inline)) inline void powRow(const T* a, const T* b, T* out, int64_t n, VecF vf) {
  const auto bv = V::set1(b[0]);
  int64_t i = 0;
  for (; i + V::kWidth <= n; i += V::kWidth) {
    V::store(out + i, vf(V::load(a + i), kScalarB ? bv : V::load(b + i)));
  }
  if (i < n) {
    T ba[V::kWidth] = {}, bb[V::kWidth] = {};
    std::copy(a + i, a + n, ba);
    if (!kScalarB) std::copy(b + i, b + n, bb);
    V::store(ba, vf(V::load(ba), kScalarB ? bv : V::load(bb)));
    std::copy(ba, ba + (n - i), out + i);
  }
}

#pragma GCC push_options
#pragma GCC target("avx512f")
extern "C" {
__m512 Sleef_powf16_u10avx512f(__m512, __m512);
__m512d Sleef_powd8_u10avx512f(__m512d, __m512d);
}
struct Avx512F {
  static constexpr int kWidth = 16;
  static __m512 load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, __m512 v) { _mm512_storeu_ps(p, v); }
  static __m512 set1(float v) { return _mm512_set1_ps(v); }
};
struct Avx512D {
  static constexpr int kWidth = 8;
  static __m512d load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, __m512d v) { _mm512_storeu_pd(p, v); }
  static __m512d set1(double v) { return _mm512_set1_pd(v); }
};
template <bool kScalarB>
void powAvx512(const float* a, const float* b, float* out, int64_t n) {
  powRow<Avx512F, kScalarB>(a, b, out, n, Sleef_powf16_u10avx512f);
}
template <bool kScalarB>
void powAvx512(const double* a, const double* b, double* out, int64_t n) {
  powRow<Avx512D, kScalarB>(a, b, out, n, Sleef_powd8_u10avx512f);
}
template void powAvx512<true>(const float*, const float*, float*, int64_t);
template void powAvx512<false>(const float*, const float*, float*, int64_t);
template void powAvx512<true>(const double*, const double*, double*, int64_t);
template void powAvx512<false>(const double*, const double*, double*, int64_t);
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
extern "C" {
__m256 Sleef_powf8_u10avx2(__m256, __m256);
__m256d Sleef_powd4_u10avx2(__m256d, __m256d);
}
struct Avx2F {
  static constexpr int kWidth = 8;
  static __m256 load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, __m256 v) { _mm256_storeu_ps(p, v); }
  static __m256 set1(float v) { return _mm256_set1_ps(v); }
};
struct Avx2D {
  static constexpr int kWidth = 4;
  static __m256d load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, __m256d v) { _mm256_storeu_pd(p, v); }
  static __m256d set1(double v) { return _mm256_set1_pd(v); }
};
template <bool kScalarB>
void powAvx2(const float* a, const float* b, float* out, int64_t n) {
  powRow<Avx2F, kScalarB>(a, b, out, n, Sleef_powf8_u10avx2);
}
template <bool kScalarB>
void powAvx2(const double* a, const double* b, double* out, int64_t n) {
  powRow<Avx2D, kScalarB>(a, b, out, n, Sleef_powd4_u10avx2);
}
template void powAvx2<true>(const float*, const float*, float*, int64_t);
template void powAvx2<false>(const float*, const float*, float*, int64_t);
template void powAvx2<true>(const double*, const double*, double*, int64_t);
template void powAvx2<false>(const double*, const double*, double*, int64_t);
#pragma GCC pop_options

extern "C" {
__m128 Sleef_powf4_u10sse2(__m128, __m128);
__m128d Sleef_powd2_u10sse2(__m128d, __m128d);
}
struct Sse2F {
  static constexpr int kWidth = 4;
  static __m128 load(const float* p) { return _mm_loadu_ps(p); }
  static void store(float* p, __m128 v) { _mm_storeu_ps(p, v); }
  static __m128 set1(float v) { return _mm_set1_ps(v); }
};
struct Sse2D {
  static constexpr int kWidth = 2;
  static __m128d load(const double* p) { return _mm_loadu_pd(p); }
  static void store(double* p, __m128d v) { _mm_storeu_pd(p, v); }
  static __m128d set1(double v) { return _mm_set1_pd(v); }
};
template <bool kScalarB>
void powSse2(const float* a, const float* b, float* out, int64_t n) {
  powRow<Sse2F, kScalarB>(a, b, out, n, Sleef_powf4_u10sse2);
}
template <bool kScalarB>
void powSse2(const double* a, const double* b, double* out, int64_t n) {
  powRow<Sse2D, kScalarB>(a, b, out, n, Sleef_powd2_u10sse2);
}

template <bool kScalarB, typename T>
void dispatchPow(const T* a, const T* b, T* out, int64_t n) {
  switch (cpuCapability()) {
    case CpuCapability::Avx512: return powAvx512<kScalarB>(a, b, out, n);
    case CpuCapability::Avx2: return powAvx2<kScalarB>(a, b, out, n);
    case CpuCapability::Default: return powSse2<kScalarB>(a, b, out, n);
  }
}

}  // namespace

void vecPow(const float* base, const float* exponent, float* out, int64_t n) {
  dispatchPow<false>(base, exponent, out, n);
}
void vecPow(const double* base, const double* exponent, double* out, int64_t n) {
  dispatchPow<false>(base, exponent, out, n);
}
void vecPow(const float* base, float exponent, float* out, int64_t n) { dispatchPow<true>(base, &exponent, out, n); }
void vecPow(const double* base, double exponent, double* out, int64_t n) {
  dispatchPow<true>(base, &exponent, out, n);
}

}  // namespace opcore::native::cpu

// The arithmetic of the p-norm distances (cdist, pdist) and their gradients, written once for
// the CPU kernels (kernels/cpu/Distance.cpp) and the CUDA ones (kernels/cuda/
// CudaDistanceKernels.cu). nvcc-clean (Note [nvcc-clean pointwise headers] in Binary.h).
//   T total = 0;
//   for (c...) total = combineTerms<N>(total, distanceTerm<N>(a[c] - b[c], p));
//   const T dist = finishDistance<N>(total, p);
#pragma once

#include <opcore/core/Macros.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace opcore::native::distance {

// Which loop a p takes: 0, 1, 2 and inf have their own; other p go through pow.
enum class Norm { Zero, One, Two, Inf, Lower, General };

inline Norm normOf(double p) {
  if (p == 0) return Norm::Zero;
  if (p == 1) return Norm::One;
  if (p == 2) return Norm::Two;
  if (std::isinf(p)) return Norm::Inf;
  return p < 2 ? Norm::Lower : Norm::General;
}

// Calls f with p's Norm as a std::integral_constant, for the loops to instantiate on.
template <typename F>
void withNorm(double p, const F& f) {
  switch (normOf(p)) {
    case Norm::Zero: return f(std::integral_constant<Norm, Norm::Zero>{});
    case Norm::One: return f(std::integral_constant<Norm, Norm::One>{});
    case Norm::Two: return f(std::integral_constant<Norm, Norm::Two>{});
    case Norm::Inf: return f(std::integral_constant<Norm, Norm::Inf>{});
    case Norm::Lower: return f(std::integral_constant<Norm, Norm::Lower>{});
    case Norm::General: return f(std::integral_constant<Norm, Norm::General>{});
  }
}

template <typename T>
OPCORE_HOST_DEVICE inline T sgn(T v) {
  return static_cast<T>((T(0) < v) - (v < T(0)));
}

// The term one column's difference d adds to the distance, and how terms combine (a sum, the
// maximum for inf).
template <Norm N, typename T>
OPCORE_HOST_DEVICE inline T distanceTerm(T d, T p) {
  if constexpr (N == Norm::Zero) return d != T(0) ? T(1) : T(0);
  if constexpr (N == Norm::One || N == Norm::Inf) return std::abs(d);
  if constexpr (N == Norm::Two) return d * d;
  return std::pow(std::abs(d), p);
}

template <Norm N, typename T>
OPCORE_HOST_DEVICE inline T combineTerms(T acc, T term) {
  if constexpr (N == Norm::Inf) return acc < term ? term : acc;
  return acc + term;
}

// The distance from its combined terms.
template <Norm N, typename T>
OPCORE_HOST_DEVICE inline T finishDistance(T total, T p) {
  if constexpr (N == Norm::Two) return std::sqrt(total);
  if constexpr (N == Norm::Lower || N == Norm::General) return std::pow(total, T(1) / p);
  return total;
}

// PyTorch's subgradients of the distance `dist` between rows a and b with respect to a, times
// `grad`: none (0) for p = 0, and at a zero distance but for p = 1 and inf; else per row a
// scale, and per column d = a[c] - b[c] a term, odd in d (so the gradient with respect to b
// is its negation, exactly).
template <Norm N, typename T>
OPCORE_HOST_DEVICE inline bool gradientVanishes(T dist) {
  return N == Norm::Zero || (N != Norm::One && N != Norm::Inf && dist == T(0));
}

template <Norm N, typename T>
OPCORE_HOST_DEVICE inline T gradientScale(T grad, T dist, T p) {
  if constexpr (N == Norm::Two) return grad / dist;
  if constexpr (N == Norm::Lower || N == Norm::General) return grad / std::pow(dist, p - 1);
  return grad;
}

template <Norm N, typename T>
OPCORE_HOST_DEVICE inline T gradientTerm(T d, T scale, T dist, T p) {
  if constexpr (N == Norm::Zero) return T(0);
  if constexpr (N == Norm::One) return scale * sgn(d);
  if constexpr (N == Norm::Two) return d * scale;
  if constexpr (N == Norm::Inf) return scale * sgn(d) * (std::abs(d) == dist ? T(1) : T(0));
  if constexpr (N == Norm::Lower) return d == T(0) && p < 1 ? T(0) : sgn(d) * std::pow(std::abs(d), p - 1) * scale;
  return d * std::pow(std::abs(d), p - 2) * scale;
}

// The number of pairs i < j of n rows, and the row-major index of pair (i, j) among them.
OPCORE_HOST_DEVICE inline int64_t pairsOf(int64_t n) { return n <= 1 ? 0 : n * (n - 1) / 2; }
OPCORE_HOST_DEVICE inline int64_t pairIndex(int64_t i, int64_t j, int64_t n) {
  return i * n - i * (i + 1) / 2 + j - i - 1;
}

}  // namespace opcore::native::distance

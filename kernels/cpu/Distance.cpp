// p-norm distances on the CPU: _cdist_forward / _cdist_backward (between the rows of two
// batched matrices) and _pdist_forward / _pdist_backward (between the pairs of rows of one
// matrix), with their Meta kernels: the loops here, the checks and shapes in
// common/Distance.cpp, the arithmetic in common/pointwise/Distance.h.
//
// Note [Distance kernels]
// Each distance is computed by one thread, in the order of the columns; each gradient row of
// _cdist_backward by one thread, in the order of x2's rows; _pdist_backward's threads own blocks
// of columns and run the pairs in their order. So results do not depend on the thread count. The
// column loops keep 32 bytes of partial sums, which the compiler vectorizes (a serial sum of
// floats it cannot), inlined into functions compiled for AVX2 too. p = 0, 1, 2 and inf have
// their own loops; other p go through pow. Float and double, as PyTorch's CPU kernels;
// _cdist_forward's matrix-product path for p = 2 (kernels/composite/Distance.cpp) takes any
// floating dtype.
#include <opcore/ops/_cdist_backward_native.h>
#include <opcore/ops/_cdist_forward_native.h>
#include <opcore/ops/_pdist_backward_native.h>
#include <opcore/ops/_pdist_forward_native.h>

#include "common/Distance.h"
#include "common/pointwise/Distance.h"
#include "cpu/Loops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace opcore::native {

namespace distance {

// The distance between rows a and b of m elements, in 32 bytes of partial sums (inlined into
// the loops of cdistRange and pdistRange, which are compiled for AVX2 too: Note [Instruction
// sets] in Loops.h).
template <Norm N, typename T>
inline T rowDistance(const T* a, const T* b, int64_t m, T p) {
  constexpr int64_t W = 32 / static_cast<int64_t>(sizeof(T));
  T acc[W] = {};
  int64_t c = 0;
  for (; c + W <= m; c += W) {
    for (int64_t k = 0; k < W; ++k) acc[k] = combineTerms<N>(acc[k], distanceTerm<N>(a[c + k] - b[c + k], p));
  }
  for (int64_t k = 0; c < m; ++c, ++k) acc[k] = combineTerms<N>(acc[k], distanceTerm<N>(a[c] - b[c], p));
  T total = acc[0];
  for (int64_t k = 1; k < W; ++k) total = combineTerms<N>(total, acc[k]);
  return finishDistance<N>(total, p);
}

// Distances k in [begin, end) of the [b, r1, r2] result of x1 [b, r1, m] and x2 [b, r2, m].
template <Norm N, typename T>
OPCORE_CPU_CLONES void cdistRange(const T* x1, const T* x2, T* out, int64_t r1, int64_t r2, int64_t m, T p,
                                  int64_t begin, int64_t end) {
  for (int64_t k = begin; k < end; ++k) {
    const int64_t j = k % r2, i = (k / r2) % r1, s = k / (r1 * r2);
    out[k] = rowDistance<N>(x1 + (s * r1 + i) * m, x2 + (s * r2 + j) * m, m, p);
  }
}

// Pairs k in [begin, end) of the n rows of x [n, m], in row-major order of (i, j), i < j.
template <Norm N, typename T>
OPCORE_CPU_CLONES void pdistRange(const T* x, T* out, int64_t n, int64_t m, T p, int64_t begin, int64_t end) {
  // The pair (i, j) of index `begin`: row i's pairs start at i n - i (i + 1) / 2.
  int64_t i = 0;
  while (i + 1 < n && (i + 1) * n - (i + 1) * (i + 2) / 2 <= begin) ++i;
  int64_t j = begin - (i * n - i * (i + 1) / 2) + i + 1;
  for (int64_t k = begin; k < end; ++k) {
    out[k] = rowDistance<N>(x + i * m, x + j * m, m, p);
    if (++j == n) {
      ++i;
      j = i + 1;
    }
  }
}

// Adds into g (m elements) the gradient of the distance `dist` between rows a and b with
// respect to a, times `grad` (common/pointwise/Distance.h's terms). With Pair, also subtracts
// it from h: the gradient with respect to b.
template <Norm N, bool Pair, typename T>
OPCORE_CPU_CLONES void addRowGradient(T* g, T* h, const T* a, const T* b, int64_t m, T p, T grad, T dist) {
  if (gradientVanishes<N>(dist)) return;
  const T s = gradientScale<N>(grad, dist, p);
  for (int64_t c = 0; c < m; ++c) {
    const T t = gradientTerm<N>(a[c] - b[c], s, dist, p);
    g[c] += t;
    if constexpr (Pair) h[c] -= t;
  }
}

}  // namespace distance

namespace {

using namespace distance;

void cdistLoops(const Tensor& x1, const Tensor& x2, const Tensor& out, double p) {
  const int64_t b = x1.size(0), r1 = x1.size(1), r2 = x2.size(1), m = x1.size(2);
  OPCORE_DISPATCH_FLOATING_TYPES(x1.scalar_type(), "cdist", [&] {
    const scalar_t* ap = x1.data_ptr<scalar_t>();
    const scalar_t* cp = x2.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    const auto pp = static_cast<scalar_t>(p);
    withNorm(p, [&](auto norm) {
      constexpr Norm N = decltype(norm)::value;
      parallel_for(0, b * r1 * r2, grainFor(m), [&](int64_t begin, int64_t end) {
        cdistRange<N>(ap, cp, o, r1, r2, m, pp, begin, end);
      });
    });
  });
}

void cdistBackwardLoops(const Tensor& grad, const Tensor& x1, const Tensor& x2, const Tensor& cdist,
                        const Tensor& out, double p) {
  const int64_t b = x1.size(0), r1 = x1.size(1), r2 = x2.size(1), m = x1.size(2);
  OPCORE_DISPATCH_FLOATING_TYPES(x1.scalar_type(), "cdist_backward", [&] {
    const scalar_t* ap = x1.data_ptr<scalar_t>();
    const scalar_t* cp = x2.data_ptr<scalar_t>();
    const scalar_t* gp = grad.data_ptr<scalar_t>();
    const scalar_t* dp = cdist.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    const auto pp = static_cast<scalar_t>(p);
    withNorm(p, [&](auto norm) {
      constexpr Norm N = decltype(norm)::value;
      // One thread per row of the gradient: the sum over x2's rows in their order.
      parallel_for(0, b * r1, grainFor(m * r2), [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
          const int64_t s = row / r1;
          scalar_t* gr = o + row * m;
          std::memset(static_cast<void*>(gr), 0, static_cast<size_t>(m) * sizeof(scalar_t));
          for (int64_t j = 0; j < r2; ++j) {
            addRowGradient<N, false>(gr, gr, ap + row * m, cp + (s * r2 + j) * m, m, pp, gp[row * r2 + j],
                                     dp[row * r2 + j]);
          }
        }
      });
    });
  });
}

void pdistLoops(const Tensor& x, const Tensor& out, double p) {
  const int64_t n = x.size(0), m = x.size(1);
  OPCORE_DISPATCH_FLOATING_TYPES(x.scalar_type(), "pdist", [&] {
    const scalar_t* xp = x.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    const auto pp = static_cast<scalar_t>(p);
    withNorm(p, [&](auto norm) {
      constexpr Norm N = decltype(norm)::value;
      parallel_for(0, out.numel(), grainFor(m), [&](int64_t begin, int64_t end) {
        pdistRange<N>(xp, o, n, m, pp, begin, end);
      });
    });
  });
}

void pdistBackwardLoops(const Tensor& grad, const Tensor& x, const Tensor& pdist, const Tensor& out, double p) {
  const int64_t n = x.size(0), m = x.size(1);
  OPCORE_DISPATCH_FLOATING_TYPES(x.scalar_type(), "pdist_backward", [&] {
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* gp = grad.data_ptr<scalar_t>();
    const scalar_t* dp = pdist.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    const auto pp = static_cast<scalar_t>(p);
    withNorm(p, [&](auto norm) {
      constexpr Norm N = decltype(norm)::value;
      // Each thread owns a block of columns (16 at least: a 64-byte line of float) through all
      // the pairs, each pair computed once and added to both rows, in the order of the pairs.
      const int64_t grain = std::max<int64_t>(16, kGrainSize / std::max<int64_t>(n * n / 2, 1));
      parallel_for(0, m, grain, [&](int64_t begin, int64_t end) {
        const int64_t width = end - begin;
        for (int64_t i = 0; i < n; ++i) {
          std::memset(static_cast<void*>(o + i * m + begin), 0, static_cast<size_t>(width) * sizeof(scalar_t));
        }
        int64_t k = 0;
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = i + 1; j < n; ++j, ++k) {
            addRowGradient<N, true>(o + i * m + begin, o + j * m + begin, xp + i * m + begin, xp + j * m + begin,
                                    width, pp, gp[k], dp[k]);
          }
        }
      });
    });
  });
}

}  // namespace

Tensor _cdist_forward_cpu(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  cpu::checkCpu("_cdist_forward", {&x1, &x2});
  return cdistForward(x1, x2, p, compute_mode, cdistLoops);
}

Tensor _cdist_forward_meta(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  return cdistForward(x1, x2, p, compute_mode, nullptr);
}

Tensor _cdist_backward_cpu(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p, const Tensor& cdist) {
  cpu::checkCpu("_cdist_backward", {&grad, &x1, &x2, &cdist});
  return cdistBackward(grad, x1, x2, p, cdist, cdistBackwardLoops);
}

Tensor _cdist_backward_meta(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p, const Tensor& cdist) {
  return cdistBackward(grad, x1, x2, p, cdist, nullptr);
}

Tensor _pdist_forward_cpu(const Tensor& self, double p) {
  cpu::checkCpu("_pdist_forward", {&self});
  return pdistForward(self, p, pdistLoops);
}

Tensor _pdist_forward_meta(const Tensor& self, double p) { return pdistForward(self, p, nullptr); }

Tensor _pdist_backward_cpu(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  cpu::checkCpu("_pdist_backward", {&grad, &self, &pdist});
  return pdistBackward(grad, self, p, pdist, pdistBackwardLoops);
}

Tensor _pdist_backward_meta(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  return pdistBackward(grad, self, p, pdist, nullptr);
}

}  // namespace opcore::native

// p-norm distances on the CPU: _cdist_forward / _cdist_backward (between the rows of two
// batched matrices) and _pdist_forward / _pdist_backward (between the pairs of rows of one
// matrix), with their Meta kernels.
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
#include <opcore/core/Empty.h>
#include <opcore/ops/_cdist_backward_native.h>
#include <opcore/ops/_cdist_forward_native.h>
#include <opcore/ops/_pdist_backward_native.h>
#include <opcore/ops/_pdist_forward_native.h>
#include <opcore/ops/zeros.h>

#include "common/Distance.h"
#include "common/Shape.h"
#include "cpu/Loops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace opcore::native {

namespace distance {

// Which loop a p takes.
enum class Norm { Zero, One, Two, Inf, Lower, General };

Norm normOf(double p) {
  if (p == 0) return Norm::Zero;
  if (p == 1) return Norm::One;
  if (p == 2) return Norm::Two;
  if (std::isinf(p)) return Norm::Inf;
  return p < 2 ? Norm::Lower : Norm::General;
}

template <typename T>
T sgn(T v) {
  return static_cast<T>((T(0) < v) - (v < T(0)));
}

// The distance between rows a and b of m elements, in 32 bytes of partial sums (inlined into
// the loops of cdistRange and pdistRange, which are compiled for AVX2 too: Note [Instruction
// sets] in Loops.h).
template <Norm N, typename T>
inline T rowDistance(const T* a, const T* b, int64_t m, T p) {
  constexpr int64_t W = 32 / static_cast<int64_t>(sizeof(T));
  T acc[W] = {};
  int64_t c = 0;
  const auto term = [p](T d) -> T {
    if constexpr (N == Norm::Zero) return d != T(0) ? T(1) : T(0);
    if constexpr (N == Norm::One) return std::abs(d);
    if constexpr (N == Norm::Two) return d * d;
    if constexpr (N == Norm::Inf) return std::abs(d);
    return std::pow(std::abs(d), p);
  };
  for (; c + W <= m; c += W) {
    for (int64_t k = 0; k < W; ++k) {
      const T t = term(a[c + k] - b[c + k]);
      if constexpr (N == Norm::Inf) acc[k] = std::max(acc[k], t); else acc[k] += t;
    }
  }
  for (int64_t k = 0; c < m; ++c, ++k) {
    const T t = term(a[c] - b[c]);
    if constexpr (N == Norm::Inf) acc[k] = std::max(acc[k], t); else acc[k] += t;
  }
  T total = acc[0];
  for (int64_t k = 1; k < W; ++k) {
    if constexpr (N == Norm::Inf) total = std::max(total, acc[k]); else total += acc[k];
  }
  if constexpr (N == Norm::Two) return std::sqrt(total);
  if constexpr (N == Norm::Lower || N == Norm::General) return std::pow(total, T(1) / p);
  return total;
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
// respect to a, times `grad`: PyTorch's subgradients (zero at a zero distance). With Pair, also
// subtracts it from h: the gradient with respect to b (each term is odd in a - b, exactly).
template <Norm N, bool Pair, typename T>
OPCORE_CPU_CLONES void addRowGradient(T* g, T* h, const T* a, const T* b, int64_t m, T p, T grad, T dist) {
  if constexpr (N == Norm::Zero) return;
  if (N != Norm::One && N != Norm::Inf && dist == T(0)) return;
  T s = grad;
  if constexpr (N == Norm::Two) s = grad / dist;
  if constexpr (N == Norm::Lower || N == Norm::General) s = grad / std::pow(dist, p - 1);
  for (int64_t c = 0; c < m; ++c) {
    const T d = a[c] - b[c];
    T t;
    if constexpr (N == Norm::One) {
      t = s * sgn(d);
    } else if constexpr (N == Norm::Two) {
      t = d * s;
    } else if constexpr (N == Norm::Inf) {
      t = s * sgn(d) * (std::abs(d) == dist ? T(1) : T(0));
    } else if constexpr (N == Norm::Lower) {
      t = d == T(0) && p < 1 ? T(0) : sgn(d) * std::pow(std::abs(d), p - 1) * s;
    } else {
      t = d * std::pow(std::abs(d), p - 2) * s;
    }
    g[c] += t;
    if constexpr (Pair) h[c] -= t;
  }
}

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

// The broadcast batch of x1 [*B1, R1, M] and x2 [*B2, R2, M].
DimVector batchOf(const Tensor& x1, const Tensor& x2) {
  return broadcastShapes(x1.sizes().slice(0, static_cast<size_t>(x1.dim() - 2)),
                         x2.sizes().slice(0, static_cast<size_t>(x2.dim() - 2)));
}

DimVector withRows(const DimVector& batch, int64_t r, int64_t c) {
  DimVector shape = batch;
  shape.push_back(r);
  shape.push_back(c);
  return shape;
}

int64_t product(const DimVector& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

void checkKernelDtype(const char* name, ScalarType dtype) {
  if (dtype != kFloat && dtype != kDouble) detail::throwNotImplementedForDtype(name, dtype);
}

}  // namespace distance

// ---- cdist ----------------------------------------------------------------------------------

namespace {

using namespace distance;

// PyTorch's checks, with its messages; whether the matrix product computes the result.
bool checkCdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  OPCORE_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  OPCORE_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  OPCORE_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
               " X2: ", x2.size(-1));
  OPCORE_CHECK(isFloatingType(x1.scalar_type()), "cdist only supports floating-point dtypes, X1 got: ",
               x1.scalar_type());
  OPCORE_CHECK(isFloatingType(x2.scalar_type()), "cdist only supports floating-point dtypes, X2 got: ",
               x2.scalar_type());
  OPCORE_CHECK(p >= 0, "cdist only supports non-negative p values");
  OPCORE_CHECK(x1.device() == x2.device(), "X1 and X2 must have the same device type. X1: ", x1.device(), " X2: ",
               x2.device());
  const int64_t mode = compute_mode.value_or(0);
  OPCORE_CHECK(mode >= 0 && mode <= 2, "possible modes: 0, 1, 2, but was: ", mode);
  OPCORE_CHECK(x1.scalar_type() == x2.scalar_type(), "expected scalar type ", x1.scalar_type(), " but found ",
               x2.scalar_type());
  return cdistUsesProduct(p, mode, x1.size(-2), x2.size(-2));
}

}  // namespace

Tensor _cdist_forward_cpu(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  cpu::checkCpu("_cdist_forward", {&x1, &x2});
  const bool product_path = checkCdist(x1, x2, p, compute_mode);
  const DimVector batch = batchOf(x1, x2);
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2), m = x1.size(-1), b = product(batch);
  const DimVector shape = withRows(batch, r1, r2);
  if (r1 == 0 || r2 == 0 || b == 0) return detail::emptyCpu(shape, x1.scalar_type());
  if (m == 0) return opcore::zeros(shape, x1.scalar_type(), x1.device());
  if (product_path) return euclideanDistanceByProduct(x1, x2);
  checkKernelDtype("cdist", x1.scalar_type());
  const TensorBase a = cpu::contiguousCopy(x1.expand(withRows(batch, r1, m)));
  const TensorBase c = cpu::contiguousCopy(x2.expand(withRows(batch, r2, m)));
  Tensor result = detail::emptyCpu(shape, x1.scalar_type());
  OPCORE_DISPATCH_FLOATING_TYPES(x1.scalar_type(), "cdist", [&] {
    const scalar_t* ap = a.data_ptr<scalar_t>();
    const scalar_t* cp = c.data_ptr<scalar_t>();
    scalar_t* out = result.data_ptr<scalar_t>();
    const scalar_t pp = static_cast<scalar_t>(p);
    withNorm(p, [&](auto norm) {
      constexpr Norm N = decltype(norm)::value;
      const int64_t grain = grainFor(m);
      parallel_for(0, b * r1 * r2, grain, [&](int64_t begin, int64_t end) {
        cdistRange<N>(ap, cp, out, r1, r2, m, pp, begin, end);
      });
    });
  });
  return result;
}

Tensor _cdist_forward_meta(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  const bool product_path = checkCdist(x1, x2, p, compute_mode);
  if (!product_path) checkKernelDtype("cdist", x1.scalar_type());
  const DimVector batch = batchOf(x1, x2);
  return detail::empty(withRows(batch, x1.size(-2), x2.size(-2)), x1.scalar_type(), x1.device());
}

namespace {

void checkCdistBackward(const Tensor& grad, const Tensor& x1, const Tensor& x2, const Tensor& cdist,
                        const DimVector& batch) {
  OPCORE_CHECK(x1.dim() >= 2 && x2.dim() >= 2 && x1.size(-1) == x2.size(-1),
               "_cdist_backward: expected x1 [*, R1, M] and x2 [*, R2, M], got ", x1.sizes(), " and ", x2.sizes());
  const DimVector shape = withRows(batch, x1.size(-2), x2.size(-2));
  OPCORE_CHECK(grad.sizes() == IntArrayRef(shape) && cdist.sizes() == IntArrayRef(shape),
               "_cdist_backward: expected grad and cdist of shape ", IntArrayRef(shape), ", got ", grad.sizes(),
               " and ", cdist.sizes());
  const ScalarType dtype = x1.scalar_type();
  for (const Tensor* t : {&grad, &x2, &cdist}) {
    OPCORE_CHECK(t->scalar_type() == dtype, "expected scalar type ", dtype, " but found ", t->scalar_type());
  }
  checkKernelDtype("cdist_backward", dtype);
}

}  // namespace

Tensor _cdist_backward_cpu(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p, const Tensor& cdist) {
  cpu::checkCpu("_cdist_backward", {&grad, &x1, &x2, &cdist});
  const DimVector batch = batchOf(x1, x2);
  checkCdistBackward(grad, x1, x2, cdist, batch);
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2), m = x1.size(-1), b = product(batch);
  if (r1 == 0 || r2 == 0 || m == 0 || b == 0) return opcore::zeros(x1.sizes(), x1.scalar_type(), x1.device());
  const DimVector shape1 = withRows(batch, r1, m);
  const TensorBase a = cpu::contiguousCopy(x1.expand(shape1));
  const TensorBase c = cpu::contiguousCopy(x2.expand(withRows(batch, r2, m)));
  const TensorBase g = cpu::contiguousCopy(grad);
  const TensorBase d = cpu::contiguousCopy(cdist);
  Tensor result = detail::emptyCpu(shape1, x1.scalar_type());
  OPCORE_DISPATCH_FLOATING_TYPES(x1.scalar_type(), "cdist_backward", [&] {
    const scalar_t* ap = a.data_ptr<scalar_t>();
    const scalar_t* cp = c.data_ptr<scalar_t>();
    const scalar_t* gp = g.data_ptr<scalar_t>();
    const scalar_t* dp = d.data_ptr<scalar_t>();
    scalar_t* out = result.data_ptr<scalar_t>();
    const scalar_t pp = static_cast<scalar_t>(p);
    withNorm(p, [&](auto norm) {
      constexpr Norm N = decltype(norm)::value;
      const int64_t grain = grainFor(m * r2);
      // One thread per row of the gradient: the sum over x2's rows in their order.
      parallel_for(0, b * r1, grain, [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
          const int64_t s = row / r1;
          scalar_t* gr = out + row * m;
          std::memset(static_cast<void*>(gr), 0, static_cast<size_t>(m) * sizeof(scalar_t));
          for (int64_t j = 0; j < r2; ++j) {
            addRowGradient<N, false>(gr, gr, ap + row * m, cp + (s * r2 + j) * m, m, pp, gp[row * r2 + j],
                                     dp[row * r2 + j]);
          }
        }
      });
    });
  });
  return result;
}

Tensor _cdist_backward_meta(const Tensor& grad, const Tensor& x1, const Tensor& x2, double /*p*/,
                            const Tensor& cdist) {
  const DimVector batch = batchOf(x1, x2);
  checkCdistBackward(grad, x1, x2, cdist, batch);
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2), m = x1.size(-1);
  if (r1 == 0 || r2 == 0 || m == 0 || product(batch) == 0) {
    return detail::empty(x1.sizes(), x1.scalar_type(), x1.device());
  }
  return detail::empty(withRows(batch, r1, m), x1.scalar_type(), x1.device());
}

// ---- pdist ----------------------------------------------------------------------------------

namespace {

void checkPdist(const char* name, const Tensor& self, double p) {
  OPCORE_CHECK(self.dim() == 2, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  OPCORE_CHECK(isFloatingType(self.scalar_type()), "pdist only supports floating-point dtypes");
  OPCORE_CHECK(p >= 0, "pdist only supports non-negative p values");
  OPCORE_CHECK(self.is_contiguous(), name, std::string_view(name) == "_pdist_forward" ? " requires contiguous input"
                                                                                : " requires self to be contiguous");
  checkKernelDtype("pdist", self.scalar_type());
}

int64_t pairsOf(int64_t n) { return n <= 1 ? 0 : n * (n - 1) / 2; }

}  // namespace

Tensor _pdist_forward_cpu(const Tensor& self, double p) {
  cpu::checkCpu("_pdist_forward", {&self});
  checkPdist("_pdist_forward", self, p);
  const int64_t n = self.size(0), m = self.size(1), pairs = pairsOf(n);
  if (m == 0 || pairs == 0) return opcore::zeros({pairs}, self.scalar_type(), self.device());
  Tensor result = detail::emptyCpu({pairs}, self.scalar_type());
  OPCORE_DISPATCH_FLOATING_TYPES(self.scalar_type(), "pdist", [&] {
    const scalar_t* x = self.data_ptr<scalar_t>();
    scalar_t* out = result.data_ptr<scalar_t>();
    const scalar_t pp = static_cast<scalar_t>(p);
    withNorm(p, [&](auto norm) {
      constexpr Norm N = decltype(norm)::value;
      const int64_t grain = grainFor(m);
      parallel_for(0, pairs, grain, [&](int64_t begin, int64_t end) {
        pdistRange<N>(x, out, n, m, pp, begin, end);
      });
    });
  });
  return result;
}

Tensor _pdist_forward_meta(const Tensor& self, double p) {
  checkPdist("_pdist_forward", self, p);
  return detail::empty({pairsOf(self.size(0))}, self.scalar_type(), self.device());
}

namespace {

void checkPdistBackward(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  checkPdist("_pdist_backward", self, p);
  OPCORE_CHECK(pdist.is_contiguous(), "_pdist_backward requires pdist to be contiguous");
  const int64_t pairs = pairsOf(self.size(0));
  OPCORE_CHECK(grad.dim() == 1 && grad.size(0) == pairs && pdist.dim() == 1 && pdist.size(0) == pairs,
               "_pdist_backward: expected grad and pdist of shape [", pairs, "], got ", grad.sizes(), " and ",
               pdist.sizes());
  for (const Tensor* t : {&grad, &pdist}) {
    OPCORE_CHECK(t->scalar_type() == self.scalar_type(), "expected scalar type ", self.scalar_type(),
                 " but found ", t->scalar_type());
  }
}

}  // namespace

Tensor _pdist_backward_cpu(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  cpu::checkCpu("_pdist_backward", {&grad, &self, &pdist});
  checkPdistBackward(grad, self, p, pdist);
  const int64_t n = self.size(0), m = self.size(1);
  if (m == 0 || n <= 1) return opcore::zeros(self.sizes(), self.scalar_type(), self.device());
  const TensorBase g = cpu::contiguousCopy(grad);
  Tensor result = detail::emptyCpu(self.sizes(), self.scalar_type());
  OPCORE_DISPATCH_FLOATING_TYPES(self.scalar_type(), "pdist_backward", [&] {
    const scalar_t* x = self.data_ptr<scalar_t>();
    const scalar_t* gp = g.data_ptr<scalar_t>();
    const scalar_t* dp = pdist.data_ptr<scalar_t>();
    scalar_t* out = result.data_ptr<scalar_t>();
    const scalar_t pp = static_cast<scalar_t>(p);
    withNorm(p, [&](auto norm) {
      constexpr Norm N = decltype(norm)::value;
      // Each thread owns a block of columns (16 at least: a 64-byte line of float) through all
      // the pairs, each pair computed once and added to both rows, in the order of the pairs.
      const int64_t grain = std::max<int64_t>(16, kGrainSize / std::max<int64_t>(n * n / 2, 1));
      parallel_for(0, m, grain, [&](int64_t begin, int64_t end) {
        const int64_t width = end - begin;
        for (int64_t i = 0; i < n; ++i) {
          std::memset(static_cast<void*>(out + i * m + begin), 0, static_cast<size_t>(width) * sizeof(scalar_t));
        }
        int64_t k = 0;
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = i + 1; j < n; ++j, ++k) {
            addRowGradient<N, true>(out + i * m + begin, out + j * m + begin, x + i * m + begin, x + j * m + begin,
                                    width, pp, gp[k], dp[k]);
          }
        }
      });
    });
  });
  return result;
}

Tensor _pdist_backward_meta(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  checkPdistBackward(grad, self, p, pdist);
  return detail::empty(self.sizes(), self.scalar_type(), self.device());
}

}  // namespace opcore::native

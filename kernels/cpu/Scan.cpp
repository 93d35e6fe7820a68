// CPU scans of issue #33: cumsum and cumprod along one dimension (the impls of the structured
// cumsum.out and cumprod.out), in the result's dtype, accumulating as PyTorch's CPU kernels do.
#include <opcore/ops/cumprod_native.h>
#include <opcore/ops/cumsum_native.h>
#include <opcore/core/Empty.h>

#include "common/Shape.h"
#include "cpu/Loops.h"
#include "cpu/Wrapping.h"

#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

namespace opcore::native {

namespace {

// The type a scan accumulates in: double for float, complex<double> for complex<float> (PyTorch's
// CPU acc_type), double for Half and BFloat16 too (PyTorch: float; double costs nothing here and
// rounds each result once from the exact running value, which float does not when large terms
// cancel), the element type otherwise (integers wrap).
template <typename T>
struct ScanAcc {
  using type = opmath_t<T>;
};
template <>
struct ScanAcc<Half> {
  using type = double;
};
template <>
struct ScanAcc<BFloat16> {
  using type = double;
};
template <>
struct ScanAcc<float> {
  using type = double;
};
template <>
struct ScanAcc<complex<float>> {
  using type = complex<double>;
};

template <bool kSum, typename A>
OPCORE_ALWAYS_INLINE A step(A acc, A x) {
  if constexpr (std::is_same_v<A, bool>) {
    return kSum ? (acc || x) : (acc && x);
  } else {
    return kSum ? cpu::wrappingAdd(acc, x) : cpu::wrappingMul(acc, x);
  }
}

template <bool kSum, typename A>
constexpr A identity() {
  return kSum ? A(0) : A(1);
}

// out[i] = start (op) in[0] (op) ... (op) in[i], for a contiguous row.
template <bool kSum, typename T>
OPCORE_CPU_CLONES void scanRow(const T* in, T* out, int64_t n, typename ScanAcc<T>::type start) {
  using A = typename ScanAcc<T>::type;
  A acc = start;
  for (int64_t i = 0; i < n; ++i) {
    acc = step<kSum>(acc, static_cast<A>(in[i]));
    out[i] = static_cast<T>(acc);
  }
}

// scanRow of kChains rows at once (in[c], out[c], n[c] elements, from start[c]): their chains
// of additions are independent, so they overlap where one row's waits on each addition's
// latency; each row's results are scanRow's, bit for bit.
constexpr int kChains = 4;
template <bool kSum, typename T>
OPCORE_CPU_CLONES void scanRows(const T* const* in, T* const* out, const int64_t* n,
                                const typename ScanAcc<T>::type* start) {
  using A = typename ScanAcc<T>::type;
  A acc[kChains];
  int64_t common = n[0];
  for (int c = 0; c < kChains; ++c) {
    acc[c] = start[c];
    common = std::min(common, n[c]);
  }
  for (int64_t i = 0; i < common; ++i) {
    for (int c = 0; c < kChains; ++c) {
      acc[c] = step<kSum>(acc[c], static_cast<A>(in[c][i]));
      out[c][i] = static_cast<T>(acc[c]);
    }
  }
  for (int c = 0; c < kChains; ++c) scanRow<kSum>(in[c] + common, out[c] + common, n[c] - common, acc[c]);
}

// The reduction of a contiguous row (a block's total), in independent lanes.
template <bool kSum, typename T>
OPCORE_CPU_CLONES typename ScanAcc<T>::type totalOf(const T* in, int64_t n) {
  using A = typename ScanAcc<T>::type;
  constexpr int kLanes = 8;
  A lanes[kLanes];
  for (A& l : lanes) l = identity<kSum, A>();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] = step<kSum>(lanes[j], static_cast<A>(in[i + j]));
  }
  for (; i < n; ++i) lanes[0] = step<kSum>(lanes[0], static_cast<A>(in[i]));
  A total = lanes[0];
  for (int j = 1; j < kLanes; ++j) total = step<kSum>(total, lanes[j]);
  return total;
}

// out[o, j, k] = in[o, 0, k] (op) ... (op) in[o, j, k], columns k in [k0, k1), for inner > 1:
// the inner loop runs along k, which vectorizes.
template <bool kSum, typename T>
OPCORE_CPU_CLONES void scanColumns(const T* in, T* out, int64_t len, int64_t inner, int64_t k0, int64_t k1) {
  using A = typename ScanAcc<T>::type;
  std::unique_ptr<A[]> acc(new A[static_cast<size_t>(k1 - k0)]);
  std::fill(acc.get(), acc.get() + (k1 - k0), identity<kSum, A>());
  A* a = acc.get() - k0;
  for (int64_t j = 0; j < len; ++j) {
    const T* src = in + j * inner;
    T* dst = out + j * inner;
    for (int64_t k = k0; k < k1; ++k) {
      a[k] = step<kSum>(a[k], static_cast<A>(src[k]));
      dst[k] = static_cast<T>(a[k]);
    }
  }
}

// Note [Parallel scans]
// Scans along many rows (or columns) run one row per thread. A few long rows are cut into
// blocks whose number depends only on the length: the blocks' totals in parallel, their running
// totals in order, then each block scanned from its running total in parallel. The result does
// not depend on the thread count (the totals are added in a fixed order), but a long float scan
// associates its additions per block, not one after the other (PyTorch's is serial). A thread
// scans kChains of its blocks at once (scanRows): a block alone ran at the latency of one
// double addition per element.
constexpr int64_t kMinScanBlock = 4 * kGrainSize;
constexpr int64_t kMaxScanBlocks = 64;

template <bool kSum, typename T>
void scanLongRow(const T* in, T* out, int64_t n) {
  using A = typename ScanAcc<T>::type;
  const int64_t blocks = std::min(kMaxScanBlocks, n / kMinScanBlock);
  std::unique_ptr<A[]> start(new A[static_cast<size_t>(blocks)]);
  const auto bound = [&](int64_t b) { return n * b / blocks; };
  parallel_for(0, blocks, 1, [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) start[b] = totalOf<kSum>(in + bound(b), bound(b + 1) - bound(b));
  });
  A running = identity<kSum, A>();
  for (int64_t b = 0; b < blocks; ++b) {
    const A total = start[b];
    start[b] = running;
    running = step<kSum>(running, total);
  }
  parallel_for(0, blocks, 1, [&](int64_t first, int64_t last) {
    int64_t b = first;
    for (; b + kChains <= last; b += kChains) {
      const T* ins[kChains];
      T* outs[kChains];
      int64_t lens[kChains];
      for (int c = 0; c < kChains; ++c) {
        ins[c] = in + bound(b + c);
        outs[c] = out + bound(b + c);
        lens[c] = bound(b + c + 1) - bound(b + c);
      }
      scanRows<kSum>(ins, outs, lens, start.get() + b);
    }
    for (; b < last; ++b) scanRow<kSum>(in + bound(b), out + bound(b), bound(b + 1) - bound(b), start[b]);
  });
}

template <bool kSum, typename T>
void scanContiguous(const T* in, T* out, int64_t outer, int64_t len, int64_t inner) {
  using A = typename ScanAcc<T>::type;
  if (inner == 1) {
    if (outer < 8 && len >= 2 * kMinScanBlock) {
      for (int64_t o = 0; o < outer; ++o) scanLongRow<kSum>(in + o * len, out + o * len, len);
      return;
    }
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1));
    parallel_for(0, outer, grain, [&](int64_t first, int64_t last) {
      for (int64_t o = first; o < last; ++o) scanRow<kSum>(in + o * len, out + o * len, len, identity<kSum, A>());
    });
    return;
  }
  if (outer > 1) {
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len * inner, 1));
    parallel_for(0, outer, grain, [&](int64_t first, int64_t last) {
      for (int64_t o = first; o < last; ++o) scanColumns<kSum>(in + o * len * inner, out + o * len * inner, len, inner, 0, inner);
    });
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1));
  parallel_for(0, inner, grain, [&](int64_t k0, int64_t k1) { scanColumns<kSum>(in, out, len, inner, k0, k1); });
}

template <bool kSum>
void scanInto(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out, const char* name) {
  cpu::checkCpu(name, {&self, &out});
  cpu::checkNoInternalOverlap(out);
  const ScalarType out_dtype = dtype.value_or(out.scalar_type());
  TensorBase in = cpu::contiguousCopy(cpu::convertTo(self, out_dtype));
  if (cpu::sharesStorage(in, out)) in = cpu::ownedCopy(in);
  detail::resizeOutput(out, in.sizes());
  const int64_t len = in.dim() == 0 ? 1 : in.sizes()[static_cast<size_t>(dim)];
  const int64_t outer = in.dim() == 0 ? 1 : checkedNumel(in.sizes().slice(0, static_cast<size_t>(dim)));
  const int64_t inner = in.numel() / std::max<int64_t>(outer * len, 1);
  const bool direct = out.is_contiguous() && out.scalar_type() == out_dtype;
  const TensorBase result = direct ? TensorBase(out) : detail::emptyCpu(in.sizes(), out_dtype);
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(kHalf, kBFloat16, kBool, out_dtype, name, [&] {
    if (in.numel() > 0) scanContiguous<kSum>(in.data_ptr<scalar_t>(), result.data_ptr<scalar_t>(), outer, len, inner);
  });
  if (!direct) cpu::copyInto(out, result);
}

}  // namespace

void cumsum_out(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  scanInto<true>(self, dim, dtype, out, "cumsum");
}

void cumprod_out(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  scanInto<false>(self, dim, dtype, out, "cumprod");
}

}  // namespace opcore::native

// What a scan (cumsum, cumprod) accumulates in and how it steps, written once for the CPU
// kernels (kernels/cpu/Scan.cpp) and the CUDA ones (kernels/cuda/CudaScanKernels.cu), so both
// devices round each result once from the same running value. nvcc-clean (Note [nvcc-clean
// pointwise headers] in Binary.h).
//   using A = ScanAcc<Half>::type;                     // double
//   A acc = scanIdentity<true, A>(); acc = scanStep<true>(acc, A(x));
#pragma once

#include <opcore/core/Complex.h>
#include <opcore/core/Macros.h>
#include <opcore/core/ScalarType.h>

#include <common/Wrapping.h>

#include <type_traits>

namespace opcore::native {

// The type a scan accumulates in: double for float, complex<double> for complex<float> (PyTorch's
// CPU acc_type), double for Half and BFloat16 too (PyTorch: float; double rounds each result
// once from the exact running value, which float does not when large terms cancel), the
// element type otherwise (integers wrap).
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

// acc (op) x: + for cumsum, * for cumprod (or and and for bool; integers wrap).
template <bool kSum, typename A>
OPCORE_ALWAYS_INLINE OPCORE_HOST_DEVICE A scanStep(A acc, A x) {
  if constexpr (std::is_same_v<A, bool>) {
    return kSum ? (acc || x) : (acc && x);
  } else {
    return kSum ? wrappingAdd(acc, x) : wrappingMul(acc, x);
  }
}

template <bool kSum, typename A>
OPCORE_HOST_DEVICE constexpr A scanIdentity() {
  return kSum ? A(0) : A(1);
}

}  // namespace opcore::native

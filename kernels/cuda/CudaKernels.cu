// CUDA kernels of fill_ and of the device-side copy_ (strided, broadcast, converting), launched
// on the current stream (CudaLoops.cuh). The pointwise operators are in CudaUnaryKernels.cu,
// CudaBinaryKernels.cu and CudaTernaryKernels.cu.
#include "CudaLoops.cuh"

namespace opcore::cuda {
namespace {

template <typename T>
struct FillOp {
  using compute_type = T;
  T value;
  __device__ T operator()() const { return value; }
};

// Read straight as T: one conversion, as the CPU's copy_ makes it.
template <typename T>
struct CopyOp {
  using compute_type = T;
  __device__ T operator()(T x) const { return x; }
};

}  // namespace

void launchFill(ScalarType t, const StridedOperands<1>& ops, const Scalar& value) {
  OPCORE_DISPATCH_EVERY_TYPE(t, "fill_", [&] {
    gpuKernel<scalar_t, scalar_t>(ops, FillOp<scalar_t>{value.to<scalar_t>()}, "fill_");
  });
}

void launchCopy(ScalarType t, const StridedOperands<2>& ops) {
  OPCORE_DISPATCH_EVERY_TYPE(t, "copy_", [&] { gpuKernel<scalar_t, scalar_t>(ops, CopyOp<scalar_t>{}, "copy_"); });
}

}  // namespace opcore::cuda

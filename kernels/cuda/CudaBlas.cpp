// The CUDA kernels of the matrix products named in native_functions.yaml (mm, bmm, addmm,
// baddbmm, addmv) on cuBLAS: float, double, Half, BFloat16 and the complex dtypes (cuBLAS has
// no integer products; those raise NotImplementedError, as PyTorch's CUDA kernels). The meta
// functions have checked the operands and prepared out (common/LinearAlgebraMeta.cpp).
#include "CudaOperands.h"
#include "CudaRuntime.h"

#include "cpu/Loops.h"

#include <opcore/core/DeviceGuard.h>
#include <opcore/core/Empty.h>
#include <opcore/ops/addmm_native.h>
#include <opcore/ops/addmv_native.h>
#include <opcore/ops/baddbmm_native.h>
#include <opcore/ops/bmm_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/mm_native.h>

#include <cublas_v2.h>
#include <dlfcn.h>

#include <array>
#include <string>
#include <vector>

namespace opcore::native {
namespace {

const char* statusName(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "a cuBLAS error";
  }
}

void checkCublas(cublasStatus_t s, const char* name) {
  OPCORE_CHECK(s == CUBLAS_STATUS_SUCCESS, name, " (CUDA): cuBLAS failed with ", statusName(s), " (", static_cast<int>(s), ")");
}

// Note [cuBLAS loaded on first use]
// libcublas (and the libcublasLt it loads) add about 200 MB of mapped pages to a process: every
// opcore process would pay that at import, on machines without a GPU too. It is loaded with
// dlopen by the first product on a GPU instead (its own name, then from the CUDA toolkit opcore
// was built against), and the three entry points opcore calls are looked up once.
struct Cublas {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  // cublasGemmStridedBatchedEx, whose name the header overloads (an older compute-type form)
  cublasStatus_t (*gemm_strided_batched)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                         const void*, const void*, cudaDataType, int, long long, const void*,
                                         cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                         long long, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
};

#define OPCORE_STRINGIZE_(x) #x
#define OPCORE_STRINGIZE(x) OPCORE_STRINGIZE_(x)

const Cublas& cublas(const char* name) {
  static const Cublas lib = [name] {
    const std::string file = "libcublas.so." OPCORE_STRINGIZE(CUBLAS_VER_MAJOR);
    void* h = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) h = dlopen((std::string(OPCORE_CUDA_LIBRARY_DIR "/") + file).c_str(), RTLD_NOW | RTLD_LOCAL);
    OPCORE_CHECK(h != nullptr, name, " (CUDA): cuBLAS (", file, ") could not be loaded: ", dlerror());
    Cublas c;
    c.create = reinterpret_cast<decltype(c.create)>(dlsym(h, "cublasCreate_v2"));
    c.set_stream = reinterpret_cast<decltype(c.set_stream)>(dlsym(h, "cublasSetStream_v2"));
    c.gemm_strided_batched = reinterpret_cast<decltype(c.gemm_strided_batched)>(dlsym(h, "cublasGemmStridedBatchedEx"));
    OPCORE_CHECK(c.create && c.set_stream && c.gemm_strided_batched, name, " (CUDA): ", file,
                 " lacks an entry point opcore calls");
    return c;
  }();
  return lib;
}

#undef OPCORE_STRINGIZE
#undef OPCORE_STRINGIZE_

// Note [cuBLAS handles]
// A cuBLAS handle belongs to one GPU and is not to be shared between threads that use it at
// once: each thread creates one per GPU on first use and keeps it (as c10's handle pool does
// per thread), set to the current stream before each call. Handles are never destroyed: the
// CUDA runtime may be gone at thread or process exit.
cublasHandle_t handleFor(const Device& device, const char* name) {
  constexpr int kMaxGpus = 64;
  thread_local std::array<cublasHandle_t, kMaxGpus> handles{};
  const int index = device.index();
  OPCORE_CHECK(index >= 0 && index < kMaxGpus, name, " (CUDA): GPU index ", index, " is out of cuBLAS's handle table");
  const Cublas& lib = cublas(name);
  cublasHandle_t& h = handles[static_cast<size_t>(index)];
  if (h == nullptr) checkCublas(lib.create(&h), name);
  checkCublas(lib.set_stream(h, static_cast<cudaStream_t>(cuda::currentStreamHandle())), name);
  return h;
}

// A matrix operand as cuBLAS reads it: the last two dimensions of a row-major [rows, cols] view
// are, in column-major terms, the transposed matrix with leading dimension stride(-2)
// (op N of the transpose), or, when stride(-2) is 1, the matrix itself with leading dimension
// stride(-1) (op T). Other layouts, and leading dimensions beyond cuBLAS's int, are copied to a
// contiguous tensor first.
struct BlasOperand {
  Tensor data;                 // keeps the memory (a contiguous copy when needed)
  cublasOperation_t op = CUBLAS_OP_N;
  int64_t ld = 1;
  int64_t batch_stride = 0;
};

BlasOperand blasOperand(const Tensor& t) {
  const int64_t d = t.dim();
  const int64_t rows = t.size(d - 2), cols = t.size(d - 1);
  const int64_t rs = t.stride(d - 2), cs = t.stride(d - 1);
  BlasOperand b;
  b.data = t;
  bool in_place = true;
  if ((cs == 1 || cols == 1) && (rs >= std::max<int64_t>(cols, 1) || rows == 1)) {
    b.op = CUBLAS_OP_N;
    b.ld = rows == 1 ? std::max<int64_t>(cols, 1) : rs;
  } else if ((rs == 1 || rows == 1) && (cs >= std::max<int64_t>(rows, 1) || cols == 1)) {
    b.op = CUBLAS_OP_T;
    b.ld = cols == 1 ? std::max<int64_t>(rows, 1) : cs;
  } else {
    in_place = false;
  }
  if (!in_place || b.ld > INT32_MAX) {
    b.data = t.contiguous();
    b.op = CUBLAS_OP_N;
    b.ld = std::max<int64_t>(cols, 1);
  }
  b.batch_stride = d == 3 ? b.data.stride(0) : 0;
  return b;
}

struct BlasTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
};

BlasTypes blasTypes(ScalarType t) {
  switch (t) {
    case kFloat: return {CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case kDouble: return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case kHalf: return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case kBFloat16: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    case kComplexFloat: return {CUDA_C_32F, CUBLAS_COMPUTE_32F};
    default: return {CUDA_C_64F, CUBLAS_COMPUTE_64F};
  }
}

// c = alpha * (a x b) + beta * c for `batch` [n, k] x [k, m] products; c is a contiguous
// [batch, n, m] (or [n, m]) tensor of the operands' dtype, read only when beta is nonzero.
// Row-major c is column-major c^T = b^T a^T: cuBLAS computes that.
void gemm(const char* name, const Tensor& a, const Tensor& b, const Tensor& c, int64_t batch, int64_t n, int64_t k,
          int64_t m, const Scalar& alpha, const Scalar& beta) {
  const ScalarType dtype = c.scalar_type();
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, name, [] {});  // refuses the others
  if (n == 0 || m == 0 || batch == 0) return;
  const BlasOperand ba = blasOperand(a), bb = blasOperand(b);
  const BlasTypes types = blasTypes(dtype);
  const cublasHandle_t h = handleFor(c.device(), name);
  // alpha and beta in the compute type: float for 32F (a cuComplex for complex64), double for 64F.
  const bool wide = types.compute == CUBLAS_COMPUTE_64F;
  const complex<double> al = alpha.toComplexDouble(), be = beta.toComplexDouble();
  const complex<float> alf(static_cast<float>(al.real()), static_cast<float>(al.imag()));
  const complex<float> bef(static_cast<float>(be.real()), static_cast<float>(be.imag()));
  const void* alpha_p = wide ? static_cast<const void*>(&al) : static_cast<const void*>(&alf);
  const void* beta_p = wide ? static_cast<const void*>(&be) : static_cast<const void*>(&bef);
  checkCublas(cublas(name).gemm_strided_batched(h, bb.op, ba.op, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                                         alpha_p, bb.data.data_ptr(), types.data, static_cast<int>(bb.ld),
                                         bb.batch_stride, ba.data.data_ptr(), types.data, static_cast<int>(ba.ld),
                                         ba.batch_stride, beta_p, c.data_ptr(), types.data, static_cast<int>(m),
                                         n * m, static_cast<int>(batch), types.compute, CUBLAS_GEMM_DEFAULT),
              name);
}

void checkFitsInInt(const char* name, std::initializer_list<int64_t> sizes) {
  for (int64_t s : sizes) {
    OPCORE_CHECK(s <= INT32_MAX, name, " (CUDA): a dimension of ", s, " exceeds cuBLAS's int range");
  }
}

// out = beta * self + alpha * (mat1 x mat2): the product goes into a contiguous buffer holding
// self broadcast (out itself when it is contiguous), cuBLAS adds it in the compute type and
// rounds once (a 16-bit float result too, as the CPU kernel), and the buffer is copied to out.
// With beta = 0 self is not read (its NaNs do not survive), as in PyTorch.
void addProductInto(const char* name, const Tensor& self, const Tensor& mat1, const Tensor& mat2, int64_t batch,
                    const DimVector& shape, const Scalar& beta, const Scalar& alpha, const Tensor& out) {
  cpu::checkNoInternalOverlap(out);
  const DeviceGuard guard(out.device());
  const int64_t n = mat1.size(mat1.dim() - 2), k = mat1.size(mat1.dim() - 1), m = mat2.size(mat2.dim() - 1);
  checkFitsInInt(name, {n, k, m, batch});
  // Operands that share out's memory are read from copies taken now: out is resized (the
  // structured wrapper leaves that to the kernel when out aliases an operand) and written
  // before they are read. self as out itself, already of the result's shape, is read in place.
  const auto unaliased = [&](const Tensor& t) { return t.defined() && cpu::sharesStorage(out, t) ? t.clone() : t; };
  const Tensor a = unaliased(mat1), b = unaliased(mat2);
  const Tensor start = self.is_same(out) && out.sizes() == IntArrayRef(shape) ? self : unaliased(self);
  detail::resizeOutput(out, shape);
  const bool direct = out.is_contiguous();
  const Tensor c = direct ? out : opcore::empty(shape, out.options());
  const bool read_self = start.defined() && (beta.isComplex() ? beta.toComplexDouble() != complex<double>(0)
                                                                : beta.toDouble() != 0);
  if (read_self && !start.is_same(c)) c.copy_(start.expand(shape));
  if (k == 0) {  // no product: beta * self, or zeros
    if (read_self) {
      c.mul_(beta);
    } else {
      c.fill_(0);
    }
  } else {
    gemm(name, a, b, c, batch, n, k, m, alpha, read_self ? beta : Scalar(0.0));
  }
  if (!direct) out.copy_(c);
}

}  // namespace

void mm_out_cuda(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  addProductInto("mm", Tensor(), self, mat2, 1, DimVector{self.size(0), mat2.size(1)}, Scalar(0.0), Scalar(1.0), out);
}

void bmm_out_cuda(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  addProductInto("bmm", Tensor(), self, mat2, self.size(0), DimVector{self.size(0), self.size(1), mat2.size(2)},
                 Scalar(0.0), Scalar(1.0), out);
}

void addmm_out_cuda(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                    const Scalar& alpha, const Tensor& out) {
  addProductInto("addmm", self, mat1, mat2, 1, DimVector{mat1.size(0), mat2.size(1)}, beta, alpha, out);
}

// vec is read in place as an [m, 1] matrix.
void addmv_out_cuda(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha,
                    const Tensor& out) {
  const Tensor column(detail::makeView(vec, {vec.size(0), 1}, {vec.stride(0), 1}, vec.storage_offset()));
  addProductInto("addmv", self, mat, column, 1, DimVector{mat.size(0)}, beta, alpha, out);
}

void baddbmm_out_cuda(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                      const Scalar& alpha, const Tensor& out) {
  addProductInto("baddbmm", self, batch1, batch2, batch1.size(0),
                 DimVector{batch1.size(0), batch1.size(1), batch2.size(2)}, beta, alpha, out);
}

}  // namespace opcore::native

// The CUDA backend's kernels named in native_functions.yaml (empty_cuda, add_out_cuda,
// mul_out_cuda, copy_cuda_, fill_cuda_) and its allocator. Contiguous same-shape tensors
// take the device kernels; other layouts are rejected with a clear error for now.
#include "CudaLaunch.h"

#include <opcore/ops/add_native.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/copy_native.h>
#include <opcore/ops/empty_native.h>
#include <opcore/ops/fill_native.h>
#include <opcore/ops/mul_native.h>
#include <opcore/core/DeviceGuard.h>
#include <opcore/core/Empty.h>

#include <stdexcept>

namespace opcore {
namespace {

void freeCuda(void* p) { cuda::deviceFree(p); }

class CudaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    static const int device_count = cuda::deviceCount();
    OPCORE_CHECK(device_count > 0, "CUDA allocator: no CUDA device is available on this machine");
    int device = 0;
    void* p = nullptr;
    try {
      p = nbytes ? cuda::deviceAlloc(nbytes, &device) : nullptr;
    } catch (const std::runtime_error& e) {
      OPCORE_FAIL("CUDA allocator: ", e.what(), " (", nbytes, " bytes)");
    }
    return DataPtr(p, &freeCuda, Device(DeviceType::CUDA, static_cast<int8_t>(device)));
  }
  void copyData(void* dst, const void* src, size_t nbytes) const override {
    cuda::deviceCopy(dst, src, nbytes, cuda::CopyKind::DeviceToDevice);
  }
  int deviceCount() const override { return cuda::deviceCount(); }
};

CudaAllocator g_cuda_allocator;
[[maybe_unused]] const bool g_cuda_allocator_installed = (setAllocator(DeviceType::CUDA, &g_cuda_allocator), true);

void checkSimpleBinary(const char* op, const Tensor& a, const Tensor& b, const Tensor& out) {
  OPCORE_CHECK(a.is_cuda() && b.is_cuda() && out.is_cuda(), op, " (CUDA): all tensors must be on the GPU");
  OPCORE_CHECK(a.sizes() == b.sizes() && a.sizes() == out.sizes(), op,
               " (CUDA): broadcasting is not implemented yet; got sizes ", a.sizes(), " and ", b.sizes());
  OPCORE_CHECK(a.scalar_type() == b.scalar_type() && a.scalar_type() == out.scalar_type(), op,
               " (CUDA): inputs and out must share one dtype; got ", a.scalar_type(), ", ",
               b.scalar_type(), " and ", out.scalar_type());
  OPCORE_CHECK(a.is_contiguous() && b.is_contiguous() && out.is_contiguous(), op,
               " (CUDA): non-contiguous tensors are not supported yet");
}

// The CUDA DeviceGuardImpl, installed when libopcore loads: generated CUDA wrappers make their
// first tensor's GPU current for the kernel's duration (DeviceGuard.h).
class CudaGuardImpl final : public DeviceGuardImpl {
 public:
  DeviceIndex currentDevice() const override { return static_cast<DeviceIndex>(cuda::currentDevice()); }
  void setDevice(DeviceIndex index) const override { cuda::setCurrentDevice(index); }
};
const CudaGuardImpl g_cuda_guard_impl;
const bool g_cuda_guard_installed = (setDeviceGuardImpl(DeviceType::CUDA, &g_cuda_guard_impl), true);

}  // namespace

namespace native {

Tensor empty_cuda(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<MemoryFormat> memory_format) {
  detail::checkStridedLayout("empty", layout);
  return detail::empty(size, dtype.value_or(kDefaultFloat), device.value_or(Device(DeviceType::CUDA)),
                       memory_format.value_or(MemoryFormat::Contiguous));
}

// The impl kernels of structured add and mul: meta::add / meta::mul have checked the operands
// and prepared `out`; these kernels support only the simple layouts checkSimpleBinary allows.
void add_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  checkSimpleBinary("add", self, other, out);
  cuda::launchAdd(out.scalar_type(), out.data_ptr(), self.data_ptr(), other.data_ptr(), alpha, out.numel());
}

void mul_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  checkSimpleBinary("mul", self, other, out);
  cuda::launchMul(out.scalar_type(), out.data_ptr(), self.data_ptr(), other.data_ptr(), out.numel());
}

Tensor& fill_cuda_(Tensor& self, const Scalar& value) {
  OPCORE_CHECK(self.is_contiguous(), "fill_ (CUDA): non-contiguous tensors are not supported yet");
  cuda::launchFill(self.scalar_type(), self.data_ptr(), value, self.numel());
  return self;
}

// Copies between host and device (either direction) or within the device. Dtype changes
// and layout changes happen on the host side, with the CPU kernels.
Tensor& copy_cuda_(Tensor& self, const Tensor& src, bool non_blocking) {
  OPCORE_CHECK(self.sizes() == src.sizes(), "copy_ (CUDA): broadcasting is not implemented yet; got ",
               src.sizes(), " into ", self.sizes());
  if (src.is_cpu()) {  // host to device
    OPCORE_CHECK(self.is_contiguous(), "copy_ (CUDA): the destination must be contiguous");
    const Tensor host = src.to(self.scalar_type()).contiguous();
    cuda::deviceCopy(self.data_ptr(), host.data_ptr(), self.numel() * self.element_size(),
                     cuda::CopyKind::HostToDevice);
  } else if (self.is_cpu()) {  // device to host, then convert on the host
    OPCORE_CHECK(src.is_contiguous(), "copy_ (CUDA): the source must be contiguous");
    Tensor host = detail::emptyCpu(src.sizes(), src.scalar_type());
    cuda::deviceCopy(host.data_ptr(), src.data_ptr(), src.numel() * src.element_size(),
                     cuda::CopyKind::DeviceToHost);
    opcore::copy_(self, host);
  } else {
    OPCORE_CHECK(self.is_contiguous() && src.is_contiguous() && src.scalar_type() == self.scalar_type(),
                 "copy_ (CUDA): device-to-device copies need contiguous tensors of one dtype");
    cuda::deviceCopy(self.data_ptr(), src.data_ptr(), self.numel() * self.element_size(),
                     cuda::CopyKind::DeviceToDevice);
  }
  return self;
}

}  // namespace native
}  // namespace opcore

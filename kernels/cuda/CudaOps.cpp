// The CUDA backend's kernels named in native_functions.yaml (empty_cuda, add_out_cuda,
// mul_out_cuda, copy_cuda_, fill_cuda_). Contiguous same-shape tensors take the device
// kernels; other layouts are rejected with a clear error for now. The allocator, the device
// guard and the streams are CudaRuntime.cpp's.
#include "CudaLaunch.h"
#include "CudaRuntime.h"

#include <opcore/ops/add_native.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/copy_native.h>
#include <opcore/ops/empty_native.h>
#include <opcore/ops/fill_native.h>
#include <opcore/ops/mul_native.h>
#include <opcore/core/DeviceGuard.h>
#include <opcore/core/Empty.h>
#include <opcore/ops/empty.h>

#include <array>
#include <vector>

namespace opcore {
namespace {

// Byte strides of `t` over `shape` (t broadcast to it: missing and size-1 dimensions step 0).
std::vector<int64_t> broadcastByteStrides(const char* op, const Tensor& t, IntArrayRef shape) {
  const int64_t offset = static_cast<int64_t>(shape.size()) - t.dim();
  OPCORE_CHECK(offset >= 0, op, " (CUDA): a tensor of sizes ", t.sizes(), " does not broadcast to ", shape);
  std::vector<int64_t> strides(shape.size(), 0);
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t size = t.size(d);
    OPCORE_CHECK(size == shape[offset + d] || size == 1, op, " (CUDA): a tensor of sizes ", t.sizes(),
                 " does not broadcast to ", shape);
    if (size != 1) strides[offset + d] = t.stride(d) * t.element_size();
  }
  return strides;
}

// The operands of an elementwise kernel (CudaLaunch.h): operands[0] is the result, whose shape
// the others broadcast to; all live on the GPU, in any dtypes.
template <int N>
cuda::StridedOperands<N> stridedOperands(const char* op, std::array<const Tensor*, N> operands) {
  const Tensor& out = *operands[0];
  std::array<std::vector<int64_t>, N> strides;
  const int64_t* stride_ptrs[N];
  cuda::StridedOperands<N> ops;
  for (int k = 0; k < N; ++k) {
    const Tensor& t = *operands[k];
    OPCORE_CHECK(t.is_cuda(), op, " (CUDA): expected every tensor on the GPU, but one is on ", t.device());
    strides[k] = broadcastByteStrides(op, t, out.sizes());
    stride_ptrs[k] = strides[k].data();
    ops.data[k] = static_cast<char*>(t.data_ptr());
    ops.dtypes[k] = t.scalar_type();
    ops.element_sizes[k] = t.element_size();
    ops.mixed_dtypes = ops.mixed_dtypes || t.scalar_type() != out.scalar_type();
  }
  ops.numel = out.numel();
  OPCORE_CHECK(native::OffsetCalculator<N>::make(static_cast<int>(out.dim()), out.sizes().data(), stride_ptrs, ops.offsets),
               op, " (CUDA): more than ", native::kMaxOffsetDims, " dimensions remain after merging; not supported");
  ops.contiguous = ops.offsets.contiguous(ops.element_sizes);
  return ops;
}

// A 0-dim CPU tensor may join GPU tensors (a wrapped number, Note [Devices of structured
// kernels]): it is copied to the GPU first.
Tensor onDevice(const Tensor& t, const Tensor& out) { return t.is_cpu() && t.dim() == 0 ? t.to(out.device()) : t; }

}  // namespace

namespace native {

Tensor empty_cuda(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<MemoryFormat> memory_format) {
  detail::checkStridedLayout("empty", layout);
  return detail::empty(size, dtype.value_or(kDefaultFloat), device.value_or(Device(DeviceType::CUDA)),
                       memory_format.value_or(MemoryFormat::Contiguous));
}

// The impl kernels of structured add and mul: meta::add / meta::mul have checked the operands
// and prepared `out`.
void add_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  const Tensor a = onDevice(self, out), b = onDevice(other, out);
  cuda::launchAdd(out.scalar_type(), stridedOperands<3>("add", {&out, &a, &b}), alpha);
}

void mul_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  const Tensor a = onDevice(self, out), b = onDevice(other, out);
  cuda::launchMul(out.scalar_type(), stridedOperands<3>("mul", {&out, &a, &b}));
}

Tensor& fill_cuda_(Tensor& self, const Scalar& value) {
  cuda::launchFill(self.scalar_type(), stridedOperands<1>("fill_", {&self}), value);
  return self;
}

// Copies between host and device (either direction) or within the GPU. Bytes cross between
// host and device densely; dtype changes happen on the host (with the CPU kernels) for a copy
// from the host and on the GPU otherwise, and broadcasting and strides on the GPU, with the
// copy kernel.
Tensor& copy_cuda_(Tensor& self, const Tensor& src, bool non_blocking) {
  // copy_ has no generated guard (device_guard: False): the copy goes on the GPU side's stream.
  const DeviceGuard guard(self.is_cuda() ? self.device() : src.device());
  if (src.is_cpu()) {  // host to device: dense bytes of self's dtype, then spread on the GPU
    broadcastByteStrides("copy_", src, self.sizes());  // refuses a source that does not broadcast
    const Tensor host = src.to(self.scalar_type()).contiguous();
    const bool direct = self.is_contiguous() && src.sizes() == self.sizes();
    const Tensor staged = direct ? self : opcore::empty(host.sizes(), self.options());
    cuda::deviceCopy(staged.data_ptr(), host.data_ptr(), host.numel() * host.element_size(), cuda::CopyKind::HostToDevice);
    if (!direct) cuda::launchCopy(self.scalar_type(), stridedOperands<2>("copy_", {&self, &staged}));
  } else if (self.is_cpu()) {  // device to host: dense bytes of src, then convert on the host
    const Tensor dense = src.contiguous();
    Tensor host = detail::emptyCpu(dense.sizes(), dense.scalar_type());
    cuda::deviceCopy(host.data_ptr(), dense.data_ptr(), dense.numel() * dense.element_size(), cuda::CopyKind::DeviceToHost);
    opcore::copy_(self, host);
  } else if (self.is_contiguous() && src.is_contiguous() && self.sizes() == src.sizes() &&
             self.scalar_type() == src.scalar_type()) {  // dense bytes, on one GPU or between two
    cuda::deviceCopy(self.data_ptr(), src.data_ptr(), self.numel() * self.element_size(), cuda::CopyKind::DeviceToDevice);
  } else {
    OPCORE_CHECK(src.device() == self.device(), "copy_ (CUDA): a copy from ", src.device(), " to ", self.device(),
                 " needs contiguous tensors of one shape and dtype for now");
    cuda::launchCopy(self.scalar_type(), stridedOperands<2>("copy_", {&self, &src}));
  }
  return self;
}

}  // namespace native
}  // namespace opcore

// The CUDA backend's factories and copies named in native_functions.yaml (empty_cuda,
// copy_cuda_, fill_cuda_, resize_cuda_, _local_scalar_dense_cuda) and the operand helpers of
// CudaOperands.h.
// The pointwise operators are CudaPointwise.cpp's; the allocator, the device guard and the
// streams CudaRuntime.cpp's.
#include "CudaOperands.h"
#include "CudaRuntime.h"

#include "common/Shape.h"
#include "cpu/Loops.h"
#include "cpu/ScalarConvert.h"

#include <opcore/ops/_local_scalar_dense.h>
#include <opcore/ops/_local_scalar_dense_native.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/copy_native.h>
#include <opcore/ops/empty_native.h>
#include <opcore/ops/fill_native.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/resize_native.h>
#include <opcore/core/CachingHostAllocator.h>
#include <opcore/core/DeviceGuard.h>
#include <opcore/core/Empty.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/zeros.h>

#include <array>
#include <vector>

namespace opcore {
namespace cuda {

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

Tensor onDevice(const Tensor& t, const Tensor& out) {
  if (!t.is_cpu() || t.dim() != 0) return t;
  Tensor value = opcore::empty({}, t.options().device(out.device()));
  opcore::fill_(value, opcore::_local_scalar_dense(t));
  return value;
}

IndexedProblem indexedProblem(const char* op, IntArrayRef shape, const IndexedOperand& written,
                              const IndexedOperand& read, const IndexedOperand& index, int64_t index_stride,
                              int64_t bound, bool wrap) {
  const std::array<const IndexedOperand*, 3> operands = {&written, &read, &index};
  std::array<std::vector<int64_t>, 3> bytes;
  const int64_t* stride_ptrs[3];
  IndexedProblem p;
  for (size_t k = 0; k < 3; ++k) {
    const Tensor& t = *operands[k]->tensor;
    OPCORE_CHECK(t.is_cuda(), op, " (CUDA): expected every tensor on the GPU, but one is on ", t.device());
    OPCORE_INTERNAL_ASSERT(operands[k]->strides.size() == shape.size(), "an indexed operand's strides do not match its shape");
    for (const int64_t s : operands[k]->strides) bytes[k].push_back(s * t.element_size());
    stride_ptrs[k] = bytes[k].data();
    p.ops.data[k] = static_cast<char*>(t.data_ptr());
    p.ops.dtypes[k] = t.scalar_type();
    p.ops.element_sizes[k] = t.element_size();
  }
  OPCORE_INTERNAL_ASSERT(index.tensor->scalar_type() == ScalarType::Long, "indices must be Long");
  p.ops.numel = 1;
  for (const int64_t size : shape) p.ops.numel *= size;
  OPCORE_CHECK(native::OffsetCalculator<3>::make(static_cast<int>(shape.size()), shape.data(), stride_ptrs, p.ops.offsets),
               op, " (CUDA): more than ", native::kMaxOffsetDims, " dimensions remain after merging; not supported");
  p.index_stride = index_stride * written.tensor->element_size();
  p.bound = bound;
  p.wrap = wrap;
  return p;
}

namespace {

// The first value of `indices` (Long, on the GPU) outside [0, bound), or outside [-bound,
// bound) when `wrap`: copied to the host, to be named in the error.
int64_t firstBadIndex(const Tensor& indices, int64_t bound, bool wrap) {
  const Tensor host = indices.to(Device(DeviceType::CPU)).to(ScalarType::Long).contiguous();
  const int64_t* p = host.data_ptr<int64_t>();
  for (int64_t i = 0; i < host.numel(); ++i) {
    if (p[i] < (wrap ? -bound : 0) || p[i] >= bound) return p[i];
  }
  return 0;
}

}  // namespace

std::optional<int64_t> badIndex(const Tensor& indices, int64_t bound, bool wrap) {
  const Tensor longs = indices.contiguous();
  const Tensor bad = newFlag(indices.device());
  launchCheckIndices(longs.data_ptr<int64_t>(), longs.numel(), bound, wrap, bad.data_ptr<int>());
  if (!flagged(bad)) return std::nullopt;
  return firstBadIndex(longs, bound, wrap);
}

Tensor contiguousOutput(const Tensor& out) {
  return out.is_contiguous() ? out : opcore::empty(out.sizes(), out.options());
}

void copyBack(const Tensor& out, const Tensor& written) {
  if (!written.is_same(out)) out.copy_(written);
}

Tensor newFlag(Device device) { return opcore::zeros({}, TensorOptions().dtype(ScalarType::Int).device(device)); }

bool flagged(const Tensor& flag) {
  int value = 0;
  deviceCopy(&value, flag.data_ptr(), sizeof(int), CopyKind::DeviceToHost);
  return value != 0;
}


}  // namespace cuda

namespace native {

using cuda::stridedOperands;
using cuda::broadcastByteStrides;

Tensor empty_cuda(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  detail::checkStridedLayout("empty", layout);
  return detail::empty(size, dtype.value_or(kDefaultFloat), device.value_or(Device(DeviceType::CUDA)),
                       memory_format.value_or(MemoryFormat::Contiguous), pin_memory.value_or(false));
}

// Tensor.resize_: a storage too small is replaced by a larger one that starts with the old
// bytes, moved on the GPU.
Tensor& resize_cuda_(Tensor& self, IntArrayRef size, std::optional<MemoryFormat> memory_format) {
  checkResizable(self, size, memory_format);
  detail::resizeKeepingData(self, size, memory_format.value_or(MemoryFormat::Contiguous),
                            [](void* dst, const void* src, size_t nbytes) {
                              cuda::deviceCopy(dst, src, nbytes, cuda::CopyKind::DeviceToDevice);
                            });
  return self;
}

Tensor& fill_cuda_(Tensor& self, const Scalar& value) {
  // a value the dtype cannot hold is refused, as on the CPU ("value cannot be converted to type
  // uint8_t without overflow")
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "fill_", [&] { cpu::checkedConvert<scalar_t>(value); });
  cuda::launchFill(self.scalar_type(), stridedOperands<1>("fill_", {&self}), value);
  return self;
}

namespace {

// Copies the dense bytes of `gpu` to or from `host` (a dense CPU tensor of the same size and
// dtype) on the current stream. Pinned host memory is copied asynchronously: a non_blocking copy
// returns at once and the pinned block waits for the stream before it is handed out again; a
// blocking one waits for the stream, as torch's does. Pageable memory follows deviceCopy's rules
// (CUDA stages it; a copy to the host waits).
void copyHostBytes(const Tensor& host, const Tensor& gpu, cuda::CopyKind kind, bool non_blocking) {
  const size_t nbytes = static_cast<size_t>(gpu.numel()) * gpu.element_size();
  void* dst = kind == cuda::CopyKind::HostToDevice ? gpu.data_ptr() : host.data_ptr();
  const void* src = kind == cuda::CopyKind::HostToDevice ? host.data_ptr() : gpu.data_ptr();
  CachingHostAllocator* pinned = hostAllocator(DeviceType::CUDA);
  const DataPtr& block = host.storage()->data_ptr();
  if (!pinned || !pinned->owns(block)) {
    cuda::deviceCopy(dst, src, nbytes, kind);
    return;
  }
  cuda::deviceCopyAsync(dst, src, nbytes, kind);
  const Stream stream = currentStream(gpu.device());
  if (non_blocking) {
    pinned->recordStream(block, stream);
  } else {
    cuda::synchronize(stream);
  }
}

}  // namespace

// Copies between host and device (either direction) or within the GPU. Bytes cross between
// host and device densely, straight from or into the CPU tensor when it is dense in the right
// dtype and shape; dtype changes happen on the host (with the CPU kernels) for a copy from the
// host and on the GPU otherwise, and broadcasting and strides on the GPU, with the copy kernel.
// non_blocking returns before the copy has run only when the CPU side is pinned memory
// (copyHostBytes). As on the CPU, a copy onto itself does nothing, a self whose elements overlap
// is refused, and a source that shares memory with self is read whole before self is written.
Tensor& copy_cuda_(Tensor& self, const Tensor& src, bool non_blocking) {
  // copy_ has no generated guard (device_guard: False): the copy goes on the GPU side's stream.
  const DeviceGuard guard(self.is_cuda() ? self.device() : src.device());
  const DimVector shape = broadcastShapes(self.sizes(), src.sizes());
  OPCORE_CHECK(IntArrayRef(shape) == self.sizes(), "output with shape ", self.sizes(),
               " doesn't match the broadcast shape ", IntArrayRef(shape));
  if (self.numel() == 0 || cpu::sameLayout(self, src)) return self;
  cpu::checkNoInternalOverlap(self);
  if (src.is_cpu()) {  // host to device: dense bytes of self's dtype, then spread on the GPU
    broadcastByteStrides("copy_", src, self.sizes());  // refuses a source that does not broadcast
    const Tensor host = src.to(self.scalar_type()).contiguous();
    const bool direct = self.is_contiguous() && src.sizes() == self.sizes();
    const Tensor staged = direct ? self : opcore::empty(host.sizes(), self.options());
    copyHostBytes(host, staged, cuda::CopyKind::HostToDevice, non_blocking);
    if (!direct) cuda::launchCopy(self.scalar_type(), stridedOperands<2>("copy_", {&self, &staged}));
  } else if (self.is_cpu()) {  // device to host: dense bytes of src, then convert on the host
    const Tensor dense = src.contiguous();
    const bool direct = self.is_contiguous() && self.sizes() == dense.sizes() && self.scalar_type() == dense.scalar_type();
    const Tensor host = direct ? self : Tensor(detail::emptyCpu(dense.sizes(), dense.scalar_type()));
    copyHostBytes(host, dense, cuda::CopyKind::DeviceToHost, non_blocking);
    if (!direct) opcore::copy_(self, host);
  } else if (self.is_contiguous() && src.is_contiguous() && self.sizes() == src.sizes() &&
             self.scalar_type() == src.scalar_type() && !cpu::sharesStorage(self, src)) {
    // dense bytes, on one GPU or between two. Between two, as PyTorch's: the copy, on self's
    // GPU's stream, waits for the work queued on src's GPU (which may still be writing src),
    // and src's GPU waits for the copy before its later work may change or free src.
    const bool two = src.device() != self.device();
    if (two) cuda::streamWait(cuda::currentStream(self.device()), cuda::currentStream(src.device()));
    cuda::deviceCopy(self.data_ptr(), src.data_ptr(), self.numel() * self.element_size(), cuda::CopyKind::DeviceToDevice);
    if (two) cuda::streamWait(cuda::currentStream(src.device()), cuda::currentStream(self.device()));
  } else {
    OPCORE_CHECK(src.device() == self.device(), "copy_ (CUDA): a copy from ", src.device(), " to ", self.device(),
                 " needs contiguous tensors of one shape and dtype for now");
    const Tensor source = cpu::sharesStorage(self, src) ? src.clone() : src;
    cuda::launchCopy(self.scalar_type(), stridedOperands<2>("copy_", {&self, &source}));
  }
  return self;
}

// item() of a GPU tensor: its one element, copied to the host (waiting for the stream).
Scalar _local_scalar_dense_cuda(const Tensor& self) {
  OPCORE_CHECK(self.numel() == 1, "a Tensor with ", self.numel(), " elements cannot be converted to Scalar");
  const DeviceGuard guard(self.device());
  Tensor host = detail::emptyCpu({}, self.scalar_type());
  cuda::deviceCopy(host.data_ptr(), self.data_ptr(), self.element_size(), cuda::CopyKind::DeviceToHost);
  return opcore::_local_scalar_dense(host);
}

}  // namespace native
}  // namespace opcore

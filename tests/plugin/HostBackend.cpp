// A PrivateUse1 backend over host memory, for the device tests (PrivateUse1Test.cpp,
// tests/python/test_privateuse1.py), written as a backend library is: loading it names
// PrivateUse1 "npu", installs an allocator that counts what it hands out and a device guard
// over two devices, registers a few kernels at PrivateUse1 and the CPU fallback for the rest.
// dlclose() takes every registration back. Its memory is host memory, so its kernels compute
// on CPU tensors that alias the device tensors' storage.
#include <opcore/Tensor.h>
#include <opcore/core/DeviceGuard.h>
#include <opcore/core/Empty.h>
#include <opcore/library/CpuFallback.h>
#include <opcore/library/Library.h>
#include <opcore/ops/add.h>
#include <opcore/ops/as_strided_native.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/view_native.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

using namespace opcore;

std::atomic<int64_t> g_allocations{0};  // allocations made so far
std::atomic<int64_t> g_live_bytes{0};   // bytes allocated and not yet freed
std::atomic<int64_t> g_live_blocks{0};

struct Block {
  size_t nbytes;
};

void freeBlock(void* context) {
  auto* block = static_cast<Block*>(context);
  g_live_bytes -= static_cast<int64_t>(block->nbytes);
  --g_live_blocks;
  std::free(block);
}

thread_local DeviceIndex t_current_device = 0;
thread_local int32_t t_current_stream[2] = {0, 0};  // per device

class HostAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    // The block's header keeps its size for the counters; the data starts 64 bytes in.
    void* memory = std::aligned_alloc(kCpuAlignment, kCpuAlignment + ((nbytes + kCpuAlignment - 1) / kCpuAlignment) * kCpuAlignment);
    OPCORE_CHECK(memory != nullptr, "npu: out of memory allocating ", nbytes, " bytes");
    static_cast<Block*>(memory)->nbytes = nbytes;
    ++g_allocations;
    ++g_live_blocks;
    g_live_bytes += static_cast<int64_t>(nbytes);
    return DataPtr(static_cast<char*>(memory) + kCpuAlignment, memory, &freeBlock,
                   Device(DeviceType::PrivateUse1, t_current_device));
  }
  void copyData(void* dst, const void* src, size_t nbytes) const override { std::memcpy(dst, src, nbytes); }
  int deviceCount() const override { return 2; }
};

class HostGuard final : public DeviceGuardImpl {
 public:
  DeviceIndex currentDevice() const override { return t_current_device; }
  void setDevice(DeviceIndex index) const override {
    OPCORE_CHECK(index >= 0 && index < 2, "npu: there is no device ", static_cast<int>(index));
    t_current_device = index;
  }
  Stream currentStream(Device device) const override { return Stream(device, t_current_stream[device.index()]); }
  Stream exchangeStream(Stream stream) const override {
    const Stream previous = currentStream(stream.device);
    t_current_stream[stream.device.index()] = stream.id;
    return previous;
  }
};

HostAllocator g_allocator;
HostGuard g_guard;

// Installs the device hooks while the library is loaded.
struct DeviceHooks {
  DeviceHooks() {
    register_privateuse1_backend("npu");
    setAllocator(DeviceType::PrivateUse1, &g_allocator);
    setDeviceGuardImpl(DeviceType::PrivateUse1, &g_guard);
  }
  ~DeviceHooks() {
    setDeviceGuardImpl(DeviceType::PrivateUse1, nullptr);
    setAllocator(DeviceType::PrivateUse1, nullptr);
  }
} g_hooks;

// A CPU tensor over the same bytes as `t` (host memory); CPU tensors are returned as they are.
Tensor onHost(const Tensor& t) {
  if (!t.defined() || t.is_cpu()) return t;
  auto impl = makeIntrusive<TensorImpl>(t.unsafeGetTensorImpl()->storage(), t.scalar_type(), Device(DeviceType::CPU));
  impl->setSizesAndStrides(t.sizes(), t.strides(), t.storage_offset());
  return Tensor(TensorBase(std::move(impl)));
}

Tensor empty_npu(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<MemoryFormat> memory_format) {
  detail::checkStridedLayout("empty (npu)", layout);
  const Device d = device && device->has_index() ? *device : Device(DeviceType::PrivateUse1, t_current_device);
  return Tensor(detail::empty(size, dtype.value_or(ScalarType::Float), d, memory_format.value_or(MemoryFormat::Contiguous)));
}

Tensor& copy_npu_(Tensor& self, const Tensor& src, bool non_blocking) {
  onHost(self).copy_(onHost(src), non_blocking);
  return self;
}

Tensor& fill_npu_(Tensor& self, const Scalar& value) {
  onHost(self).fill_(value);
  return self;
}

Tensor add_npu(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  const Tensor result = opcore::add(onHost(self), onHost(other), alpha);
  Tensor out = empty_npu(result.sizes(), result.scalar_type(), std::nullopt, self.is_cpu() ? other.device() : self.device(),
                         std::nullopt);
  onHost(out).copy_(result);
  return out;
}

}  // namespace

extern "C" {
// The allocator's counters, for the tests (ctypes in Python).
int64_t npu_allocations() { return g_allocations.load(); }
int64_t npu_live_bytes() { return g_live_bytes.load(); }
int64_t npu_live_blocks() { return g_live_blocks.load(); }
}

OPCORE_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", OPCORE_FN(empty_npu));
  m.impl("copy_", OPCORE_FN(copy_npu_));
  m.impl("fill_.Scalar", OPCORE_FN(fill_npu_));
  m.impl("add.Tensor", OPCORE_FN(add_npu));
  m.impl("view", OPCORE_FN(native::view));
  m.impl("as_strided", OPCORE_FN(native::as_strided));
}

OPCORE_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(cpuFallback());
}

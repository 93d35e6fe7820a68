// The npu device: its allocator (counting what it hands out), its device guard (the current
// device and stream of each thread), its pinned host memory, and their installation while libnpu
// is loaded.
#include "Npu.h"

#include <opcore/core/CachingHostAllocator.h>
#include <opcore/core/DeviceGuard.h>
#include <opcore/core/TensorImpl.h>
#include <opcore/library/CpuFallback.h>
#include <opcore/library/Library.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace npu {
namespace {

using opcore::DataPtr;
using opcore::Device;
using opcore::DeviceIndex;
using opcore::DeviceType;
using opcore::Stream;

std::atomic<int64_t> g_allocations{0};
std::atomic<int64_t> g_live_bytes{0};
std::atomic<int64_t> g_live_blocks{0};

thread_local DeviceIndex t_device = 0;
thread_local int32_t t_stream[kDeviceCount] = {};

// A block starts with its size (for the counters); the data follows, 64-byte aligned.
constexpr size_t kHeader = opcore::kCpuAlignment;

void freeBlock(void* block) {
  g_live_bytes -= static_cast<int64_t>(*static_cast<size_t*>(block));
  --g_live_blocks;
  std::free(block);
}

class NpuAllocator final : public opcore::Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    const size_t rounded = (nbytes + kHeader - 1) / kHeader * kHeader;
    void* block = std::aligned_alloc(kHeader, kHeader + rounded);
    OPCORE_CHECK(block != nullptr, "npu: out of memory allocating ", nbytes, " bytes");
    *static_cast<size_t*>(block) = nbytes;
    ++g_allocations;
    ++g_live_blocks;
    g_live_bytes += static_cast<int64_t>(nbytes);
    return DataPtr(static_cast<char*>(block) + kHeader, block, &freeBlock, Device(DeviceType::PrivateUse1, t_device));
  }
  void copyData(void* dst, const void* src, size_t nbytes) const override { std::memcpy(dst, src, nbytes); }
  int deviceCount() const override { return kDeviceCount; }
};

class NpuGuard final : public opcore::DeviceGuardImpl {
 public:
  DeviceIndex currentDevice() const override { return t_device; }
  void setDevice(DeviceIndex index) const override {
    OPCORE_CHECK(index >= 0 && index < kDeviceCount, "npu: there is no device ", static_cast<int>(index));
    t_device = index;
  }
  Stream currentStream(Device device) const override { return Stream(device, t_stream[device.index()]); }
  Stream exchangeStream(Stream stream) const override {
    const Stream previous = currentStream(stream.device);
    t_stream[stream.device.index()] = stream.id;
    return previous;
  }
};

NpuAllocator g_allocator;
NpuGuard g_guard;

// The memory Tensor.pin_memory() gives for npu: an accelerator would page-lock it for its copy
// engines (cudaHostAlloc for CUDA); npu devices are host memory, so any aligned block does.
// npu copies are done when they return, so the event recorded after one has already passed.
class NpuPinnedMemory final : public opcore::DeviceMemory {
 public:
  Device device() const override { return Device(DeviceType::PrivateUse1, t_device); }
  void* allocate(size_t nbytes) override { return std::aligned_alloc(opcore::kCpuAlignment, nbytes); }
  void free(void* ptr) override { std::free(ptr); }
  Stream currentStream() const override { return g_guard.currentStream(device()); }
  Event recordEvent(Stream) override { return nullptr; }
  bool eventDone(Event) override { return true; }
  void synchronizeEvent(Event) override {}
  void releaseEvent(Event) override {}
};

NpuPinnedMemory g_pinned_memory;
opcore::CachingHostAllocator g_pinned(g_pinned_memory);
opcore::CachingHostAllocator* pinnedAllocator() { return &g_pinned; }

// Installed while libnpu is loaded; its static destructor (at dlclose) takes them back.
struct DeviceHooks {
  DeviceHooks() {
    opcore::register_privateuse1_backend("npu");
    opcore::setAllocator(DeviceType::PrivateUse1, &g_allocator);
    opcore::setDeviceGuardImpl(DeviceType::PrivateUse1, &g_guard);
    opcore::setHostAllocatorLookup(DeviceType::PrivateUse1, &pinnedAllocator);
  }
  ~DeviceHooks() {
    opcore::setHostAllocatorLookup(DeviceType::PrivateUse1, nullptr);
    opcore::setDeviceGuardImpl(DeviceType::PrivateUse1, nullptr);
    opcore::setAllocator(DeviceType::PrivateUse1, nullptr);
  }
} g_hooks;

}  // namespace

AllocatorStats allocator_stats() { return {g_allocations.load(), g_live_bytes.load(), g_live_blocks.load()}; }

opcore::Tensor onHost(const opcore::Tensor& t) {
  if (!t.defined() || t.is_cpu()) return t;
  auto impl = opcore::makeIntrusive<opcore::TensorImpl>(t.unsafeGetTensorImpl()->storage(), t.scalar_type(),
                                                        Device(DeviceType::CPU));
  impl->setSizesAndStrides(t.sizes(), t.strides(), t.storage_offset());
  return opcore::Tensor(opcore::TensorBase(std::move(impl)));
}

}  // namespace npu

int64_t npu_allocations() { return npu::allocator_stats().allocations; }
int64_t npu_live_bytes() { return npu::allocator_stats().live_bytes; }

// Every operator npu_native_functions.yaml does not list runs on the CPU (Note [CPU fallback]).
OPCORE_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(opcore::cpuFallback());
}

// The CPU allocator and the per-device allocator registry.
#include <opcore/core/Allocator.h>

#include <opcore/core/Error.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace opcore {

DataPtr& DataPtr::operator=(DataPtr&& o) noexcept {
  if (this != &o) {
    reset();
    ptr_ = std::exchange(o.ptr_, nullptr);
    context_ = std::exchange(o.context_, nullptr);
    deleter_ = o.deleter_;
    device_ = o.device_;
  }
  return *this;
}

void DataPtr::reset() {
  if (context_ && deleter_) deleter_(context_);
  ptr_ = nullptr;
  context_ = nullptr;
}

namespace {

void freeCpu(void* p) { std::free(p); }

class CpuAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, Device(DeviceType::CPU));
    // aligned_alloc needs a size that is a multiple of the alignment.
    const size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    void* p = std::aligned_alloc(kCpuAlignment, rounded);
    OPCORE_CHECK(p != nullptr, "CPU allocator: out of memory allocating ", nbytes, " bytes");
    return DataPtr(p, &freeCpu, Device(DeviceType::CPU));
  }
  void copyData(void* dst, const void* src, size_t nbytes) const override {
    if (nbytes) std::memcpy(dst, src, nbytes);
  }
  int deviceCount() const override { return 1; }
};

CpuAllocator g_cpu_allocator;
std::array<std::atomic<Allocator*>, 3> g_allocators{&g_cpu_allocator, nullptr, nullptr};

}  // namespace

Allocator* getAllocator(DeviceType t) {
  Allocator* a = g_allocators[static_cast<size_t>(t)].load(std::memory_order_acquire);
  OPCORE_CHECK(a != nullptr, "no allocator for device type '", toString(t),
               "': opcore was built without ", toString(t), " support");
  return a;
}

int deviceCount(DeviceType t) {
  Allocator* a = g_allocators[static_cast<size_t>(t)].load(std::memory_order_acquire);
  return a ? a->deviceCount() : 0;
}

void setAllocator(DeviceType t, Allocator* a) {
  g_allocators[static_cast<size_t>(t)].store(a, std::memory_order_release);
}

}  // namespace opcore

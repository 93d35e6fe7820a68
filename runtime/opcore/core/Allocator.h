// Allocators: raw memory for tensor storage, one per device type. The CPU allocator returns
// 64-byte-aligned blocks (a cache line, and the widest SIMD load) and keeps freed blocks for
// reuse (Note [Caching CPU allocator] in Allocator.cpp). The CUDA allocator is
// installed by the CUDA part of the library when it is built (see setAllocator).
//   DataPtr p = getAllocator(DeviceType::CPU)->allocate(1024);
#pragma once

#include <opcore/core/Device.h>

#include <cstddef>

namespace opcore {

constexpr size_t kCpuAlignment = 64;

using DeleterFn = void (*)(void*);

// Owning pointer to device memory, freed with its deleter. The deleter receives the
// context, which is the pointer itself unless given: memory owned by something else (a numpy
// array's buffer, opcore.from_numpy) passes the owner as the context.
class DataPtr {
 public:
  DataPtr() = default;
  DataPtr(void* ptr, DeleterFn deleter, Device device) : DataPtr(ptr, ptr, deleter, device) {}
  DataPtr(void* ptr, void* context, DeleterFn deleter, Device device)
      : ptr_(ptr), context_(context), deleter_(deleter), device_(device) {}
  DataPtr(DataPtr&& o) noexcept : ptr_(o.ptr_), context_(o.context_), deleter_(o.deleter_), device_(o.device_) {
    o.ptr_ = nullptr;
    o.context_ = nullptr;
  }
  DataPtr& operator=(DataPtr&& o) noexcept;
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  ~DataPtr() { reset(); }

  void* get() const { return ptr_; }
  Device device() const { return device_; }
  // What the deleter receives, and the deleter: an allocator recognizes its own blocks by them.
  void* context() const { return context_; }
  DeleterFn deleter() const { return deleter_; }
  void reset() {
    if (context_ && deleter_) deleter_(context_);
    ptr_ = nullptr;
    context_ = nullptr;
  }

 private:
  void* ptr_ = nullptr;
  void* context_ = nullptr;
  DeleterFn deleter_ = nullptr;
  Device device_;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual DataPtr allocate(size_t nbytes) = 0;
  // Copies bytes between two allocations of this allocator's device.
  virtual void copyData(void* dst, const void* src, size_t nbytes) const = 0;
  // How many devices of this type can be used (CPU: 1; CUDA: 0 on a machine without a GPU).
  virtual int deviceCount() const = 0;
};

// The allocator for a device type. Throws opcore::Error when none is installed (for
// example CUDA in a build without CUDA).
Allocator* getAllocator(DeviceType t);
// The number of usable devices of type `t`; 0 when this build does not support it.
//   if (deviceCount(DeviceType::CUDA) == 0) GTEST_SKIP() << "no GPU";
int deviceCount(DeviceType t);
// Installs the allocator for a device type; `a` must outlive every later allocation.
void setAllocator(DeviceType t, Allocator* a);

// The CPU allocator's counters (Note [Caching CPU allocator] in Allocator.cpp). Bytes are
// as allocated: rounded up to the block's size class.
struct CpuAllocatorStats {
  size_t allocated_bytes = 0;  // in blocks handed out and not yet freed
  size_t cached_bytes = 0;     // in freed blocks kept for reuse
  size_t hits = 0;             // allocations served from the cache
  size_t misses = 0;           // allocations that went to the system
};
//   auto before = cpu_allocator_stats(); opcore::empty({1024}); ... cpu_allocator_stats().hits
CpuAllocatorStats cpu_allocator_stats();
// Returns every cached block to the system (the allocator keeps caching afterwards).
void cpu_allocator_empty_cache();
// Whether freed CPU blocks are cached: false when OPCORE_CPU_ALLOCATOR=system was set at
// start-up (debugging, and the sanitizer builds, where reuse would hide use-after-free).
bool cpu_allocator_is_caching();
namespace detail {
// Whether the CPU allocator in use is opcore's own, not one installed with setAllocator: small
// CPU storages then hold their bytes inline (Note [Small storages inline] in Storage.h).
bool cpuAllocatorIsBuiltin();
}  // namespace detail

}  // namespace opcore

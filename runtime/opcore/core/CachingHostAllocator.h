// Pinned (page-locked) host memory, cached, as c10's CachingHostAllocator behaves: the CPU
// memory of `Tensor.pin_memory()` and `empty(..., pin_memory=true)`, which a GPU copies from and
// to without a staging copy, and which lets a copy return before it has run
// (`copy_(src, /*non_blocking=*/true)`). Pinning and unpinning memory cost far more than an
// allocation (cudaHostAlloc maps every page; cudaFreeHost synchronizes the device), so freed
// blocks are kept and handed out again. Device-generic, as CachingDeviceAllocator is: the
// pinning and the streams' events come from a DeviceMemory (the CUDA backend's pins with
// cudaHostAlloc; a test's pretends). Note [Caching host allocator] in the .cpp says how.
//   CachingHostAllocator pinned(memory);
//   DataPtr p = pinned.allocate(3000);       // a 4096-byte pinned block (a CPU DataPtr)
//   pinned.recordStream(p, stream);          // an asynchronous copy on `stream` reads it
//   p.reset();                               // cached; reused once that copy has run
#pragma once

#include <opcore/core/CachingDeviceAllocator.h>

#include <memory>
#include <optional>

namespace opcore {

class CachingHostAllocator final : public Allocator {
 public:
  // `memory` pins and unpins (its allocate and free) and records the events of the streams
  // that use the blocks; it must outlive the allocator, and the allocator every block.
  explicit CachingHostAllocator(DeviceMemory& memory);
  ~CachingHostAllocator() override;
  CachingHostAllocator(const CachingHostAllocator&) = delete;
  CachingHostAllocator& operator=(const CachingHostAllocator&) = delete;

  // A pinned block of at least `nbytes` (a power of two), on the CPU device (an empty DataPtr
  // for 0 bytes). Throws OutOfMemoryError when the memory cannot be pinned even after the
  // cache was unpinned.
  DataPtr allocate(size_t nbytes) override;
  void copyData(void* dst, const void* src, size_t nbytes) const override;
  int deviceCount() const override { return 1; }

  // Whether `ptr` is a block of this allocator (Tensor.is_pinned).
  bool owns(const DataPtr& ptr) const;
  // The allocator whose block `ptr` is, or nullptr for memory no CachingHostAllocator pinned
  // (a storage that grows stays pinned by the same allocator: detail::resizeOutput).
  static CachingHostAllocator* pinnedBy(const DataPtr& ptr);
  // Marks `ptr`'s block as used by work queued on `stream` (an asynchronous copy): once freed,
  // it is handed out again only after that work has run.
  void recordStream(const DataPtr& ptr, Stream stream);
  // Unpins every cached block, after waiting for the work that freed blocks still wait on.
  void emptyCache();
  // allocated_bytes: in blocks handed out; reserved_bytes: pinned, handed out or cached;
  // segments: pinned blocks.
  DeviceMemoryStats stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The host allocator of each accelerator type (CUDA; a PrivateUse1 backend's), found through a
// lookup its backend installs when it loads. hostAllocator() is nullptr for a type without
// one, or whose lookup finds no device on this machine.
using HostAllocatorLookup = CachingHostAllocator* (*)();
void setHostAllocatorLookup(DeviceType type, HostAllocatorLookup lookup);
CachingHostAllocator* hostAllocator(DeviceType type);

// The host allocator that pins for `device`'s type (an accelerator's), or, without a device,
// for the first accelerator this machine has (CUDA, then PrivateUse1). `op` names the caller
// in the error thrown when there is none.
CachingHostAllocator& pinningAllocator(std::optional<Device> device, const char* op);
// Whether `ptr` is a block of a host allocator: the one that pins for `device`'s type, or any.
bool isPinned(const DataPtr& ptr, std::optional<Device> device = std::nullopt);

}  // namespace opcore

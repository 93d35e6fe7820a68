// A caching allocator for one device's memory, as c10's CUDACachingAllocator behaves: blocks
// carved from large segments, kept when freed and handed out again on the stream that freed
// them, so that an allocation costs a lock and a set lookup instead of a device call that
// synchronizes (cudaMalloc, cudaFree). Device-generic: the memory, the streams and their
// events come from a DeviceMemory, which the CUDA backend implements over the CUDA runtime
// (kernels/cuda/CudaRuntime.cpp), a PrivateUse1 backend may implement over its own, and the
// tests implement over host memory. Note [Caching device allocator] in the .cpp says how.
//   CachingDeviceAllocator cache(memory);
//   DataPtr p = cache.allocate(4096);           // a 512-byte-aligned block of a 2 MiB segment
//   cache.recordStream(p, side_stream);        // also used there: reused after its work
//   p.reset();                                 // cached, not returned to the device
//   cache.stats().reserved_bytes;              // 2 MiB
//   cache.emptyCache();                        // the segment goes back to the device
#pragma once

#include <opcore/core/Allocator.h>
#include <opcore/core/Stream.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace opcore {

// One device's memory, streams and events, as a CachingDeviceAllocator uses them.
class DeviceMemory {
 public:
  using Event = void*;
  virtual ~DeviceMemory() = default;
  virtual Device device() const = 0;
  // `nbytes` of device memory, or nullptr when the device has no room for them (other
  // failures throw). free() returns memory from allocate().
  virtual void* allocate(size_t nbytes) = 0;
  virtual void free(void* ptr) = 0;
  // The stream the calling thread's work on this device goes to.
  virtual Stream currentStream() const = 0;
  // An event after the work queued on `stream` so far; whether that work has finished;
  // waiting until it has; giving the event back.
  virtual Event recordEvent(Stream stream) = 0;
  virtual bool eventDone(Event event) = 0;
  virtual void synchronizeEvent(Event event) = 0;
  virtual void releaseEvent(Event event) = 0;
};

// The counters of torch.cuda.memory_stats() that users read most, in bytes as allocated
// (rounded up to the block's size).
struct DeviceMemoryStats {
  int64_t allocated_bytes = 0;      // in blocks handed out and not yet freed
  int64_t max_allocated_bytes = 0;  // the peak of allocated_bytes since the last reset
  int64_t reserved_bytes = 0;       // in segments taken from the device, used or cached
  int64_t max_reserved_bytes = 0;
  int64_t segments = 0;             // segments taken from the device and not returned
  int64_t alloc_retries = 0;        // allocations that returned the cache to the device and retried
  int64_t ooms = 0;                 // allocations that failed after that retry
};

class CachingDeviceAllocator {
 public:
  // `memory` must outlive the allocator, and the allocator every block it hands out.
  explicit CachingDeviceAllocator(DeviceMemory& memory);
  ~CachingDeviceAllocator();
  CachingDeviceAllocator(const CachingDeviceAllocator&) = delete;
  CachingDeviceAllocator& operator=(const CachingDeviceAllocator&) = delete;

  // A block of at least `nbytes` for the current stream (an empty DataPtr for 0 bytes).
  // Throws OutOfMemoryError, saying what was asked for and what is held, when the device has
  // no room even after the cache went back to it.
  DataPtr allocate(size_t nbytes);
  // Marks `ptr`'s block as used on `stream` as well as its own: once freed, it is reused only
  // after the work queued on `stream` by then has finished (Tensor.record_stream).
  void recordStream(const DataPtr& ptr, Stream stream);
  // Returns every cached segment with no block in use to the device, after waiting for the
  // work that freed blocks still wait on.
  void emptyCache();
  DeviceMemoryStats stats() const;
  // Sets the peaks to the current values (torch.cuda.reset_peak_memory_stats).
  void resetPeakStats();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The caching allocator of each device of a type, for the memory functions of its Python
// module (opcore.cuda.memory_allocated, empty_cache, ...): a backend built on
// CachingDeviceAllocator installs a lookup for its type when it loads (CudaRuntime.cpp does
// for CUDA). cachingAllocator() is nullptr for a type without one or an index with no device.
using CachingAllocatorLookup = CachingDeviceAllocator* (*)(DeviceIndex index);
void setCachingAllocatorLookup(DeviceType type, CachingAllocatorLookup lookup);
CachingDeviceAllocator* cachingAllocator(Device device);

// "2.00 MiB": a byte count as PyTorch's memory messages write it.
std::string formatBytes(int64_t nbytes);

}  // namespace opcore

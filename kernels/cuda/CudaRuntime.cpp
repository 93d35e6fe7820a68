// The CUDA runtime as opcore uses it (issue 35): GPUs and the current one, a pool of streams
// per GPU and each thread's current stream, the caching allocator over cudaMalloc
// (CachingDeviceAllocator.h), pinned host memory over cudaHostAlloc (CachingHostAllocator.h),
// and copies on the current stream. Compiled by the C++ compiler against cuda_runtime.h; the
// kernels (CudaKernels.cu) launch on the stream currentStreamHandle() names (CudaLaunch.h).
#include "CudaRuntime.h"

#include "CudaLaunch.h"

#include <opcore/core/CachingDeviceAllocator.h>
#include <opcore/core/CachingHostAllocator.h>
#include <opcore/core/DeviceGuard.h>
#include <opcore/core/Error.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>

namespace opcore::cuda {
namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();  // a sticky error stays; a plain one is cleared for the next call
    OPCORE_FAIL("CUDA error in ", what, ": ", cudaGetErrorString(err));
  }
}

// Enough for any machine CUDA supports (c10 has the same bound).
constexpr int kMaxDevices = 64;
// Streams handed out per GPU, round robin, as c10's pool does: a program asking for a new
// stream each step reuses these instead of creating streams without end.
constexpr int kStreamsPerDevice = 32;

// Whether the work an event or a stream query asks about has finished (cudaErrorNotReady: not
// yet; any other error throws).
bool finished(cudaError_t err, const char* what) {
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  check(err, what);
  return true;
}

int visibleDevices() {
  static const int count = [] {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? std::min(n, kMaxDevices) : (cudaGetLastError(), 0);
  }();
  return count;
}

void checkDeviceIndex(int index) {
  OPCORE_CHECK(index >= 0 && index < visibleDevices(), "CUDA error: invalid device ordinal: cuda:", index,
               " does not exist (this machine has ", visibleDevices(), visibleDevices() == 1 ? " GPU)" : " GPUs)");
}

// Makes `index` the current GPU for a scope.
class DeviceScope {
 public:
  explicit DeviceScope(int index) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != index) check(cudaSetDevice(index), "cudaSetDevice");
  }
  ~DeviceScope() { cudaSetDevice(previous_); }

 private:
  int previous_ = 0;
};

// Stream ids: 0 is the GPU's default (legacy) stream; 1..kStreamsPerDevice name the pool's.
struct StreamPool {
  std::once_flag created;
  std::array<cudaStream_t, kStreamsPerDevice> streams{};
  std::atomic<uint32_t> next{0};
};
StreamPool& poolOf(int device) {
  static auto* pools = new std::array<StreamPool, kMaxDevices>();  // never freed: streams outlive statics
  StreamPool& pool = (*pools)[device];
  std::call_once(pool.created, [&] {
    DeviceScope scope(device);
    for (cudaStream_t& s : pool.streams) check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  });
  return pool;
}

thread_local std::array<int32_t, kMaxDevices> t_current_stream{};

cudaStream_t handleOf(Stream stream) {
  if (stream.id == 0) return nullptr;
  checkDeviceIndex(stream.device.index());
  OPCORE_CHECK(stream.id > 0 && stream.id <= kStreamsPerDevice, "CUDA: no stream ", stream.id, " on ", stream.device);
  return poolOf(stream.device.index()).streams[stream.id - 1];
}

int currentIndex() {
  OPCORE_CHECK(visibleDevices() > 0, "CUDA: no CUDA device is available on this machine (CUDA's driver found no GPU)");
  int index = 0;
  check(cudaGetDevice(&index), "cudaGetDevice");
  return index;
}

Stream currentStreamOf(int device) {
  return Stream(Device(DeviceType::CUDA, static_cast<DeviceIndex>(device)), t_current_stream[device]);
}

// Generated CUDA wrappers make their first tensor's GPU current for the kernel's duration
// (DeviceGuard.h); streams are per thread and per GPU.
class CudaGuardImpl final : public DeviceGuardImpl {
 public:
  DeviceIndex currentDevice() const override { return static_cast<DeviceIndex>(currentIndex()); }
  void setDevice(DeviceIndex index) const override {
    checkDeviceIndex(index);
    check(cudaSetDevice(index), "cudaSetDevice");
  }
  Stream currentStream(Device device) const override {
    checkDeviceIndex(device.index());  // "cuda:3 does not exist", not a read past t_current_stream
    return currentStreamOf(device.index());
  }
  Stream exchangeStream(Stream stream) const override {
    checkDeviceIndex(stream.device.index());
    handleOf(stream);  // refuses an id the pool has not
    const Stream previous = currentStreamOf(stream.device.index());
    t_current_stream[stream.device.index()] = stream.id;
    return previous;
  }
  Stream newStream(Device device) const override { return cuda::newStream(device); }
  void synchronizeStream(Stream stream) const override { cuda::synchronize(stream); }
  void synchronizeDevice(DeviceIndex index) const override { cuda::synchronizeDevice(index); }
  bool queryStream(Stream stream) const override {
    DeviceScope scope(stream.device.index());
    return finished(cudaStreamQuery(handleOf(stream)), "cudaStreamQuery");
  }
  void* recordEvent(void* event, Stream stream, bool timing) const override {
    DeviceScope scope(stream.device.index());
    auto e = static_cast<cudaEvent_t>(event);
    if (!e) check(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventRecord(e, handleOf(stream)), "cudaEventRecord");
    return e;
  }
  void waitEvent(void* event, Stream stream) const override {
    DeviceScope scope(stream.device.index());
    check(cudaStreamWaitEvent(handleOf(stream), static_cast<cudaEvent_t>(event), 0), "cudaStreamWaitEvent");
  }
  bool queryEvent(void* event) const override {
    return finished(cudaEventQuery(static_cast<cudaEvent_t>(event)), "cudaEventQuery");
  }
  void synchronizeEvent(void* event) const override {
    check(cudaEventSynchronize(static_cast<cudaEvent_t>(event)), "cudaEventSynchronize");
  }
  double elapsedTime(void* start, void* end) const override {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)), "cudaEventElapsedTime");
    return ms;
  }
  void destroyEvent(void* event) const override { cudaEventDestroy(static_cast<cudaEvent_t>(event)); }
};
const CudaGuardImpl g_guard_impl;

// One GPU's memory for the caching allocator: cudaMalloc / cudaFree on that GPU, and the
// guard's events without timing (the allocator only asks whether work has passed them).
class CudaMemory final : public DeviceMemory {
 public:
  explicit CudaMemory(int index) : index_(index) {}
  Device device() const override { return Device(DeviceType::CUDA, static_cast<DeviceIndex>(index_)); }
  void* allocate(size_t nbytes) override {
    DeviceScope scope(index_);
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, nbytes);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      return nullptr;
    }
    check(err, "cudaMalloc");
    return p;
  }
  void free(void* ptr) override {
    DeviceScope scope(index_);
    check(cudaFree(ptr), "cudaFree");
  }
  Stream currentStream() const override { return currentStreamOf(index_); }
  Event recordEvent(Stream stream) override { return g_guard_impl.recordEvent(nullptr, stream, /*timing=*/false); }
  bool eventDone(Event event) override { return g_guard_impl.queryEvent(event); }
  void synchronizeEvent(Event event) override { g_guard_impl.synchronizeEvent(event); }
  void releaseEvent(Event event) override { g_guard_impl.destroyEvent(event); }

 private:
  int index_;
};

// Each GPU's memory and caching allocator, made on first use and never destroyed: tensors in
// static storage may be freed after every static destructor has run.
struct DeviceCache {
  std::once_flag made;
  std::unique_ptr<CudaMemory> memory;
  std::unique_ptr<CachingDeviceAllocator> allocator;
};
CachingDeviceAllocator& cacheOf(int device) {
  static auto* caches = new std::array<DeviceCache, kMaxDevices>();
  DeviceCache& cache = (*caches)[device];
  std::call_once(cache.made, [&] {
    cache.memory = std::make_unique<CudaMemory>(device);
    cache.allocator = std::make_unique<CachingDeviceAllocator>(*cache.memory);
  });
  return *cache.allocator;
}

CachingDeviceAllocator* cachingAllocatorOf(DeviceIndex index) {
  return index >= 0 && index < visibleDevices() ? &cacheOf(index) : nullptr;
}

class CudaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    return cacheOf(currentIndex()).allocate(nbytes);
  }
  void copyData(void* dst, const void* src, size_t nbytes) const override {
    deviceCopy(dst, src, nbytes, CopyKind::DeviceToDevice);
  }
  int deviceCount() const override { return visibleDevices(); }
};

// Host memory pinned for every GPU (cudaHostAlloc's portable default: the current context's,
// and CUDA's unified addressing makes it usable by all); its blocks wait for events on the
// streams of the copies that used them.
class CudaPinnedMemory final : public DeviceMemory {
 public:
  Device device() const override { return Device(DeviceType::CUDA, static_cast<DeviceIndex>(currentIndex())); }
  void* allocate(size_t nbytes) override {
    void* p = nullptr;
    const cudaError_t err = cudaHostAlloc(&p, nbytes, cudaHostAllocDefault);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      return nullptr;
    }
    check(err, "cudaHostAlloc");
    return p;
  }
  void free(void* ptr) override { check(cudaFreeHost(ptr), "cudaFreeHost"); }
  Stream currentStream() const override { return currentStreamOf(currentIndex()); }
  Event recordEvent(Stream stream) override { return g_guard_impl.recordEvent(nullptr, stream, /*timing=*/false); }
  bool eventDone(Event event) override { return g_guard_impl.queryEvent(event); }
  void synchronizeEvent(Event event) override { g_guard_impl.synchronizeEvent(event); }
  void releaseEvent(Event event) override { g_guard_impl.destroyEvent(event); }
};

// Made on first use on a machine with a GPU, never destroyed (as the device caches).
CachingHostAllocator* pinnedAllocator() {
  if (visibleDevices() == 0) return nullptr;
  static auto* allocator = new CachingHostAllocator(*new CudaPinnedMemory());
  return allocator;
}

CudaAllocator g_allocator;
[[maybe_unused]] const bool g_installed = [] {
  setAllocator(DeviceType::CUDA, &g_allocator);
  setDeviceGuardImpl(DeviceType::CUDA, &g_guard_impl);
  setCachingAllocatorLookup(DeviceType::CUDA, &cachingAllocatorOf);
  setHostAllocatorLookup(DeviceType::CUDA, &pinnedAllocator);
  return true;
}();

}  // namespace

int deviceCount() { return visibleDevices(); }

void* currentStreamHandle() { return handleOf(currentStreamOf(currentIndex())); }

Stream newStream(Device device) {
  const int index = device.has_index() ? device.index() : currentIndex();
  checkDeviceIndex(index);
  StreamPool& pool = poolOf(index);
  return Stream(Device(DeviceType::CUDA, static_cast<DeviceIndex>(index)),
                static_cast<int32_t>(pool.next++ % kStreamsPerDevice) + 1);
}

Stream currentStream(Device device) { return g_guard_impl.currentStream(device); }

void streamWait(Stream waiter, Stream waited) {
  struct Recorded {
    void* event;
    ~Recorded() { g_guard_impl.destroyEvent(event); }  // freed by CUDA once it has passed
  } recorded{g_guard_impl.recordEvent(nullptr, waited, /*timing=*/false)};
  g_guard_impl.waitEvent(recorded.event, waiter);
}

void synchronize(Stream stream) {
  DeviceScope scope(stream.device.index());
  check(cudaStreamSynchronize(handleOf(stream)), "cudaStreamSynchronize");
}

void synchronizeDevice(int index) {
  checkDeviceIndex(index);
  DeviceScope scope(index);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

// Copies go on the current stream. A copy to the host waits for it, so that the host reads
// the bytes; a copy from pageable host memory returns once CUDA has staged the bytes, so the
// caller may free its buffer (CUDA's documented behaviour for cudaMemcpyAsync from pageable
// memory).
void deviceCopy(void* dst, const void* src, size_t nbytes, CopyKind kind) {
  deviceCopyAsync(dst, src, nbytes, kind);
  if (nbytes > 0 && kind == CopyKind::DeviceToHost) {
    check(cudaStreamSynchronize(static_cast<cudaStream_t>(currentStreamHandle())), "cudaStreamSynchronize");
  }
}

void deviceCopyAsync(void* dst, const void* src, size_t nbytes, CopyKind kind) {
  if (nbytes == 0) return;
  const cudaMemcpyKind k = kind == CopyKind::HostToDevice   ? cudaMemcpyHostToDevice
                           : kind == CopyKind::DeviceToHost ? cudaMemcpyDeviceToHost
                                                            : cudaMemcpyDeviceToDevice;
  check(cudaMemcpyAsync(dst, src, nbytes, k, static_cast<cudaStream_t>(currentStreamHandle())), "cudaMemcpyAsync");
}

void checkLaunch(const char* op) { check(cudaGetLastError(), op); }

}  // namespace opcore::cuda

#include <opcore/core/CachingHostAllocator.h>

#include <opcore/core/Error.h>
#include <opcore/core/PendingFrees.h>

#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace opcore {

// Note [Caching host allocator]
// Pinned memory is what a program stages its batches in (a data loader's output, a copy back
// to read a result): the same few sizes, over and over. So, as c10's allocator does:
//   - Every block is pinned by itself, its size the request's rounded up to a power of two;
//     a freed block is handed out again for a request of its size class, never split: a
//     staging buffer of each size is pinned once and reused every step, and no request takes
//     a block larger than twice what it asked for.
//   - A block read or written by an asynchronous copy (recordStream, which copy_ calls for a
//     non_blocking copy) may still be in use by the GPU when its tensor is freed: it then waits
//     for an event recorded on each such stream at the free, and is handed out again only once
//     the events have passed. Blocks no copy used are free at once.
//   - When the memory cannot be pinned, the cached blocks are unpinned (after their events)
//     and the request is tried once more; a second failure is an OutOfMemoryError saying what
//     was asked for and what is held.
// One mutex guards everything: tensors are freed from any thread.
namespace {

constexpr size_t kMinBlockSize = 512;
constexpr size_t kMaxRequest = size_t{1} << 62;  // refused before rounding could overflow

size_t sizeClass(size_t nbytes) {
  size_t size = kMinBlockSize;
  while (size < nbytes) size <<= 1;
  return size;
}

std::array<std::atomic<HostAllocatorLookup>, kNumDeviceTypes> g_lookups{};

}  // namespace

struct CachingHostAllocator::State {
  struct Block {
    State* owner;
    void* ptr;
    size_t size;
    detail::StreamUses uses;  // streams whose work used it since it was handed out
  };

  CachingHostAllocator& allocator;  // the one this state belongs to (pinnedBy)
  DeviceMemory& memory;
  mutable std::mutex mutex;
  std::map<size_t, std::vector<Block*>> free_blocks;  // by size class
  detail::PendingFrees<Block> pending;                 // freed, waiting for streams
  DeviceMemoryStats counters;

  State(CachingHostAllocator& a, DeviceMemory& m) : allocator(a), memory(m) {}

  static void deleteBlock(void* context) {
    auto* block = static_cast<Block*>(context);
    block->owner->free(block);
  }

  DataPtr allocate(size_t nbytes) {
    const Device cpu(DeviceType::CPU);
    if (nbytes == 0) return DataPtr(nullptr, nullptr, cpu);
    std::lock_guard<std::mutex> lock(mutex);
    if (nbytes > kMaxRequest) failOutOfMemory(nbytes);
    const size_t size = sizeClass(nbytes);
    processEvents();
    Block* block = takeFree(size);
    if (!block) block = pin(size, nbytes);
    counters.allocated_bytes += static_cast<int64_t>(size);
    counters.max_allocated_bytes = std::max(counters.max_allocated_bytes, counters.allocated_bytes);
    return DataPtr(block->ptr, block, &State::deleteBlock, cpu);
  }

  Block* takeFree(size_t size) {
    const auto it = free_blocks.find(size);
    if (it == free_blocks.end() || it->second.empty()) return nullptr;
    Block* block = it->second.back();
    it->second.pop_back();
    return block;
  }

  Block* pin(size_t size, size_t nbytes) {
    void* ptr = memory.allocate(size);
    if (!ptr) {
      unpinCached();
      ++counters.alloc_retries;
      ptr = memory.allocate(size);
    }
    if (!ptr) failOutOfMemory(nbytes);
    counters.reserved_bytes += static_cast<int64_t>(size);
    counters.max_reserved_bytes = std::max(counters.max_reserved_bytes, counters.reserved_bytes);
    ++counters.segments;
    return new Block{this, ptr, size, {}};
  }

  [[noreturn]] void failOutOfMemory(size_t nbytes) {
    ++counters.ooms;
    detail::throwOutOfMemoryError(
        __FILE__, __LINE__,
        detail::strCat("pinned host memory for ", toString(memory.device().type()), ": out of memory: tried to pin ",
                       formatBytes(static_cast<int64_t>(nbytes)), ". opcore's host allocator holds ",
                       formatBytes(counters.allocated_bytes), " in tensors (", formatBytes(counters.reserved_bytes),
                       " pinned); the blocks it had cached were unpinned before this try. Free pinned "
                       "tensors, or pin less"));
  }

  void free(Block* block) {
    std::lock_guard<std::mutex> lock(mutex);
    counters.allocated_bytes -= static_cast<int64_t>(block->size);
    if (pending.free(memory, block)) free_blocks[block->size].push_back(block);
  }

  // Frees the blocks whose events have passed (all of them, waiting, when `wait`).
  void processEvents(bool wait = false) {
    pending.process(memory, wait, [this](Block* block) { free_blocks[block->size].push_back(block); });
  }

  void unpinCached() {
    processEvents(/*wait=*/true);
    for (auto& [size, blocks] : free_blocks) {
      for (Block* block : blocks) {
        memory.free(block->ptr);
        counters.reserved_bytes -= static_cast<int64_t>(size);
        --counters.segments;
        delete block;
      }
    }
    free_blocks.clear();
  }
};

CachingHostAllocator::CachingHostAllocator(DeviceMemory& memory) : state_(std::make_unique<State>(*this, memory)) {}

CachingHostAllocator::~CachingHostAllocator() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->unpinCached();
}

DataPtr CachingHostAllocator::allocate(size_t nbytes) { return state_->allocate(nbytes); }

void CachingHostAllocator::copyData(void* dst, const void* src, size_t nbytes) const {
  if (nbytes > 0) std::memcpy(dst, src, nbytes);
}

CachingHostAllocator* CachingHostAllocator::pinnedBy(const DataPtr& ptr) {
  if (!ptr.get() || ptr.deleter() != &State::deleteBlock) return nullptr;
  return &static_cast<const State::Block*>(ptr.context())->owner->allocator;
}

bool CachingHostAllocator::owns(const DataPtr& ptr) const { return pinnedBy(ptr) == this; }

void CachingHostAllocator::recordStream(const DataPtr& ptr, Stream stream) {
  if (!ptr.get()) return;  // an empty tensor's storage: nothing to wait for
  OPCORE_CHECK(owns(ptr), "record_stream: the host memory at ", ptr.get(), " was not pinned by this allocator");
  auto* block = static_cast<State::Block*>(ptr.context());
  std::lock_guard<std::mutex> lock(state_->mutex);
  block->uses.add(stream);
}

void CachingHostAllocator::emptyCache() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->unpinCached();
}

DeviceMemoryStats CachingHostAllocator::stats() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->counters;
}

void setHostAllocatorLookup(DeviceType type, HostAllocatorLookup lookup) {
  g_lookups[static_cast<size_t>(type)].store(lookup, std::memory_order_release);
}

CachingHostAllocator* hostAllocator(DeviceType type) {
  const HostAllocatorLookup lookup = g_lookups[static_cast<size_t>(type)].load(std::memory_order_acquire);
  return lookup ? lookup() : nullptr;
}

namespace {
constexpr DeviceType kAccelerators[] = {DeviceType::CUDA, DeviceType::PrivateUse1};
}  // namespace

CachingHostAllocator& pinningAllocator(std::optional<Device> device, const char* op) {
  if (device) {
    OPCORE_CHECK(device->has_device_index_type(), op,
                 ": pinned memory is pinned for an accelerator (cuda, or a PrivateUse1 backend's device), got ",
                 *device);
    CachingHostAllocator* allocator = hostAllocator(device->type());
    OPCORE_CHECK(allocator, op, ": cannot pin memory for ", toString(device->type()), ": no ", toString(device->type()),
                 " device is available on this machine");
    return *allocator;
  }
  for (DeviceType type : kAccelerators) {
    if (CachingHostAllocator* allocator = hostAllocator(type)) return *allocator;
  }
  OPCORE_FAIL(op, ": cannot pin memory: pinned memory is for copies to an accelerator, and this machine has none "
              "(no CUDA device, and no PrivateUse1 backend with a host allocator)");
}

bool isPinned(const DataPtr& ptr, std::optional<Device> device) {
  // Memory no allocator pinned is not looked up further: the lookups may start a device.
  const CachingHostAllocator* allocator = CachingHostAllocator::pinnedBy(ptr);
  return allocator && (!device || allocator == hostAllocator(device->type()));
}

}  // namespace opcore

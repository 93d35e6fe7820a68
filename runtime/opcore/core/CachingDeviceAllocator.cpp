#include <opcore/core/CachingDeviceAllocator.h>

#include <opcore/core/Error.h>
#include <opcore/core/PendingFrees.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <iterator>
#include <mutex>
#include <set>

namespace opcore {

// Note [Caching device allocator]
// Taking memory from a GPU (cudaMalloc) and giving it back (cudaFree) cost microseconds and
// synchronize the device, so a caching allocator keeps what tensors free and hands it out
// again. The sizes are c10's, whose reasons hold here too:
//   - Every block is a multiple of 512 bytes (and so aligned for any vector load).
//   - Requests up to 1 MiB come from the small pool, whose segments are 2 MiB: the small
//     tensors of a step share a few segments. Larger requests come from the large pool: under
//     10 MiB from 20 MiB segments, 10 MiB and more from segments of their size rounded up to
//     2 MiB.
//   - A block found free is split when what is left is worth keeping (512 bytes in the small
//     pool, more than 1 MiB in the large one); a freed block merges with the free blocks on
//     either side of it in its segment, so that a segment used and freed piece by piece
//     becomes one block again.
//   - A segment belongs to the stream that was current when it was taken, and its blocks are
//     handed out only for work on that stream: work queued on one stream runs in order, so a
//     block freed there can be reused there at once, before the kernels that read it have
//     run. A block also used on another stream (recordStream) waits after its free for an
//     event recorded then on each such stream.
//   - When the device has no room, the cached segments with no block in use go back to it and
//     the request is tried once more; if it fails again the error says what was asked for and
//     what the allocator holds. emptyCache() gives the same segments back on request.
// Everything is under one mutex: tensors are freed from any thread (Python's, the autograd
// engine's).
namespace {

constexpr size_t kMinBlockSize = 512;
constexpr size_t kSmallSize = size_t{1} << 20;
constexpr size_t kSmallBuffer = size_t{2} << 20;
constexpr size_t kLargeBuffer = size_t{20} << 20;
constexpr size_t kMinLargeAlloc = size_t{10} << 20;
constexpr size_t kRoundLarge = size_t{2} << 20;
// Requests above this are refused before any rounding could overflow (no device has 2^62 bytes).
constexpr size_t kMaxRequest = size_t{1} << 62;

size_t roundUp(size_t n, size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

size_t segmentSize(size_t block_size) {
  if (block_size <= kSmallSize) return kSmallBuffer;
  if (block_size < kMinLargeAlloc) return kLargeBuffer;
  return roundUp(block_size, kRoundLarge);
}

std::array<std::atomic<CachingAllocatorLookup>, kNumDeviceTypes> g_lookups{};

}  // namespace

void setCachingAllocatorLookup(DeviceType type, CachingAllocatorLookup lookup) {
  g_lookups[static_cast<size_t>(type)].store(lookup, std::memory_order_release);
}

CachingDeviceAllocator* cachingAllocator(Device device) {
  const CachingAllocatorLookup lookup = g_lookups[static_cast<size_t>(device.type())].load(std::memory_order_acquire);
  return lookup ? lookup(device.index()) : nullptr;
}

std::string formatBytes(int64_t nbytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (nbytes < 1024) return detail::strCat(nbytes, nbytes == 1 ? " byte" : " bytes");
  double value = static_cast<double>(nbytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.2f %s", value, kUnits[unit]);
  return text;
}

struct CachingDeviceAllocator::State {
  struct Block {
    Block(State* o, Stream s, bool is_small, void* p, size_t n) : owner(o), stream(s), small(is_small), ptr(p), size(n) {}
    State* owner;
    Stream stream;
    bool small;  // which pool
    void* ptr;
    size_t size;
    bool allocated = false;
    Block* prev = nullptr;  // the neighbours in its segment
    Block* next = nullptr;
    detail::StreamUses uses;  // other streams it is used on (recordStream)
  };
  // Free blocks by stream, then size, then address: lower_bound finds the smallest one of a
  // stream that fits.
  struct BlockLess {
    bool operator()(const Block* a, const Block* b) const {
      if (a->stream.id != b->stream.id) return a->stream.id < b->stream.id;
      if (a->size != b->size) return a->size < b->size;
      return a->ptr < b->ptr;
    }
  };
  using Pool = std::set<Block*, BlockLess>;

  DeviceMemory& memory;
  mutable std::mutex mutex;
  Pool small_blocks;
  Pool large_blocks;
  detail::PendingFrees<Block> pending;  // freed, waiting for other streams
  DeviceMemoryStats counters;

  explicit State(DeviceMemory& m) : memory(m) {}

  Pool& poolOf(const Block* b) { return b->small ? small_blocks : large_blocks; }

  static void deleteBlock(void* context) {
    auto* block = static_cast<Block*>(context);
    block->owner->free(block);
  }

  DataPtr allocate(size_t nbytes) {
    const Device device = memory.device();
    if (nbytes == 0) return DataPtr(nullptr, nullptr, device);
    std::lock_guard<std::mutex> lock(mutex);
    const size_t size = nbytes <= kMaxRequest ? roundUp(nbytes, kMinBlockSize) : 0;
    if (size == 0) failOutOfMemory(nbytes, device);
    processEvents();
    const Stream stream = memory.currentStream();
    const bool small = size <= kSmallSize;
    Block* block = takeFree(small, stream, size);
    if (!block) block = newSegment(small, stream, size, nbytes, device);
    split(block, size);
    block->allocated = true;
    counters.allocated_bytes += static_cast<int64_t>(block->size);
    counters.max_allocated_bytes = std::max(counters.max_allocated_bytes, counters.allocated_bytes);
    return DataPtr(block->ptr, block, &State::deleteBlock, device);
  }

  Block* takeFree(bool small, Stream stream, size_t size) {
    Pool& pool = small ? small_blocks : large_blocks;
    Block key(this, stream, small, nullptr, size);
    const auto it = pool.lower_bound(&key);
    if (it == pool.end() || (*it)->stream.id != stream.id) return nullptr;
    Block* block = *it;
    pool.erase(it);
    return block;
  }

  Block* newSegment(bool small, Stream stream, size_t size, size_t nbytes, Device device) {
    const size_t bytes = segmentSize(size);
    void* ptr = memory.allocate(bytes);
    if (!ptr) {
      releaseCachedSegments();
      ++counters.alloc_retries;
      ptr = memory.allocate(bytes);
    }
    if (!ptr) failOutOfMemory(nbytes, device);
    counters.reserved_bytes += static_cast<int64_t>(bytes);
    counters.max_reserved_bytes = std::max(counters.max_reserved_bytes, counters.reserved_bytes);
    ++counters.segments;
    return new Block(this, stream, small, ptr, bytes);
  }

  [[noreturn]] void failOutOfMemory(size_t nbytes, Device device) {
    ++counters.ooms;
    detail::throwOutOfMemoryError(
        __FILE__, __LINE__,
        detail::strCat(device, " out of memory: tried to allocate ", formatBytes(static_cast<int64_t>(nbytes)),
               ". opcore's allocator holds ", formatBytes(counters.allocated_bytes), " in tensors and ",
               formatBytes(counters.reserved_bytes - counters.allocated_bytes),
               " free in segments partly in use (", formatBytes(counters.reserved_bytes),
               " reserved); the segments it had cached with nothing in use went back to the "
               "device before this try. Free tensors, or ask for less"));
  }

  // Keeps the first `size` bytes in `block` and puts the rest in the pool as a free block.
  void split(Block* block, size_t size) {
    const size_t rest = block->size - size;
    if (block->small ? rest < kMinBlockSize : rest <= kSmallSize) return;
    auto* remainder = new Block(this, block->stream, block->small, static_cast<char*>(block->ptr) + size, rest);
    remainder->prev = block;
    remainder->next = block->next;
    if (block->next) block->next->prev = remainder;
    block->next = remainder;
    block->size = size;
    poolOf(remainder).insert(remainder);
  }

  void free(Block* block) {
    std::lock_guard<std::mutex> lock(mutex);
    block->allocated = false;
    counters.allocated_bytes -= static_cast<int64_t>(block->size);
    if (pending.free(memory, block)) makeFree(block);
  }

  // Puts a block whose last use is over in its pool, merged with its free neighbours.
  void makeFree(Block* block) {
    Pool& pool = poolOf(block);
    if (Block* prev = block->prev; prev && isFree(prev)) {
      pool.erase(prev);
      block->ptr = prev->ptr;
      block->size += prev->size;
      block->prev = prev->prev;
      if (block->prev) block->prev->next = block;
      delete prev;
    }
    if (Block* next = block->next; next && isFree(next)) {
      pool.erase(next);
      block->size += next->size;
      block->next = next->next;
      if (block->next) block->next->prev = block;
      delete next;
    }
    pool.insert(block);
  }

  static bool isFree(const Block* b) { return !b->allocated && b->uses.pending_events == 0; }

  // Frees the blocks whose waits are over (all of them, waiting, when `wait`).
  void processEvents(bool wait = false) {
    pending.process(memory, wait, [this](Block* block) { makeFree(block); });
  }

  void releaseCachedSegments() {
    processEvents(/*wait=*/true);
    for (Pool* pool : {&small_blocks, &large_blocks}) {
      for (auto it = pool->begin(); it != pool->end();) {
        Block* block = *it;
        if (block->prev || block->next) {  // part of a segment with a block in use
          ++it;
          continue;
        }
        it = pool->erase(it);
        memory.free(block->ptr);
        counters.reserved_bytes -= static_cast<int64_t>(block->size);
        --counters.segments;
        delete block;
      }
    }
  }
};

CachingDeviceAllocator::CachingDeviceAllocator(DeviceMemory& memory) : state_(std::make_unique<State>(memory)) {}

CachingDeviceAllocator::~CachingDeviceAllocator() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->releaseCachedSegments();
}

DataPtr CachingDeviceAllocator::allocate(size_t nbytes) { return state_->allocate(nbytes); }

void CachingDeviceAllocator::recordStream(const DataPtr& ptr, Stream stream) {
  if (!ptr.get()) return;  // an empty tensor's storage: nothing to wait for
  auto* block = static_cast<State::Block*>(ptr.context());
  OPCORE_CHECK(ptr.deleter() == &State::deleteBlock && block->owner == state_.get(),
               "record_stream: the memory at ", ptr.get(), " was not allocated by this device's caching allocator");
  OPCORE_CHECK(stream.device == ptr.device(), "record_stream: the stream is on ", stream.device,
               " but the memory on ", ptr.device());
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (stream.id != block->stream.id) block->uses.add(stream);
}

void CachingDeviceAllocator::emptyCache() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->releaseCachedSegments();
}

DeviceMemoryStats CachingDeviceAllocator::stats() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->counters;
}

void CachingDeviceAllocator::resetPeakStats() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->counters.max_allocated_bytes = state_->counters.allocated_bytes;
  state_->counters.max_reserved_bytes = state_->counters.reserved_bytes;
}

}  // namespace opcore

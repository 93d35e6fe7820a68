// The CPU allocator and the per-device allocator registry.
#include <opcore/core/Allocator.h>

#include <opcore/core/Error.h>

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include <sys/mman.h>

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

namespace {

// Note [Caching CPU allocator]
// Freed CPU blocks are kept and handed out again, so that a loop allocating results of one
// size costs a lock and a list pop per allocation instead of a trip to the C library: for a
// large block that trip is a fresh mmap() and a page fault on every page the kernel then
// writes (milliseconds for 64 MB), and aligned_alloc() is slow for small blocks too.
//   - Small blocks (up to kLargeBlock) are rounded up to a size class, four per power of two
//     from 64 bytes (at most 25% unused), and cached per class. The class travels in the low
//     bits of the DataPtr's context (blocks are 64-byte aligned), so freeing needs no lookup.
//   - Large blocks are rounded up to whole pages and cached by that exact size, with their
//     size in a 64-byte header before the block (context bits 0). Those of 2 MiB or more
//     (their header first) start on a 2 MiB boundary and ask Linux for transparent huge pages
//     (madvise; Debian's default only gives them to ranges that ask): a kernel writing a
//     result across many pages at once (a transposed copy's rows, a contiguous copy's two
//     threads) misses the TLB far less, and a first touch faults 2 MiB at a time (figures in
//     bench/README.md, "Issue #33's families on a Xeon with AVX-512"). No bytes are added:
//     the block's last partial 2 MiB stays in small pages. Blocks above kMaxCachedBlock are
//     never cached, and a freed block that would take the cache above kCacheLimit goes back
//     to the system.
//   - One mutex guards the lists and the counters; callers come from any thread (Python
//     threads, the autograd engine). Memory is never returned on its own: call
//     cpu_allocator_empty_cache().
//   - OPCORE_CPU_ALLOCATOR=system, read once at start-up, turns caching off.
class CachingCpuAllocator final : public Allocator {
 public:
  static constexpr size_t kLargeBlock = size_t{1} << 20;
  static constexpr size_t kPage = 4096;
  static constexpr size_t kHugePage = size_t{2} << 20;
  static constexpr size_t kMaxCachedBlock = size_t{256} << 20;
  static constexpr size_t kCacheLimit = size_t{1} << 30;
  static constexpr size_t kHeader = kCpuAlignment;  // large blocks: the size lives before the block
  static constexpr int kClassesPerDoubling = 4;

  explicit CachingCpuAllocator(bool caching) : caching_(caching) {}

  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, Device(DeviceType::CPU));
    return nbytes <= kLargeBlock ? allocateSmall(nbytes) : allocateLarge(nbytes);
  }
  void copyData(void* dst, const void* src, size_t nbytes) const override {
    if (nbytes) std::memcpy(dst, src, nbytes);
  }
  int deviceCount() const override { return 1; }

  CpuAllocatorStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  bool caching() const { return caching_; }

  void emptyCache() {
    std::vector<void*> blocks;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& list : small_) {
        blocks.insert(blocks.end(), list.begin(), list.end());
        list.clear();
      }
      for (auto& [size, list] : large_) {
        for (void* p : list) blocks.push_back(static_cast<char*>(p) - kHeader);
      }
      large_.clear();
      stats_.cached_bytes = 0;
    }
    for (void* p : blocks) std::free(p);
  }

 private:
  // Small size classes: 64, 80, 96, 112, 128, 160, ... (class 0 is never used: context 0
  // marks a large block).
  static int smallClass(size_t nbytes) {
    if (nbytes <= kCpuAlignment) return 1;
    const int log = std::bit_width(nbytes - 1) - 1;  // 2^log < nbytes <= 2^(log+1)
    const size_t step = (size_t{1} << log) / kClassesPerDoubling;
    const size_t quarter = (nbytes - (size_t{1} << log) + step - 1) / step;  // 1..4
    return 1 + (log - 6) * kClassesPerDoubling + static_cast<int>(quarter);
  }
  static size_t classBytes(int c) {
    if (c == 1) return kCpuAlignment;
    const int log = (c - 2) / kClassesPerDoubling + 6;
    const size_t quarter = static_cast<size_t>((c - 2) % kClassesPerDoubling + 1);
    return (size_t{1} << log) + quarter * ((size_t{1} << log) / kClassesPerDoubling);
  }
  static constexpr int kNumSmallClasses = 1 + (20 - 6) * kClassesPerDoubling + 1;  // up to kLargeBlock

  static void* systemAlloc(size_t bytes) {
    void* p = nullptr;
    if (bytes >= kHugePage) {
      if (posix_memalign(&p, kHugePage, bytes) != 0) p = nullptr;
      // Advice: without transparent huge pages (disabled, or none free) the block keeps small ones.
      if (p) madvise(p, bytes, MADV_HUGEPAGE);
    } else {
      // aligned_alloc needs a size that is a multiple of the alignment.
      p = std::aligned_alloc(kCpuAlignment, (bytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment);
    }
    OPCORE_CHECK(p != nullptr, "CPU allocator: out of memory allocating ", bytes, " bytes");
    return p;
  }

  // Counts an allocation of `bytes` and takes a cached block for it from `list` (null: none
  // cached). Precondition: mutex_ held.
  void* take(std::vector<void*>* list, size_t bytes) {
    stats_.allocated_bytes += bytes;
    if (!list || list->empty()) {
      ++stats_.misses;
      return nullptr;
    }
    ++stats_.hits;
    stats_.cached_bytes -= bytes;
    void* p = list->back();
    list->pop_back();
    return p;
  }

  DataPtr allocateSmall(size_t nbytes) {
    const int c = smallClass(nbytes);
    const size_t bytes = classBytes(c);
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      p = take(&small_[static_cast<size_t>(c)], bytes);
    }
    if (!p) p = allocateOrUndo(bytes, bytes);
    return DataPtr(p, static_cast<char*>(p) + c, &freeBlock, Device(DeviceType::CPU));
  }

  DataPtr allocateLarge(size_t nbytes) {
    const size_t bytes = (nbytes + kPage - 1) / kPage * kPage;
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = large_.find(bytes);
      p = take(it == large_.end() ? nullptr : &it->second, bytes);
    }
    if (!p) {
      char* base = static_cast<char*>(allocateOrUndo(bytes + kHeader, bytes));
      *reinterpret_cast<size_t*>(base) = bytes;
      p = base + kHeader;
    }
    return DataPtr(p, p, &freeBlock, Device(DeviceType::CPU));
  }

  // The system's memory for a block; on failure, the allocation is taken out of the counters.
  void* allocateOrUndo(size_t system_bytes, size_t counted_bytes) {
    try {
      return systemAlloc(system_bytes);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      stats_.allocated_bytes -= counted_bytes;
      throw;
    }
  }

  static void freeBlock(void* context);
  void release(void* context) {
    const auto bits = reinterpret_cast<uintptr_t>(context);
    const int c = static_cast<int>(bits % kCpuAlignment);
    void* p = reinterpret_cast<void*>(bits - static_cast<uintptr_t>(c));
    const size_t bytes = c ? classBytes(c) : *reinterpret_cast<size_t*>(static_cast<char*>(p) - kHeader);
    void* system_block = c ? p : static_cast<char*>(p) - kHeader;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stats_.allocated_bytes -= bytes;
      if (caching_ && bytes <= kMaxCachedBlock && stats_.cached_bytes + bytes <= kCacheLimit) {
        if (c) {
          small_[static_cast<size_t>(c)].push_back(p);
        } else {
          large_[bytes].push_back(p);
        }
        stats_.cached_bytes += bytes;
        return;
      }
    }
    std::free(system_block);
  }

  const bool caching_;
  std::mutex mutex_;
  std::array<std::vector<void*>, kNumSmallClasses + 1> small_;
  std::unordered_map<size_t, std::vector<void*>> large_;  // page-rounded size -> blocks
  CpuAllocatorStats stats_;
};

bool cachingRequested() {
  const char* v = std::getenv("OPCORE_CPU_ALLOCATOR");
  if (v == nullptr || std::strcmp(v, "") == 0 || std::strcmp(v, "caching") == 0) return true;
  if (std::strcmp(v, "system") == 0) return false;
  std::fprintf(stderr, "opcore: OPCORE_CPU_ALLOCATOR=%s is neither 'caching' nor 'system'; caching\n", v);
  return true;
}

// Never destroyed: tensors held by static objects may be freed after main returns.
CachingCpuAllocator& cpuAllocator() {
  static auto* allocator = new CachingCpuAllocator(cachingRequested());
  return *allocator;
}

void CachingCpuAllocator::freeBlock(void* context) { cpuAllocator().release(context); }

std::array<std::atomic<Allocator*>, kNumDeviceTypes> g_allocators{&cpuAllocator()};

}  // namespace

Allocator* getAllocator(DeviceType t) {
  Allocator* a = g_allocators[static_cast<size_t>(t)].load(std::memory_order_acquire);
  OPCORE_CHECK(a != nullptr, "no allocator for device type '", toString(t), "': ",
               t == DeviceType::PrivateUse1 ? std::string("no backend library has installed one (setAllocator)")
                                            : detail::strCat("opcore was built without ", toString(t), " support"));
  return a;
}

int deviceCount(DeviceType t) {
  Allocator* a = g_allocators[static_cast<size_t>(t)].load(std::memory_order_acquire);
  return a ? a->deviceCount() : 0;
}

void setAllocator(DeviceType t, Allocator* a) {
  g_allocators[static_cast<size_t>(t)].store(a, std::memory_order_release);
}

CpuAllocatorStats cpu_allocator_stats() { return cpuAllocator().stats(); }
void cpu_allocator_empty_cache() { cpuAllocator().emptyCache(); }
bool cpu_allocator_is_caching() { return cpuAllocator().caching(); }
bool detail::cpuAllocatorIsBuiltin() {
  return g_allocators[static_cast<size_t>(DeviceType::CPU)].load(std::memory_order_acquire) == &cpuAllocator();
}

}  // namespace opcore

// Tests of the caching CPU allocator (Note [Caching CPU allocator] in Allocator.cpp): reuse
// by size class and by page-rounded size, the limits, the counters, alignment, and frees
// from other threads. Under OPCORE_CPU_ALLOCATOR=system (the sanitizer suite) the tests of
// reuse skip; the others check the system path.
#include <opcore/core/Allocator.h>
#include <opcore/core/Empty.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace opcore {
namespace {

Allocator& cpu() { return *getAllocator(DeviceType::CPU); }

#define SKIP_UNLESS_CACHING() \
  if (!cpu_allocator_is_caching()) GTEST_SKIP() << "OPCORE_CPU_ALLOCATOR=system: the allocator does not cache"

TEST(AllocatorTest, AFreedBlockServesTheNextAllocationOfItsSizeClass) {
  SKIP_UNLESS_CACHING();
  cpu_allocator_empty_cache();
  void* first = nullptr;
  {
    DataPtr p = cpu().allocate(1000);
    first = p.get();
  }
  const CpuAllocatorStats before = cpu_allocator_stats();
  EXPECT_EQ(before.cached_bytes, 1024u) << "1000 bytes round up to the 1024-byte class";
  DataPtr again = cpu().allocate(1010);  // the same class
  EXPECT_EQ(again.get(), first);
  const CpuAllocatorStats after = cpu_allocator_stats();
  EXPECT_EQ(after.hits, before.hits + 1);
  EXPECT_EQ(after.misses, before.misses);
  EXPECT_EQ(after.cached_bytes, 0u);
  DataPtr other = cpu().allocate(1100);  // the next class: a miss
  EXPECT_NE(other.get(), first);
  EXPECT_EQ(cpu_allocator_stats().misses, before.misses + 1);
}

TEST(AllocatorTest, LargeBlocksAreReusedByPageRoundedSize) {
  SKIP_UNLESS_CACHING();
  cpu_allocator_empty_cache();
  void* first = nullptr;
  {
    DataPtr p = cpu().allocate(5 << 20);
    first = p.get();
    std::memset(p.get(), 1, 5 << 20);
  }
  EXPECT_EQ(cpu_allocator_stats().cached_bytes, size_t{5} << 20);
  DataPtr same_pages = cpu().allocate((5 << 20) - 100);
  EXPECT_EQ(same_pages.get(), first);
  DataPtr bigger = cpu().allocate((5 << 20) + 1);  // one page more: another block
  EXPECT_NE(bigger.get(), first);
}

TEST(AllocatorTest, BlocksAboveTheLimitGoBackToTheSystem) {
  SKIP_UNLESS_CACHING();
  cpu_allocator_empty_cache();
  { DataPtr huge = cpu().allocate(size_t{300} << 20); }  // above the 256 MB per-block limit
  EXPECT_EQ(cpu_allocator_stats().cached_bytes, 0u);
  const size_t misses = cpu_allocator_stats().misses;
  { DataPtr huge = cpu().allocate(size_t{300} << 20); }
  EXPECT_EQ(cpu_allocator_stats().misses, misses + 1);
}

TEST(AllocatorTest, TheCacheStaysUnderItsTotalLimit) {
  SKIP_UNLESS_CACHING();
  cpu_allocator_empty_cache();
  {
    std::vector<DataPtr> blocks;
    for (int i = 0; i < 6; ++i) blocks.push_back(cpu().allocate(size_t{200} << 20));  // 1.2 GB, untouched
  }
  EXPECT_EQ(cpu_allocator_stats().cached_bytes, size_t{1000} << 20) << "five of six fit under the 1 GB limit";
  cpu_allocator_empty_cache();
  EXPECT_EQ(cpu_allocator_stats().cached_bytes, 0u);
}

TEST(AllocatorTest, CountersFollowAllocationsAndFrees) {
  cpu_allocator_empty_cache();
  const CpuAllocatorStats before = cpu_allocator_stats();
  {
    DataPtr a = cpu().allocate(64);
    DataPtr b = cpu().allocate(2 << 20);
    EXPECT_EQ(cpu_allocator_stats().allocated_bytes, before.allocated_bytes + 64 + (2 << 20));
  }
  const CpuAllocatorStats after = cpu_allocator_stats();
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(after.cached_bytes, cpu_allocator_is_caching() ? 64u + (2 << 20) : 0u);
}

TEST(AllocatorTest, EveryBlockIsAlignedAndHoldsItsBytes) {
  std::vector<size_t> sizes;
  for (size_t base : {size_t{1}, size_t{64}, size_t{80}, size_t{128}, size_t{1000}, size_t{4096}, size_t{1} << 20}) {
    for (size_t delta : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}}) {
      sizes.push_back(base + delta);
      if (base > delta) sizes.push_back(base - delta);
    }
  }
  for (int round = 0; round < 2; ++round) {  // the second round reuses the first's blocks
    for (size_t n : sizes) {
      DataPtr p = cpu().allocate(n);
      ASSERT_EQ(reinterpret_cast<uintptr_t>(p.get()) % kCpuAlignment, 0u) << n;
      std::memset(p.get(), 0xab, n);
      EXPECT_EQ(static_cast<unsigned char*>(p.get())[n - 1], 0xab);
    }
  }
  EXPECT_EQ(cpu().allocate(0).get(), nullptr);
}

TEST(AllocatorTest, BlocksFreedOnAnotherThreadAreReusedAndCounted) {
  cpu_allocator_empty_cache();
  const size_t allocated = cpu_allocator_stats().allocated_bytes;
  std::vector<DataPtr> blocks;
  for (int i = 0; i < 100; ++i) blocks.push_back(cpu().allocate(256));
  std::thread([&] { blocks.clear(); }).join();
  EXPECT_EQ(cpu_allocator_stats().allocated_bytes, allocated);
  const size_t hits = cpu_allocator_stats().hits;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 1000; ++i) {
        DataPtr p = getAllocator(DeviceType::CPU)->allocate(256);
        static_cast<char*>(p.get())[255] = 1;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(cpu_allocator_stats().allocated_bytes, allocated);
  if (cpu_allocator_is_caching()) EXPECT_GE(cpu_allocator_stats().hits, hits + 3900);
}

TEST(AllocatorTest, TensorsOfOneSizeInALoopReuseOneBlock) {
  SKIP_UNLESS_CACHING();
  cpu_allocator_empty_cache();
  { TensorBase warm = detail::empty({1024, 1024}, ScalarType::Float, Device(DeviceType::CPU)); }
  const CpuAllocatorStats before = cpu_allocator_stats();
  for (int i = 0; i < 10; ++i) TensorBase t = detail::empty({1024, 1024}, ScalarType::Float, Device(DeviceType::CPU));
  EXPECT_EQ(cpu_allocator_stats().hits, before.hits + 10);
  EXPECT_EQ(cpu_allocator_stats().misses, before.misses);
}

// The VmFlags of the mapping that holds `p`, from /proc/self/smaps ("" when none is found).
std::string mappingFlags(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2) {  // a mapping's first line
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

// Blocks of 2 MiB or more ask for transparent huge pages (madvise: "hg" in the mapping's
// flags, whether or not the kernel then finds huge pages free). (Whether a smaller block's
// mapping has the flag depends on its neighbours: the C library may carve it from memory a
// freed large block asked for.)
TEST(AllocatorTest, BlocksOf2MiBOrMoreAskForHugePages) {
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  for (int round = 0; round < 2; ++round) {  // the second round reuses the first's blocks
    DataPtr large = cpu().allocate(size_t{5} << 20);
    std::memset(large.get(), 0xab, size_t{5} << 20);
    EXPECT_NE(mappingFlags(large.get()).find(" hg"), std::string::npos) << mappingFlags(large.get());
    EXPECT_NE(mappingFlags(static_cast<char*>(large.get()) + (size_t{5} << 20) - 1).find(" hg"), std::string::npos);
  }
}

// Note [Small storages inline] (Storage.h): 1 to 256 bytes live in the StorageImpl's own
// allocation, aligned as the allocator's blocks are, whether the allocator caches or not.
TEST(AllocatorTest, SmallCpuTensorsHoldTheirBytesInlineAligned) {
  const CpuAllocatorStats before = cpu_allocator_stats();
  std::vector<TensorBase> small;
  for (int64_t n = 1; n <= 64; ++n) {
    small.push_back(detail::empty({n}, ScalarType::Float, Device(DeviceType::CPU)));  // 4 to 256 bytes
    const TensorBase& t = small.back();
    ASSERT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % kCpuAlignment, 0u) << n;
    std::memset(t.data_ptr(), 0xab, static_cast<size_t>(n) * 4);
    EXPECT_EQ(t.storage()->nbytes(), static_cast<size_t>(n) * 4);
  }
  EXPECT_EQ(cpu_allocator_stats().allocated_bytes, before.allocated_bytes) << "no allocator block";
  EXPECT_EQ(cpu_allocator_stats().hits + cpu_allocator_stats().misses, before.hits + before.misses);
  TensorBase larger = detail::empty({65}, ScalarType::Float, Device(DeviceType::CPU));  // 260 bytes
  EXPECT_EQ(cpu_allocator_stats().allocated_bytes, before.allocated_bytes + 320) << "the 320-byte class";
  EXPECT_EQ(reinterpret_cast<uintptr_t>(larger.data_ptr()) % kCpuAlignment, 0u);
}

#if defined(__SANITIZE_ADDRESS__)
TEST(AllocatorTest, AnOverrunOfAnInlineStorageIsReportedUnderASan) {
  TensorBase t = detail::empty({1}, ScalarType::Float, Device(DeviceType::CPU));
  volatile char* bytes = static_cast<char*>(t.data_ptr());
  EXPECT_DEATH(bytes[4] = 1, "AddressSanitizer");
  EXPECT_DEATH(bytes[-1] = 1, "AddressSanitizer");
}
#endif

TEST(AllocatorTest, AViewKeepsAnInlineStorageAlive) {
  TensorBase view;
  {
    TensorBase t = detail::empty({4}, ScalarType::Long, Device(DeviceType::CPU));
    for (int64_t i = 0; i < 4; ++i) t.data_ptr<int64_t>()[i] = 10 + i;
    view = detail::makeView(t, {2}, {2}, 1);
  }
  EXPECT_EQ(view.storage().use_count(), 1u);
  EXPECT_EQ(detail::elementAt(view, 0).toLong(), 11);
  EXPECT_EQ(detail::elementAt(view, 1).toLong(), 13);
}

// Another CPU allocator installed (setAllocator) gets every allocation, small ones included.
class CountingAllocator final : public Allocator {
 public:
  explicit CountingAllocator(Allocator* inner) : inner_(inner) {}
  DataPtr allocate(size_t nbytes) override {
    ++allocations;
    return inner_->allocate(nbytes);
  }
  void copyData(void* dst, const void* src, size_t nbytes) const override { inner_->copyData(dst, src, nbytes); }
  int deviceCount() const override { return 1; }
  int allocations = 0;

 private:
  Allocator* inner_;
};

TEST(AllocatorTest, AnInstalledCpuAllocatorGetsSmallTensorsToo) {
  Allocator* builtin = getAllocator(DeviceType::CPU);
  CountingAllocator counting(builtin);
  setAllocator(DeviceType::CPU, &counting);
  EXPECT_FALSE(detail::cpuAllocatorIsBuiltin());
  { TensorBase t = detail::empty({1}, ScalarType::Float, Device(DeviceType::CPU)); }
  setAllocator(DeviceType::CPU, builtin);
  EXPECT_EQ(counting.allocations, 1);
}

}  // namespace
}  // namespace opcore

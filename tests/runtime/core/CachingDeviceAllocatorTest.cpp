// Tests of the caching device allocator (Note [Caching device allocator]) over a pretend
// device: its memory is a range of addresses never touched, with a capacity, and its events
// finish when the test says so. The CUDA backend runs the same allocator over cudaMalloc and
// CUDA events (CudaTest, where a GPU is lent).
#include "FakeStreamEvents.h"

#include <opcore/core/CachingDeviceAllocator.h>
#include <opcore/core/Error.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <vector>

namespace opcore {
namespace {

constexpr size_t kKiB = 1024, kMiB = 1024 * 1024;

class FakeDeviceMemory final : public FakeStreamEvents {
 public:
  explicit FakeDeviceMemory(size_t capacity) : capacity_(capacity) {}

  Device device() const override { return Device(DeviceType::PrivateUse1, 0); }
  void* allocate(size_t nbytes) override {
    if (in_use_ + nbytes > capacity_) return nullptr;
    in_use_ += nbytes;
    ++allocations;
    void* p = reinterpret_cast<void*>(next_);
    next_ += nbytes + kMiB;  // a gap: segments are never adjacent
    segments_[p] = nbytes;
    return p;
  }
  void free(void* ptr) override {
    ASSERT_EQ(segments_.count(ptr), 1u) << "freed memory the device never gave";
    in_use_ -= segments_[ptr];
    segments_.erase(ptr);
    ++frees;
  }
  Stream currentStream() const override { return Stream(device(), current_stream); }
  size_t inUse() const { return in_use_; }

  int32_t current_stream = 0;
  int allocations = 0, frees = 0;

 private:
  size_t capacity_;
  size_t in_use_ = 0;
  uintptr_t next_ = uintptr_t{1} << 40;
  std::map<void*, size_t> segments_;
};

char* at(const DataPtr& p) { return static_cast<char*>(p.get()); }

TEST(CachingDeviceAllocatorTest, SmallBlocksShareA2MiBSegmentAndAreReusedAfterTheirFree) {
  FakeDeviceMemory memory(1024 * kMiB);
  CachingDeviceAllocator cache(memory);
  DataPtr a = cache.allocate(1000);
  DataPtr b = cache.allocate(1);
  EXPECT_EQ(a.device(), memory.device());
  EXPECT_EQ(at(b), at(a) + 1024) << "1000 bytes round up to 1024, carved from the same segment";
  EXPECT_EQ(memory.allocations, 1);
  DeviceMemoryStats s = cache.stats();
  EXPECT_EQ(s.allocated_bytes, 1536);
  EXPECT_EQ(s.reserved_bytes, int64_t(2 * kMiB));
  EXPECT_EQ(s.segments, 1);
  void* first = a.get();
  a.reset();
  b.reset();
  EXPECT_EQ(cache.stats().allocated_bytes, 0);
  EXPECT_EQ(memory.frees, 0) << "freed blocks stay cached";
  DataPtr again = cache.allocate(kMiB);  // the whole small pool's limit: the merged segment serves it
  EXPECT_EQ(again.get(), first);
  EXPECT_EQ(memory.allocations, 1);
}

TEST(CachingDeviceAllocatorTest, LargeRequestsTakeA20MiBSegmentOrTheirSizeRoundedTo2MiB) {
  FakeDeviceMemory memory(1024 * kMiB);
  CachingDeviceAllocator cache(memory);
  DataPtr medium = cache.allocate(kMiB + 1);
  EXPECT_EQ(cache.stats().reserved_bytes, int64_t(20 * kMiB));
  EXPECT_EQ(cache.stats().allocated_bytes, int64_t(kMiB + 512));
  DataPtr second = cache.allocate(4 * kMiB);  // from the rest of that segment
  EXPECT_EQ(at(second), at(medium) + kMiB + 512);
  EXPECT_EQ(memory.allocations, 1);
  DataPtr big = cache.allocate(16 * kMiB);  // the first segment has 15 MiB left: too little
  EXPECT_EQ(cache.stats().reserved_bytes, int64_t(36 * kMiB)) << "16 MiB: a segment of its size";
  DataPtr fits = cache.allocate(11 * kMiB);  // those 15 MiB serve it
  EXPECT_EQ(at(fits), at(second) + 4 * kMiB);
  DataPtr huge = cache.allocate(100 * kMiB + 3);
  EXPECT_EQ(cache.stats().reserved_bytes, int64_t(138 * kMiB)) << "rounded up to 102 MiB";
  EXPECT_EQ(cache.stats().segments, 3);
}

TEST(CachingDeviceAllocatorTest, FreedNeighboursMergeIntoOneBlock) {
  FakeDeviceMemory memory(1024 * kMiB);
  CachingDeviceAllocator cache(memory);
  DataPtr a = cache.allocate(4 * kKiB), b = cache.allocate(4 * kKiB), c = cache.allocate(4 * kKiB);
  char* start = at(a);
  b.reset();
  a.reset();
  DataPtr ab = cache.allocate(8 * kKiB);  // a and b, merged, serve it exactly
  EXPECT_EQ(at(ab), start);
  c.reset();
  ab.reset();
  cache.emptyCache();  // the segment is one free block again, so it goes back
  EXPECT_EQ(memory.frees, 1);
  EXPECT_EQ(memory.inUse(), 0u);
  EXPECT_EQ(cache.stats().reserved_bytes, 0);
  EXPECT_EQ(cache.stats().segments, 0);
}

TEST(CachingDeviceAllocatorTest, ABlockIsReusedOnlyForTheStreamItWasAllocatedOn) {
  FakeDeviceMemory memory(1024 * kMiB);
  CachingDeviceAllocator cache(memory);
  void* first = nullptr;
  {
    DataPtr p = cache.allocate(kKiB);
    first = p.get();
  }
  memory.current_stream = 3;
  DataPtr other = cache.allocate(kKiB);
  EXPECT_NE(other.get(), first);
  EXPECT_EQ(memory.allocations, 2) << "stream 3 gets a segment of its own";
  memory.current_stream = 0;
  DataPtr same = cache.allocate(kKiB);
  EXPECT_EQ(same.get(), first);
}

TEST(CachingDeviceAllocatorTest, ABlockRecordedOnAnotherStreamWaitsForThatStreamsWork) {
  FakeDeviceMemory memory(1024 * kMiB);
  CachingDeviceAllocator cache(memory);
  DataPtr p = cache.allocate(kKiB);
  void* first = p.get();
  const Stream side(memory.device(), 5);
  cache.recordStream(p, side);
  cache.recordStream(p, side);                            // once is enough
  cache.recordStream(p, Stream(memory.device(), 0));      // its own stream: nothing to wait for
  p.reset();
  EXPECT_EQ(memory.recordedEvents(), 1u);
  EXPECT_EQ(cache.stats().allocated_bytes, 0);
  {
    DataPtr meanwhile = cache.allocate(kKiB);
    EXPECT_NE(meanwhile.get(), first) << "stream 5 may still be reading the block";
  }
  memory.finishWorkOn(5);
  DataPtr after = cache.allocate(kKiB);
  EXPECT_EQ(after.get(), first);
  EXPECT_EQ(memory.released_events, 1);
}

TEST(CachingDeviceAllocatorTest, AFreeWhoseEventCannotBeRecordedKeepsTheBlockOutOfUseAndDoesNotThrow) {
  // Made once and never destroyed, as the backends' allocators: the block it keeps out of use
  // stays with it (and reachable, for LeakSanitizer).
  static FakeDeviceMemory memory(1024 * kMiB);
  static CachingDeviceAllocator& cache = *new CachingDeviceAllocator(memory);
  DataPtr p = cache.allocate(kKiB);
  void* first = p.get();
  cache.recordStream(p, Stream(memory.device(), 5));
  memory.failed = true;
  EXPECT_NO_THROW(p.reset()) << "a free runs in a deleter";
  memory.failed = false;
  memory.finishWorkOn(5);
  DataPtr after = cache.allocate(kKiB);
  EXPECT_NE(after.get(), first) << "nothing tells when stream 5 is done with the block";
  after.reset();
  cache.emptyCache();  // waits for every event that can pass, and does not wait for the other
  EXPECT_NE(cache.allocate(kKiB).get(), first);
}

TEST(CachingDeviceAllocatorTest, EmptyCacheWaitsForPendingBlocksAndKeepsSegmentsInUse) {
  FakeDeviceMemory memory(1024 * kMiB);
  CachingDeviceAllocator cache(memory);
  DataPtr kept = cache.allocate(kKiB);
  DataPtr pending = cache.allocate(30 * kMiB);
  DataPtr freed = cache.allocate(12 * kMiB);
  cache.recordStream(pending, Stream(memory.device(), 2));
  pending.reset();
  freed.reset();
  cache.emptyCache();
  EXPECT_EQ(memory.synchronized, 1);
  EXPECT_EQ(memory.frees, 2) << "the 30 and 12 MiB segments go back; the small one is in use";
  EXPECT_EQ(cache.stats().reserved_bytes, int64_t(2 * kMiB));
  EXPECT_EQ(at(cache.allocate(kKiB)), at(kept) + kKiB);
}

TEST(CachingDeviceAllocatorTest, OutOfMemoryReturnsTheCacheRetriesAndThenSaysWhatItHolds) {
  FakeDeviceMemory memory(24 * kMiB);
  CachingDeviceAllocator cache(memory);
  DataPtr small = cache.allocate(2 * kKiB);  // a 2 MiB segment
  cache.allocate(4 * kMiB).reset();          // a 20 MiB segment, cached
  EXPECT_EQ(memory.inUse(), 22 * kMiB);
  memory.current_stream = 1;                 // the cached segment is stream 0's
  DataPtr retried = cache.allocate(12 * kMiB);
  ASSERT_TRUE(retried.get());
  DeviceMemoryStats s = cache.stats();
  EXPECT_EQ(s.alloc_retries, 1);
  EXPECT_EQ(s.reserved_bytes, int64_t(14 * kMiB));
  try {
    cache.allocate(30 * kMiB);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("out of memory: tried to allocate 30.00 MiB"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("holds 12.00 MiB in tensors"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("(14.00 MiB reserved)"));
  }
  s = cache.stats();
  EXPECT_EQ(s.ooms, 1);
  EXPECT_EQ(s.alloc_retries, 2);
  EXPECT_EQ(s.allocated_bytes, int64_t(12 * kMiB + 2 * kKiB)) << "a failed request changes nothing held";
  EXPECT_THROW(cache.allocate(SIZE_MAX), OutOfMemoryError);
}

TEST(CachingDeviceAllocatorTest, PeaksFollowTheCountersAndResetToThem) {
  FakeDeviceMemory memory(1024 * kMiB);
  CachingDeviceAllocator cache(memory);
  cache.allocate(3 * kMiB).reset();
  DataPtr p = cache.allocate(kKiB);
  DeviceMemoryStats s = cache.stats();
  EXPECT_EQ(s.max_allocated_bytes, int64_t(3 * kMiB));
  EXPECT_EQ(s.max_reserved_bytes, int64_t(22 * kMiB));
  cache.emptyCache();
  cache.resetPeakStats();
  s = cache.stats();
  EXPECT_EQ(s.max_allocated_bytes, int64_t(kKiB));
  EXPECT_EQ(s.max_reserved_bytes, int64_t(2 * kMiB));
}

TEST(CachingDeviceAllocatorTest, ZeroBytesTakeNothingAndForeignMemoryIsRefused) {
  FakeDeviceMemory memory(1024 * kMiB);
  CachingDeviceAllocator cache(memory), other(memory);
  DataPtr none = cache.allocate(0);
  EXPECT_EQ(none.get(), nullptr);
  EXPECT_EQ(memory.allocations, 0);
  DataPtr theirs = other.allocate(kKiB);
  EXPECT_THAT([&] { cache.recordStream(theirs, Stream(memory.device(), 1)); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("was not allocated by this device's caching allocator")));
  DataPtr mine = cache.allocate(kKiB);
  EXPECT_THAT([&] { cache.recordStream(mine, Stream(Device(DeviceType::CPU), 0)); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("the stream is on cpu but the memory on")));
}

TEST(CachingDeviceAllocatorTest, BlocksAllocatedAndFreedFromManyThreadsBalance) {
  FakeDeviceMemory memory(1024 * kMiB);
  CachingDeviceAllocator cache(memory);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      std::vector<DataPtr> held;
      for (int i = 0; i < 500; ++i) {
        held.push_back(cache.allocate(static_cast<size_t>((i * 7 + t) % 64 + 1) * kKiB));
        if (i % 3 == 0) held.erase(held.begin());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(cache.stats().allocated_bytes, 0);
  cache.emptyCache();
  EXPECT_EQ(memory.inUse(), 0u) << "every segment merged back into one block";
}

TEST(CachingDeviceAllocatorTest, FormatBytesWritesPyTorchsUnits) {
  EXPECT_EQ(formatBytes(1), "1 byte");
  EXPECT_EQ(formatBytes(512), "512 bytes");
  EXPECT_EQ(formatBytes(1536), "1.50 KiB");
  EXPECT_EQ(formatBytes(int64_t{20} << 20), "20.00 MiB");
  EXPECT_EQ(formatBytes(int64_t{3} << 30), "3.00 GiB");
}

}  // namespace
}  // namespace opcore

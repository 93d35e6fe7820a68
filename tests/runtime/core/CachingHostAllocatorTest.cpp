// Tests of the caching host allocator (Note [Caching host allocator]) over pretend pinned
// memory: host blocks with a capacity, whose streams' events finish when the test says so. The
// CUDA backend runs the same allocator over cudaHostAlloc and CUDA events (CudaTest, where a
// GPU is lent); the example PrivateUse1 backend over plain host memory (PrivateUse1Test).
#include "FakeStreamEvents.h"

#include <opcore/core/CachingHostAllocator.h>
#include <opcore/core/Error.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace opcore {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

class FakePinnedMemory final : public FakeStreamEvents {
 public:
  explicit FakePinnedMemory(size_t capacity) : capacity_(capacity) {}
  ~FakePinnedMemory() override { EXPECT_TRUE(blocks_.empty()) << "pinned blocks never unpinned"; }

  Device device() const override { return Device(DeviceType::PrivateUse1, 0); }
  void* allocate(size_t nbytes) override {
    if (in_use_ + nbytes > capacity_) return nullptr;
    in_use_ += nbytes;
    ++pins;
    void* p = std::aligned_alloc(64, nbytes);
    blocks_[p] = nbytes;
    return p;
  }
  void free(void* ptr) override {
    const auto it = blocks_.find(ptr);
    ASSERT_NE(it, blocks_.end()) << "unpinned memory that was never pinned";
    in_use_ -= it->second;
    blocks_.erase(it);
    std::free(ptr);
    ++unpins;
  }
  Stream currentStream() const override { return Stream(device(), 0); }

  int pins = 0, unpins = 0;

 private:
  size_t capacity_;
  size_t in_use_ = 0;
  std::map<void*, size_t> blocks_;
};

Stream streamOf(int32_t id) { return Stream(Device(DeviceType::PrivateUse1, 0), id); }

TEST(CachingHostAllocatorTest, BlocksArePowersOfTwoOnTheCpuAndReusedWithoutPinningAgain) {
  FakePinnedMemory memory(size_t{1} << 30);
  CachingHostAllocator pinned(memory);
  DataPtr a = pinned.allocate(3000);
  ASSERT_NE(a.get(), nullptr);
  EXPECT_EQ(a.device(), Device(DeviceType::CPU));
  EXPECT_TRUE(pinned.owns(a));
  EXPECT_EQ(pinned.stats().allocated_bytes, 4096);
  EXPECT_EQ(pinned.stats().reserved_bytes, 4096);
  void* const first = a.get();
  a.reset();
  EXPECT_EQ(pinned.stats().allocated_bytes, 0);
  EXPECT_EQ(pinned.stats().reserved_bytes, 4096);  // cached, still pinned
  DataPtr b = pinned.allocate(4096);               // the same size class: the same block
  EXPECT_EQ(b.get(), first);
  EXPECT_EQ(memory.pins, 1);
  DataPtr c = pinned.allocate(100);  // 512 bytes, the smallest class: a block of its own
  DataPtr d = pinned.allocate(5000);  // 8192: not the cached 4096 block, not split from a larger one
  EXPECT_EQ(memory.pins, 3);
  EXPECT_EQ(pinned.stats().reserved_bytes, 4096 + 512 + 8192);
  EXPECT_EQ(pinned.stats().segments, 3);
  EXPECT_EQ(pinned.allocate(0).get(), nullptr);
  EXPECT_FALSE(pinned.owns(pinned.allocate(0)));
  b.reset();
  c.reset();
  d.reset();
  pinned.emptyCache();
  EXPECT_EQ(memory.unpins, 3);
  EXPECT_EQ(pinned.stats().reserved_bytes, 0);
  EXPECT_EQ(pinned.stats().max_allocated_bytes, 4096 + 512 + 8192);
}

TEST(CachingHostAllocatorTest, AFreedBlockACopyUsedWaitsForThatCopysStream) {
  FakePinnedMemory memory(size_t{1} << 30);
  CachingHostAllocator pinned(memory);
  DataPtr a = pinned.allocate(1024);
  void* const block = a.get();
  pinned.recordStream(a, streamOf(3));
  pinned.recordStream(a, streamOf(3));  // once per stream
  pinned.recordStream(a, streamOf(5));
  a.reset();
  EXPECT_EQ(memory.recordedEvents(), 2u);
  DataPtr b = pinned.allocate(1024);  // the copies may not have run: another block
  EXPECT_NE(b.get(), block);
  memory.finishWorkOn(3);
  DataPtr c = pinned.allocate(1024);  // stream 5's copy still pending
  EXPECT_NE(c.get(), block);
  memory.finishWorkOn(5);
  DataPtr d = pinned.allocate(1024);
  EXPECT_EQ(d.get(), block);
  EXPECT_EQ(memory.released_events, 2);
  // A block handed out again starts with no streams: its next free waits for nothing.
  d.reset();
  EXPECT_EQ(memory.recordedEvents(), 2u);
  EXPECT_EQ(pinned.allocate(1024).get(), block);
}

TEST(CachingHostAllocatorTest, EmptyCacheWaitsForPendingCopiesThenUnpins) {
  FakePinnedMemory memory(size_t{1} << 30);
  CachingHostAllocator pinned(memory);
  DataPtr a = pinned.allocate(2048);
  DataPtr kept = pinned.allocate(2048);
  pinned.recordStream(a, streamOf(1));
  a.reset();
  pinned.emptyCache();
  EXPECT_EQ(memory.unpins, 1);  // the freed block, after its event; not the one in use
  EXPECT_EQ(pinned.stats().reserved_bytes, 2048);
  kept.reset();
}

TEST(CachingHostAllocatorTest, OutOfMemoryUnpinsTheCacheRetriesThenSaysWhatItHolds) {
  FakePinnedMemory memory(8192);
  CachingHostAllocator pinned(memory);
  pinned.allocate(4096).reset();    // cached: unpinned for the retry, which then succeeds
  DataPtr fits = pinned.allocate(8192);
  EXPECT_EQ(pinned.stats().alloc_retries, 1);
  EXPECT_EQ(memory.unpins, 1);
  try {
    pinned.allocate(600);
    FAIL() << "pinned more than the memory has";
  } catch (const OutOfMemoryError& e) {
    EXPECT_THAT(e.what(), HasSubstr("tried to pin 600 bytes"));
    EXPECT_THAT(e.what(), HasSubstr("holds 8.00 KiB in tensors (8.00 KiB pinned)"));
  }
  EXPECT_EQ(pinned.stats().ooms, 1);
}

TEST(CachingHostAllocatorTest, BlocksOfAnotherAllocatorAreNotItsOwn) {
  FakePinnedMemory memory(size_t{1} << 20), other_memory(size_t{1} << 20);
  CachingHostAllocator pinned(memory), other(other_memory);
  DataPtr theirs = other.allocate(512);
  EXPECT_FALSE(pinned.owns(theirs));
  EXPECT_THROW(pinned.recordStream(theirs, streamOf(1)), Error);
  std::vector<char> bytes(16);
  EXPECT_FALSE(pinned.owns(DataPtr(bytes.data(), nullptr, Device(DeviceType::CPU))));
}

TEST(CachingHostAllocatorTest, ThreadsAllocateAndFreeConcurrently) {
  FakePinnedMemory memory(size_t{1} << 30);
  CachingHostAllocator pinned(memory);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pinned, t] {
      for (int i = 0; i < 200; ++i) {
        DataPtr p = pinned.allocate(512u << ((i + t) % 4));
        static_cast<char*>(p.get())[0] = 1;
        if (i % 3 == 0) pinned.recordStream(p, streamOf(t + 1));
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(pinned.stats().allocated_bytes, 0);
}

// The lookups: which allocator pins for which accelerator.
CachingHostAllocator* g_test_allocator = nullptr;
CachingHostAllocator* testAllocator() { return g_test_allocator; }

TEST(CachingHostAllocatorTest, PinningPicksTheAllocatorOfTheAcceleratorAsked) {
  FakePinnedMemory memory(size_t{1} << 20);
  CachingHostAllocator pinned(memory);
  const Device npu(DeviceType::PrivateUse1, 0);
  const std::string name = toString(DeviceType::PrivateUse1);  // "npu" once the example backend named it
  EXPECT_THAT([&] { pinningAllocator(npu, "pin_memory"); },
              ThrowsMessage<Error>(HasSubstr("pin_memory: cannot pin memory for " + name + ": no " + name + " device")));
  g_test_allocator = &pinned;
  setHostAllocatorLookup(DeviceType::PrivateUse1, &testAllocator);
  EXPECT_EQ(&pinningAllocator(npu, "pin_memory"), &pinned);
  EXPECT_THAT([] { pinningAllocator(Device(DeviceType::CPU), "pin_memory"); },
              ThrowsMessage<Error>(HasSubstr("pin_memory: pinned memory is pinned for an accelerator")));
  if (hostAllocator(DeviceType::CUDA) == nullptr) {  // no GPU: the PrivateUse1 backend's pins by default
    EXPECT_EQ(&pinningAllocator(std::nullopt, "pin_memory"), &pinned);
  }
  DataPtr p = pinned.allocate(512);
  EXPECT_TRUE(isPinned(p));
  EXPECT_TRUE(isPinned(p, npu));
  EXPECT_FALSE(isPinned(p, Device(DeviceType::CUDA)));
  setHostAllocatorLookup(DeviceType::PrivateUse1, nullptr);
  g_test_allocator = nullptr;
  EXPECT_TRUE(isPinned(p));  // still page-locked memory, as long as its block lives
  EXPECT_FALSE(isPinned(p, npu));  // but no longer the memory npu pins
  EXPECT_FALSE(isPinned(DataPtr(&memory, nullptr, Device(DeviceType::CPU))));
  if (hostAllocator(DeviceType::CUDA) == nullptr) {
    EXPECT_THAT([] { pinningAllocator(std::nullopt, "empty"); },
                ThrowsMessage<Error>(HasSubstr("empty: cannot pin memory: pinned memory is for copies to an "
                                               "accelerator, and this machine has none")));
  }
}

}  // namespace
}  // namespace opcore

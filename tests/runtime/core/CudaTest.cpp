// CUDA backend tests. They run where this build has CUDA and the machine has a GPU, and
// skip, saying which of the two is missing, everywhere else.
#include <opcore/ops/add.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/full.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/scalar_tensor.h>
#include <opcore/core/CachingDeviceAllocator.h>
#include <opcore/core/CachingHostAllocator.h>
#include <opcore/core/DeviceGuard.h>
#include <opcore/ops/empty.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

namespace opcore {
namespace {

class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef OPCORE_WITH_CUDA
    GTEST_SKIP() << "opcore was built without CUDA (no nvcc found at configure time)";
#else
    if (deviceCount(DeviceType::CUDA) == 0) GTEST_SKIP() << "built with CUDA, but this machine has no GPU";
#endif
  }
};

TEST_F(CudaTest, AddsAndMultipliesOnTheGpuAndCopiesBack) {
  const Device gpu(DeviceType::CUDA);
  Tensor a = opcore::arange(6, ScalarType::Float).to(gpu);
  Tensor b = opcore::full({6}, 2.0, TensorOptions(kFloat).device(gpu));
  EXPECT_TRUE(a.is_cuda());
  Tensor sum = opcore::add(a, b, 3);  // a + 3 * b
  Tensor prod = a.mul(b);
  EXPECT_EQ(sum.to(Device(DeviceType::CPU)).toString(), "tensor([ 6.,  7.,  8.,  9., 10., 11.])");
  EXPECT_EQ(prod.to(Device(DeviceType::CPU)).sum().item<float>(), 30.f);
}

// Whether two contiguous CPU tensors hold the same bytes.
bool sameBits(const Tensor& a, const Tensor& b) {
  return a.scalar_type() == b.scalar_type() && a.sizes() == b.sizes() &&
         std::memcmp(a.data_ptr(), b.data_ptr(), a.numel() * a.element_size()) == 0;
}

// The GPU's add, mul and fill give the CPU's values in every dtype: Half and BFloat16 computed
// in float (through __half / __nv_bfloat16) and rounded once, integers wrapping.
TEST_F(CudaTest, AddMulAndFillMatchTheCpuInEveryDtype) {
  const Device gpu(DeviceType::CUDA), cpu(DeviceType::CPU);
  for (ScalarType dtype : {kByte, kChar, kShort, kInt, kLong, kHalf, kFloat, kDouble, kComplexFloat,
                           kComplexDouble, kBool, kBFloat16}) {
    const Tensor a = opcore::arange(100, 106).mul(3).to(dtype), b = opcore::full({6}, 7, dtype);
    const Tensor sum = opcore::add(a.to(gpu), b.to(gpu), 2).to(cpu);
    const Tensor product = opcore::mul(a.to(gpu), b.to(gpu)).to(cpu);
    EXPECT_TRUE(sameBits(sum, opcore::add(a, b, 2))) << dtype;
    EXPECT_TRUE(sameBits(product, opcore::mul(a, b))) << dtype;
    const Tensor filled = opcore::full({2}, 1, TensorOptions(dtype).device(gpu));
    EXPECT_TRUE(sameBits(filled.to(cpu), opcore::full({2}, 1, dtype))) << dtype;
  }
}

// Broadcast, transposed and sliced operands, a 0-dim CPU operand, mixed dtypes, and copies that
// spread, gather or convert elements on the GPU (Note [Elementwise CUDA loops]) give the CPU's
// values.
TEST_F(CudaTest, StridedAndBroadcastOperandsMatchTheCpu) {
  const Device gpu(DeviceType::CUDA), cpu(DeviceType::CPU);
  // The GPU's result, brought back, holds the CPU's values in the same order.
  const auto same = [&](const Tensor& on_gpu, const Tensor& on_cpu) {
    return sameBits(on_gpu.to(cpu).contiguous(), on_cpu.contiguous());
  };
  const Tensor a = opcore::arange(24, ScalarType::Float).reshape({2, 3, 4});
  const Tensor row = opcore::arange(4, ScalarType::Float).mul(10);
  const Tensor col = opcore::arange(4, ScalarType::Float).reshape({4, 1, 1});
  const Tensor g = a.to(gpu);
  EXPECT_TRUE(same(opcore::add(g, row.to(gpu), 2), opcore::add(a, row, 2)));
  EXPECT_TRUE(same(opcore::mul(g.transpose(0, 2), col.to(gpu)), opcore::mul(a.transpose(0, 2), col)));
  EXPECT_TRUE(same(g.slice(2, 1, 4, 2), a.slice(2, 1, 4, 2)));  // gathered on the GPU
  EXPECT_TRUE(same(opcore::add(g, opcore::scalar_tensor(1.5, TensorOptions().dtype(kFloat))), opcore::add(a, 1.5)));
  Tensor spread = opcore::empty({2, 3, 4}, TensorOptions().dtype(kFloat).device(gpu));
  spread.copy_(row);  // host to device, broadcast on the GPU
  EXPECT_TRUE(same(spread, row.expand({2, 3, 4})));
  spread.transpose(1, 2).fill_(7);
  EXPECT_EQ(spread.to(cpu).sum().item<float>(), 7.f * 24);
  // Mixed dtypes: promoted on the GPU, and converted by copies within it.
  EXPECT_TRUE(same(opcore::add(g, a.to(kDouble).to(gpu)), opcore::add(a, a.to(kDouble))));
  const Tensor steps = opcore::arange(4, ScalarType::Long);
  EXPECT_TRUE(same(opcore::mul(g, steps.to(gpu)), opcore::mul(a, steps)));
  for (ScalarType dtype : {kHalf, kBFloat16, kByte, kBool, kComplexFloat, kLong}) {
    EXPECT_TRUE(same(g.mul(0.37).to(dtype), a.mul(0.37).to(dtype))) << dtype;
  }
}

// Issue 35, item 3: tensors' memory comes from the caching allocator (Note [Caching device
// allocator]): a freed block serves the next request of its size without a new segment.
TEST_F(CudaTest, TensorsMemoryComesFromTheCachingAllocator) {
  const Device gpu(DeviceType::CUDA, 0);
  CachingDeviceAllocator* cache = cachingAllocator(gpu);
  ASSERT_NE(cache, nullptr);
  const DeviceMemoryStats before = cache->stats();
  void* first = nullptr;
  {
    Tensor t = opcore::empty({250}, TensorOptions().dtype(kFloat).device(gpu));  // 1000 bytes: a 1024-byte block
    first = t.data_ptr();
    EXPECT_EQ(cache->stats().allocated_bytes, before.allocated_bytes + 1024);
  }
  EXPECT_EQ(cache->stats().allocated_bytes, before.allocated_bytes);
  const int64_t segments = cache->stats().segments;
  for (int i = 0; i < 100; ++i) {
    Tensor a = opcore::ones({1}, TensorOptions(kFloat).device(gpu));
    Tensor sum = opcore::add(a, a);  // allocates its result: a cached block each time
  }
  EXPECT_EQ(cache->stats().segments, segments);
  Tensor again = opcore::empty({250}, TensorOptions().dtype(kFloat).device(gpu));
  EXPECT_EQ(again.data_ptr(), first);
}

TEST_F(CudaTest, OutOfMemoryIsACatchableErrorAndTheAllocatorGoesOn) {
  const Device gpu(DeviceType::CUDA, 0);
  try {
    opcore::empty({int64_t{1} << 45}, TensorOptions().dtype(kByte).device(gpu));
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("cuda:0 out of memory: tried to allocate 32.00 TiB"));
  }
  EXPECT_GE(cachingAllocator(gpu)->stats().ooms, 1);
  EXPECT_EQ(opcore::ones({3}, TensorOptions(kFloat).device(gpu)).to(Device(DeviceType::CPU)).sum().item<float>(), 3.f);
}

TEST_F(CudaTest, ADeviceIndexThatDoesNotExistIsAnError) {
  const int n = deviceCount(DeviceType::CUDA);
  const Device missing(DeviceType::CUDA, static_cast<DeviceIndex>(n));
  EXPECT_THAT([&] { opcore::ones({2}, TensorOptions(kFloat).device(missing)); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("does not exist")));
}

// Kernels and copies queue on the thread's current stream; a side stream's result is there
// after waiting for it, and the current stream is restored.
TEST_F(CudaTest, KernelsRunOnTheCurrentStream) {
  const Device gpu(DeviceType::CUDA, 0), cpu(DeviceType::CPU);
  const DeviceGuardImpl* impl = deviceGuardImpl(DeviceType::CUDA);
  ASSERT_NE(impl, nullptr);
  const Stream side = impl->newStream(gpu);
  EXPECT_NE(side.id, 0);
  Tensor x = opcore::arange(1 << 20, ScalarType::Float).to(gpu);
  // x's copy ran on the default stream, which `side` does not wait for unless told to.
  void* copied = impl->recordEvent(nullptr, currentStream(gpu), /*timing=*/false);
  impl->waitEvent(copied, side);
  const Stream previous = impl->exchangeStream(side);
  EXPECT_EQ(currentStream(gpu), side);
  Tensor y = opcore::mul(x, x);
  cachingAllocator(gpu)->recordStream(y.unsafeGetTensorImpl()->storage()->data_ptr(), side);
  impl->exchangeStream(previous);
  impl->synchronizeStream(side);
  EXPECT_TRUE(impl->queryStream(side));
  EXPECT_TRUE(impl->queryEvent(copied));
  impl->destroyEvent(copied);
  EXPECT_EQ(currentStream(gpu), previous);
  const Tensor host = y.to(cpu);
  EXPECT_EQ(host.data_ptr<float>()[1000], 1000.f * 1000.f);
  impl->synchronizeDevice(0);
}

// Pinned memory comes from cudaHostAlloc through the caching host allocator; copies from and to
// it with non_blocking return before they have run, and a pinned block a copy used is handed out
// again only after that copy.
TEST_F(CudaTest, NonBlockingCopiesUsePinnedMemoryAndItsBlocksWaitForThem) {
  const Device gpu(DeviceType::CUDA, 0), cpu(DeviceType::CPU);
  CachingHostAllocator* pinned = hostAllocator(DeviceType::CUDA);
  ASSERT_NE(pinned, nullptr);
  const Tensor values = opcore::arange(1 << 20, ScalarType::Float);
  const Tensor host = values.pin_memory();
  EXPECT_TRUE(host.is_pinned());
  EXPECT_TRUE(host.is_pinned(gpu));
  EXPECT_FALSE(values.is_pinned());
  EXPECT_TRUE(opcore::empty({3}, TensorOptions().pinned_memory(true)).is_pinned());
  EXPECT_THAT([&] { opcore::empty({3}, TensorOptions().device(gpu).pinned_memory(true)); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("only dense CPU tensors can be pinned")));

  const Tensor device = host.to(gpu, std::nullopt, /*non_blocking=*/true);
  const Tensor doubled = opcore::mul(device, device);
  Tensor back = doubled.to(cpu, std::nullopt, /*non_blocking=*/true);
  EXPECT_TRUE(back.is_pinned());
  const DeviceGuardImpl* impl = deviceGuardImpl(DeviceType::CUDA);
  void* copied = impl->recordEvent(nullptr, currentStream(gpu), /*timing=*/false);
  void* const block = back.data_ptr();
  back = Tensor();  // freed while the copy into it may still be queued
  Tensor next = opcore::empty({1 << 20}, TensorOptions().pinned_memory(true));
  if (!impl->queryEvent(copied)) EXPECT_NE(next.data_ptr(), block) << "a pinned block was reused before its copy ran";
  impl->synchronizeEvent(copied);
  impl->destroyEvent(copied);
  const int64_t reserved = pinned->stats().reserved_bytes;
  next = Tensor();
  // The copy has run and `next` is freed: their blocks are handed out again, nothing new pinned.
  const Tensor first = opcore::empty({1 << 20}, TensorOptions().pinned_memory(true));
  EXPECT_EQ(pinned->stats().reserved_bytes, reserved);
  const Tensor second = opcore::empty({1 << 20}, TensorOptions().pinned_memory(true));
  EXPECT_TRUE(first.data_ptr() == block || second.data_ptr() == block);
  const Tensor result = doubled.to(cpu);  // blocking: pageable memory, done when it returns
  EXPECT_FALSE(result.is_pinned());
  EXPECT_EQ(result.data_ptr<float>()[1000], 1000.f * 1000.f);
  const DeviceMemoryStats stats = pinned->stats();
  EXPECT_GE(stats.reserved_bytes, stats.allocated_bytes);
  pinned->emptyCache();
}

}  // namespace
}  // namespace opcore

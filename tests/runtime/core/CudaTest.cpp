// CUDA backend tests. They run where this build has CUDA and the machine has a GPU, and
// skip, saying which of the two is missing, everywhere else.
#include <opcore/ops/add.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/full.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/ones.h>

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
  Tensor b = opcore::full({6}, 2.0, ScalarType::Float, gpu);
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
    EXPECT_TRUE(sameBits(opcore::full({2}, 1, dtype, gpu).to(cpu), opcore::full({2}, 1, dtype))) << dtype;
  }
}

TEST_F(CudaTest, UnsupportedLayoutsAreNamedErrors) {
  const Device gpu(DeviceType::CUDA);
  Tensor a = opcore::ones({2, 3}, ScalarType::Float, gpu);
  Tensor b = opcore::ones({3}, ScalarType::Float, gpu);
  try {
    opcore::add(a, b);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("broadcasting is not implemented yet"));
  }
}

}  // namespace
}  // namespace opcore

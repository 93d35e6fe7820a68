// Tests of the tensor data model: dtypes and promotion, scalars, key sets, allocation,
// sizes/strides bookkeeping and views.
#include <opcore/core/DispatchKeySet.h>
#include <opcore/core/Empty.h>
#include <opcore/core/Scalar.h>
#include <opcore/core/TensorOptions.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>

namespace opcore {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(ScalarTypeTest, PromotesByCategoryThenWidth) {
  EXPECT_EQ(promoteTypes(ScalarType::Bool, ScalarType::Int), ScalarType::Int);
  EXPECT_EQ(promoteTypes(ScalarType::Int, ScalarType::Long), ScalarType::Long);
  EXPECT_EQ(promoteTypes(ScalarType::Long, ScalarType::Float), ScalarType::Float);
  EXPECT_EQ(promoteTypes(ScalarType::Double, ScalarType::Float), ScalarType::Double);
  EXPECT_EQ(promoteTypes(ScalarType::Bool, ScalarType::Bool), ScalarType::Bool);
  EXPECT_EQ(elementSize(ScalarType::Int), 4u);
  EXPECT_EQ(elementSize(ScalarType::Double), 8u);
}

TEST(ScalarTest, RemembersItsKind) {
  EXPECT_TRUE(Scalar(2.5).isFloatingPoint());
  EXPECT_EQ(Scalar(2.5).type(), ScalarType::Double);
  EXPECT_EQ(Scalar(3).type(), ScalarType::Long);
  EXPECT_EQ(Scalar(true).type(), ScalarType::Bool);
  EXPECT_EQ(Scalar(2.9).to<int64_t>(), 2);
  EXPECT_EQ(Scalar(int64_t{7}).toDouble(), 7.0);
  std::ostringstream os;
  os << Scalar(4) << " " << Scalar(false);
  EXPECT_EQ(os.str(), "4 False");
}

// What the options overload of a factory whose schema lacks layout or pin_memory checks (the
// generated prologue, gen/emit/functions.py; native_functions.yaml's factories all have both,
// as PyTorch's, so only a user's YAML reaches it).
TEST(TensorOptionsTest, ChecksThePartsAFactoryHasNoArgumentFor) {
  using detail::checkOptionsWithoutArguments;
  EXPECT_THAT([] { checkOptionsWithoutArguments(layout(Layout::Sparse), "f", false, true, true); },
              ThrowsMessage<Error>(HasSubstr("f: only strided tensors can be created, got layout Sparse")));
  EXPECT_THAT([] { checkOptionsWithoutArguments(TensorOptions().pinned_memory(true), "f", true, false, true); },
              ThrowsMessage<Error>(HasSubstr("f: cannot create tensors in pinned memory")));
  EXPECT_THAT([] { checkOptionsWithoutArguments(requires_grad(), "f", true, true, false); },
              ThrowsMessage<Error>(HasSubstr("f: requires_grad applies to factories returning one tensor")));
  EXPECT_NO_THROW(checkOptionsWithoutArguments(layout(Layout::Strided).pinned_memory(false), "f", false, false, true));
  EXPECT_NO_THROW(checkOptionsWithoutArguments(layout(Layout::Sparse).pinned_memory(true), "f", true, true, true));
}

TEST(AllocatorTest, CpuBlocksAre64ByteAligned) {
  for (size_t n : {1u, 3u, 64u, 1000u}) {
    TensorBase t = detail::emptyCpu({static_cast<int64_t>(n)}, ScalarType::Bool);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % kCpuAlignment, 0u) << n;
  }
}

TEST(AllocatorTest, CudaTensorsWithoutAGpuAreANamedError) {
  if (deviceCount(DeviceType::CUDA) > 0) GTEST_SKIP() << "this machine has a GPU; see CudaTest";
  try {
    detail::empty({2}, ScalarType::Float, Device(DeviceType::CUDA));
    FAIL() << "expected an error";
  } catch (const Error& e) {
#ifdef OPCORE_WITH_CUDA
    EXPECT_THAT(e.what(), HasSubstr("CUDA: no CUDA device is available on this machine"));
#else
    EXPECT_THAT(e.what(), HasSubstr("built without cuda support"));
#endif
  }
}

TEST(TensorImplTest, ContiguousStridesAndNumel) {
  TensorBase t = detail::emptyCpu({2, 3, 4}, ScalarType::Float);
  EXPECT_EQ(t.sizes(), (IntArrayRef{2, 3, 4}));
  EXPECT_EQ(t.strides(), (IntArrayRef{12, 4, 1}));
  EXPECT_EQ(t.numel(), 24);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_THROW(t.size(3), Error);
  // Every tensor goes through ADInplaceOrView (Note [Autograd keys on tensors]).
  EXPECT_EQ(t.key_set(), (DispatchKeySet{DispatchKey::CPU, DispatchKey::ADInplaceOrView}));
}

TEST(TensorImplTest, ManyDimensionsSpillToTheHeap) {
  TensorBase t = detail::emptyCpu({1, 2, 1, 2, 1, 2, 1}, ScalarType::Int);
  EXPECT_EQ(t.dim(), 7);
  EXPECT_EQ(t.numel(), 8);
  EXPECT_EQ(t.strides(), (IntArrayRef{8, 4, 4, 2, 2, 1, 1}));
  TensorBase v = detail::makeView(t, {8}, {1}, 0);
  EXPECT_EQ(v.dim(), 1);
}

TEST(TensorImplTest, ViewsShareStorageAndTrackContiguity) {
  TensorBase t = detail::emptyCpu({2, 3}, ScalarType::Long);
  for (int64_t i = 0; i < 6; ++i) t.data_ptr<int64_t>()[i] = i;
  TensorBase tr = detail::makeView(t, {3, 2}, {1, 3}, 0);
  EXPECT_FALSE(tr.is_contiguous());
  EXPECT_EQ(detail::elementAsDouble(tr, 1), 3.0);  // tr[0][1] == t[1][0]
  TensorBase row = detail::makeView(t, {3}, {1}, 3);
  EXPECT_TRUE(row.is_contiguous());
  EXPECT_EQ(detail::elementAsDouble(row, 0), 3.0);
  EXPECT_EQ(detail::makeView(t, {}, {}, 5).item<int64_t>(), 5);
}

TEST(TensorBaseTest, ItemRequiresOneElement) {
  TensorBase t = detail::emptyCpu({2}, ScalarType::Float);
  try {
    (void)t.item<float>();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("a tensor with 2 elements cannot be converted to a scalar"));
  }
  EXPECT_THROW(t.data_ptr<double>(), Error);
}

TEST(TensorBaseTest, MetaTensorsHaveShapeButNoData) {
  TensorBase t = detail::empty({4, 5}, ScalarType::Float, Device(DeviceType::Meta));
  EXPECT_EQ(t.numel(), 20);
  EXPECT_EQ(t.data_ptr(), nullptr);
  EXPECT_EQ(t.key_set(), (DispatchKeySet{DispatchKey::Meta, DispatchKey::ADInplaceOrView}));
  EXPECT_EQ(t.toString(), "tensor(..., size=[4, 5], device='meta')");
}

}  // namespace
}  // namespace opcore

// Code written for ATen compiles and runs against opcore with nothing but a namespace alias:
// factories with TensorOptions, the dtype and device constants, methods with ATen's spelling,
// data_ptr<T>(), item<T>(), backward() and grad() (issue 13: ATen's names on the C++ surface).
// Every line below is ATen code as its users write it; only the alias is opcore's.
// Per-operator headers, as ATen's <ATen/ops/ones.h> (<opcore/opcore.h> would do too, like
// <ATen/ATen.h>, at the price of recompiling this file whenever an operator is added).
#include <opcore/TensorOperators.h>
#include <opcore/autograd/GradMode.h>
#include <opcore/autograd/Node.h>  // grad_fn()->name(), as torch/csrc/autograd/function.h in ATen
#include <opcore/ops/arange.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/full.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/rand.h>
#include <opcore/ops/zeros.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace at = opcore;

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(AtenStyleTest, FactoriesTakeOptionsAndTheDtypeConstants) {
  at::Tensor a = at::ones({2, 3}, at::kDouble);
  EXPECT_EQ(a.scalar_type(), at::kDouble);
  EXPECT_TRUE(a.is_contiguous());
  EXPECT_TRUE(a.device().is_cpu());
  EXPECT_EQ(a.device().type(), at::kCPU);
  EXPECT_EQ(at::Device(at::kCUDA, 1).index(), 1);
  EXPECT_FALSE(at::Device(at::kCPU).has_index());
  EXPECT_EQ(a.element_size(), 8u);
  at::Tensor b = at::zeros({4}, at::TensorOptions().dtype(at::kLong).device(at::kCPU));
  EXPECT_EQ(b.scalar_type(), at::kLong);
  at::Tensor c = at::empty({2}, a.options());
  EXPECT_EQ(c.scalar_type(), at::kDouble);
  at::Tensor m = at::empty({2, 2}, at::device(at::kMeta).dtype(at::kFloat));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(at::full({3}, 7, at::dtype(at::kInt)).scalar_type(), at::kInt);
  EXPECT_EQ(at::arange(5, at::kFloat).numel(), 5);
  EXPECT_EQ(at::rand({2, 2}).scalar_type(), at::kFloat);
  // The unpacked overload stays callable, as in ATen (pin_memory before memory_format).
  EXPECT_EQ(at::empty({1}, at::kLong, at::kStrided, at::Device(at::kCPU), false, at::MemoryFormat::Contiguous).scalar_type(),
            at::kLong);
}

TEST(AtenStyleTest, FactoriesRefuseLayoutsOtherThanStrided) {
  try {
    at::zeros({2}, at::layout(at::kSparse));
    FAIL() << "a sparse layout was accepted";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("zeros: only the strided layout is supported, got Sparse"));
  }
  // PyTorch's schemas: layout and pin_memory in the unpacked overload too.
  EXPECT_EQ(at::ones({2}, at::kInt, at::kStrided, at::Device(at::kCPU), false).scalar_type(), at::kInt);
  EXPECT_EQ(at::arange(0, 4, 2, at::kLong, at::kStrided, at::Device(at::kCPU), false).numel(), 2);
}

TEST(AtenStyleTest, DataPtrItemAndMethods) {
  at::Tensor x = at::arange(6, at::kFloat).reshape({2, 3});
  float* p = x.data_ptr<float>();
  EXPECT_EQ(p[4], 4.f);
  EXPECT_EQ(x.storage_offset(), 0);
  at::Tensor row = x.select(0, 1);
  EXPECT_EQ(row.storage_offset(), 3);
  EXPECT_FALSE(x.t().is_contiguous());
  EXPECT_EQ(x.sum().item<float>(), 15.f);
  EXPECT_EQ((x * 2).mean().item<double>(), 5.0);
  EXPECT_EQ(x.to(at::kDouble).scalar_type(), at::kDouble);
  std::vector<float> seen(p, p + x.numel());
  EXPECT_THAT(seen, ElementsAre(0.f, 1.f, 2.f, 3.f, 4.f, 5.f));
}

TEST(AtenStyleTest, BackwardFillsGrad) {
  at::Tensor w = at::ones({2, 2}, at::dtype(at::kDouble).requires_grad(true));
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
  at::Tensor x = at::arange(4, at::kDouble).reshape({2, 2});
  at::Tensor loss = x.mm(w).sum();
  EXPECT_FALSE(loss.is_leaf());
  EXPECT_EQ(loss.grad_fn()->name(), "SumBackward0");
  loss.backward();
  // d(sum(x @ w))/dw[i][j] = sum over rows of x[:, i]
  const double* g = w.grad().data_ptr<double>();
  EXPECT_EQ(g[0], 2.0);  // x[0][0] + x[1][0] = 0 + 2
  EXPECT_EQ(g[1], 2.0);
  EXPECT_EQ(g[2], 4.0);  // x[0][1] + x[1][1] = 1 + 3
  EXPECT_EQ(g[3], 4.0);
  w.mutable_grad() = at::Tensor();
  EXPECT_FALSE(w.grad().defined());
  {
    at::NoGradGuard no_grad;
    EXPECT_FALSE((w * 2).requires_grad());
  }
}

}  // namespace

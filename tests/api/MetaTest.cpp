// The Meta backend: operators with a Meta kernel run on meta tensors, computing shapes and
// dtypes (with the same checks as the CPU kernels) but touching no data.
#include <opcore/ops/add.h>
#include <opcore/ops/bmm.h>
#include <opcore/ops/div.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/eq.h>
#include <opcore/ops/floor_divide.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/ge.h>
#include <opcore/ops/gt.h>
#include <opcore/ops/le.h>
#include <opcore/ops/logical_and.h>
#include <opcore/ops/lt.h>
#include <opcore/ops/max.h>
#include <opcore/ops/mm.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/ne.h>
#include <opcore/ops/neg.h>
#include <opcore/ops/nonzero.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/tanh.h>
#include <opcore/ops/where.h>
#include "TestUtil.h"

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;

Tensor meta(IntArrayRef sizes, ScalarType dtype = ScalarType::Float) {
  return opcore::empty(sizes, dtype, std::nullopt, Device(DeviceType::Meta));
}

TEST(MetaTest, ElementwiseOpsBroadcastAndPromoteWithoutData) {
  Tensor a = meta({2, 1, 3}), b = meta({4, 1}, ScalarType::Long);
  for (const Tensor& r : {opcore::add(a, b), opcore::sub(a, b, 2), opcore::mul(a, b), opcore::div(a, b)}) {
    EXPECT_TRUE(r.is_meta());
    EXPECT_EQ(r.data_ptr(), nullptr);
    EXPECT_EQ(shapeOf(r), (Shape{2, 4, 3}));
    EXPECT_EQ(r.scalar_type(), ScalarType::Float);
  }
  Tensor i = meta({5}, ScalarType::Long);
  EXPECT_EQ(opcore::div(i, i).scalar_type(), ScalarType::Float) << "true division promotes integers";
  EXPECT_EQ(opcore::exp(i).scalar_type(), ScalarType::Float);
  EXPECT_EQ(opcore::neg(i).scalar_type(), ScalarType::Long);
  EXPECT_EQ(shapeOf(opcore::tanh(a)), (Shape{2, 1, 3}));
}

TEST(MetaTest, MatrixProductsAndViewsCompose) {
  Tensor x = meta({8, 3}), w = meta({3, 5});
  Tensor y = opcore::mm(x, w).t().unsqueeze(0);
  EXPECT_TRUE(y.is_meta());
  EXPECT_EQ(shapeOf(y), (Shape{1, 5, 8}));
  Tensor out = meta({0});
  opcore::mm_out(out, x, w);
  EXPECT_EQ(shapeOf(out), (Shape{8, 5}));
  Tensor double_out = meta({8, 5}, ScalarType::Double);
  EXPECT_THAT(errorOf([&] { opcore::mm_out(double_out, x, w); }),
              HasSubstr("aten::mm.out: Expected out tensor to have dtype Float, but got Double instead"));
}

TEST(MetaTest, MetaKernelsMakeTheCpuKernelsChecks) {
  EXPECT_THAT(errorOf([] { opcore::add(meta({2, 3}), meta({4})); }),
              HasSubstr("The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"));
  EXPECT_THAT(errorOf([] { opcore::mm(meta({2, 3}), meta({4, 5})); }),
              HasSubstr("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"));
  EXPECT_THAT(errorOf([] { opcore::sub(meta({2}, ScalarType::Bool), meta({2}, ScalarType::Bool)); }),
              HasSubstr("sub: both operands are bool tensors"));
  Tensor long_out = meta({2}, ScalarType::Long);
  EXPECT_THAT(errorOf([&] { opcore::div_out(long_out, meta({2}), meta({2})); }),
              HasSubstr("can't be cast to the desired output type Long"));
  EXPECT_THAT(errorOf([] { opcore::add(meta({2}), fromVector<float>({1, 2})); }),
              HasSubstr("add: expected all tensors to be on the same device, but found at least two "
                        "devices, meta and cpu"));
}

TEST(MetaTest, Comparisons) {
  Tensor a = meta({2, 1}), b = meta({3}, ScalarType::Long);
  for (const Tensor& r : {opcore::eq(a, b), opcore::ne(a, 1), opcore::lt(a, 1), opcore::le(b, a),
                          opcore::gt(b, a), opcore::ge(a, b)}) {
    EXPECT_TRUE(r.is_meta());
    EXPECT_EQ(r.scalar_type(), ScalarType::Bool);
  }
  EXPECT_EQ(shapeOf(opcore::eq(a, b)), (Shape{2, 3}));
  EXPECT_EQ(shapeOf(opcore::lt(a, 1)), (Shape{2, 1}));
  EXPECT_EQ(shapeOf(opcore::ne(a, b)), (Shape{2, 3}));
  EXPECT_EQ(shapeOf(opcore::le(a, 1)), (Shape{2, 1}));
  EXPECT_EQ(shapeOf(opcore::ge(b, a)), (Shape{2, 3}));
  // A 0-dim CPU tensor joins meta tensors, as a wrapped number would.
  Tensor mixed = opcore::gt(meta({2, 3}), scalarTensor<float>(1));
  EXPECT_TRUE(mixed.is_meta());
  EXPECT_EQ(shapeOf(mixed), (Shape{2, 3}));
  Tensor self = meta({2, 3}, ScalarType::Double);
  self.eq_(meta({3}));
  EXPECT_EQ(self.scalar_type(), ScalarType::Double) << "in-place keeps self's dtype";
  Tensor out = meta({0}, ScalarType::Int);
  opcore::lt_out(out, a, b);
  EXPECT_EQ(shapeOf(out), (Shape{2, 3}));
  EXPECT_THAT(errorOf([&] { meta({3}).gt_(meta({2, 3})); }),
              HasSubstr("aten::gt_.Tensor: output with shape [3] doesn't match the broadcast shape [2, 3]"));
}

TEST(MetaTest, ReductionsWithIndices) {
  auto [values, indices] = opcore::max(meta({2, 3, 4}, ScalarType::Int), -2);
  EXPECT_TRUE(values.is_meta() && indices.is_meta());
  EXPECT_EQ(shapeOf(values), (Shape{2, 4}));
  EXPECT_EQ(values.scalar_type(), ScalarType::Int);
  EXPECT_EQ(indices.scalar_type(), ScalarType::Long);
  Tensor v = meta({0}), i = meta({0}, ScalarType::Long);
  opcore::max_out(v, i, meta({2, 3}), 1, /*keepdim=*/true);
  EXPECT_EQ(shapeOf(v), (Shape{2, 1}));
  EXPECT_EQ(shapeOf(i), (Shape{2, 1}));
  EXPECT_THAT(errorOf([&] { opcore::max_out(v, v, meta({2, 3}), 1); }),
              HasSubstr("Expected out tensor to have dtype Long, but got Float instead"));
  EXPECT_THAT(errorOf([] { opcore::max(meta({2, 0}), 1); }),
              HasSubstr("max(): Expected reduction dim 1 to have non-zero size."));
}

TEST(MetaTest, OperatorsWithoutAMetaKernelSayWhich) {
  // nonzero's result size depends on the values, which a Meta tensor does not have.
  EXPECT_THAT(errorOf([&] { opcore::nonzero(meta({2, 3})); }),
              HasSubstr("could not run 'aten::nonzero' with arguments from the 'Meta' backend: no kernel is "
                        "registered for dispatch key Meta"));
}

TEST(MetaTest, UnstructuredOperatorsHaveMetaKernels) {
  EXPECT_EQ(shapeOf(opcore::bmm(meta({2, 2, 3}), meta({2, 3, 4}))), (Shape{2, 2, 4}));
  EXPECT_THAT(errorOf([&] { opcore::bmm(meta({2, 2, 3}), meta({2, 2, 4})); }),
              HasSubstr("Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 2]."));
  EXPECT_EQ(shapeOf(opcore::where(meta({3, 1}, ScalarType::Bool), meta({1, 4}), meta({4}))), (Shape{3, 4}));
  EXPECT_EQ(opcore::floor_divide(meta({2}, ScalarType::Int), meta({3, 1}, ScalarType::Int)).scalar_type(),
            ScalarType::Int);
  EXPECT_THAT(errorOf([&] { opcore::floor_divide(meta({2}, ScalarType::Bool), meta({2}, ScalarType::Bool)); }),
              HasSubstr("\"floor_divide\" not implemented for 'Bool'"));
  Tensor out = meta({1}, ScalarType::Bool);
  opcore::logical_and_out(out, meta({2, 1}), meta({3}));
  EXPECT_EQ(shapeOf(out), (Shape{2, 3}));
  Tensor m = meta({1, 3});
  EXPECT_THAT(errorOf([&] { m.copy_(meta({2, 3})); }), HasSubstr("doesn't match the broadcast shape [2, 3]"));
}

}  // namespace
}  // namespace opcore

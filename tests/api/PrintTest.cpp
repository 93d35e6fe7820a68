// Tests of toString() on tensors built by the operators, against PyTorch's printed form.
#include <opcore/ops/arange.h>
#include <opcore/ops/div.h>
#include <opcore/ops/gt.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/zeros.h>
#include "TestUtil.h"

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

TEST(PrintTest, PrintsAFloatMatrixLikePyTorch) {
  Tensor t = fromVector<float>({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(t.toString(), "tensor([[1., 2.],\n        [3., 4.]])");
}

TEST(PrintTest, PrintsOperatorResults) {
  EXPECT_EQ(opcore::arange(4).toString(), "tensor([0, 1, 2, 3])");
  EXPECT_EQ(opcore::div(opcore::arange(3), 2).toString(), "tensor([0.0000, 0.5000, 1.0000])");
  EXPECT_EQ(opcore::sum(opcore::ones({2, 2})).toString(), "tensor(4.)");
  EXPECT_EQ(opcore::gt(opcore::arange(3), 0).toString(), "tensor([False,  True,  True])");
  EXPECT_EQ(opcore::zeros({2}, ScalarType::Double).toString(), "tensor([0., 0.], dtype=Double)");
}

TEST(PrintTest, PrintsStridedAndThreeDimensionalTensors) {
  Tensor t = fromVector<int64_t>({1, 2, 3, 4}, {2, 2}).t();
  EXPECT_EQ(t.toString(), "tensor([[1, 3],\n        [2, 4]])");
  Tensor c = opcore::arange(8).view({2, 2, 2});
  EXPECT_EQ(c.toString(), "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])");
}

}  // namespace
}  // namespace opcore

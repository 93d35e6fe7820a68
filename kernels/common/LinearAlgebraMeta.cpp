// The meta functions of structured mm and bmm (Note [Structured kernels] in
// gen/api/structured.py): the checks and the result's shape, dtype and device, shared by every
// backend's wrapper and all that the Meta backend runs.
#include <opcore/ops/bmm_native.h>
#include <opcore/ops/mm_native.h>

namespace opcore::meta {

namespace {

void checkOperands(const char* name, const Tensor& self, const Tensor& mat2) {
  OPCORE_CHECK(self.scalar_type() == mat2.scalar_type(), "expected mat1 and mat2 to have the same dtype, but got: ",
               self.scalar_type(), " != ", mat2.scalar_type());
  if (self.scalar_type() == kBool) detail::throwNotImplementedForDtype(name, kBool);
  OPCORE_CHECK(self.device() == mat2.device(), name, ": expected all tensors to be on the same device, but found at "
               "least two devices, ", self.device(), " and ", mat2.device());
}

}  // namespace

// [n, k] x [k, m] -> [n, m]. The out= tensor must have the operands' dtype exactly (the impl
// writes it directly), and the operands must be on one device: 2-D, neither is a wrapped scalar.
mm_out mm(const Tensor& self, const Tensor& mat2) {
  OPCORE_CHECK(self.dim() == 2, "self must be a matrix");
  OPCORE_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  const int64_t n = self.size(0), k = self.size(1), m = mat2.size(1);
  OPCORE_CHECK(k == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (", n, "x", k, " and ",
               mat2.size(0), "x", m, ")");
  checkOperands("mm", self, mat2);
  return {TensorSpec{{n, m}, self.scalar_type(), self.device(), /*exact_dtype=*/true}};
}

// [b, n, k] x [b, k, m] -> [b, n, m], with mm's rules for dtypes and devices.
bmm_out bmm(const Tensor& self, const Tensor& mat2) {
  OPCORE_CHECK(self.dim() == 3, "batch1 must be a 3D tensor");
  OPCORE_CHECK(mat2.dim() == 3, "batch2 must be a 3D tensor");
  const int64_t batch = self.size(0), k = self.size(2);
  OPCORE_CHECK(mat2.size(0) == batch && mat2.size(1) == k,
               "Expected size for first two dimensions of batch2 tensor to be: [", batch, ", ", k,
               "] but got: [", mat2.size(0), ", ", mat2.size(1), "].");
  checkOperands("bmm", self, mat2);
  return {TensorSpec{{batch, self.size(1), mat2.size(2)}, self.scalar_type(), self.device(), /*exact_dtype=*/true}};
}

}  // namespace opcore::meta

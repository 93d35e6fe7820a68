// The meta functions of structured mm, bmm, addmm, addmv and baddbmm (Note [Structured kernels] in
// gen/api/structured.py): the checks and the result's shape, dtype and device, shared by every
// backend's wrapper and all that the Meta backend runs.
#include <opcore/ops/addmm_native.h>
#include <opcore/ops/addmv_native.h>
#include <opcore/ops/baddbmm_native.h>
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

// The added self of addmm, addmv, baddbmm: on the operands' device, and broadcast to `target`
// (PyTorch's expand messages).
void checkAddend(const char* name, const Tensor& self, const Tensor& operand, IntArrayRef target) {
  OPCORE_CHECK(self.device() == operand.device(), name, ": expected all tensors to be on the same device, but found "
               "at least two devices, ", self.device(), " and ", operand.device());
  const int64_t rank = static_cast<int64_t>(target.size());
  OPCORE_CHECK(self.dim() <= rank, "expand(", self.scalar_type(), "Tensor", self.sizes(), ", size=", target,
               "): the number of sizes provided (", rank, ") must be greater or equal to the number of dimensions in "
               "the tensor (", self.dim(), ")");
  for (int64_t i = 0; i < self.dim(); ++i) {
    const int64_t d = rank - self.dim() + i, size = self.size(i);
    OPCORE_CHECK(size == target[d] || size == 1, "The expanded size of the tensor (", target[d],
                 ") must match the existing size (", size, ") at non-singleton dimension ", d, ".  Target sizes: ",
                 target, ".  Tensor sizes: ", self.sizes());
  }
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

// beta * self + alpha * ([n, k] x [k, m]): mm's checks on mat1 and mat2, and self, of their
// dtype and device, must broadcast to [n, m] (PyTorch's messages, its expand's for the shape).
addmm_out addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& /*beta*/,
                const Scalar& /*alpha*/) {
  OPCORE_CHECK(mat1.dim() == 2, "mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  OPCORE_CHECK(mat2.dim() == 2, "mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  const int64_t n = mat1.size(0), k = mat1.size(1), m = mat2.size(1);
  OPCORE_CHECK(k == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (", n, "x", k, " and ",
               mat2.size(0), "x", m, ")");
  checkOperands("addmm", mat1, mat2);
  OPCORE_CHECK(self.scalar_type() == mat2.scalar_type(), "self and mat2 must have the same dtype");
  checkAddend("addmm", self, mat2, {n, m});
  return {TensorSpec{{n, m}, mat1.scalar_type(), mat1.device(), /*exact_dtype=*/true}};
}

// beta * self + alpha * ([n, m] x [m]): self broadcast to [n], all of one dtype and device.
addmv_out addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& /*beta*/,
                const Scalar& /*alpha*/) {
  OPCORE_CHECK(mat.dim() == 2 && vec.dim() == 1 && self.dim() <= 1, "vector + matrix @ vector expected, got ",
               self.dim(), ", ", mat.dim(), ", ", vec.dim());
  OPCORE_CHECK(mat.size(1) == vec.size(0) && (mat.size(0) == self.numel() || self.numel() == 1),
               "size mismatch, got input (", self.dim() == 0 ? 1 : self.size(0), "), mat (", mat.size(0), "x",
               mat.size(1), "), vec (", vec.size(0), ")");
  OPCORE_CHECK(mat.scalar_type() == vec.scalar_type() && self.scalar_type() == mat.scalar_type(),
               "expected scalar type ", mat.scalar_type(), " but found ",
               vec.scalar_type() != mat.scalar_type() ? vec.scalar_type() : self.scalar_type());
  checkOperands("addmv", mat, vec);
  checkAddend("addmv", self, mat, {mat.size(0)});
  return {TensorSpec{{mat.size(0)}, mat.scalar_type(), mat.device(), /*exact_dtype=*/true}};
}

// beta * self + alpha * ([b, n, k] x [b, k, m]): bmm's checks on batch1 and batch2, and self,
// of their dtype and device, broadcast to [b, n, m].
baddbmm_out baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& /*beta*/,
                    const Scalar& /*alpha*/) {
  OPCORE_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  OPCORE_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  const int64_t b = batch1.size(0), n = batch1.size(1), k = batch1.size(2), m = batch2.size(2);
  OPCORE_CHECK(batch2.size(0) == b && batch2.size(1) == k,
               "Expected size for first two dimensions of batch2 tensor to be: [", b, ", ", k,
               "] but got: [", batch2.size(0), ", ", batch2.size(1), "].");
  checkOperands("baddbmm", batch1, batch2);
  OPCORE_CHECK(self.scalar_type() == batch1.scalar_type(), "expected scalar type ", batch1.scalar_type(),
               " but found ", self.scalar_type());
  checkAddend("baddbmm", self, batch1, {b, n, m});
  return {TensorSpec{{b, n, m}, batch1.scalar_type(), batch1.device(), /*exact_dtype=*/true}};
}

}  // namespace opcore::meta

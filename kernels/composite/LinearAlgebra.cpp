// Composite matrix products: matmul, which dispatches on the ranks of its operands to a dot
// product, mm, or bmm with broadcast batch dimensions; linear, the fully connected layer (one
// addmm for a 2-D input with a bias, as PyTorch's, else matmul and add). Their gradients come
// from the operators they call. And mv (CompositeExplicitAutograd: derivatives.yaml's), addmv
// with beta = 0.
#include <opcore/core/Structured.h>
#include <opcore/ops/add.h>
#include <opcore/ops/addmm.h>
#include <opcore/ops/addmv.h>
#include <opcore/ops/bmm.h>
#include <opcore/ops/linear_native.h>
#include <opcore/ops/matmul.h>
#include <opcore/ops/matmul_native.h>
#include <opcore/ops/mm.h>
#include <opcore/ops/mv_native.h>
#include <opcore/ops/zeros.h>

#include "common/Shape.h"

namespace opcore::native {

namespace {

// 1-D . 1-D, as a (1 x k) . (k x 1) product viewed as a scalar.
Tensor dotProduct(const Tensor& self, const Tensor& other) {
  OPCORE_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [",
               self.numel(), "] and src [", other.numel(),
               "] to have the same number of elements, but got ", self.numel(), " and ",
               other.numel(), " elements respectively");
  OPCORE_CHECK(self.scalar_type() == other.scalar_type(),
               "dot : expected both vectors to have same dtype, but found ", self.scalar_type(),
               " and ", other.scalar_type());
  return opcore::mm(self.unsqueeze(0), other.unsqueeze(1)).reshape({});
}

// self has >= 3 dims, other 1 or 2: fold self's batch dimensions into the rows of one mm.
Tensor foldedMatmul(const Tensor& self, const Tensor& other) {
  const bool vector = other.dim() == 1;
  const Tensor rhs = vector ? other.unsqueeze(1) : other;
  DimVector shape = self.sizes().slice(0, self.sizes().size() - 1).vec();
  if (!vector) shape.push_back(rhs.size(1));
  const Tensor rows = self.reshape({-1, self.size(-1)});
  return opcore::mm(rows, rhs).view(shape);
}

// At least one operand has >= 3 dims: broadcast the batch dimensions and use bmm.
Tensor batchedMatmul(const Tensor& self, const Tensor& other) {
  const Tensor a = self.dim() == 1 ? self.unsqueeze(0) : self;    // [..., n, k]
  const Tensor b = other.dim() == 1 ? other.unsqueeze(1) : other; // [..., k, m]
  const int64_t n = a.size(-2), k1 = a.size(-1), k2 = b.size(-2), m = b.size(-1);
  const DimVector batch = broadcastShapes(a.sizes().slice(0, a.sizes().size() - 2),
                                          b.sizes().slice(0, b.sizes().size() - 2));
  const int64_t nbatch = checkedNumel(batch);
  DimVector a_shape = batch, b_shape = batch;
  a_shape.insert(a_shape.end(), {n, k1});
  b_shape.insert(b_shape.end(), {k2, m});
  const Tensor a3 = a.expand(a_shape).reshape({nbatch, n, k1});
  const Tensor b3 = b.expand(b_shape).reshape({nbatch, k2, m});
  DimVector shape = batch;
  if (self.dim() > 1) shape.push_back(n);
  if (other.dim() > 1) shape.push_back(m);
  return opcore::bmm(a3, b3).view(shape);
}

}  // namespace

Tensor matmul(const Tensor& self, const Tensor& other) {
  const int64_t d1 = self.dim(), d2 = other.dim();
  OPCORE_CHECK(d1 > 0 && d2 > 0, "both arguments to matmul need to be at least 1D, but they are ",
               d1, "D and ", d2, "D");
  if (d1 == 1 && d2 == 1) return dotProduct(self, other);
  if (d1 == 2 && d2 == 1) return opcore::mm(self, other.unsqueeze(1)).squeeze(1);
  if (d1 == 1 && d2 == 2) return opcore::mm(self.unsqueeze(0), other).squeeze(0);
  if (d1 == 2 && d2 == 2) return opcore::mm(self, other);
  if (d1 >= 3 && d2 <= 2) return foldedMatmul(self, other);
  return batchedMatmul(self, other);
}

// A contiguous 3-D input with a bias is folded into one addmm too, as PyTorch's: a 16-bit float
// result is then rounded once, where matmul and add round twice.
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  const bool has_bias = bias && bias->defined();
  if (input.dim() == 2 && has_bias) return opcore::addmm(*bias, input, weight.t());
  if (input.dim() == 3 && has_bias && input.is_contiguous()) {
    const Tensor folded = input.view({input.size(0) * input.size(1), input.size(2)});
    return opcore::addmm(*bias, folded, weight.t()).view({input.size(0), input.size(1), weight.size(0)});
  }
  const Tensor output = opcore::matmul(input, weight.t());
  return has_bias ? opcore::add(output, *bias) : output;
}

Tensor& linear_out(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, Tensor& out) {
  const Tensor result = native::linear(input, weight, bias);
  detail::prepareOut("aten::linear.out", out, detail::specOf(result), {});
  return out.copy_(result);
}

// With beta = 0 addmv does not read self: a zero of the operands' dtype stands for it.
Tensor mv(const Tensor& self, const Tensor& vec) {
  return opcore::addmv(opcore::zeros({1}, self.options()), self, vec, 0, 1);
}

Tensor& mv_out(const Tensor& self, const Tensor& vec, Tensor& out) {
  return opcore::addmv_out(out, opcore::zeros({1}, self.options()), self, vec, 0, 1);
}

}  // namespace opcore::native

// The CUDA kernels of the pointwise operators named in native_functions.yaml (`CUDA:
// <name>_cuda`): each picks the dtype to compute in as its CPU kernel does (kernels/cpu/),
// builds the operands and calls the launcher of its arity (Note [CUDA pointwise operations] in
// CudaLaunch.h). The structured ones run after their meta function has checked the operands
// and prepared `out`; the others (relu, isnan, where, logical_*, hardtanh, floor_divide,
// nan_to_num, masked_fill_, native_dropout_backward) allocate or resize their result here, as
// the CPU's ElementwiseOp does, those whose Meta kernels check arguments after calling them.
#include "CudaOperands.h"

#include "common/ClampType.h"
#include "common/Shape.h"
#include "common/TypePromotion.h"
#include "cpu/Loops.h"
#include "cpu/ScalarConvert.h"

#include <opcore/core/Empty.h>
#include <opcore/ops/_local_scalar_dense.h>
#include <opcore/ops/abs_native.h>
#include <opcore/ops/acos_native.h>
#include <opcore/ops/acosh_native.h>
#include <opcore/ops/add_native.h>
#include <opcore/ops/addcdiv_native.h>
#include <opcore/ops/addcmul_native.h>
#include <opcore/ops/angle_native.h>
#include <opcore/ops/asin_native.h>
#include <opcore/ops/asinh_native.h>
#include <opcore/ops/atan2_native.h>
#include <opcore/ops/atan_native.h>
#include <opcore/ops/atanh_native.h>
#include <opcore/ops/bitwise_and_native.h>
#include <opcore/ops/bitwise_left_shift_native.h>
#include <opcore/ops/bitwise_not_native.h>
#include <opcore/ops/bitwise_or_native.h>
#include <opcore/ops/bitwise_right_shift_native.h>
#include <opcore/ops/bitwise_xor_native.h>
#include <opcore/ops/ceil_native.h>
#include <opcore/ops/clamp_max_native.h>
#include <opcore/ops/clamp_min_native.h>
#include <opcore/ops/clamp_native.h>
#include <opcore/ops/conj_physical_native.h>
#include <opcore/ops/copysign_native.h>
#include <opcore/ops/cos_native.h>
#include <opcore/ops/cosh_native.h>
#include <opcore/ops/div_native.h>
#include <opcore/ops/elu_backward_native.h>
#include <opcore/ops/elu_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/eq_native.h>
#include <opcore/ops/erf_native.h>
#include <opcore/ops/erfinv_native.h>
#include <opcore/ops/exp2_native.h>
#include <opcore/ops/exp_native.h>
#include <opcore/ops/expm1_native.h>
#include <opcore/ops/floor_divide_native.h>
#include <opcore/ops/floor_native.h>
#include <opcore/ops/fmod_native.h>
#include <opcore/ops/frac_native.h>
#include <opcore/ops/full.h>
#include <opcore/ops/ge_native.h>
#include <opcore/ops/gelu_backward_native.h>
#include <opcore/ops/gelu_native.h>
#include <opcore/ops/gt_native.h>
#include <opcore/ops/hardtanh_backward_native.h>
#include <opcore/ops/hardtanh_native.h>
#include <opcore/ops/hypot_native.h>
#include <opcore/ops/isinf_native.h>
#include <opcore/ops/isnan_native.h>
#include <opcore/ops/le_native.h>
#include <opcore/ops/leaky_relu_backward_native.h>
#include <opcore/ops/leaky_relu_native.h>
#include <opcore/ops/lerp_native.h>
#include <opcore/ops/log10_native.h>
#include <opcore/ops/log1p_native.h>
#include <opcore/ops/log2_native.h>
#include <opcore/ops/log_native.h>
#include <opcore/ops/logical_and_native.h>
#include <opcore/ops/logical_not_native.h>
#include <opcore/ops/logical_or_native.h>
#include <opcore/ops/logical_xor_native.h>
#include <opcore/ops/lt_native.h>
#include <opcore/ops/masked_fill_native.h>
#include <opcore/ops/maximum_native.h>
#include <opcore/ops/minimum_native.h>
#include <opcore/ops/mul_native.h>
#include <opcore/ops/nan_to_num_native.h>
#include <opcore/ops/native_dropout_backward_native.h>
#include <opcore/ops/ne_native.h>
#include <opcore/ops/neg_native.h>
#include <opcore/ops/pow_native.h>
#include <opcore/ops/reciprocal_native.h>
#include <opcore/ops/relu_native.h>
#include <opcore/ops/remainder_native.h>
#include <opcore/ops/round_native.h>
#include <opcore/ops/rsqrt_native.h>
#include <opcore/ops/sgn_native.h>
#include <opcore/ops/sigmoid_backward_native.h>
#include <opcore/ops/sigmoid_native.h>
#include <opcore/ops/sign_native.h>
#include <opcore/ops/silu_backward_native.h>
#include <opcore/ops/silu_native.h>
#include <opcore/ops/sin_native.h>
#include <opcore/ops/sinh_native.h>
#include <opcore/ops/sqrt_native.h>
#include <opcore/ops/sub_native.h>
#include <opcore/ops/tan_native.h>
#include <opcore/ops/tanh_backward_native.h>
#include <opcore/ops/tanh_native.h>
#include <opcore/ops/trunc_native.h>
#include <opcore/ops/where_native.h>

#include <initializer_list>

namespace opcore::native {
namespace {

using cuda::BinaryOp;
using cuda::PointwiseArgs;
using cuda::TernaryOp;
using cuda::UnaryOp;

// The inputs of an elementwise kernel that writes `out`, prepared as the CPU's ElementwiseOp
// prepares them (kernels/cpu/Loops.cpp): a 0-dim CPU input moved to the GPU (onDevice); out's
// elements may not overlap; an input that shares out's memory in another layout, or while out
// is still to be resized (the structured wrapper leaves that to the kernel when out aliases an
// input), is read from a copy; then out takes the inputs' broadcast shape.
template <size_t N>
std::array<Tensor, N> inputsFor(const Tensor& out, std::array<const Tensor*, N> inputs) {
  std::array<Tensor, N> in;
  DimVector shape;
  for (size_t k = 0; k < N; ++k) {
    in[k] = cuda::onDevice(*inputs[k], out);
    shape = k == 0 ? DimVector(in[k].sizes().begin(), in[k].sizes().end()) : broadcastShapes(shape, in[k].sizes());
  }
  cpu::checkNoInternalOverlap(out);
  const bool resizing = out.sizes() != IntArrayRef(shape);
  for (Tensor& t : in) {
    if (cpu::sharesStorage(t, out) && (resizing || !cpu::sameLayout(t, out))) t = t.clone();
  }
  detail::resizeOutput(out, shape);
  return in;
}

void unary(UnaryOp op, const char* name, ScalarType dtype, const Tensor& self, const Tensor& out,
           const PointwiseArgs& args = {}) {
  const auto [a] = inputsFor<1>(out, {&self});
  cuda::launchUnary(op, name, dtype, cuda::stridedOperands<2>(name, {&out, &a}), args);
}

void binary(BinaryOp op, const char* name, ScalarType dtype, const Tensor& self, const Tensor& other, const Tensor& out,
            const PointwiseArgs& args = {}) {
  const auto [a, b] = inputsFor<2>(out, {&self, &other});
  cuda::launchBinary(op, name, dtype, cuda::stridedOperands<3>(name, {&out, &a, &b}), args);
}

void ternary(TernaryOp op, const char* name, ScalarType dtype, const Tensor& x, const Tensor& y, const Tensor& z,
             const Tensor& out, const PointwiseArgs& args = {}) {
  const auto [a, b, c] = inputsFor<3>(out, {&x, &y, &z});
  cuda::launchTernary(op, name, dtype, cuda::stridedOperands<4>(name, {&out, &a, &b, &c}), args);
}

PointwiseArgs withScalars(std::initializer_list<Scalar> scalars) {
  PointwiseArgs args;
  int k = 0;
  for (const Scalar& s : scalars) args.scalars[k++] = s;
  return args;
}

// The result of an operator that is not structured: a new tensor of `shape` on `device`, or
// `out` once `dtype` is checked to cast to it (unary/binary/ternary's inputsFor resizes it).
Tensor resultFor(const TensorBase& out, IntArrayRef shape, ScalarType dtype, Device device) {
  if (!out.defined()) return opcore::empty(shape, TensorOptions().dtype(dtype).device(device));
  checkCanCast(dtype, out.scalar_type());
  return Tensor(out);
}

// PyTorch's error for a number that does not fit `dtype` (add's alpha, masked_fill_'s value),
// as the CPU kernels raise it.
void checkFits(ScalarType dtype, const Scalar& value, const char* name) {
  OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] { cpu::checkedConvert<scalar_t>(value); });
}

void floatingUnary(UnaryOp op, const char* name, const Tensor& self, const Tensor& out) {
  unary(op, name, toFloatingType(self.scalar_type()), self, out);
}

// logical_*: nonzero is true; the result is Bool, converted to out's dtype when it has another.
Tensor& logicalOut(BinaryOp op, const char* name, const Tensor& self, const Tensor& other, Tensor& out) {
  resultFor(out, broadcastShapes(self.sizes(), other.sizes()), kBool, self.device());
  binary(op, name, resultType(self, other), self, other, out);
  return out;
}

}  // namespace

// ---- floating functions: integral and bool inputs give the default float dtype -----------------

void sin_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Sin, "sin", self, out); }
void cos_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Cos, "cos", self, out); }
void tan_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Tan, "tan", self, out); }
void asin_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Asin, "asin", self, out); }
void acos_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Acos, "acos", self, out); }
void atan_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Atan, "atan", self, out); }
void sinh_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Sinh, "sinh", self, out); }
void cosh_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Cosh, "cosh", self, out); }
void asinh_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Asinh, "asinh", self, out); }
void acosh_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Acosh, "acosh", self, out); }
void atanh_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Atanh, "atanh", self, out); }
void exp_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Exp, "exp", self, out); }
void exp2_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Exp2, "exp2", self, out); }
void expm1_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Expm1, "expm1", self, out); }
void log_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Log, "log", self, out); }
void log2_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Log2, "log2", self, out); }
void log10_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Log10, "log10", self, out); }
void log1p_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Log1p, "log1p", self, out); }
void sqrt_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Sqrt, "sqrt", self, out); }
void rsqrt_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Rsqrt, "rsqrt", self, out); }
void reciprocal_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Reciprocal, "reciprocal", self, out); }
void sigmoid_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Sigmoid, "sigmoid", self, out); }
void tanh_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Tanh, "tanh", self, out); }
void erf_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Erf, "erf", self, out); }
void erfinv_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Erfinv, "erfinv", self, out); }

// ---- unary in self's dtype ---------------------------------------------------------------------

void neg_out_cuda(const Tensor& self, const Tensor& out) { unary(UnaryOp::Neg, "neg", self.scalar_type(), self, out); }
void abs_out_cuda(const Tensor& self, const Tensor& out) { unary(UnaryOp::Abs, "abs", self.scalar_type(), self, out); }
void sign_out_cuda(const Tensor& self, const Tensor& out) { unary(UnaryOp::Sign, "sign", self.scalar_type(), self, out); }
void sgn_out_cuda(const Tensor& self, const Tensor& out) { unary(UnaryOp::Sgn, "sgn", self.scalar_type(), self, out); }
void angle_out_cuda(const Tensor& self, const Tensor& out) { floatingUnary(UnaryOp::Angle, "angle", self, out); }
void conj_physical_out_cuda(const Tensor& self, const Tensor& out) {
  unary(UnaryOp::ConjPhysical, "conj_physical", self.scalar_type(), self, out);
}
void ceil_out_cuda(const Tensor& self, const Tensor& out) { unary(UnaryOp::Ceil, "ceil", self.scalar_type(), self, out); }
void floor_out_cuda(const Tensor& self, const Tensor& out) { unary(UnaryOp::Floor, "floor", self.scalar_type(), self, out); }
void trunc_out_cuda(const Tensor& self, const Tensor& out) { unary(UnaryOp::Trunc, "trunc", self.scalar_type(), self, out); }
void round_out_cuda(const Tensor& self, const Tensor& out) { unary(UnaryOp::Round, "round", self.scalar_type(), self, out); }
void frac_out_cuda(const Tensor& self, const Tensor& out) { unary(UnaryOp::Frac, "frac", self.scalar_type(), self, out); }
void bitwise_not_out_cuda(const Tensor& self, const Tensor& out) { unary(UnaryOp::BitwiseNot, "bitwise_not", self.scalar_type(), self, out); }
void silu_out_cuda(const Tensor& self, const Tensor& out) { unary(UnaryOp::Silu, "silu", self.scalar_type(), self, out); }

void round_decimals_out_cuda(const Tensor& self, int64_t decimals, const Tensor& out) {
  PointwiseArgs args;
  args.integer = decimals;
  unary(UnaryOp::RoundDecimals, "round", self.scalar_type(), self, out, args);
}

void gelu_out_cuda(const Tensor& self, std::string_view approximate, const Tensor& out) {
  PointwiseArgs args;
  args.flags[0] = approximate == "tanh";
  unary(UnaryOp::Gelu, "gelu", self.scalar_type(), self, out, args);
}

void leaky_relu_out_cuda(const Tensor& self, const Scalar& negative_slope, const Tensor& out) {
  unary(UnaryOp::LeakyRelu, "leaky_relu", self.scalar_type(), self, out, withScalars({negative_slope}));
}

void elu_out_cuda(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                  const Tensor& out) {
  unary(UnaryOp::Elu, "elu", self.scalar_type(), self, out, withScalars({alpha, scale, input_scale}));
}

Tensor relu_cuda(const Tensor& self) {
  const Tensor out = resultFor(TensorBase(), self.sizes(), self.scalar_type(), self.device());
  unary(UnaryOp::Relu, "relu", self.scalar_type(), self, out);
  return out;
}

Tensor& relu_cuda_(Tensor& self) {
  unary(UnaryOp::Relu, "relu_", self.scalar_type(), self, self);
  return self;
}

// ---- predicates --------------------------------------------------------------------------------

Tensor isnan_cuda(const Tensor& self) {
  const Tensor out = resultFor(TensorBase(), self.sizes(), kBool, self.device());
  unary(UnaryOp::Isnan, "isnan", self.scalar_type(), self, out);
  return out;
}

Tensor isinf_cuda(const Tensor& self) {
  const Tensor out = resultFor(TensorBase(), self.sizes(), kBool, self.device());
  unary(UnaryOp::Isinf, "isinf", self.scalar_type(), self, out);
  return out;
}

// out= may have any dtype, which gets 1 and 0 (as PyTorch's logical_not).
Tensor& logical_not_out_cuda(const Tensor& self, Tensor& out) {
  resultFor(out, self.sizes(), kBool, self.device());
  unary(UnaryOp::LogicalNot, "logical_not", self.scalar_type(), self, out);
  return out;
}

Tensor& logical_and_out_cuda(const Tensor& self, const Tensor& other, Tensor& out) {
  return logicalOut(BinaryOp::LogicalAnd, "logical_and", self, other, out);
}
Tensor& logical_or_out_cuda(const Tensor& self, const Tensor& other, Tensor& out) {
  return logicalOut(BinaryOp::LogicalOr, "logical_or", self, other, out);
}
Tensor& logical_xor_out_cuda(const Tensor& self, const Tensor& other, Tensor& out) {
  return logicalOut(BinaryOp::LogicalXor, "logical_xor", self, other, out);
}

// ---- binary arithmetic ---------------------------------------------------------------------------

void add_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  const ScalarType dtype = resultType(self, other);
  checkFits(dtype, alpha, "add");
  binary(BinaryOp::Add, "add", dtype, self, other, out, withScalars({alpha}));
}

void sub_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  const ScalarType dtype = resultType(self, other);
  checkFits(dtype, alpha, "sub");
  binary(BinaryOp::Sub, "sub", dtype, self, other, out, withScalars({alpha}));
}

void mul_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Mul, "mul", resultType(self, other), self, other, out);
}

void div_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Div, "div", toFloatingType(resultType(self, other)), self, other, out);
}

// meta::div has checked the rounding mode.
void div_out_mode_cuda(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode,
                       const Tensor& out) {
  if (!rounding_mode) return div_out_cuda(self, other, out);
  binary(*rounding_mode == "floor" ? BinaryOp::DivFloor : BinaryOp::DivTrunc, "div", resultType(self, other), self,
         other, out);
}

void atan2_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Atan2, "atan2", toFloatingType(resultType(self, other)), self, other, out);
}
void copysign_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Copysign, "copysign", toFloatingType(resultType(self, other)), self, other, out);
}
void hypot_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Hypot, "hypot", resultType(self, other), self, other, out);
}
void bitwise_and_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::BitwiseAnd, "bitwise_and", resultType(self, other), self, other, out);
}
void bitwise_or_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::BitwiseOr, "bitwise_or", resultType(self, other), self, other, out);
}
void bitwise_xor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::BitwiseXor, "bitwise_xor", resultType(self, other), self, other, out);
}
void bitwise_left_shift_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::ShiftLeft, "bitwise_left_shift", resultType(self, other), self, other, out);
}
void bitwise_right_shift_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::ShiftRight, "bitwise_right_shift", resultType(self, other), self, other, out);
}
void fmod_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Fmod, "fmod", resultType(self, other), self, other, out);
}
void remainder_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Remainder, "remainder", resultType(self, other), self, other, out);
}
void maximum_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Maximum, "maximum", resultType(self, other), self, other, out);
}
void minimum_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Minimum, "minimum", resultType(self, other), self, other, out);
}
void pow_Tensor_Tensor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Pow, "pow", resultType(self, other), self, other, out);
}
void eq_Tensor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Eq, "eq", resultType(self, other), self, other, out);
}
void ne_Tensor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Ne, "ne", resultType(self, other), self, other, out);
}
void lt_Tensor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Lt, "lt", resultType(self, other), self, other, out);
}
void le_Tensor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Le, "le", resultType(self, other), self, other, out);
}
void gt_Tensor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Gt, "gt", resultType(self, other), self, other, out);
}
void ge_Tensor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Ge, "ge", resultType(self, other), self, other, out);
}
void sigmoid_backward_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::SigmoidBackward, "sigmoid_backward", resultType(self, other), self, other, out);
}
void tanh_backward_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::TanhBackward, "tanh_backward", resultType(self, other), self, other, out);
}
void silu_backward_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::SiluBackward, "silu_backward", resultType(self, other), self, other, out);
}
void clamp_min_Tensor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Maximum, "clamp", resultType(self, other), self, other, out);
}
void clamp_max_Tensor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(BinaryOp::Minimum, "clamp", resultType(self, other), self, other, out);
}

// Comparisons with a number: computed in the promoted dtype of self and the number.
void eq_Scalar_out_cuda(const Tensor& self, const Scalar& other, const Tensor& out) {
  unary(UnaryOp::EqScalar, "eq", resultType(self, other), self, out, withScalars({other}));
}
void ne_Scalar_out_cuda(const Tensor& self, const Scalar& other, const Tensor& out) {
  unary(UnaryOp::NeScalar, "ne", resultType(self, other), self, out, withScalars({other}));
}
void lt_Scalar_out_cuda(const Tensor& self, const Scalar& other, const Tensor& out) {
  unary(UnaryOp::LtScalar, "lt", resultType(self, other), self, out, withScalars({other}));
}
void le_Scalar_out_cuda(const Tensor& self, const Scalar& other, const Tensor& out) {
  unary(UnaryOp::LeScalar, "le", resultType(self, other), self, out, withScalars({other}));
}
void gt_Scalar_out_cuda(const Tensor& self, const Scalar& other, const Tensor& out) {
  unary(UnaryOp::GtScalar, "gt", resultType(self, other), self, out, withScalars({other}));
}
void ge_Scalar_out_cuda(const Tensor& self, const Scalar& other, const Tensor& out) {
  unary(UnaryOp::GeScalar, "ge", resultType(self, other), self, out, withScalars({other}));
}

void pow_Tensor_Scalar_out_cuda(const Tensor& self, const Scalar& exponent, const Tensor& out) {
  unary(UnaryOp::PowScalar, "pow", resultType(self, exponent), self, out, withScalars({exponent}));
}

void gelu_backward_out_cuda(const Tensor& grad_output, const Tensor& self, std::string_view approximate,
                            const Tensor& grad_input) {
  PointwiseArgs args;
  args.flags[0] = approximate == "tanh";
  binary(BinaryOp::GeluBackward, "gelu_backward", resultType(grad_output, self), grad_output, self, grad_input, args);
}

void leaky_relu_backward_out_cuda(const Tensor& grad_output, const Tensor& self, const Scalar& negative_slope,
                                  bool self_is_result, const Tensor& grad_input) {
  binary(BinaryOp::LeakyReluBackward, "leaky_relu_backward", resultType(grad_output, self), grad_output, self,
         grad_input, withScalars({negative_slope}));
}

void elu_backward_out_cuda(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                           const Scalar& input_scale, bool is_result, const Tensor& self_or_result,
                           const Tensor& grad_input) {
  PointwiseArgs args = withScalars({alpha, scale, input_scale});
  args.flags[0] = is_result;
  binary(BinaryOp::EluBackward, "elu_backward", resultType(grad_output, self_or_result), grad_output,
         self_or_result, grad_input, args);
}

// ---- clamp with number bounds (Note [Clamp and NaN] in common/pointwise/Binary.h) --------------

void clamp_out_cuda(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                    const Tensor& out) {
  PointwiseArgs args;
  if (min) {
    args.scalars[0] = *min;
    args.flags[0] = true;
  }
  if (max) {
    args.scalars[1] = *max;
    args.flags[1] = true;
  }
  unary(UnaryOp::Clamp, "clamp", clampType(self, min, max), self, out, args);
}

void clamp_min_out_cuda(const Tensor& self, const Scalar& min, const Tensor& out) {
  clamp_out_cuda(self, min, std::nullopt, out);
}

void clamp_max_out_cuda(const Tensor& self, const Scalar& max, const Tensor& out) {
  clamp_out_cuda(self, std::nullopt, max, out);
}

// ---- ternary -------------------------------------------------------------------------------------

void clamp_Tensor_out_cuda(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                           const Tensor& out) {
  const bool has_min = min && min->defined(), has_max = max && max->defined();
  const ScalarType dtype = clampType(self, min, max);
  if (has_min && has_max) return ternary(TernaryOp::ClampTensor, "clamp", dtype, self, *min, *max, out);
  binary(has_min ? BinaryOp::Maximum : BinaryOp::Minimum, "clamp", dtype, self, has_min ? *min : *max, out);
}

void lerp_Scalar_cuda(const Tensor& self, const Tensor& end, const Scalar& weight, const Tensor& out) {
  binary(BinaryOp::Lerp, "lerp", self.scalar_type(), self, end, out, withScalars({weight}));
}

void lerp_Tensor_cuda(const Tensor& self, const Tensor& end, const Tensor& weight, const Tensor& out) {
  ternary(TernaryOp::LerpTensor, "lerp", self.scalar_type(), self, end, weight, out);
}

namespace {

ScalarType promoted(const Tensor& a, const Tensor& b, const Tensor& c) {
  ResultTypeState state;
  state.add(a);
  state.add(b);
  state.add(c);
  return state.result();
}

// where into `out` (undefined: a new tensor): condition must be Bool, self and other promote.
Tensor whereInto(const Tensor& condition, const Tensor& self, const Tensor& other, const TensorBase& out) {
  OPCORE_CHECK(condition.scalar_type() == ScalarType::Bool,
               "where expected condition to be a boolean tensor, but got a tensor with dtype ",
               condition.scalar_type());
  const ScalarType dtype = resultType(self, other);
  const DimVector shape = broadcastShapes(broadcastShapes(condition.sizes(), self.sizes()), other.sizes());
  const Tensor result = resultFor(out, shape, dtype, condition.is_cuda() ? condition.device() : self.device());
  ternary(TernaryOp::Where, "where", dtype, condition, self, other, result);
  return result;
}

}  // namespace

void addcmul_out_cuda(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                      const Tensor& out) {
  ternary(TernaryOp::Addcmul, "addcmul", promoted(self, tensor1, tensor2), self, tensor1, tensor2, out,
          withScalars({value}));
}

void addcdiv_out_cuda(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                      const Tensor& out) {
  ternary(TernaryOp::Addcdiv, "addcdiv", promoted(self, tensor1, tensor2), self, tensor1, tensor2, out,
          withScalars({value}));
}

Tensor where_cuda(const Tensor& condition, const Tensor& self, const Tensor& other) {
  return whereInto(condition, self, other, TensorBase());
}

Tensor& where_self_out_cuda(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  whereInto(condition, self, other, out);
  return out;
}

// ---- operators with Meta kernels of their own: those checks first -----------------------------

Tensor hardtanh_cuda(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  hardtanh_meta(self, min_val, max_val);
  const Tensor out = resultFor(TensorBase(), self.sizes(), self.scalar_type(), self.device());
  unary(UnaryOp::Hardtanh, "hardtanh", self.scalar_type(), self, out, withScalars({min_val, max_val}));
  return out;
}

Tensor& hardtanh_out_cuda(const Tensor& self, const Scalar& min_val, const Scalar& max_val, Tensor& out) {
  hardtanh_out_meta(self, min_val, max_val, out);
  resultFor(out, self.sizes(), self.scalar_type(), self.device());
  unary(UnaryOp::Hardtanh, "hardtanh", self.scalar_type(), self, out, withScalars({min_val, max_val}));
  return out;
}

Tensor& hardtanh_cuda_(Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  hardtanh_meta_(self, min_val, max_val);
  unary(UnaryOp::Hardtanh, "hardtanh_", self.scalar_type(), self, self, withScalars({min_val, max_val}));
  return self;
}

Tensor& hardtanh_backward_out_cuda(const Tensor& grad_output, const Tensor& self, const Scalar& min_val,
                                   const Scalar& max_val, Tensor& grad_input) {
  hardtanh_backward_out_meta(grad_output, self, min_val, max_val, grad_input);
  const ScalarType dtype = resultType(grad_output, self);
  resultFor(grad_input, broadcastShapes(grad_output.sizes(), self.sizes()), dtype, self.device());
  binary(BinaryOp::HardtanhBackward, "hardtanh_backward", dtype, grad_output, self, grad_input,
         withScalars({min_val, max_val}));
  return grad_input;
}

Tensor hardtanh_backward_cuda(const Tensor& grad_output, const Tensor& self, const Scalar& min_val,
                              const Scalar& max_val) {
  hardtanh_backward_meta(grad_output, self, min_val, max_val);
  const ScalarType dtype = resultType(grad_output, self);
  Tensor grad_input = resultFor(TensorBase(), broadcastShapes(grad_output.sizes(), self.sizes()), dtype, self.device());
  return hardtanh_backward_out_cuda(grad_output, self, min_val, max_val, grad_input);
}

// Replacements default to 0 and the dtype's largest and lowest finite values (nan_to_num_out in
// kernels/cpu/UnaryOps.cpp).
Tensor& nan_to_num_out_cuda(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                            std::optional<double> neginf, Tensor& out) {
  nan_to_num_out_meta(self, nan, posinf, neginf, out);
  resultFor(out, self.sizes(), self.scalar_type(), self.device());
  PointwiseArgs args = withScalars({nan.value_or(0.0), posinf.value_or(0.0), neginf.value_or(0.0)});
  args.flags[0] = posinf.has_value();
  args.flags[1] = neginf.has_value();
  unary(UnaryOp::NanToNum, "nan_to_num", self.scalar_type(), self, out, args);
  return out;
}

Tensor& floor_divide_out_cuda(const Tensor& self, const Tensor& other, Tensor& out) {
  floor_divide_out_meta(self, other, out);
  const ScalarType dtype = resultType(self, other);
  resultFor(out, broadcastShapes(self.sizes(), other.sizes()), dtype, self.device());
  binary(BinaryOp::DivFloor, "floor_divide", dtype, self, other, out);
  return out;
}

Tensor floor_divide_cuda(const Tensor& self, const Tensor& other) {
  floor_divide_meta(self, other);
  Tensor out = resultFor(TensorBase(), broadcastShapes(self.sizes(), other.sizes()), resultType(self, other),
                         self.device());
  return floor_divide_out_cuda(self, other, out);
}

Tensor& floor_divide_cuda_(Tensor& self, const Tensor& other) {
  floor_divide_meta_(self, other);
  binary(BinaryOp::DivFloor, "floor_divide", resultType(self, other), self, other, self);
  return self;
}

// base ** exponent for a number base: the base as a 0-dim tensor of the promoted dtype on the
// GPU (1 ** anything is 1, as the CPU kernel's shortcut).
void pow_Scalar_out_cuda(const Scalar& self, const Tensor& exponent, const Tensor& out) {
  const ScalarType dtype = resultType(exponent, self);
  if (!self.isComplex() && !self.isBoolean() && self.toDouble() == 1.0) {
    out.fill_(1);
    return;
  }
  const Tensor base = wrappedNumber(self, dtype, exponent.device());
  binary(BinaryOp::Pow, "pow", dtype, base, exponent, out);
}

// masked_fill_: where(mask, value, self) into self; the value is a 0-dim tensor of self's dtype
// on the GPU (a GPU value tensor is read there, not copied to the host).
Tensor& masked_fill_cuda_(Tensor& self, const Tensor& mask, const Scalar& value) {
  masked_fill_meta_(self, mask, value);
  checkFits(self.scalar_type(), value, "masked_fill_");
  const Tensor v = opcore::full({}, value, self.options());
  ternary(TernaryOp::Where, "masked_fill_", self.scalar_type(), mask, v, self, self);
  return self;
}

Tensor& masked_fill_cuda_(Tensor& self, const Tensor& mask, const Tensor& value) {
  masked_fill_meta_(self, mask, value);
  if (value.is_cpu()) return masked_fill_cuda_(self, mask, opcore::_local_scalar_dense(value));
  ternary(TernaryOp::Where, "masked_fill_", self.scalar_type(), mask, value, self, self);
  return self;
}

Tensor native_dropout_backward_cuda(const Tensor& grad_output, const Tensor& mask, double scale) {
  native_dropout_backward_meta(grad_output, mask, scale);
  const Tensor out = resultFor(TensorBase(), broadcastShapes(grad_output.sizes(), mask.sizes()),
                               grad_output.scalar_type(), grad_output.device());
  binary(BinaryOp::DropoutBackward, "native_dropout_backward", grad_output.scalar_type(), grad_output, mask, out,
         withScalars({scale}));
  return out;
}

}  // namespace opcore::native

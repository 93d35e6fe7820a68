// The kernels of myops (yaml/native_functions.yaml): each file includes the generated headers
// of the operators it implements (myops/ops/<op>_native.h) and of opcore's that it calls.
#include <myops/ops/fused_gelu_backward_native.h>
#include <myops/ops/fused_gelu_native.h>
#include <myops/ops/scaled_residual_native.h>
#include <opcore/TensorOperators.h>
#include <opcore/core/Error.h>
#include <opcore/ops/add.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/tanh.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace myops {
namespace {

// GELU's tanh approximation: 0.5 x (1 + tanh(kBeta (x + kKappa x^3))).
constexpr double kBeta = 0.7978845608028654;  // sqrt(2 / pi)
constexpr double kKappa = 0.044715;

template <typename T>
void geluLoop(const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const T v = x[i];
    y[i] = T(0.5) * v * (T(1) + std::tanh(T(kBeta) * (v + T(kKappa) * v * v * v)));
  }
}

}  // namespace

// The meta function of the structured kernel: the output has self's shape and a floating dtype.
meta::fused_gelu_out meta::fused_gelu(const Tensor& self) {
  const ScalarType dtype = self.scalar_type();
  OPCORE_CHECK(dtype == ScalarType::Float || dtype == ScalarType::Double,
               "myops::fused_gelu: expected a float or double tensor, got ", dtype);
  return {TensorSpec{std::vector<int64_t>(self.sizes().begin(), self.sizes().end()), dtype, self.device()}};
}

// The CPU impl: `out` is ready (the generated wrapper sized it, or it is self for fused_gelu_).
void native::fused_gelu_out(const Tensor& self, const Tensor& out) {
  const Tensor x = self.contiguous().to(out.scalar_type());
  Tensor y = out.is_contiguous() ? out : opcore::empty(out.sizes(), out.options());
  if (out.scalar_type() == ScalarType::Double) {
    geluLoop(x.data_ptr<double>(), y.data_ptr<double>(), x.numel());
  } else {
    geluLoop(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  }
  if (!y.is_same(out)) Tensor(out).copy_(y);
}

// d gelu / dx, with opcore's operators (so autograd differentiates it too).
Tensor native::fused_gelu_backward(const Tensor& grad_output, const Tensor& self) {
  const Tensor x2 = self * self;
  const Tensor t = opcore::tanh((self + x2 * self * kKappa) * kBeta);
  const Tensor dt = (x2 * (3.0 * kKappa) + 1.0) * (1.0 - t * t) * kBeta;
  return grad_output * ((t + 1.0) * 0.5 + self * dt * 0.5);
}

Tensor native::scaled_residual(const Tensor& self, const Tensor& other, double scale) {
  return opcore::add(self, other, scale);
}

}  // namespace myops

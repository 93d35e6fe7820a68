// The main job, with the generated C++ API: least-squares fits on Anscombe's quartet (data
// set I), in closed form and by gradient descent written with matmul; then a small neural
// network (1 -> 16 -> 1, tanh) trained on y = sin(x) with autograd: loss.backward() and SGD.
// Every operation goes through the dispatcher to a kernel generated from yaml/. The network is
// in mlp.h, which examples/backend trains on its own device too.
// tests/train/test_mlp_reference.py checks the printed losses against numpy.
#include "mlp.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

using opcore::Tensor;
using opcore::examples::fromVector;

namespace {

void fitLine() {
  // Anscombe (1973), "Graphs in Statistical Analysis", data set I.
  const Tensor x = fromVector({10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5});
  const Tensor y = fromVector({8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68});
  std::cout << "x = " << x << "\ny = " << y << "\n\n";

  // Closed form: slope = sum(dx * dy) / sum(dx * dx), intercept = mean(y) - slope * mean(x).
  const Tensor dx = x - x.mean();
  const Tensor dy = y - y.mean();
  const Tensor slope = (dx * dy).sum() / (dx * dx).sum();
  const Tensor intercept = y.mean() - slope * x.mean();
  const Tensor r = (dx * dy).sum() / ((dx * dx).sum() * (dy * dy).sum()).sqrt();
  std::printf("closed form:      y = %.4f + %.4f x   (r = %.4f)\n", intercept.item<double>(),
              slope.item<double>(), r.item<double>());

  // Gradient descent on the mean squared error, over the standardised feature
  // z = (x - mean) / std with the design matrix [1, z] (n x 2) and matmul.
  const int64_t n = x.numel();
  const Tensor std_x = (dx * dx).mean().sqrt();
  const Tensor z = dx / std_x;
  const Tensor is_first_column = opcore::arange(2).unsqueeze(0).eq(0);  // [[True, False]]
  const Tensor design = opcore::where(is_first_column, opcore::ones({n, 2}, opcore::ScalarType::Double),
                                      z.unsqueeze(1));
  Tensor w = opcore::zeros({2, 1}, opcore::ScalarType::Double);
  for (int step = 0; step <= 100; ++step) {
    const Tensor residual = design.matmul(w) - y.unsqueeze(1);  // n x 1
    if (step % 20 == 0) std::printf("step %3d  mse = %.6f\n", step, (residual * residual).mean().item<double>());
    const Tensor grad = design.t().matmul(residual) * (2.0 / static_cast<double>(n));  // 2 x 1
    w.sub_(grad, 0.1);
  }
  const Tensor fitted_slope = w.select(0, 1) / std_x;
  const Tensor fitted_intercept = w.select(0, 0) - fitted_slope * x.mean();
  std::printf("gradient descent: y = %.4f + %.4f x\n", fitted_intercept.item<double>(),
              fitted_slope.item<double>());
}

}  // namespace

int main() {
  fitLine();
  opcore::examples::trainMlp(opcore::Device(opcore::DeviceType::CPU));
  return 0;
}

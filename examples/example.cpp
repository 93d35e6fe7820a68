// The main job, with the generated C++ API: least-squares fits on Anscombe's quartet (data
// set I), in closed form and by gradient descent written with matmul; then a small neural
// network (1 -> 16 -> 1, tanh) trained on y = sin(x) with autograd: loss.backward() and SGD.
// Every operation below goes through the dispatcher to a kernel generated from yaml/.
// tests/train/test_mlp_reference.py checks the printed losses against numpy.
#include <opcore/autograd/GradMode.h>
#include <opcore/opcore.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

using opcore::Tensor;

namespace {

// Copies a host vector into a new 1-D float64 tensor.
Tensor fromVector(const std::vector<double>& values) {
  Tensor t = opcore::empty({static_cast<int64_t>(values.size())}, opcore::ScalarType::Double);
  for (size_t i = 0; i < values.size(); ++i) t.data_ptr<double>()[i] = values[i];
  return t;
}

// Deterministic weights that numpy can reproduce exactly, instead of random ones: element
// (i, j) of a [rows, cols] tensor, or element j of a [cols] one, is scale * sin(a*i + b*j + c).
Tensor waveInit(const std::vector<int64_t>& sizes, double a, double b, double c, double scale) {
  Tensor t = opcore::empty(sizes, opcore::ScalarType::Double);
  const int64_t cols = sizes.back();
  for (int64_t k = 0; k < t.numel(); ++k) {
    const auto i = static_cast<double>(k / cols), j = static_cast<double>(k % cols);
    t.data_ptr<double>()[k] = scale * std::sin(a * i + b * j + c);
  }
  return t;
}

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

// A 1 -> 16 -> 1 network, tanh(x w1 + b1) w2 + b2, fitted to y = sin(x) on 64 points in
// [-3, 3] by full-batch gradient descent on the mean squared error.
void trainMlp() {
  constexpr int64_t n = 64, hidden = 16;
  constexpr int steps = 2000;
  constexpr double lr = 0.05;
  std::vector<double> xs(n), ys(n);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = -3.0 + 6.0 * static_cast<double>(i) / (n - 1);
    ys[i] = std::sin(xs[i]);
  }
  const Tensor x = fromVector(xs).unsqueeze(1), y = fromVector(ys).unsqueeze(1);  // n x 1

  Tensor w1 = waveInit({1, hidden}, 1.0, 0.7, 0.3, 1.0).requires_grad_();
  Tensor b1 = waveInit({hidden}, 0.0, 1.3, 0.9, 1.0).requires_grad_();
  Tensor w2 = waveInit({hidden, 1}, 1.1, 0.0, 0.2, 0.25).requires_grad_();
  Tensor b2 = opcore::zeros({1}, opcore::ScalarType::Double).requires_grad_();
  const auto model = [&](const Tensor& input) { return (input.mm(w1) + b1).tanh().mm(w2) + b2; };

  std::printf("\nmlp 1 -> %lld -> 1 (tanh) on y = sin(x), %lld points, lr = %g\n",
              static_cast<long long>(hidden), static_cast<long long>(n), lr);
  for (int step = 0; step <= steps; ++step) {
    const Tensor residual = model(x) - y;
    const Tensor loss = (residual * residual).mean();
    if (step % 200 == 0) std::printf("step %4d  loss = %.12g\n", step, loss.item<double>());
    loss.backward();  // w1.grad() ... b2.grad() = d loss / d parameter
    opcore::autograd::NoGradGuard no_grad;  // the update itself is not recorded
    for (const Tensor& p : {w1, b1, w2, b2}) {
      p.sub_(p.grad(), lr);
      p.mutable_grad() = Tensor();  // the next backward() starts from zero
    }
  }
  opcore::autograd::NoGradGuard no_grad;
  const Tensor probe = fromVector({-2.0, 1.0}).unsqueeze(1);
  const Tensor prediction = model(probe);
  std::printf("mlp(-2) = %.4f (sin: %.4f), mlp(1) = %.4f (sin: %.4f)\n", prediction.select(0, 0).item<double>(),
              std::sin(-2.0), prediction.select(0, 1).item<double>(), std::sin(1.0));
}

}  // namespace

int main() {
  fitLine();
  trainMlp();
  return 0;
}

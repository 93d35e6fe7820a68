// The main job's network (examples/example.cpp), as a function of the device it trains on: a
// 1 -> 16 -> 1 network trained on y = sin(x). examples/backend trains it on its own device and
// checks that it prints the CPU's losses. tests/train/test_mlp_reference.py checks the printed
// losses against numpy.
#pragma once

#include <opcore/autograd/GradMode.h>
#include <opcore/opcore.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace opcore::examples {

// Copies a host vector into a new 1-D float64 tensor.
inline Tensor fromVector(const std::vector<double>& values) {
  Tensor t = opcore::empty({static_cast<int64_t>(values.size())}, opcore::ScalarType::Double);
  for (size_t i = 0; i < values.size(); ++i) t.data_ptr<double>()[i] = values[i];
  return t;
}

// Deterministic weights that numpy can reproduce exactly, instead of random ones: element
// (i, j) of a [rows, cols] tensor, or element j of a [cols] one, is scale * sin(a*i + b*j + c).
inline Tensor waveInit(const std::vector<int64_t>& sizes, double a, double b, double c, double scale) {
  Tensor t = opcore::empty(sizes, opcore::ScalarType::Double);
  const int64_t cols = sizes.back();
  for (int64_t k = 0; k < t.numel(); ++k) {
    const auto i = static_cast<double>(k / cols), j = static_cast<double>(k % cols);
    t.data_ptr<double>()[k] = scale * std::sin(a * i + b * j + c);
  }
  return t;
}

// A 1 -> 16 -> 1 network, tanh(x w1 + b1) w2 + b2, fitted to y = sin(x) on 64 points in
// [-3, 3] by full-batch gradient descent on the mean squared error, on `device`: the data and
// the weights are made on the CPU and moved there, and each printed value is copied back.
inline void trainMlp(Device device) {
  const Device cpu(DeviceType::CPU);
  constexpr int64_t n = 64, hidden = 16;
  constexpr int steps = 2000;
  constexpr double lr = 0.05;
  std::vector<double> xs(n), ys(n);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = -3.0 + 6.0 * static_cast<double>(i) / (n - 1);
    ys[i] = std::sin(xs[i]);
  }
  const Tensor x = fromVector(xs).unsqueeze(1).to(device), y = fromVector(ys).unsqueeze(1).to(device);  // n x 1

  Tensor w1 = waveInit({1, hidden}, 1.0, 0.7, 0.3, 1.0).to(device).requires_grad_();
  Tensor b1 = waveInit({hidden}, 0.0, 1.3, 0.9, 1.0).to(device).requires_grad_();
  Tensor w2 = waveInit({hidden, 1}, 1.1, 0.0, 0.2, 0.25).to(device).requires_grad_();
  Tensor b2 = opcore::zeros({1}, opcore::ScalarType::Double).to(device).requires_grad_();
  const auto model = [&](const Tensor& input) { return (input.mm(w1) + b1).tanh().mm(w2) + b2; };

  std::printf("\nmlp 1 -> %lld -> 1 (tanh) on y = sin(x), %lld points, lr = %g\n",
              static_cast<long long>(hidden), static_cast<long long>(n), lr);
  for (int step = 0; step <= steps; ++step) {
    const Tensor residual = model(x) - y;
    const Tensor loss = (residual * residual).mean();
    if (step % 200 == 0) std::printf("step %4d  loss = %.12g\n", step, loss.to(cpu).item<double>());
    loss.backward();  // w1.grad() ... b2.grad() = d loss / d parameter
    opcore::autograd::NoGradGuard no_grad;  // the update itself is not recorded
    for (const Tensor& p : {w1, b1, w2, b2}) {
      p.sub_(p.grad(), lr);
      p.mutable_grad() = Tensor();  // the next backward() starts from zero
    }
  }
  opcore::autograd::NoGradGuard no_grad;
  const Tensor probe = fromVector({-2.0, 1.0}).unsqueeze(1).to(device);
  const Tensor prediction = model(probe).to(cpu);
  std::printf("mlp(-2) = %.4f (sin: %.4f), mlp(1) = %.4f (sin: %.4f)\n", prediction.select(0, 0).item<double>(),
              std::sin(-2.0), prediction.select(0, 1).item<double>(), std::sin(1.0));
}

}  // namespace opcore::examples

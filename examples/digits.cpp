// A small convolutional network, trained from C++ with opcore's generated API (the showcase of
// issue #34), on the 1,797 8x8 handwritten digits that Debian's python3-sklearn ships (UCI's
// "Optical Recognition of Handwritten Digits"): two 3x3 convolutions with ReLU and 2x2 max
// pooling, a linear classifier, cross-entropy, and SGD with momentum written with in-place
// operators. It trains on the first 1,500 digits and reports its accuracy on the other 297.
//
// examples/digits.py is the same program in Python, line for line: from the same seed both
// draw the same weights and batches and print the same losses and accuracy
// (tests/train/test_digits.py checks it).
//   ./build/opcore_digits [--epochs N]
#include <opcore/autograd/GradMode.h>
#include <opcore/opcore.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using opcore::Tensor;

namespace {

constexpr const char* kDigits = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz";
constexpr int64_t kTrain = 1500, kBatch = 50;
constexpr double kLr = 0.05, kMomentum = 0.9;
constexpr uint64_t kSeed = 1234;

// The CSV's rows (64 pixels in 0 .. 16, then the label), read through gzip (on every Debian
// system); empty when the file cannot be read.
std::vector<int64_t> readDigits(int64_t& rows) {
  std::vector<int64_t> values;
  rows = 0;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen((std::string("gzip -dc ") + kDigits + " 2>/dev/null").c_str(), "r"),
                                             pclose);
  if (!pipe) return values;
  char line[1024];
  while (std::fgets(line, sizeof line, pipe.get()) != nullptr) {
    std::stringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) values.push_back(std::stoll(cell));
    ++rows;
  }
  return values;
}

// PyTorch's default initialisation scale: uniform in +-1 / sqrt(fan_in).
Tensor uniform(double fan_in, std::vector<int64_t> shape) {
  const double bound = 1 / std::sqrt(fan_in);
  return (opcore::rand(shape) * (2 * bound) - bound).requires_grad_();
}

// conv 1 -> 16 (3x3) - relu - maxpool 2 - conv 16 -> 32 (3x3) - relu - maxpool 2 - linear
// 128 -> 10, weights drawn in this order (examples/digits.py draws them in the same one).
struct ConvNet {
  Tensor conv1_weight = uniform(9, {16, 1, 3, 3}), conv1_bias = uniform(9, {16});
  Tensor conv2_weight = uniform(144, {32, 16, 3, 3}), conv2_bias = uniform(144, {32});
  Tensor fc_weight = uniform(128, {10, 128}), fc_bias = uniform(128, {10});

  std::vector<Tensor> parameters() const {
    return {conv1_weight, conv1_bias, conv2_weight, conv2_bias, fc_weight, fc_bias};
  }

  Tensor operator()(const Tensor& input) const {
    Tensor x = opcore::max_pool2d(opcore::conv2d(input, conv1_weight, conv1_bias, {1}, {1}).relu(), {2});
    x = opcore::max_pool2d(opcore::conv2d(x, conv2_weight, conv2_bias, {1}, {1}).relu(), {2});
    return opcore::linear(x.flatten(1), fc_weight, fc_bias);
  }
};

double accuracy(const ConvNet& model, const Tensor& images, const Tensor& labels) {
  opcore::autograd::NoGradGuard no_grad;
  return (model(images).argmax(1) == labels).to(opcore::kFloat).mean().item<double>();
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 20;
  if (argc == 3 && std::strcmp(argv[1], "--epochs") == 0) {
    epochs = std::atoi(argv[2]);
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--epochs N]\n", argv[0]);
    return 2;
  }
  int64_t rows = 0;
  std::vector<int64_t> values = readDigits(rows);
  if (rows == 0 || values.size() != static_cast<size_t>(rows * 65)) {
    std::fprintf(stderr, "digits: cannot read %s (Debian's python3-sklearn installs it)\n", kDigits);
    return 1;
  }
  Tensor data = opcore::empty({rows, 65}, opcore::kLong);
  std::copy(values.begin(), values.end(), data.data_ptr<int64_t>());
  const Tensor images = (data.slice(1, 0, 64).to(opcore::kFloat) / 16).view({-1, 1, 8, 8});
  const Tensor labels = data.select(1, 64).clone();
  const Tensor train_x = images.slice(0, 0, kTrain), train_y = labels.slice(0, 0, kTrain);
  const Tensor test_x = images.slice(0, kTrain), test_y = labels.slice(0, kTrain);

  opcore::manual_seed(kSeed);
  const ConvNet model;
  const std::vector<Tensor> params = model.parameters();
  std::vector<Tensor> velocity;
  int64_t count = 0;
  for (const Tensor& p : params) {
    velocity.push_back(opcore::zeros(p.sizes(), p.scalar_type()));
    count += p.numel();
  }
  std::printf("digits (C++): %lld parameters; %lld training and %lld test images of %s\n",
              static_cast<long long>(count), static_cast<long long>(kTrain), static_cast<long long>(rows - kTrain),
              kDigits);
  int steps = 0;
  double seconds = 0;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    const Tensor order = opcore::randperm(kTrain);
    double total = 0;
    for (int64_t first = 0; first < kTrain; first += kBatch) {
      const Tensor batch = order.slice(0, first, first + kBatch);
      const Tensor loss = opcore::cross_entropy_loss(model(train_x.index_select(0, batch)), train_y.index_select(0, batch));
      loss.backward();
      {
        opcore::autograd::NoGradGuard no_grad;
        for (size_t i = 0; i < params.size(); ++i) {
          velocity[i].mul_(kMomentum).add_(params[i].grad());
          params[i].sub_(velocity[i], kLr);
          params[i].mutable_grad() = Tensor();
        }
      }
      total += loss.item<double>();
      ++steps;
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("epoch %2d  loss %.4f  test accuracy %.4f\n", epoch, total / static_cast<double>(kTrain / kBatch),
                accuracy(model, test_x, test_y));
  }
  std::printf("%.2f ms per training step\n", seconds / steps * 1e3);
  return 0;
}

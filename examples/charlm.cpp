// A character-level transformer language model, trained from C++ with opcore's generated API
// (the showcase of issue #34): token and position embeddings, blocks of causal self-attention
// and a GELU MLP, each behind a layer norm, a linear head, cross-entropy, dropout, and AdamW
// written with in-place operators. It learns the text of the GNU GPL version 3 as Debian ships
// it (/usr/share/common-licenses/GPL-3, from base-files: on every Debian system), then writes a
// few lines of its own.
//
// examples/charlm.py is the same program in Python, line for line. From the same seed both
// draw the same weights, batches and dropout masks from opcore's generator, and every operator
// gives the same bits from either language, so they print the same losses and the same text
// (tests/train/test_charlm.py checks it, and that the loss falls).
//   ./build/opcore_charlm [--steps N]
#include <opcore/autograd/GradMode.h>
#include <opcore/opcore.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

using opcore::Tensor;

namespace {

constexpr const char* kText = "/usr/share/common-licenses/GPL-3";
constexpr int64_t kContext = 64, kBatch = 16, kWidth = 64, kHeads = 4, kLayers = 2;
constexpr double kLr = 3e-3, kBeta1 = 0.9, kBeta2 = 0.99, kEps = 1e-8, kWeightDecay = 0.01, kDropout = 0.1;
constexpr uint64_t kSeed = 1234;
constexpr const char* kPrompt = "This License";
constexpr int kSampleLength = 160;

// A 1-D int64 tensor holding `values`.
Tensor longTensor(const std::vector<int64_t>& values) {
  Tensor t = opcore::empty({static_cast<int64_t>(values.size())}, opcore::kLong);
  std::copy(values.begin(), values.end(), t.data_ptr<int64_t>());
  return t;
}

Tensor normal(std::vector<int64_t> shape) { return (opcore::randn(shape) * 0.02).requires_grad_(); }
Tensor zeros(int64_t n) { return opcore::zeros({n}).requires_grad_(); }
Tensor ones(int64_t n) { return opcore::ones({n}).requires_grad_(); }

struct Block {
  Tensor ln1_weight = ones(kWidth), ln1_bias = zeros(kWidth);
  Tensor qkv_weight = normal({3 * kWidth, kWidth}), qkv_bias = zeros(3 * kWidth);
  Tensor proj_weight = normal({kWidth, kWidth}), proj_bias = zeros(kWidth);
  Tensor ln2_weight = ones(kWidth), ln2_bias = zeros(kWidth);
  Tensor fc_weight = normal({4 * kWidth, kWidth}), fc_bias = zeros(4 * kWidth);
  Tensor out_weight = normal({kWidth, 4 * kWidth}), out_bias = zeros(kWidth);
};

// The model's parameters, drawn in a fixed order (examples/charlm.py draws them in the same
// one: members are initialised in declaration order), and its forward pass.
class CharTransformer {
 public:
  explicit CharTransformer(int64_t vocab_size)
      : token_(normal({vocab_size, kWidth})), position_(normal({kContext, kWidth})) {
    for (int64_t i = 0; i < kLayers; ++i) blocks_.emplace_back();
    ln_weight_ = ones(kWidth);
    ln_bias_ = zeros(kWidth);
    head_ = normal({vocab_size, kWidth});
  }

  std::vector<Tensor> parameters() const {
    std::vector<Tensor> params = {token_, position_};
    for (const Block& b : blocks_) {
      params.insert(params.end(), {b.ln1_weight, b.ln1_bias, b.qkv_weight, b.qkv_bias, b.proj_weight, b.proj_bias,
                                   b.ln2_weight, b.ln2_bias, b.fc_weight, b.fc_bias, b.out_weight, b.out_bias});
    }
    params.insert(params.end(), {ln_weight_, ln_bias_, head_});
    return params;
  }

  // Logits [batch, time, vocabulary] of the character after each position of `idx`.
  Tensor operator()(const Tensor& idx, bool training) const {
    const int64_t batch = idx.size(0), time = idx.size(1);
    const double p = training ? kDropout : 0.0;
    Tensor x = opcore::dropout(opcore::embedding(token_, idx) + position_.slice(0, 0, time), p, training);
    for (const Block& b : blocks_) {
      Tensor h = opcore::layer_norm(x, {kWidth}, b.ln1_weight, b.ln1_bias);
      const Tensor qkv = opcore::linear(h, b.qkv_weight, b.qkv_bias).view({batch, time, 3, kHeads, kWidth / kHeads});
      const std::vector<Tensor> q_k_v = qkv.permute({2, 0, 3, 1, 4}).unbind(0);  // [batch, heads, time, head width]
      Tensor a = opcore::scaled_dot_product_attention(q_k_v[0], q_k_v[1], q_k_v[2], std::nullopt, p, true);
      a = a.transpose(1, 2).reshape({batch, time, kWidth});
      x = x + opcore::dropout(opcore::linear(a, b.proj_weight, b.proj_bias), p, training);
      h = opcore::layer_norm(x, {kWidth}, b.ln2_weight, b.ln2_bias);
      h = opcore::linear(opcore::gelu(opcore::linear(h, b.fc_weight, b.fc_bias)), b.out_weight, b.out_bias);
      x = x + opcore::dropout(h, p, training);
    }
    return opcore::linear(opcore::layer_norm(x, {kWidth}, ln_weight_, ln_bias_), head_);
  }

 private:
  Tensor token_, position_;
  std::vector<Block> blocks_;
  Tensor ln_weight_, ln_bias_, head_;
};

// Adam with decoupled weight decay (Loshchilov and Hutter), in place on each parameter;
// matrices decay, vectors (biases, layer-norm weights) do not.
class AdamW {
 public:
  explicit AdamW(std::vector<Tensor> params) : params_(std::move(params)) {
    for (const Tensor& p : params_) {
      m_.push_back(opcore::zeros(p.sizes(), p.scalar_type()));
      v_.push_back(opcore::zeros(p.sizes(), p.scalar_type()));
    }
  }

  void step() {
    opcore::autograd::NoGradGuard no_grad;
    ++step_count_;
    const double c1 = 1 - std::pow(kBeta1, step_count_), c2 = 1 - std::pow(kBeta2, step_count_);
    for (size_t i = 0; i < params_.size(); ++i) {
      const Tensor &p = params_[i], &m = m_[i], &v = v_[i];
      const Tensor g = p.grad();
      if (p.dim() >= 2) p.mul_(1 - kLr * kWeightDecay);
      m.mul_(kBeta1).add_(g, 1 - kBeta1);
      v.mul_(kBeta2).addcmul_(g, g, 1 - kBeta2);
      const Tensor denominator = v.sqrt().div_(std::sqrt(c2)).add_(kEps);
      p.addcdiv_(m, denominator, -kLr / c1);
      p.mutable_grad() = Tensor();
    }
  }

 private:
  std::vector<Tensor> params_, m_, v_;
  int step_count_ = 0;
};

// kBatch windows of kContext characters at random offsets, and the characters after them.
std::pair<Tensor, Tensor> randomBatch(const Tensor& data) {
  const Tensor starts = (opcore::rand({kBatch}) * static_cast<double>(data.numel() - kContext - 1)).to(opcore::kLong);
  const Tensor offsets = starts.unsqueeze(1) + opcore::arange(kContext);
  const auto window = [&](const Tensor& at) { return data.index_select(0, at.reshape({-1})).view({kBatch, kContext}); };
  return {window(offsets), window(offsets + 1)};
}

// Continues `prompt` one character at a time, each drawn from the model's distribution
// (inverse transform of one uniform number from opcore's generator).
std::string sample(const CharTransformer& model, const std::string& vocab, const std::string& prompt, int length) {
  opcore::autograd::NoGradGuard no_grad;
  std::vector<int64_t> idx;
  for (char c : prompt) idx.push_back(static_cast<int64_t>(vocab.find(c)));
  for (int i = 0; i < length; ++i) {
    const size_t first = idx.size() > kContext ? idx.size() - kContext : 0;
    const std::vector<int64_t> window(idx.begin() + static_cast<std::ptrdiff_t>(first), idx.end());
    const Tensor context = longTensor(window).unsqueeze(0);
    const Tensor logits = model(context, false).select(0, 0).select(0, -1);
    const int64_t below = (logits.softmax(-1).cumsum(0) < opcore::rand({1})).sum().item<int64_t>();
    idx.push_back(std::min<int64_t>(below, static_cast<int64_t>(vocab.size()) - 1));
  }
  std::string out;
  for (int64_t i : idx) out += vocab[static_cast<size_t>(i)];
  return out;
}

// The text as Python's repr() prints it (the programs' outputs compare equal).
std::string pythonRepr(const std::string& s) {
  const bool single = s.find('\'') == std::string::npos || s.find('"') != std::string::npos;
  std::string out(1, single ? '\'' : '"');
  for (char c : s) {
    if (c == '\\' || (single && c == '\'')) out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  return out + (single ? '\'' : '"');
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 300;
  if (argc == 3 && std::strcmp(argv[1], "--steps") == 0) {
    steps = std::atoi(argv[2]);
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--steps N]\n", argv[0]);
    return 2;
  }
  std::ifstream file(kText, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "charlm: cannot read %s (Debian's base-files installs it)\n", kText);
    return 1;
  }
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::string vocab = text;
  std::sort(vocab.begin(), vocab.end());
  vocab.erase(std::unique(vocab.begin(), vocab.end()), vocab.end());
  std::vector<int64_t> codes;
  for (char c : text) codes.push_back(static_cast<int64_t>(vocab.find(c)));
  const Tensor data = longTensor(codes);
  const auto vocab_size = static_cast<int64_t>(vocab.size());

  opcore::manual_seed(kSeed);
  const CharTransformer model(vocab_size);
  const std::vector<Tensor> params = model.parameters();
  AdamW optimizer(params);
  int64_t count = 0;
  for (const Tensor& p : params) count += p.numel();
  std::printf("charlm (C++): %lld parameters, %lld layers of width %lld, %lld heads, context %lld, batch %lld; "
              "%lld characters of %s, %lld distinct\n",
              static_cast<long long>(count), static_cast<long long>(kLayers), static_cast<long long>(kWidth),
              static_cast<long long>(kHeads), static_cast<long long>(kContext), static_cast<long long>(kBatch),
              static_cast<long long>(data.numel()), kText, static_cast<long long>(vocab_size));
  const auto start = std::chrono::steady_clock::now();
  for (int step = 0; step <= steps; ++step) {
    const auto [inputs, targets] = randomBatch(data);
    const Tensor loss = opcore::cross_entropy_loss(model(inputs, true).view({-1, vocab_size}), targets.view({-1}));
    if (step % 50 == 0 || step == steps) std::printf("step %4d  loss %.4f\n", step, loss.item<double>());
    if (step == steps) break;
    loss.backward();
    optimizer.step();
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  std::printf("%.1f ms per training step\n", elapsed.count() / std::max(steps, 1) * 1e3);
  std::printf("sample: %s\n", pythonRepr(sample(model, vocab, kPrompt, kSampleLength)).c_str());
  return 0;
}

// The dispatcher-wide fallbacks of the autograd layers, for operators without generated
// autograd kernels (operators registered from C++ or plugins rather than from the YAML):
//   - ADInplaceOrView: fallthrough (such operators are neither tracked as views nor counted);
//   - Autograd: runs the operator below autograd and, when an input requires grad, gives its
//     floating outputs a NotImplemented node, so that backward() through them says which
//     operator has no derivative, and why when the build recorded it (registerInferenceOnly).
//     Calls that need no gradient just run.
#include <opcore/autograd/Fallback.h>

#include <opcore/autograd/GradMode.h>
#include <opcore/autograd/KernelSupport.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/library/Library.h>

#include <mutex>
#include <unordered_map>

namespace opcore::autograd {

namespace {

// The registerInferenceOnly records: operator name -> why it has no Autograd kernel.
class InferenceOnly {
 public:
  static InferenceOnly& singleton() {
    static InferenceOnly instance;
    return instance;
  }
  RegistrationHandleRAII add(std::vector<std::string> names, const std::string& reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const std::string& name : names) reasons_.emplace(name, reason);
    return RegistrationHandleRAII([this, names = std::move(names)] {
      std::lock_guard<std::mutex> guard(mutex_);
      for (const std::string& name : names) reasons_.erase(name);
    });
  }
  std::string reason(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = reasons_.find(name);
    return it == reasons_.end() ? "" : it->second;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::string> reasons_;
};

template <typename F>
void forEachTensor(const IValue& v, F&& f) {
  if (v.isTensor()) {
    f(Tensor(v.toTensorBase()));
  } else if (v.isTensorList()) {
    for (const TensorBase& t : v.toTensorList()) f(Tensor(t));
  }
}

void autogradFallback(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  const size_t num_args = op.schema().arguments().size();
  const auto args_begin = stack->end() - static_cast<std::ptrdiff_t>(num_args);
  bool requires_grad = false;
  if (GradMode::is_enabled()) {
    for (auto it = args_begin; it != stack->end(); ++it) {
      forEachTensor(*it, [&](const Tensor& t) { requires_grad = requires_grad || t.requires_grad(); });
    }
  }
  std::shared_ptr<Node> node;
  if (requires_grad) {
    const std::string name = op.operatorName().str();
    node = std::make_shared<NotImplemented>(name, InferenceOnly::singleton().reason(name));
    for (auto it = args_begin; it != stack->end(); ++it) {
      forEachTensor(*it, [&](const Tensor& t) { node->addNextEdge(gradientEdge(t)); });
    }
  }
  {
    AutoDispatchBelowADInplaceOrView guard;
    op.redispatchBoxed(ks & kAfterAutogradKeySet, *stack);
  }
  if (!node) return;
  const size_t num_returns = op.schema().returns().size();
  for (auto it = stack->end() - static_cast<std::ptrdiff_t>(num_returns); it != stack->end(); ++it) {
    forEachTensor(*it, [&](const Tensor& t) { setHistory(t, node); });
  }
}

}  // namespace

RegistrationHandleRAII registerInferenceOnly(std::vector<std::string> names, std::string reason) {
  return InferenceOnly::singleton().add(std::move(names), reason);
}

OPCORE_LIBRARY_IMPL(_, Autograd, m) {
  m.fallback(KernelFunction::makeFromBoxedFunction<&autogradFallback>());
}

OPCORE_LIBRARY_IMPL(_, ADInplaceOrView, m) {
  m.fallback(KernelFunction::makeFallthrough());
}

}  // namespace opcore::autograd

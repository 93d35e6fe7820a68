// TensorHook: what Tensor::register_hook takes, a callable that sees a tensor's gradient and
// returns a replacement, or an undefined tensor to keep it.
//   t.register_hook([](const Tensor& grad) { return grad * 2; });
// Type-erased as std::function would be, without <functional>, which every translation unit
// including the generated Tensor.h would then parse (bench/README.md, "Compile cost"). Copies
// share the callable.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace opcore {

class Tensor;

class TensorHook {
 public:
  TensorHook() = default;
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, TensorHook>>>
  TensorHook(F f) : impl_(std::make_shared<Impl<F>>(std::move(f))) {}  // NOLINT: implicit, as std::function

  explicit operator bool() const { return static_cast<bool>(impl_); }
  // Defined in opcore/autograd/TensorMethods.cpp, where Tensor is complete.
  Tensor operator()(const Tensor& grad) const;

 private:
  // The result is an out-parameter: Tensor is incomplete here, and a function returning it
  // could not be defined.
  struct Callable {
    virtual ~Callable() = default;
    virtual void call(const Tensor& grad, Tensor& result) = 0;
  };
  template <typename F>
  struct Impl final : Callable {
    explicit Impl(F f) : f(std::move(f)) {}
    void call(const Tensor& grad, Tensor& result) override { result = f(grad); }
    F f;
  };
  std::shared_ptr<Callable> impl_;
};

}  // namespace opcore

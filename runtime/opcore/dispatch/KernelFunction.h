// KernelFunction: a type-erased kernel held in a dispatch table. Calling it is one indirect
// call through a function pointer whose real type is Ret(OperatorKernel*, DispatchKeySet,
// Args...); the dispatcher guarantees (via CppSignature checks at registration and at
// typed<>()) that the Args used to call match the ones it was made from.
//   KernelFunction k = KernelFunction::makeFromUnboxedFunction(OPCORE_FN(my_kernel));
//   Tensor r = k.call<Tensor, const Tensor&>(ks, t);
#pragma once

#include <opcore/core/DispatchKeySet.h>
#include <opcore/core/Macros.h>
#include <opcore/dispatch/CppSignature.h>

#include <memory>
#include <type_traits>
#include <utility>

namespace opcore {

// Base class of kernels that carry state (lambdas with captures, functors).
class OperatorKernel {
 public:
  virtual ~OperatorKernel() = default;
};

// A function known at compile time: OPCORE_FN(f). Calls through it can be inlined into
// the dispatcher's wrapper.
template <auto F>
struct CompileTimeFn {
  static constexpr auto value = F;
};
#define OPCORE_FN(f) (::opcore::CompileTimeFn<&(f)>())

namespace detail {

template <typename F>
struct FunctionTraits : FunctionTraits<decltype(&F::operator())> {};
template <typename Ret, typename... Args>
struct FunctionTraits<Ret(Args...)> {
  using type = Ret(Args...);
};
template <typename Ret, typename... Args>
struct FunctionTraits<Ret (*)(Args...)> : FunctionTraits<Ret(Args...)> {};
template <typename C, typename Ret, typename... Args>
struct FunctionTraits<Ret (C::*)(Args...) const> : FunctionTraits<Ret(Args...)> {};
template <typename C, typename Ret, typename... Args>
struct FunctionTraits<Ret (C::*)(Args...)> : FunctionTraits<Ret(Args...)> {};

// Calls `f` with or without the key set, depending on whether it takes one first.
template <typename Fn, typename Ret, typename... Args>
OPCORE_ALWAYS_INLINE Ret invokeKernel(Fn&& f, DispatchKeySet ks, Args&&... args) {
  if constexpr (std::is_invocable_v<Fn, DispatchKeySet, Args...>) {
    return std::forward<Fn>(f)(ks, std::forward<Args>(args)...);
  } else {
    return std::forward<Fn>(f)(std::forward<Args>(args)...);
  }
}

template <auto F, typename Sig>
struct CompileTimeWrapper;
template <auto F, typename Ret, typename... Args>
struct CompileTimeWrapper<F, Ret(Args...)> {
  static Ret call(OperatorKernel*, DispatchKeySet ks, Args... args) {
    return invokeKernel<decltype(F), Ret, Args...>(F, ks, std::forward<Args>(args)...);
  }
};

template <typename Functor>
struct FunctorKernel final : OperatorKernel {
  explicit FunctorKernel(Functor f) : functor(std::move(f)) {}
  Functor functor;
};

template <typename Functor, typename Sig>
struct FunctorWrapper;
template <typename Functor, typename Ret, typename... Args>
struct FunctorWrapper<Functor, Ret(Args...)> {
  static Ret call(OperatorKernel* k, DispatchKeySet ks, Args... args) {
    auto& f = static_cast<FunctorKernel<Functor>*>(k)->functor;
    return invokeKernel<Functor&, Ret, Args...>(f, ks, std::forward<Args>(args)...);
  }
};

}  // namespace detail

class KernelFunction {
 public:
  KernelFunction() = default;

  // From a function known at compile time (preferred: no extra indirection).
  template <auto F>
  static KernelFunction makeFromUnboxedFunction(CompileTimeFn<F>) {
    using Sig = typename detail::StripKeySet<
        typename detail::FunctionTraits<std::remove_pointer_t<decltype(F)>>::type>::type;
    return KernelFunction(nullptr, reinterpret_cast<AnyFn>(&detail::CompileTimeWrapper<F, Sig>::call),
                          CppSignature::make<Sig>());
  }
  // From a function pointer or a lambda / functor (stored, called through).
  template <typename Functor>
  static KernelFunction makeFromUnboxedFunctor(Functor f) {
    using Sig = typename detail::StripKeySet<typename detail::FunctionTraits<Functor>::type>::type;
    return KernelFunction(std::make_shared<detail::FunctorKernel<Functor>>(std::move(f)),
                          reinterpret_cast<AnyFn>(&detail::FunctorWrapper<Functor, Sig>::call),
                          CppSignature::make<Sig>());
  }

  bool isValid() const { return unboxed_fn_ != nullptr; }
  // True when both hold the same kernel (same function and same functor object).
  bool sameKernel(const KernelFunction& o) const {
    return unboxed_fn_ == o.unboxed_fn_ && functor_ == o.functor_;
  }
  // The signature the kernel was made from; only meaningful when isValid().
  const CppSignature& cppSignature() const { return signature_; }

  // Precondition: Ret(Args...) is the signature this kernel was made from.
  template <typename Ret, typename... Args>
  OPCORE_ALWAYS_INLINE Ret call(DispatchKeySet ks, Args... args) const {
    using Fn = Ret (*)(OperatorKernel*, DispatchKeySet, Args...);
    return reinterpret_cast<Fn>(unboxed_fn_)(functor_.get(), ks, std::forward<Args>(args)...);
  }

 private:
  using AnyFn = void (*)();
  KernelFunction(std::shared_ptr<OperatorKernel> functor, AnyFn fn, CppSignature sig)
      : functor_(std::move(functor)), unboxed_fn_(fn), signature_(sig) {}

  std::shared_ptr<OperatorKernel> functor_;
  AnyFn unboxed_fn_ = nullptr;
  CppSignature signature_ = CppSignature::make<void()>();
};

}  // namespace opcore

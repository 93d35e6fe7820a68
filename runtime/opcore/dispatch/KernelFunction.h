// KernelFunction: a kernel as the dispatcher stores it, callable both ways:
//   - unboxed: one indirect call through a function pointer whose real type is
//     Ret(OperatorKernel*, DispatchKeySet, Args...); the dispatcher guarantees (CppSignature
//     checks at registration and at typed<>()) that the Args used to call match;
//   - boxed: void(OperatorKernel*, const OperatorHandle&, DispatchKeySet, Stack*), arguments
//     and results on a Stack of IValues (Python kernels, fallbacks, generic tooling).
// A kernel made from a C++ function has both entry points (the boxed one is generated from
// the function's type: see Boxing.h); a kernel made from a boxed function has only the boxed
// one, and unboxed calls box their arguments for it.
//
//   KernelFunction k = KernelFunction::makeFromUnboxedFunction(OPCORE_FN(my_kernel));
//   KernelFunction b = KernelFunction::makeFromBoxedFunction<&my_boxed_kernel>();
//   KernelFunction f = KernelFunction::makeFallthrough();  // skip this key: see OperatorEntry
#pragma once

#include <opcore/core/DispatchKeySet.h>
#include <opcore/core/IValue.h>
#include <opcore/core/Macros.h>
#include <opcore/dispatch/Boxing.h>
#include <opcore/dispatch/CppSignature.h>
#include <opcore/dispatch/InferSchema.h>

#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace opcore {

class OperatorHandle;

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

using BoxedKernelFn = void (*)(OperatorKernel*, const OperatorHandle&, DispatchKeySet, Stack*);

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

// The operator signature of a kernel: its function type without a leading DispatchKeySet.
template <typename F>
using KernelSignature = typename StripKeySet<typename FunctionTraits<F>::type>::type;

// Calls `f` with or without the key set, depending on whether it takes one first.
template <typename Fn, typename Ret, typename... Args>
OPCORE_ALWAYS_INLINE Ret invokeKernel(Fn&& f, DispatchKeySet ks, Args&&... args) {
  if constexpr (std::is_invocable_v<Fn, DispatchKeySet, Args...>) {
    return std::forward<Fn>(f)(ks, std::forward<Args>(args)...);
  } else {
    return std::forward<Fn>(f)(std::forward<Args>(args)...);
  }
}

// The unboxed entry point of a kernel known at compile time (a function, or a functor type
// without state, such as a lambda without captures, constructed on each call).
template <auto F, typename Sig>
struct CompileTimeWrapper;
template <auto F, typename Ret, typename... Args>
struct CompileTimeWrapper<F, Ret(Args...)> {
  static Ret call(OperatorKernel*, DispatchKeySet ks, Args... args) {
    return invokeKernel<decltype(F), Ret, Args...>(F, ks, std::forward<Args>(args)...);
  }
};
template <typename Functor, typename Sig>
struct StatelessFunctorWrapper;
template <typename Functor, typename Ret, typename... Args>
struct StatelessFunctorWrapper<Functor, Ret(Args...)> {
  static Ret call(OperatorKernel*, DispatchKeySet ks, Args... args) {
    return invokeKernel<Functor, Ret, Args...>(Functor{}, ks, std::forward<Args>(args)...);
  }
};

// A function pointer known only at run time, as a functor.
template <typename FnPtr>
struct FunctionPointerFunctor;
template <typename Ret, typename... Args>
struct FunctionPointerFunctor<Ret (*)(Args...)> {
  Ret (*fn)(Args...);
  Ret operator()(Args... args) const { return fn(std::forward<Args>(args)...); }
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

// Makes the borrowed IValues among `op`'s arguments on top of `stack` owning, so that a boxed
// kernel never sees a borrowed one (Note [Borrowed IValues]).
void ownBorrowedArguments(const OperatorHandle& op, Stack& stack);

// Boxed functions may take the key set or not: void(const OperatorHandle&, [DispatchKeySet,] Stack*).
template <auto F>
void callBoxedFunction(OperatorKernel*, const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  ownBorrowedArguments(op, *stack);
  if constexpr (std::is_invocable_v<decltype(F), const OperatorHandle&, DispatchKeySet, Stack*>) {
    F(op, ks, stack);
  } else {
    F(op, stack);
  }
}
template <typename Functor>
void callBoxedFunctor(OperatorKernel* k, const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  auto& f = static_cast<FunctorKernel<Functor>*>(k)->functor;
  ownBorrowedArguments(op, *stack);
  if constexpr (std::is_invocable_v<Functor&, const OperatorHandle&, DispatchKeySet, Stack*>) {
    f(op, ks, stack);
  } else {
    f(op, stack);
  }
}

// The boxed entry point of a fallthrough kernel: never called (the dispatcher masks
// fallthrough keys out of the key set before the lookup); reaching it is an internal error.
void fallthroughKernel(OperatorKernel*, const OperatorHandle&, DispatchKeySet, Stack*);

}  // namespace detail

// What a dispatch-table slot holds: a kernel's entry points, without ownership of its state.
// Trivially copyable; the registration that made it keeps the state alive.
class KernelSlot {
 public:
  constexpr KernelSlot() = default;
  KernelSlot(void (*unboxed)(), BoxedKernelFn boxed, OperatorKernel* functor)
      : unboxed_fn_(unboxed), boxed_fn_(boxed), functor_(functor) {}

  bool isFallthrough() const { return boxed_fn_ == &detail::fallthroughKernel; }
  bool sameKernel(const KernelSlot& o) const {
    return unboxed_fn_ == o.unboxed_fn_ && boxed_fn_ == o.boxed_fn_ && functor_ == o.functor_;
  }

  // Precondition: Ret(Args...) is the operator's signature.
  template <typename Ret, typename... Args>
  OPCORE_ALWAYS_INLINE Ret call(const OperatorHandle& op, DispatchKeySet ks, Args... args) const {
    if (OPCORE_LIKELY(unboxed_fn_ != nullptr)) {
      using Fn = Ret (*)(OperatorKernel*, DispatchKeySet, Args...);
      return reinterpret_cast<Fn>(unboxed_fn_)(functor_, ks, std::forward<Args>(args)...);
    }
    return detail::BoxedCall<Ret, Args...>::call(
        [&](Stack* stack) { callBoxed(op, ks, stack); }, std::forward<Args>(args)...);
  }
  void callBoxed(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) const {
    boxed_fn_(functor_, op, ks, stack);
  }

 private:
  void (*unboxed_fn_)() = nullptr;
  BoxedKernelFn boxed_fn_ = nullptr;
  OperatorKernel* functor_ = nullptr;
};

class KernelFunction {
 public:
  KernelFunction() = default;

  // From a function known at compile time (preferred: no extra indirection).
  template <auto F>
  static KernelFunction makeFromUnboxedFunction(CompileTimeFn<F>) {
    using Sig = detail::KernelSignature<std::remove_pointer_t<decltype(F)>>;
    return makeUnboxed<Sig, &detail::CompileTimeWrapper<F, Sig>::call>(nullptr);
  }
  // From a lambda / functor (stored, called through) or a function pointer. A functor type
  // without state is not stored: it is constructed on each call, like a function.
  template <typename Functor>
  static KernelFunction makeFromUnboxedFunctor(Functor f) {
    if constexpr (std::is_pointer_v<Functor>) {
      return makeFromUnboxedFunctor(detail::FunctionPointerFunctor<Functor>{f});
    } else {
      using Sig = detail::KernelSignature<Functor>;
      if constexpr (std::is_empty_v<Functor> && std::is_default_constructible_v<Functor>) {
        return makeUnboxed<Sig, &detail::StatelessFunctorWrapper<Functor, Sig>::call>(nullptr);
      } else {
        return makeUnboxed<Sig, &detail::FunctorWrapper<Functor, Sig>::call>(
            std::make_shared<detail::FunctorKernel<Functor>>(std::move(f)));
      }
    }
  }
  // From a boxed function void(const OperatorHandle&, [DispatchKeySet,] Stack*).
  template <auto F>
  static KernelFunction makeFromBoxedFunction() {
    KernelFunction k;
    k.slot_ = KernelSlot(nullptr, &detail::callBoxedFunction<F>, nullptr);
    return k;
  }
  template <typename Functor>
  static KernelFunction makeFromBoxedFunctor(Functor f) {
    KernelFunction k;
    k.functor_ = std::make_shared<detail::FunctorKernel<Functor>>(std::move(f));
    k.slot_ = KernelSlot(nullptr, &detail::callBoxedFunctor<Functor>, k.functor_.get());
    return k;
  }
  // A kernel that skips its key: calls continue with the next key down.
  static KernelFunction makeFallthrough() {
    KernelFunction k;
    k.slot_ = KernelSlot(nullptr, &detail::fallthroughKernel, nullptr);
    return k;
  }

  bool isFallthrough() const { return slot_.isFallthrough(); }
  const KernelSlot& slot() const { return slot_; }
  // The C++ signature of an unboxed kernel; nullopt for boxed kernels and fallthrough.
  const std::optional<CppSignature>& cppSignature() const { return signature_; }
  // The schema implied by an unboxed kernel's C++ types ("(Tensor _0, int _1) -> Tensor",
  // see InferSchema.h); nullopt for boxed kernels and fallthrough.
  std::optional<std::string> inferredSchemaText() const {
    return infer_schema_ ? std::optional<std::string>(infer_schema_()) : std::nullopt;
  }

 private:
  // `Unboxed` is the unboxed entry point, of type Ret(*)(OperatorKernel*, DispatchKeySet, Args...).
  template <typename Sig, auto Unboxed>
  static KernelFunction makeUnboxed(std::shared_ptr<OperatorKernel> functor) {
    KernelFunction k;
    k.functor_ = std::move(functor);
    k.slot_ = KernelSlot(reinterpret_cast<void (*)()>(Unboxed),
                         &detail::BoxedFromUnboxed<Sig>::template call<Unboxed>, k.functor_.get());
    k.signature_ = CppSignature::make<Sig>();
    k.infer_schema_ = &inferSchemaText<Sig>;
    return k;
  }

  std::shared_ptr<OperatorKernel> functor_;
  KernelSlot slot_;
  std::optional<CppSignature> signature_;
  std::string (*infer_schema_)() = nullptr;
};

}  // namespace opcore

// Boxing: converting between an operator's C++ arguments and a Stack of IValues, so that a
// boxed kernel can serve an unboxed call (BoxedCall) and an unboxed kernel a boxed call
// (BoxedFromUnboxed). Both are generated from the operator's C++ function type.
//
// Note [Boxed calling convention]
// A boxed call finds its arguments on top of the stack, in schema order (the last argument
// on top). The kernel pops all of them and pushes its returns, in order. Reference returns
// (Tensor& of in-place and out= ops) are boxed as the tensor; unboxing one gives back a
// reference to the caller's own argument: the first non-const Tensor& argument for Tensor&,
// and the non-const Tensor& arguments in order for a tuple of them, as in c10.
#pragma once

#include <opcore/core/Error.h>
#include <opcore/core/IValue.h>
#include <opcore/core/Macros.h>
#include <opcore/core/OptionalArrayRef.h>
#include <opcore/core/TensorBase.h>

#include <array>
#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace opcore {

class OperatorHandle;
class OperatorKernel;

namespace detail {

template <typename T>
constexpr bool kIsTensor = std::is_base_of_v<TensorBase, std::remove_cvref_t<T>>;

// ---- IValue -> C++ argument -------------------------------------------------------------
// FromIValue<T>::get(iv) returns a holder that binds to a parameter of type T and lives for
// the call (a Tensor for `const Tensor&` and `Tensor&`, a vector for a tensor list, a view
// into the IValue for int[]). BoxedFromUnboxed takes tensor arguments it is about to pop
// with takeArg instead, which makes no reference-count update for them.
template <typename T, typename = void>
struct FromIValue;

template <typename T>
struct FromIValue<T, std::enable_if_t<kIsTensor<T>>> {
  static std::remove_cvref_t<T> get(const IValue& v) { return std::remove_cvref_t<T>(v.toTensorBase()); }
};

// The holder of a `const Tensor&` (or by-value Tensor) argument whose stack entry stays on
// the stack until the kernel returns: a handle to the entry's tensor without a reference of
// its own (owned or borrowed, the entry keeps the tensor alive), let go of unused.
template <typename T>
class BorrowedTensor {
 public:
  explicit BorrowedTensor(const IValue& v) : tensor_(TensorBase::unsafeBorrow(v.toTensorBase())) {}
  BorrowedTensor(BorrowedTensor&& o) noexcept : tensor_(std::move(o.tensor_)) {}
  BorrowedTensor(const BorrowedTensor&) = delete;
  BorrowedTensor& operator=(const BorrowedTensor&) = delete;
  BorrowedTensor& operator=(BorrowedTensor&&) = delete;
  ~BorrowedTensor() { tensor_.unsafeForgetBorrow(); }
  operator const T&() const { return tensor_; }  // NOLINT: implicit by design (binds to the parameter)

 private:
  T tensor_;
};
template <>
struct FromIValue<int64_t> {
  static int64_t get(const IValue& v) { return v.toInt(); }
};
template <>
struct FromIValue<DeviceIndex> {  // int8_t: an Int in range
  static DeviceIndex get(const IValue& v) {
    const int64_t i = v.toInt();
    OPCORE_CHECK(i >= std::numeric_limits<DeviceIndex>::min() && i <= std::numeric_limits<DeviceIndex>::max(),
                 "a DeviceIndex must be between -128 and 127, but got ", i);
    return static_cast<DeviceIndex>(i);
  }
};
template <>
struct FromIValue<double> {
  static double get(const IValue& v) { return v.toDouble(); }
};
template <>
struct FromIValue<bool> {
  static bool get(const IValue& v) { return v.toBool(); }
};
template <>
struct FromIValue<Scalar> {
  static Scalar get(const IValue& v) { return v.toScalar(); }
};
template <>
struct FromIValue<ScalarType> {
  static ScalarType get(const IValue& v) { return v.toScalarType(); }
};
template <>
struct FromIValue<Device> {
  static Device get(const IValue& v) { return v.toDevice(); }
};
template <>
struct FromIValue<Layout> {
  static Layout get(const IValue& v) { return v.toLayout(); }
};
template <>
struct FromIValue<MemoryFormat> {
  static MemoryFormat get(const IValue& v) { return v.toMemoryFormat(); }
};
template <>
struct FromIValue<QScheme> {
  static QScheme get(const IValue& v) { return v.toQScheme(); }
};
template <>
struct FromIValue<Dimname> {
  static Dimname get(const IValue& v) { return v.toDimname(); }
};
template <>
struct FromIValue<Stream> {
  static Stream get(const IValue& v) { return v.toStream(); }
};
template <>
struct FromIValue<Storage> {
  static Storage get(const IValue& v) { return v.toStorage(); }
};
template <>
struct FromIValue<Generator> {
  static Generator get(const IValue& v) { return v.toGenerator(); }
};
template <>
struct FromIValue<std::string_view> {
  static std::string_view get(const IValue& v) { return v.toStringView(); }
};
template <>
struct FromIValue<std::string> {  // `str` returns
  static std::string get(const IValue& v) { return std::string(v.toStringView()); }
};
template <>
struct FromIValue<ArrayRef<int64_t>> {
  static ArrayRef<int64_t> get(const IValue& v) { return v.toIntList(); }
};
template <>
struct FromIValue<ArrayRef<double>> {
  static ArrayRef<double> get(const IValue& v) { return v.toDoubleList(); }
};
// `bool[]`: std::vector<bool> has no bool array to view, so the holder owns one.
struct BoolListHolder {
  std::unique_ptr<bool[]> data;
  size_t size = 0;
  operator ArrayRef<bool>() const { return ArrayRef<bool>(data.get(), size); }  // NOLINT: implicit by design
};
template <>
struct FromIValue<ArrayRef<bool>> {
  static BoolListHolder get(const IValue& v) {
    const std::vector<bool> list = v.toBoolList();
    BoolListHolder holder{std::make_unique<bool[]>(list.size()), list.size()};
    for (size_t i = 0; i < list.size(); ++i) holder.data[i] = list[i];
    return holder;
  }
};
template <size_t N>
struct FromIValue<std::array<bool, N>> {
  static std::array<bool, N> get(const IValue& v) {
    const std::vector<bool> list = v.toBoolList();
    OPCORE_CHECK(list.size() == N, "expected a list of ", N, " bools, got ", list.size());
    std::array<bool, N> out{};
    for (size_t i = 0; i < N; ++i) out[i] = list[i];
    return out;
  }
};
template <typename T>
struct FromIValue<ArrayRef<T>, std::enable_if_t<kIsTensor<T>>> {
  static std::vector<T> get(const IValue& v) {
    ArrayRef<TensorBase> list = v.toTensorList();
    return std::vector<T>(list.begin(), list.end());
  }
};

template <typename T>
struct IsOptionalTensor : std::false_type {};
template <typename T>
struct IsOptionalTensor<std::optional<T>> : std::bool_constant<kIsTensor<T>> {};

// Every other list (Tensor?[], Dimname[], str[], Scalar[], ...) comes as a GenericList; the
// holder owns the elements (views, for str[], into the list's own strings). Tensor?[] also
// accepts a TensorList (undefined tensors are None) and Scalar[] an Int, Double or Bool list.
template <typename T>
struct FromIValue<ArrayRef<T>, std::enable_if_t<kIsGenericListElement<T>>> {
  static std::vector<T> get(const IValue& v) {
    std::vector<T> out;
    if constexpr (IsOptionalTensor<T>::value) {
      if (v.isTensorList()) {
        for (const TensorBase& t : v.toTensorList()) out.push_back(t.defined() ? T(t) : T());
        return out;
      }
    }
    if constexpr (std::is_same_v<T, Scalar>) {
      if (v.isIntList()) return std::vector<T>(v.toIntList().begin(), v.toIntList().end());
      if (v.isDoubleList()) return std::vector<T>(v.toDoubleList().begin(), v.toDoubleList().end());
      if (v.isBoolList()) {
        for (const bool b : v.toBoolList()) out.emplace_back(b);
        return out;
      }
    }
    const ArrayRef<IValue> list = v.toGenericList();
    out.reserve(list.size());
    for (const IValue& e : list) out.push_back(static_cast<T>(FromIValue<T>::get(e)));
    return out;
  }
};

// `T[]?`: None, or the list's holder; converts to the OptionalArrayRef parameter.
template <typename T, typename ListHolder>
struct OptionalListHolder {
  std::optional<ListHolder> list;
  operator OptionalArrayRef<T>() const {  // NOLINT: implicit by design
    return list ? OptionalArrayRef<T>(ArrayRef<T>(*list)) : OptionalArrayRef<T>();
  }
};
template <typename T>
struct FromIValue<OptionalArrayRef<T>> {
  using ListHolder = decltype(FromIValue<ArrayRef<T>>::get(std::declval<const IValue&>()));
  static auto get(const IValue& v) {
    if constexpr (std::is_same_v<ListHolder, ArrayRef<T>>) {  // a view: no holder needed
      return v.isNone() ? OptionalArrayRef<T>() : OptionalArrayRef<T>(FromIValue<ArrayRef<T>>::get(v));
    } else {
      OptionalListHolder<T, ListHolder> holder;
      if (!v.isNone()) holder.list.emplace(FromIValue<ArrayRef<T>>::get(v));
      return holder;
    }
  }
};
template <typename T>
struct FromIValue<std::optional<T>> {
  static auto get(const IValue& v) {
    using Holder = decltype(FromIValue<T>::get(v));
    return v.isNone() ? std::optional<Holder>() : std::optional<Holder>(FromIValue<T>::get(v));
  }
};
// List returns (`Tensor[]`, `int[]`, `str[]`, ...): an owning vector.
template <typename T>
struct FromIValue<std::vector<T>> {
  static std::vector<T> get(const IValue& v) {
    if constexpr (std::is_same_v<T, bool>) {
      return v.toBoolList();
    } else {
      auto&& list = FromIValue<ArrayRef<T>>::get(v);
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(list)>, std::vector<T>>) {
        return std::move(list);
      } else {
        return std::vector<T>(list.begin(), list.end());
      }
    }
  }
};

template <typename T>
using ArgHolder = decltype(FromIValue<std::remove_cvref_t<T>>::get(std::declval<const IValue&>()));

// The holder of an argument of an unboxed kernel serving a boxed call, taken from its stack
// entry before the call; the entries are popped after it. A tensor is borrowed from the
// entry, except for a `Tensor&` parameter, which the kernel may assign to: that one is moved
// out of the entry (copied from a borrowed one, see Note [Borrowed IValues]). The rest are read.
template <typename T>
constexpr bool kIsMutableTensorRef = std::is_lvalue_reference_v<T> && !std::is_const_v<std::remove_reference_t<T>> && kIsTensor<T>;
template <typename T>
using TakenArg = std::conditional_t<kIsMutableTensorRef<T>, std::remove_cvref_t<T>,
                                    std::conditional_t<kIsTensor<T>, BorrowedTensor<std::remove_cvref_t<T>>, ArgHolder<T>>>;
template <typename T>
TakenArg<T> takeArg(IValue& v) {
  if constexpr (kIsMutableTensorRef<T>) {
    return TakenArg<T>(std::move(v).toTensorBase());
  } else if constexpr (kIsTensor<T>) {
    return TakenArg<T>(v);
  } else {
    return FromIValue<std::remove_cvref_t<T>>::get(v);
  }
}

// ---- C++ value -> stack -------------------------------------------------------------------
// Every argument and return type converts implicitly (IValue's constructors).
template <typename T>
IValue toIValue(T&& value) {
  return IValue(std::forward<T>(value));
}

template <typename T>
struct IsTuple : std::false_type {};
template <typename... Ts>
struct IsTuple<std::tuple<Ts...>> : std::true_type {};

// Pushes a kernel's result (moved when it is a temporary): a tuple as one value per element.
template <typename T>
void pushReturn(Stack& stack, T&& value) {
  if constexpr (IsTuple<std::remove_cvref_t<T>>::value) {
    std::apply([&](auto&&... elems) { (pushReturn(stack, std::forward<decltype(elems)>(elems)), ...); },
               std::forward<T>(value));
  } else {
    stack.push_back(toIValue(std::forward<T>(value)));
  }
}

// ---- stack -> C++ return value (for boxed kernels serving unboxed calls) --------------------

// The I-th non-const Tensor& argument (Note [Boxed calling convention]).
template <size_t I, typename First, typename... Rest>
decltype(auto) mutableTensorArg(First&& first, Rest&&... rest) {
  if constexpr (kIsMutableTensorRef<First&&>) {
    if constexpr (I == 0) {
      return (first);
    } else {
      return mutableTensorArg<I - 1>(std::forward<Rest>(rest)...);
    }
  } else {
    return mutableTensorArg<I>(std::forward<Rest>(rest)...);
  }
}

template <typename Ret>
struct ReturnFromStack {
  template <typename... Args>
  static Ret get(Stack& stack, Args&&...) {
    OPCORE_CHECK(stack.size() == 1, "a boxed kernel returned ", stack.size(), " values where 1 was expected");
    return FromIValue<std::remove_cvref_t<Ret>>::get(stack[0]);
  }
};
template <>
struct ReturnFromStack<void> {
  template <typename... Args>
  static void get(Stack& stack, Args&&...) {
    OPCORE_CHECK(stack.empty(), "a boxed kernel returned ", stack.size(), " values where none was expected");
  }
};
template <typename T>
struct ReturnFromStack<T&> {
  static_assert(kIsTensor<T> && !std::is_const_v<T>, "only Tensor& can be returned by reference");
  template <typename... Args>
  static T& get(Stack&, Args&&... args) {
    return mutableTensorArg<0>(std::forward<Args>(args)...);
  }
};
template <typename... Ts>
struct ReturnFromStack<std::tuple<Ts...>> {
  template <typename... Args>
  static std::tuple<Ts...> get(Stack& stack, Args&&... args) {
    OPCORE_CHECK(stack.size() == sizeof...(Ts), "a boxed kernel returned ", stack.size(), " values where ",
                 sizeof...(Ts), " were expected");
    return getImpl(stack, std::index_sequence_for<Ts...>(), std::forward<Args>(args)...);
  }

 private:
  template <size_t... I, typename... Args>
  static std::tuple<Ts...> getImpl(Stack& stack, std::index_sequence<I...>, Args&&... args) {
    if constexpr ((std::is_reference_v<Ts> && ...)) {
      return std::tuple<Ts...>(mutableTensorArg<I>(std::forward<Args>(args)...)...);
    } else {
      return std::tuple<Ts...>(FromIValue<std::remove_cvref_t<Ts>>::get(stack[I])...);
    }
  }
};

// ---- the two adapters ---------------------------------------------------------------------

// An unboxed call served by a boxed kernel: box the arguments, call, unbox the returns.
template <typename Ret, typename... Args>
struct BoxedCall {
  template <typename CallBoxed>
  OPCORE_NOINLINE static Ret call(CallBoxed&& call_boxed, Args... args) {
    Stack stack;
    stack.reserve(sizeof...(Args));
    (stack.push_back(toIValue(args)), ...);
    call_boxed(&stack);
    return ReturnFromStack<Ret>::get(stack, std::forward<Args>(args)...);
  }
};

// Throws "boxed call with 1 values on the stack; the kernel takes 2 arguments".
[[noreturn]] OPCORE_NOINLINE void reportTooFewValuesForKernel(size_t stack_size, size_t num_args);

// A boxed call served by an unboxed kernel: unbox the arguments from the top of the stack,
// call, pop the arguments, push the returns.
template <typename Sig>
struct BoxedFromUnboxed;
template <typename Ret, typename... Args>
struct BoxedFromUnboxed<Ret(Args...)> {
  template <auto Unboxed>
  static void call(OperatorKernel* functor, const OperatorHandle&, DispatchKeySet ks, Stack* stack) {
    constexpr size_t kNumArgs = sizeof...(Args);
    if (OPCORE_UNLIKELY(stack->size() < kNumArgs)) reportTooFewValuesForKernel(stack->size(), kNumArgs);
    const size_t base = stack->size() - kNumArgs;
    callWithArgs<Unboxed>(functor, ks, *stack, base, std::index_sequence_for<Args...>());
  }

 private:
  template <auto Unboxed, size_t... I>
  static void callWithArgs(OperatorKernel* functor, DispatchKeySet ks, Stack& stack, size_t base,
                           std::index_sequence<I...>) {
    std::tuple<TakenArg<Args>...> holders(takeArg<Args>(stack[base + I])...);
    if constexpr (std::is_void_v<Ret>) {
      Unboxed(functor, ks, static_cast<Args>(std::get<I>(holders))...);
      stack.resize(base);
    } else {
      // The results are boxed before any argument's entry goes: a reference result may be
      // a tensor that only its argument's entry keeps alive. One result then takes the first
      // argument's entry; several are pushed above the arguments, which are then erased.
      Ret result = Unboxed(functor, ks, static_cast<Args>(std::get<I>(holders))...);
      if constexpr (sizeof...(Args) > 0 && !IsTuple<std::remove_cvref_t<Ret>>::value) {
        IValue boxed = toIValue(std::forward<Ret>(result));
        if constexpr (sizeof...(Args) > 1) stack.resize(base + 1);
        stack[base] = std::move(boxed);
      } else {
        pushReturn(stack, std::forward<Ret>(result));
        stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(base),
                    stack.begin() + static_cast<std::ptrdiff_t>(base + sizeof...(Args)));
      }
    }
  }
};

}  // namespace detail
}  // namespace opcore

// Computing a call's dispatch key set from its arguments, at compile time where possible:
// only arguments whose type can carry keys (tensors, optional tensors, tensor lists,
// devices, generators) contribute; everything else compiles to nothing.
#pragma once

#include <opcore/core/ArrayRef.h>
#include <opcore/core/Device.h>
#include <opcore/core/Error.h>
#include <opcore/core/Generator.h>
#include <opcore/core/IValue.h>
#include <opcore/core/OptionalArrayRef.h>
#include <opcore/core/TensorBase.h>
#include <opcore/dispatch/LocalDispatchKeySet.h>

#include <bit>
#include <optional>
#include <type_traits>
#include <vector>

namespace opcore::detail {

// kCarriesKeys: the type can contribute keys; kIsTensorLike: it holds tensors (a call with
// none of those and no keys runs on the CPU, see Note [Key set of a call]).
template <typename T>
struct KeyOf {
  static constexpr bool kCarriesKeys = false;
  static constexpr bool kIsTensorLike = false;
  static DispatchKeySet get(const T&) { return {}; }
};
template <typename T>
  requires std::is_base_of_v<TensorBase, T>
struct KeyOf<T> {
  static constexpr bool kCarriesKeys = true;
  static constexpr bool kIsTensorLike = true;
  static DispatchKeySet get(const T& t) { return t.key_set(); }
};
template <typename T>
struct KeyOf<std::optional<T>> {
  static constexpr bool kCarriesKeys = KeyOf<T>::kCarriesKeys;
  static constexpr bool kIsTensorLike = KeyOf<T>::kIsTensorLike;
  static DispatchKeySet get(const std::optional<T>& t) { return t ? KeyOf<T>::get(*t) : DispatchKeySet(); }
};
template <typename T>
struct KeyOf<OptionalArrayRef<T>> {
  static constexpr bool kCarriesKeys = KeyOf<T>::kCarriesKeys;
  static constexpr bool kIsTensorLike = KeyOf<T>::kIsTensorLike;
  static DispatchKeySet get(const OptionalArrayRef<T>& t) {
    return t.has_value() ? KeyOf<ArrayRef<T>>::get(*t) : DispatchKeySet();
  }
};
template <typename T>
struct KeyOf<ArrayRef<T>> {
  static constexpr bool kCarriesKeys = KeyOf<T>::kCarriesKeys;
  static constexpr bool kIsTensorLike = KeyOf<T>::kIsTensorLike;
  static DispatchKeySet get(ArrayRef<T> list) {
    DispatchKeySet ks;
    if constexpr (KeyOf<T>::kCarriesKeys) {
      for (const T& t : list) ks = ks | KeyOf<T>::get(t);
    }
    return ks;
  }
};
template <typename T>
struct KeyOf<std::vector<T>> : KeyOf<ArrayRef<T>> {};
// A device argument (factories: `Device? device=None`) selects its backend.
template <>
struct KeyOf<Device> {
  static constexpr bool kCarriesKeys = true;
  static constexpr bool kIsTensorLike = false;
  static DispatchKeySet get(const Device& d) { return keySetForDevice(d); }
};
// So does a generator's device, as in PyTorch: a CUDA generator selects the CUDA kernel.
template <>
struct KeyOf<Generator> {
  static constexpr bool kCarriesKeys = true;
  static constexpr bool kIsTensorLike = false;
  static DispatchKeySet get(const Generator& g) { return g.defined() ? keySetForDevice(g.device()) : DispatchKeySet(); }
};

template <typename T>
using Bare = std::remove_cvref_t<T>;

// Note [Key set of a call]
// keys = (union of the arguments' keys | TLS included) - TLS excluded.
// An operator without tensor arguments whose device argument is absent (zeros({2})) runs
// on the CPU, the default device, so its key set gets CPU.
template <typename... Args>
OPCORE_ALWAYS_INLINE DispatchKeySet computeDispatchKeySet(const Args&... args) {
  DispatchKeySet ks = (DispatchKeySet() | ... | KeyOf<Bare<Args>>::get(args));
  constexpr bool kHasTensorArgs = (false || ... || KeyOf<Bare<Args>>::kIsTensorLike);
  if constexpr (!kHasTensorArgs) {
    if (ks.empty()) ks = DispatchKeySet(DispatchKey::CPU);
  }
  const LocalDispatchKeySet& local = detail::tls_local_dispatch_key_set;
  return (ks | local.included) - local.excluded;
}

// The keys a boxed argument carries: a tensor's, a tensor list's (also with None elements,
// for Tensor?[]), a device's or a generator's.
inline DispatchKeySet keySetOf(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::Tensor: return v.toTensorBase().key_set();
    case IValue::Tag::Device: return keySetForDevice(v.toDevice());
    case IValue::Tag::Generator: {
      const Generator g = v.toGenerator();
      return g.defined() ? keySetForDevice(g.device()) : DispatchKeySet();
    }
    case IValue::Tag::TensorList: {
      DispatchKeySet ks;
      for (const TensorBase& t : v.toTensorList()) ks = ks | t.key_set();
      return ks;
    }
    case IValue::Tag::GenericList: {
      DispatchKeySet ks;
      for (const IValue& e : v.toGenericList()) ks = ks | keySetOf(e);
      return ks;
    }
    default: return {};
  }
}

// Throws "boxed call with 1 values on the stack, but the operator takes 2 arguments".
[[noreturn]] OPCORE_NOINLINE void reportTooFewValuesForOperator(size_t stack_size, size_t num_args);

// Note [Key set of a call], for a boxed call: the arguments are the top `num_args` values of
// the stack, and only those whose bit is set in `key_args` (from the schema) carry keys.
OPCORE_ALWAYS_INLINE DispatchKeySet computeDispatchKeySetBoxed(const Stack& stack, size_t num_args, uint64_t key_args,
                                                               bool has_tensor_args) {
  if (OPCORE_UNLIKELY(stack.size() < num_args)) reportTooFewValuesForOperator(stack.size(), num_args);
  const IValue* args = stack.data() + (stack.size() - num_args);
  DispatchKeySet ks;
  for (uint64_t bits = key_args; bits != 0; bits &= bits - 1) {
    const IValue& arg = args[std::countr_zero(bits)];
    ks = ks | (OPCORE_LIKELY(arg.isTensor()) ? arg.toTensorBase().key_set() : keySetOf(arg));  // tensors inline
  }
  if (!has_tensor_args && ks.empty()) ks = DispatchKeySet(DispatchKey::CPU);
  const LocalDispatchKeySet& local = detail::tls_local_dispatch_key_set;
  return (ks | local.included) - local.excluded;
}

}  // namespace opcore::detail

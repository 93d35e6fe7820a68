// CppSignature: the identity of a kernel's C++ function type, used to reject a kernel or a
// typed<>() lookup whose signature does not match the one registered first.
//   CppSignature::make<Tensor(const Tensor&)>() == CppSignature::make<Tensor(const Tensor&)>()
#pragma once

#include <opcore/core/DispatchKeySet.h>

#include <string>
#include <type_traits>
#include <typeindex>

namespace opcore {

namespace detail {
// Strips a leading DispatchKeySet parameter: kernels may take one to redispatch.
template <typename Sig>
struct StripKeySet {
  using type = Sig;
};
template <typename Ret, typename... Args>
struct StripKeySet<Ret(DispatchKeySet, Args...)> {
  using type = Ret(Args...);
};
}  // namespace detail

class CppSignature {
 public:
  template <typename FuncType>
  static CppSignature make() {
    using Plain = typename detail::StripKeySet<std::remove_cv_t<FuncType>>::type;
    return CppSignature(std::type_index(typeid(Plain)));
  }
  // Demangled C++ type, e.g. "opcore::Tensor (opcore::Tensor const&)".
  std::string name() const;
  bool operator==(const CppSignature& o) const { return index_ == o.index_; }
  bool operator!=(const CppSignature& o) const { return !(*this == o); }

 private:
  explicit CppSignature(std::type_index index) : index_(index) {}
  std::type_index index_;
};

}  // namespace opcore

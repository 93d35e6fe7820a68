// TensorBase: the data model of a tensor without its operator methods. The generated
// `opcore::Tensor` (build/generated/opcore/Tensor.h) derives from it and adds one method per
// `variants: method` operator. Copying shares the TensorImpl (like torch.Tensor).
//   TensorBase t = detail::emptyCpu({2, 3}, ScalarType::Float);
//   t.sizes() == IntArrayRef{2, 3};  t.data_ptr<float>()[0] = 1.f;
#pragma once

#include <opcore/core/Error.h>
#include <opcore/core/MemoryFormat.h>
#include <opcore/core/Scalar.h>
#include <opcore/core/TensorImpl.h>
#include <opcore/core/TensorOptions.h>

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>

namespace opcore {

namespace autograd {
class Node;
}  // namespace autograd

class TensorBase {
 public:
  TensorBase() = default;
  explicit TensorBase(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const IntrusivePtr<TensorImpl>& getIntrusivePtr() const { return impl_; }
  size_t use_count() const { return impl_.use_count(); }
  bool is_same(const TensorBase& other) const { return impl_.get() == other.impl_.get(); }
  // A handle to the same tensor holding no reference, and letting go of one; see
  // IntrusivePtr::unsafeBorrow and Note [Borrowed IValues].
  static TensorBase unsafeBorrow(const TensorBase& t) {
    return TensorBase(IntrusivePtr<TensorImpl>::unsafeBorrow(t.impl_.get()));
  }
  void unsafeForgetBorrow() { impl_.unsafeForgetBorrow(); }

  IntArrayRef sizes() const { return impl()->sizes(); }
  IntArrayRef strides() const { return impl()->strides(); }
  // Size and stride of one dimension; negative dims count from the end.
  int64_t size(int64_t dim) const { return sizes()[wrapDim(dim)]; }
  int64_t stride(int64_t dim) const { return strides()[wrapDim(dim)]; }
  int64_t dim() const { return impl()->dim(); }
  int64_t numel() const { return impl()->numel(); }
  int64_t storage_offset() const { return impl()->storage_offset(); }
  bool is_contiguous() const { return impl()->is_contiguous(); }
  // Dense in `format`'s dimension order (Contiguous: the same as is_contiguous()).
  bool is_contiguous(MemoryFormat format) const {
    return format == MemoryFormat::Contiguous ? is_contiguous() : isContiguousAs(sizes(), strides(), format);
  }
  // The memory block this tensor is a view of (shared by every view of it).
  const Storage& storage() const { return impl()->storage(); }
  ScalarType scalar_type() const { return impl()->dtype(); }
  Device device() const { return impl()->device(); }
  // This tensor's dtype, device and layout, for making another like it:
  //   opcore::empty({3}, t.options())
  TensorOptions options() const { return TensorOptions(scalar_type()).device(device()).layout(Layout::Strided); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_meta() const { return device().is_meta(); }
  // Only defined tensors have keys; an undefined tensor contributes none to dispatch.
  DispatchKeySet key_set() const { return impl_ ? impl_->key_set() : DispatchKeySet(); }
  size_t element_size() const { return opcore::elementSize(scalar_type()); }

  // Pointer to the first element. The typed form checks the dtype.
  void* data_ptr() const { return impl()->data(); }
  template <typename T>
  T* data_ptr() const {
    OPCORE_CHECK(CppTypeToScalarType<T>::value == scalar_type(), "data_ptr<",
                 opcore::toString(CppTypeToScalarType<T>::value), ">() called on a tensor of dtype ",
                 opcore::toString(scalar_type()));
    return static_cast<T*>(impl()->data());
  }

  // The value of a one-element CPU tensor, converted to T.
  template <typename T>
  T item() const;

  // Wraps a possibly negative dimension index into [0, dim()); throws when out of range.
  int64_t wrapDim(int64_t dim) const;

  // PyTorch-style text: "tensor([[1., 2.], [3., 4.]])" (CPU tensors; others print metadata).
  std::string toString() const;

  // --- autograd state (defined in runtime/opcore/autograd/TensorMethods.cpp; the members
  // that take or give a Tensor, such as grad() and requires_grad_(), are Tensor's) ---
  // Whether gradients flow to this tensor: a leaf marked with requires_grad_(), or a result of
  // operations on such tensors (it then has a grad_fn()).
  bool requires_grad() const;
  // A leaf has no grad_fn(): the user created it, or it does not require grad.
  bool is_leaf() const;
  // The backward node that made this tensor (null for leaves).
  std::shared_ptr<autograd::Node> grad_fn() const;
  // Which output of grad_fn() this tensor is.
  uint32_t output_nr() const;
  // How many in-place operations changed this tensor's memory (shared by its views).
  uint32_t _version() const;
  // Keeps grad() for a non-leaf after backward() (leaves always keep it).
  void retain_grad() const;
  bool retains_grad() const;
  // Removes a hook added by Tensor::register_hook.
  void remove_hook(unsigned id) const;

 protected:
  TensorImpl* impl() const {
    OPCORE_CHECK(impl_, "operation on an undefined tensor");
    return impl_.get();
  }

 private:
  IntrusivePtr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const TensorBase& t);

// Wraps `dim` for a tensor of rank `ndim` (a scalar accepts -1 and 0, as in PyTorch).
int64_t wrapDim(int64_t dim, int64_t ndim);

namespace detail {
// Reads element `i` (in row-major order of the logical shape) exactly: a Long Scalar for
// integral dtypes (int64 values beyond 2^53 included), Double for floating, Bool; CPU only.
Scalar elementAt(const TensorBase& t, int64_t i);
// The same, as double.
inline double elementAsDouble(const TensorBase& t, int64_t i) { return elementAt(t, i).toDouble(); }
}  // namespace detail

template <typename T>
T TensorBase::item() const {
  OPCORE_CHECK(numel() == 1, "item(): a tensor with ", numel(),
               " elements cannot be converted to a scalar");
  OPCORE_CHECK(is_cpu(), "item(): tensor is on ", device(), "; copy it to the CPU first");
  return detail::elementAt(*this, 0).to<T>();
}

}  // namespace opcore

// TensorBase: the data model of a tensor without its operator methods. The generated
// `opcore::Tensor` (build/generated/opcore/Tensor.h) derives from it and adds one method per
// `variants: method` operator. Copying shares the TensorImpl (like torch.Tensor).
//   TensorBase t = detail::emptyCpu({2, 3}, ScalarType::Float);
//   t.sizes() == IntArrayRef{2, 3};  t.dataPtr<float>()[0] = 1.f;
#pragma once

#include <opcore/core/Error.h>
#include <opcore/core/MemoryFormat.h>
#include <opcore/core/TensorImpl.h>

#include <cstdint>
#include <iosfwd>
#include <string>

namespace opcore {

class TensorBase {
 public:
  TensorBase() = default;
  explicit TensorBase(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const IntrusivePtr<TensorImpl>& getIntrusivePtr() const { return impl_; }
  size_t useCount() const { return impl_.useCount(); }
  bool isSame(const TensorBase& other) const { return impl_.get() == other.impl_.get(); }
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
  int64_t storageOffset() const { return impl()->storageOffset(); }
  bool isContiguous() const { return impl()->isContiguous(); }
  // Dense in `format`'s dimension order (Contiguous: the same as isContiguous()).
  bool isContiguous(MemoryFormat format) const {
    return format == MemoryFormat::Contiguous ? isContiguous() : isContiguousAs(sizes(), strides(), format);
  }
  // The memory block this tensor is a view of (shared by every view of it).
  const Storage& storage() const { return impl()->storage(); }
  ScalarType scalarType() const { return impl()->dtype(); }
  Device device() const { return impl()->device(); }
  bool isCpu() const { return device().isCpu(); }
  bool isCuda() const { return device().isCuda(); }
  bool isMeta() const { return device().isMeta(); }
  // Only defined tensors have keys; an undefined tensor contributes none to dispatch.
  DispatchKeySet keySet() const { return impl_ ? impl_->keySet() : DispatchKeySet(); }
  size_t elementSize() const { return opcore::elementSize(scalarType()); }

  // Pointer to the first element. The typed form checks the dtype.
  void* dataPtr() const { return impl()->data(); }
  template <typename T>
  T* dataPtr() const {
    OPCORE_CHECK(CppTypeToScalarType<T>::value == scalarType(), "dataPtr<",
                 opcore::toString(CppTypeToScalarType<T>::value), ">() called on a tensor of dtype ",
                 opcore::toString(scalarType()));
    return static_cast<T*>(impl()->data());
  }

  // The value of a one-element CPU tensor, converted to T.
  template <typename T>
  T item() const;

  // Wraps a possibly negative dimension index into [0, dim()); throws when out of range.
  int64_t wrapDim(int64_t dim) const;

  // PyTorch-style text: "tensor([[1., 2.], [3., 4.]])" (CPU tensors; others print metadata).
  std::string toString() const;

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
// Reads element `i` (in row-major order of the logical shape) as double; CPU only.
double elementAsDouble(const TensorBase& t, int64_t i);
}  // namespace detail

template <typename T>
T TensorBase::item() const {
  OPCORE_CHECK(numel() == 1, "item(): a tensor with ", numel(),
               " elements cannot be converted to a scalar");
  OPCORE_CHECK(isCpu(), "item(): tensor is on ", device(), "; copy it to the CPU first");
  return static_cast<T>(detail::elementAsDouble(*this, 0));
}

}  // namespace opcore

// TensorImpl: the reference-counted object behind a Tensor: storage, sizes, strides,
// storage offset, dtype, device and the dispatch keys its calls go through.
// Sizes and strides of up to kInlineDims dimensions live inline (no allocation).
#pragma once

#include <opcore/core/ArrayRef.h>
#include <opcore/core/Device.h>
#include <opcore/core/DispatchKeySet.h>
#include <opcore/core/IntrusivePtr.h>
#include <opcore/core/ScalarType.h>
#include <opcore/core/Storage.h>

#include <cstdint>
#include <memory>
#include <optional>

namespace opcore {

// Overflow-checked size arithmetic (Note [Size arithmetic] in TensorImpl.cpp). Each throws
// opcore::Error naming the sizes when a count does not fit int64_t.
//   checkedNumel({2, 3}) == 6;   checkedNumel({1LL << 32, 1LL << 32}) throws
int64_t checkedNumel(IntArrayRef sizes);
//   checkedNbytes({2, 3}, 6, 4) == 24: the bytes of `numel` elements of `element_size` bytes
int64_t checkedNbytes(IntArrayRef sizes, int64_t numel, size_t element_size);
// How many elements, counted from the storage's start, a tensor of these sizes, strides and
// offset spans: the furthest element it reaches plus one, or 0 when it has none. nullopt when
// that count overflows int64_t. Precondition: no size or stride is negative.
//   storageExtent({2, 3}, {3, 1}, 4) == 10
std::optional<int64_t> storageExtent(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
// Row-major strides of `sizes` into `strides` (sizes.size() entries; sizes of 0 and 1 count
// as 1, as in ATen).   contiguousStridesInto({2, 3}, s) sets s = {3, 1}
void contiguousStridesInto(IntArrayRef sizes, int64_t* strides);

// The backend key of a device (CPU, CUDA, Meta). A new tensor's keys are these plus
// ADInplaceOrView (Note [Autograd keys on tensors] in opcore/autograd/Variable.h).
DispatchKeySet keySetForDevice(Device d);

// The autograd state of a tensor (opcore::autograd::AutogradMeta); the core only owns it.
class AutogradMetaInterface {
 public:
  virtual ~AutogradMetaInterface() = default;
};

// Note [The Python object of a tensor]
// While Python holds a tensor, the tensor has one Python object, and Python sees that object
// wherever the tensor comes back (PyTorch's PyObject preservation): `x.grad is x.grad`,
// `a.add_(b) is a`, `t.contiguous() is t`, and a __torch_dispatch__ or Python kernel gets the
// very objects the caller passed. `object` points to it: a plain pointer, since the object
// owns the TensorImpl (through its Tensor). opcore._C's wrap() returns the live object when
// there is one and records each object it makes; the object's dealloc clears the pointer.
// A plain opcore.Tensor object holds nothing but the tensor, so once Python drops it, it dies
// (weak references to it too), and the next time the tensor reaches Python a new object is
// made. A subclass's object (Tensor._make_wrapper_subclass) also holds its class and
// attributes: when Python drops it while C++ still holds the tensor, they are `saved` (owned
// by the TensorImpl), and the next time the tensor reaches Python an object of that class with
// those attributes is made from them. opcore._C fills the slot, with the GIL held, and supplies
// `release`, which takes the GIL: the core knows no Python.
struct PyObjectSlot {
  void* object = nullptr;             // the live PyObject, or null
  void* saved = nullptr;              // owned: what remakes the object once it died, or null
  void (*release)(void*) = nullptr;   // frees `saved`
};

class TensorImpl final : public IntrusiveTarget {
 public:
  static constexpr size_t kInlineDims = 5;
  static constexpr size_t kMaxDims = 64;

  // A 0-dim tensor over `storage`; set its sizes with setSizesAndStrides/setSizesContiguous.
  TensorImpl(Storage storage, ScalarType dtype, Device device);
  ~TensorImpl() override {
    if (pyobj_slot_.saved) pyobj_slot_.release(pyobj_slot_.saved);
  }

  IntArrayRef sizes() const { return IntArrayRef(dims(), dim_); }
  IntArrayRef strides() const { return IntArrayRef(dims() + dim_, dim_); }
  int64_t dim() const { return static_cast<int64_t>(dim_); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return device_; }
  DispatchKeySet key_set() const { return key_set_; }
  // Replaces the key set (autograd adds and removes its key; the backend must not change).
  void setKeySet(DispatchKeySet ks) { key_set_ = ks; }
  const Storage& storage() const { return storage_; }
  bool is_contiguous() const { return is_contiguous_; }

  // Raw pointer to the first element (storage data + offset); null on Meta.
  void* data() const {
    char* base = storage_ ? static_cast<char*>(storage_->data()) : nullptr;
    return base ? base + storage_offset_ * static_cast<int64_t>(elementSize(dtype_)) : nullptr;
  }

  // Replaces sizes and strides (and the offset); recomputes numel and contiguity. Throws,
  // leaving the tensor as it was, when a size, stride or offset is negative, when a count
  // overflows, or when an element lies beyond the storage (Note [Size arithmetic]).
  void setSizesAndStrides(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
  // Sets contiguous strides for `sizes`.
  void setSizesContiguous(IntArrayRef sizes);
  // Replaces the storage (detail::resizeOutput, when an out= tensor needs more memory).
  // The version counter moves on to the new storage (Note [Version counter]).
  void setStorage(Storage storage);

  // Autograd state: null until autograd needs it (opcore/autograd/Variable.h).
  AutogradMetaInterface* autogradMeta() const { return autograd_meta_.get(); }
  void setAutogradMeta(std::unique_ptr<AutogradMetaInterface> meta) { autograd_meta_ = std::move(meta); }

  // See Note [The Python object of a tensor].
  PyObjectSlot& pyobjSlot() { return pyobj_slot_; }

 private:
  const int64_t* dims() const { return dim_ <= kInlineDims ? inline_ : heap_.get(); }
  int64_t* dims() { return dim_ <= kInlineDims ? inline_ : heap_.get(); }
  void refreshContiguity();

  Storage storage_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  size_t dim_ = 0;
  int64_t inline_[2 * kInlineDims] = {};  // sizes, then strides, when dim_ <= kInlineDims
  std::unique_ptr<int64_t[]> heap_;       // sizes, then strides, otherwise
  ScalarType dtype_;
  Device device_;
  bool is_contiguous_ = true;
  DispatchKeySet key_set_;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  PyObjectSlot pyobj_slot_;
};

}  // namespace opcore

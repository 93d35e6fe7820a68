// TensorOptions: the dtype, layout, device and requires_grad of a tensor to create, as one
// value, as in ATen. Every factory whose schema has `ScalarType? dtype` and `Device? device`
// takes it (Note [TensorOptions overloads] in gen/api/cpp.py):
//   opcore::ones({2, 3}, opcore::dtype(opcore::kDouble).requires_grad(true));
//   opcore::empty({4}, opcore::kLong);                      // a ScalarType converts to options
//   opcore::zeros({2}, opcore::TensorOptions().device(opcore::kMeta));
// Unset parts take the factory's defaults (the default float dtype, the CPU).
#pragma once

#include <opcore/core/Device.h>
#include <opcore/core/Error.h>
#include <opcore/core/Layout.h>
#include <opcore/core/ScalarType.h>

#include <optional>

namespace opcore {

class TensorOptions {
 public:
  TensorOptions() = default;
  // Options with one part set; implicit, so that `empty({2}, kLong)` reads as in ATen.
  TensorOptions(ScalarType dtype) : dtype_(dtype) {}     // NOLINT: implicit by design
  TensorOptions(Device device) : device_(device) {}      // NOLINT: implicit by design
  TensorOptions(DeviceType type) : device_(type) {}      // NOLINT: implicit by design
  TensorOptions(Layout layout) : layout_(layout) {}      // NOLINT: implicit by design

  // Builders: a copy with one part replaced (nullopt unsets it).
  TensorOptions dtype(std::optional<ScalarType> dtype) const { return with(&TensorOptions::dtype_, dtype); }
  TensorOptions device(std::optional<Device> device) const { return with(&TensorOptions::device_, device); }
  TensorOptions layout(std::optional<Layout> layout) const { return with(&TensorOptions::layout_, layout); }
  TensorOptions pinned_memory(std::optional<bool> pinned) const { return with(&TensorOptions::pinned_memory_, pinned); }
  TensorOptions requires_grad(bool requires_grad) const {
    TensorOptions o = *this;
    o.requires_grad_ = requires_grad;
    return o;
  }

  // The parts as set (nullopt: the factory decides).
  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  std::optional<Device> device_opt() const { return device_; }
  std::optional<Layout> layout_opt() const { return layout_; }
  std::optional<bool> pinned_memory_opt() const { return pinned_memory_; }
  bool requires_grad() const { return requires_grad_; }
  bool has_dtype() const { return dtype_.has_value(); }
  bool has_device() const { return device_.has_value(); }
  bool has_layout() const { return layout_.has_value(); }

 private:
  template <typename T>
  TensorOptions with(std::optional<T> TensorOptions::*part, std::optional<T> value) const {
    TensorOptions o = *this;
    o.*part = value;
    return o;
  }

  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  std::optional<Layout> layout_;
  std::optional<bool> pinned_memory_;
  bool requires_grad_ = false;
};

// ATen's shorthands for options with one part set.
inline TensorOptions dtype(ScalarType dtype) { return TensorOptions().dtype(dtype); }
inline TensorOptions device(Device device) { return TensorOptions().device(device); }
inline TensorOptions layout(Layout layout) { return TensorOptions().layout(layout); }
inline TensorOptions requires_grad(bool requires_grad = true) { return TensorOptions().requires_grad(requires_grad); }

namespace detail {
// Checks the parts of `options` that factory `op` has no argument for: without `layout` it
// makes strided tensors, without `pin_memory` unpinned ones, and with a result other than
// one Tensor it cannot mark it as requiring grad.
inline void checkOptionsWithoutArguments(const TensorOptions& options, const char* op, bool has_layout,
                                         bool has_pin_memory, bool returns_tensor) {
  OPCORE_CHECK(has_layout || !options.layout_opt() || *options.layout_opt() == Layout::Strided, op,
               ": only strided tensors can be created, got layout ", *options.layout_opt());
  OPCORE_CHECK(has_pin_memory || !options.pinned_memory_opt().value_or(false), op,
               ": cannot create tensors in pinned memory");
  OPCORE_CHECK(returns_tensor || !options.requires_grad(), op,
               ": requires_grad applies to factories returning one tensor");
}
// The result of a factory called with `options`: marked as requiring grad when they ask
// (as torch:: factories do).
template <typename T>
T applyRequiresGrad(T result, const TensorOptions& options) {
  if (options.requires_grad()) result.requires_grad_(true);
  return result;
}
}  // namespace detail

}  // namespace opcore

// The kernels of npu_native_functions.yaml, declared in the generated NPUNativeFunctions.h. The
// device's memory is host memory, so each computes with opcore's CPU kernels on CPU tensors over
// the device tensors' bytes (npu::onHost). A structured kernel (add, mul, mm) is the impl of its
// out= overload: opcore's meta function has checked the inputs, and `out` is allocated on the
// device, before it runs.
#include "NPUNativeFunctions.h"
#include "Npu.h"

#include <opcore/core/DeviceGuard.h>
#include <opcore/core/Empty.h>
#include <opcore/ops/add_native.h>
#include <opcore/ops/as_strided_native.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/mm_native.h>
#include <opcore/ops/mul_native.h>
#include <opcore/ops/view_native.h>

namespace npu {

Tensor NPUNativeFunctions::empty(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                                 std::optional<Device> device, std::optional<bool> pin_memory,
                                 std::optional<MemoryFormat> memory_format) {
  detail::checkStridedLayout("empty (npu)", layout);
  // The allocator serves the current device: npu:1 is made current for a tensor there, and a
  // device without an index is the current one.
  const Device target = device.value_or(Device(DeviceType::PrivateUse1));
  const DeviceGuard guard(target);
  return Tensor(detail::empty(size, dtype.value_or(ScalarType::Float), target,
                              memory_format.value_or(MemoryFormat::Contiguous), pin_memory.value_or(false)));
}

// Either side may be on the CPU (copy_ is the one operator that mixes devices).
Tensor& NPUNativeFunctions::copy_(Tensor& self, const Tensor& src, bool non_blocking) {
  onHost(self).copy_(onHost(src), non_blocking);
  return self;
}

Tensor& NPUNativeFunctions::fill_(Tensor& self, const Scalar& value) {
  onHost(self).fill_(value);
  return self;
}

namespace {

// Operands of out's shape and dtype, all contiguous and on the device: the loop a device kernel
// would run, `out[i] = op(a[i], b[i])`; false (nothing done) for anything else.
template <typename T, typename Op>
bool denseLoop(const Tensor& a, const Tensor& b, const Tensor& out, Op op) {
  for (const Tensor* t : {&a, &b, &out}) {
    if (t->is_cpu() || t->scalar_type() != out.scalar_type() || t->sizes() != out.sizes() || !t->is_contiguous()) {
      return false;
    }
  }
  const T* x = a.data_ptr<T>();
  const T* y = b.data_ptr<T>();
  T* z = out.data_ptr<T>();
  for (int64_t i = 0; i < out.numel(); ++i) z[i] = op(x[i], y[i]);
  return true;
}

template <typename Op>
bool denseFloatLoop(const Tensor& a, const Tensor& b, const Tensor& out, Op op) {
  if (out.scalar_type() == ScalarType::Float) return denseLoop<float>(a, b, out, op);
  if (out.scalar_type() == ScalarType::Double) return denseLoop<double>(a, b, out, op);
  return false;
}

}  // namespace

// Dense float operands of one shape take a loop of the backend's own; the rest (broadcasting,
// strides, other dtypes, a CPU scalar) the CPU impl, called directly rather than through the
// operator: the meta function it would run again has run.
void NPUNativeFunctions::add_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  // alpha != 1 goes to the CPU impl, which rounds its product as it does on the CPU.
  if (alpha.toDouble() == 1.0 && denseFloatLoop(self, other, out, [](auto x, auto y) { return x + y; })) return;
  native::add_out(onHost(self), onHost(other), alpha, onHost(out));
}

void NPUNativeFunctions::mul_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  if (denseFloatLoop(self, other, out, [](auto x, auto y) { return x * y; })) return;
  native::mul_out(onHost(self), onHost(other), onHost(out));
}

void NPUNativeFunctions::mm_out(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  native::mm_out(onHost(self), onHost(mat2), onHost(out));
}

// Views only change sizes and strides: opcore's own kernels serve every device.
Tensor NPUNativeFunctions::view(const Tensor& self, IntArrayRef size) { return native::view(self, size); }

Tensor NPUNativeFunctions::as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                                      std::optional<int64_t> storage_offset) {
  return native::as_strided(self, size, stride, storage_offset);
}

}  // namespace npu

// etlib's kernels, named by kernel_name in yaml/custom_ops.yaml and yaml/functions.yaml:
// `etlib::f` and `f` are both the C++ function etlib::native::f (Note [Kernel keys] in
// gen/model/kernel_keys.py).
#include <etlib/NativeImpls.h>
#include <etlib/ops/add_scaled_native.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/zeros.h>

#include <atomic>
#include <cstdint>

namespace etlib {

// Read by etlib_main: which kernel ran.
std::atomic<int64_t> neg_out_calls{0};
std::atomic<int64_t> neg_out_privateuse1_calls{0};

namespace {

template <typename T>
void addScaled(const Tensor& self, const Tensor& other, double alpha, Tensor& out) {
  const T* a = self.data_ptr<T>();
  const T* b = other.data_ptr<T>();
  T* c = out.data_ptr<T>();
  for (int64_t i = 0; i < out.numel(); ++i) c[i] = a[i] + static_cast<T>(alpha) * b[i];
}

}  // namespace

// The kernel keys promise 2-d contiguous tensors of one dtype; the sizes are the kernel's to check.
Tensor& native::add_scaled_floating(const Tensor& self, const Tensor& other, double alpha, Tensor& out) {
  OPCORE_CHECK(self.sizes() == other.sizes() && self.sizes() == out.sizes(), "etlib::add_scaled.out: sizes differ");
  if (self.scalar_type() == ScalarType::Float) {
    addScaled<float>(self, other, alpha, out);
  } else {
    addScaled<double>(self, other, alpha, out);
  }
  return out;
}

Tensor& native::add_scaled_long(const Tensor& self, const Tensor& other, double alpha, Tensor& out) {
  OPCORE_CHECK(self.sizes() == other.sizes() && self.sizes() == out.sizes(), "etlib::add_scaled.out: sizes differ");
  addScaled<int64_t>(self, other, alpha, out);
  return out;
}

// uint8 values wrap, as opcore's and PyTorch's do.
Tensor& native::add_scaled_byte(const Tensor& self, const Tensor& other, double alpha, Tensor& out) {
  OPCORE_CHECK(self.sizes() == other.sizes() && self.sizes() == out.sizes(), "etlib::add_scaled.out: sizes differ");
  addScaled<uint8_t>(self, other, alpha, out);
  return out;
}

// opcore's neg.out while etlib is loaded: counts its calls, computes as 0 - self.
Tensor& native::neg_out_counted(const Tensor& self, Tensor& out) {
  ++neg_out_calls;
  opcore::sub_outf(opcore::zeros({}, self.scalar_type()), self, 1, out);
  return out;
}

// neg.out at the backend etlib adds (PrivateUse1). A device backend would compute on its
// device; this one computes on the host, and counts its calls.
Tensor& native::neg_out_privateuse1(const Tensor& self, Tensor& out) {
  ++neg_out_privateuse1_calls;
  opcore::sub_outf(opcore::zeros({}, self.scalar_type()), self, 1, out);
  return out;
}

}  // namespace etlib

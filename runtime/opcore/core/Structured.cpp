// Output preparation for the generated wrappers of structured kernels. See Structured.h.
#include <opcore/core/Structured.h>

#include <opcore/core/Empty.h>
#include <opcore/core/Error.h>

namespace opcore::detail {

namespace {

void checkDeviceAndDtype(const char* op, const char* what, const TensorBase& t, const TensorSpec& spec) {
  OPCORE_CHECK(t.device() == spec.device || (t.device().type() == spec.device.type() && spec.device.index() < 0),
               op, ": expected ", what, " on ", spec.device, ", but it is on ", t.device());
  if (spec.exact_dtype) {
    OPCORE_CHECK(t.scalar_type() == spec.dtype, op, ": Expected ", what, " tensor to have dtype ", spec.dtype,
                 ", but got ", t.scalar_type(), " instead");
  } else {
    OPCORE_CHECK(canCast(spec.dtype, t.scalar_type()), op, ": result type ", spec.dtype,
                 " can't be cast to the desired output type ", t.scalar_type());
  }
}

}  // namespace

TensorBase makeOutput(const TensorSpec& spec) { return empty(spec.sizes, spec.dtype, spec.device); }

void prepareOut(const char* op, const TensorBase& out, const TensorSpec& spec,
                std::initializer_list<const TensorBase*> inputs) {
  checkDeviceAndDtype(op, "out", out, spec);
  if (out.sizes() == IntArrayRef(spec.sizes)) return;
  const auto* storage = out.unsafeGetTensorImpl()->storage().get();
  for (const TensorBase* input : inputs) {
    if (storage != nullptr && input->defined() && input->unsafeGetTensorImpl()->storage().get() == storage) return;
  }
  resizeOutput(out, spec.sizes);
}

TensorSpec specOf(const TensorBase& t) {
  return TensorSpec{std::vector<int64_t>(t.sizes().begin(), t.sizes().end()), t.scalar_type(), t.device()};
}

void checkOutListSize(const char* op, const char* what, size_t size, size_t expected) {
  OPCORE_CHECK(size == expected, op, ": expected ", expected, " tensors in '", what, "', got ", size);
}

void checkInplace(const char* op, const TensorBase& self, const TensorSpec& spec) {
  checkDeviceAndDtype(op, "self", self, spec);
  OPCORE_CHECK(self.sizes() == IntArrayRef(spec.sizes), op, ": output with shape ", self.sizes(),
               " doesn't match the broadcast shape ", IntArrayRef(spec.sizes));
}

}  // namespace opcore::detail

// softmax and log_softmax (issue #34) as PyTorch writes them: `dtype` converts self first, then
// _softmax / _log_softmax (never with half_to_float: that is PyTorch's CUDA path). The
// functional forms are CompositeImplicitAutograd (autograd differentiates _softmax); the out=
// forms CompositeExplicitAutograd.
#include <opcore/ops/_log_softmax.h>
#include <opcore/ops/_softmax.h>
#include <opcore/ops/log_softmax_native.h>
#include <opcore/ops/softmax_native.h>

namespace opcore::native {

namespace {

Tensor converted(const Tensor& self, std::optional<ScalarType> dtype) {
  return dtype ? self.to(*dtype) : self;
}

}  // namespace

Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return opcore::_softmax(converted(self, dtype), dim, false);
}

Tensor& softmax_out(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  return opcore::_softmax_out(out, converted(self, dtype), dim, false);
}

Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return opcore::_log_softmax(converted(self, dtype), dim, false);
}

Tensor& log_softmax_out(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  return opcore::_log_softmax_out(out, converted(self, dtype), dim, false);
}

}  // namespace opcore::native

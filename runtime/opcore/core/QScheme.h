// QScheme: how a quantized tensor maps its integers to real values (`qscheme(Tensor self) ->
// QScheme` in PyTorch's schemas). opcore has no quantized tensors yet; the type exists so that
// such schemas generate, box and infer like any other.
//   QScheme q = QScheme::PerTensorAffine;  std::cout << q;  // "PerTensorAffine"
#pragma once

#include <cstdint>
#include <iosfwd>

namespace opcore {

// The values and their order are PyTorch's (torch.per_tensor_affine is 0, ...).
enum class QScheme : int8_t {
  PerTensorAffine = 0,           // one scale and zero point for the whole tensor
  PerChannelAffine,              // one scale and zero point per channel
  PerTensorSymmetric,            // one scale, zero point 0
  PerChannelSymmetric,           // one scale per channel, zero points 0
  PerChannelAffineFloatQParams,  // per channel, with floating-point zero points
};
constexpr int kNumQSchemes = 5;

// "PerTensorAffine", ... (the enumerator name).
const char* toString(QScheme q);
std::ostream& operator<<(std::ostream& os, QScheme q);

}  // namespace opcore

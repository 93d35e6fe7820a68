// Names of quantization schemes.
#include <opcore/core/QScheme.h>

#include <ostream>

namespace opcore {

const char* toString(QScheme q) {
  switch (q) {
    case QScheme::PerTensorAffine: return "PerTensorAffine";
    case QScheme::PerChannelAffine: return "PerChannelAffine";
    case QScheme::PerTensorSymmetric: return "PerTensorSymmetric";
    case QScheme::PerChannelSymmetric: return "PerChannelSymmetric";
    case QScheme::PerChannelAffineFloatQParams: return "PerChannelAffineFloatQParams";
  }
  return "UnknownQScheme";
}

std::ostream& operator<<(std::ostream& os, QScheme q) { return os << toString(q); }

}  // namespace opcore

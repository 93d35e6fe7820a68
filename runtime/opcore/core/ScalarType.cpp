// Names and the promotion table of ScalarType.
#include <opcore/core/ScalarType.h>

#include <opcore/core/Error.h>

namespace opcore {

const char* toString(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "Bool";
    case ScalarType::Int: return "Int";
    case ScalarType::Long: return "Long";
    case ScalarType::Float: return "Float";
    case ScalarType::Double: return "Double";
  }
  return "Unknown";
}

ScalarType promoteTypes(ScalarType a, ScalarType b) {
  // The enumerators are ordered so that, for these five types, promotion is the maximum:
  // Bool < Int < Long < Float < Double. (Long + Float is Float, as in PyTorch.)
  return static_cast<int8_t>(a) >= static_cast<int8_t>(b) ? a : b;
}

}  // namespace opcore

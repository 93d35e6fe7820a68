// ScalarType: the element type of a tensor, and PyTorch's type-promotion lattice.
//   promoteTypes(ScalarType::Int, ScalarType::Float) == ScalarType::Float
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>

namespace opcore {

enum class ScalarType : int8_t {
  Bool = 0,
  Int,     // int32
  Long,    // int64
  Float,   // float32
  Double,  // float64
};
constexpr int kNumScalarTypes = 5;
// ATen's names for the dtypes:  opcore::empty({2}, opcore::kLong)
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;

// Element size in bytes (inline: every data pointer is computed with it).
constexpr size_t elementSize(ScalarType t) {
  constexpr size_t kSizes[kNumScalarTypes] = {1, 4, 8, 4, 8};  // in enumerator order
  return kSizes[static_cast<int>(t)];
}
// "Float", "Long", ... (the C++ enumerator name).
const char* toString(ScalarType t);
// The smallest type both a and b convert to without loss of category (bool < int < float).
ScalarType promoteTypes(ScalarType a, ScalarType b);

constexpr bool isFloatingType(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double;
}
constexpr bool isIntegralType(ScalarType t, bool include_bool) {
  return t == ScalarType::Int || t == ScalarType::Long || (include_bool && t == ScalarType::Bool);
}

// Whether a value of dtype `from` may be written into a tensor of dtype `to` (no float into
// integral, nothing but bool into bool), as for out= and in-place results.
//   canCast(ScalarType::Long, ScalarType::Float) == true
constexpr bool canCast(ScalarType from, ScalarType to) {
  if (isFloatingType(from) && isIntegralType(to, /*include_bool=*/false)) return false;
  return from == ScalarType::Bool || to != ScalarType::Bool;
}

// The default dtype for floating-point results (PyTorch's torch.get_default_dtype()).
constexpr ScalarType kDefaultFloat = ScalarType::Float;

template <typename T>
struct CppTypeToScalarType;
template <> struct CppTypeToScalarType<bool> { static constexpr ScalarType value = ScalarType::Bool; };
template <> struct CppTypeToScalarType<int32_t> { static constexpr ScalarType value = ScalarType::Int; };
template <> struct CppTypeToScalarType<int64_t> { static constexpr ScalarType value = ScalarType::Long; };
template <> struct CppTypeToScalarType<float> { static constexpr ScalarType value = ScalarType::Float; };
template <> struct CppTypeToScalarType<double> { static constexpr ScalarType value = ScalarType::Double; };

inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << toString(t); }

}  // namespace opcore

// Runs the lambda with `scalar_t` bound to the C++ type of `TYPE`:
//   OPCORE_DISPATCH_ALL_TYPES(t.scalar_type(), "fill_", [&] { fillTyped<scalar_t>(t, v); });
#define OPCORE_DISPATCH_CASE_(enum_name, cpp_type, ...) \
  case ::opcore::ScalarType::enum_name: {               \
    using scalar_t = cpp_type;                          \
    return __VA_ARGS__();                               \
  }

#define OPCORE_DISPATCH_ALL_TYPES(TYPE, NAME, ...)                                   \
  [&] {                                                                              \
    switch (TYPE) {                                                                  \
      OPCORE_DISPATCH_CASE_(Bool, bool, __VA_ARGS__)                                 \
      OPCORE_DISPATCH_CASE_(Int, int32_t, __VA_ARGS__)                               \
      OPCORE_DISPATCH_CASE_(Long, int64_t, __VA_ARGS__)                              \
      OPCORE_DISPATCH_CASE_(Float, float, __VA_ARGS__)                               \
      OPCORE_DISPATCH_CASE_(Double, double, __VA_ARGS__)                             \
    }                                                                                \
    OPCORE_FAIL(NAME, ": unsupported dtype ", static_cast<int>(TYPE));               \
  }()

#define OPCORE_DISPATCH_NUMERIC_TYPES(TYPE, NAME, ...)                               \
  [&] {                                                                              \
    switch (TYPE) {                                                                  \
      OPCORE_DISPATCH_CASE_(Int, int32_t, __VA_ARGS__)                               \
      OPCORE_DISPATCH_CASE_(Long, int64_t, __VA_ARGS__)                              \
      OPCORE_DISPATCH_CASE_(Float, float, __VA_ARGS__)                               \
      OPCORE_DISPATCH_CASE_(Double, double, __VA_ARGS__)                             \
      default:                                                                       \
        break;                                                                       \
    }                                                                                \
    OPCORE_FAIL(NAME, ": not implemented for dtype ", ::opcore::toString(TYPE));     \
  }()

#define OPCORE_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)                              \
  [&] {                                                                              \
    switch (TYPE) {                                                                  \
      OPCORE_DISPATCH_CASE_(Float, float, __VA_ARGS__)                               \
      OPCORE_DISPATCH_CASE_(Double, double, __VA_ARGS__)                             \
      default:                                                                       \
        break;                                                                       \
    }                                                                                \
    OPCORE_FAIL(NAME, ": not implemented for dtype ", ::opcore::toString(TYPE));     \
  }()

// ScalarType: the element type of a tensor, numbered exactly as c10 numbers it (so DLPack,
// serialized files and ExecuTorch's dtypes line up), the C++ type of each, and PyTorch's
// type-promotion lattice. See Note [Dtypes].
//   promoteTypes(kByte, kChar) == kShort;  ScalarTypeToCppType<kHalf> is opcore::Half
#pragma once

#include <opcore/core/BFloat16.h>
#include <opcore/core/Complex.h>
#include <opcore/core/Half.h>

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <type_traits>

namespace opcore {

// Note [Dtypes]
// The enumerators are c10's, in c10's order: a dtype's number is the same in opcore, PyTorch,
// ExecuTorch and the files they write. opcore's tensors hold the twelve that carry plain
// values (every integer width PyTorch has before the unsigned extensions, the three float
// widths and bfloat16, complex64/128, bool); ComplexHalf and the quantized types keep their
// numbers so that those after them do, and are refused where a tensor would be made
// (isSupportedScalarType).
#define OPCORE_FORALL_SCALAR_TYPES(_) \
  _(uint8_t, Byte)                    \
  _(int8_t, Char)                     \
  _(int16_t, Short)                   \
  _(int32_t, Int)                     \
  _(int64_t, Long)                    \
  _(::opcore::Half, Half)             \
  _(float, Float)                     \
  _(double, Double)                   \
  _(::opcore::complex<float>, ComplexFloat) \
  _(::opcore::complex<double>, ComplexDouble) \
  _(bool, Bool)                       \
  _(::opcore::BFloat16, BFloat16)

enum class ScalarType : int8_t {
  Byte = 0,       // uint8
  Char = 1,       // int8
  Short = 2,      // int16
  Int = 3,        // int32
  Long = 4,       // int64
  Half = 5,       // float16
  Float = 6,      // float32
  Double = 7,     // float64
  ComplexHalf = 8,  // (not supported)
  ComplexFloat = 9,   // complex64
  ComplexDouble = 10, // complex128
  Bool = 11,
  QInt8 = 12,     // (not supported)
  QUInt8 = 13,    // (not supported)
  QInt32 = 14,    // (not supported)
  BFloat16 = 15,
};
constexpr int kNumScalarTypes = 16;

// ATen's names for the dtypes:  opcore::empty({2}, opcore::kLong)
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kComplexHalf = ScalarType::ComplexHalf;
constexpr ScalarType kComplexFloat = ScalarType::ComplexFloat;
constexpr ScalarType kComplexDouble = ScalarType::ComplexDouble;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;

// Element size in bytes (inline: every data pointer is computed with it).
constexpr size_t elementSize(ScalarType t) {
  constexpr size_t kSizes[kNumScalarTypes] = {1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4, 2};
  return kSizes[static_cast<int>(t)];
}
// "Float", "Long", "BFloat16", ... (c10's names, as in PyTorch's error messages).
const char* toString(ScalarType t);
inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << toString(t); }

// Whether opcore's tensors can hold this dtype (Note [Dtypes]); throws naming it when not.
constexpr bool isSupportedScalarType(ScalarType t) {
  return t != ScalarType::ComplexHalf && t != ScalarType::QInt8 && t != ScalarType::QUInt8 &&
         t != ScalarType::QInt32 && static_cast<int>(t) >= 0 && static_cast<int>(t) < kNumScalarTypes;
}
void checkSupportedScalarType(ScalarType t);

// c10's categories. Floating includes Half and BFloat16; integral excludes Bool unless asked.
constexpr bool isFloatingType(ScalarType t) {
  return t == kHalf || t == kFloat || t == kDouble || t == kBFloat16;
}
constexpr bool isReducedFloatingType(ScalarType t) { return t == kHalf || t == kBFloat16; }
constexpr bool isComplexType(ScalarType t) {
  return t == kComplexHalf || t == kComplexFloat || t == kComplexDouble;
}
constexpr bool isIntegralType(ScalarType t, bool include_bool) {
  return (t >= kByte && t <= kLong) || (include_bool && t == kBool);
}
// Whether the type holds negative values (Byte and Bool do not).
constexpr bool isSignedType(ScalarType t) { return t != kByte && t != kBool; }

// complex64 <-> float32, complex128 <-> float64 (others unchanged / refused).
ScalarType toRealValueType(ScalarType t);
ScalarType toComplexType(ScalarType t);

// PyTorch's promotion table: the smallest dtype both a and b convert to without losing the
// category (bool < integral < floating < complex) or range; uint8 with int8 is int16, and
// float16 with bfloat16 is float32.
ScalarType promoteTypes(ScalarType a, ScalarType b);

// Whether a value of dtype `from` may be written into a tensor of dtype `to`, as for out= and
// in-place results (PyTorch's can_cast): not complex into real, not floating into integral,
// nothing but bool into bool.
//   canCast(kLong, kFloat) == true;  canCast(kFloat, kLong) == false
constexpr bool canCast(ScalarType from, ScalarType to) {
  if (isComplexType(from) && !isComplexType(to)) return false;
  if (isFloatingType(from) && isIntegralType(to, /*include_bool=*/false)) return false;
  return from == kBool || to != kBool;
}

// The default dtypes for floating-point and complex results (torch.get_default_dtype()).
constexpr ScalarType kDefaultFloat = ScalarType::Float;
constexpr ScalarType kDefaultComplex = ScalarType::ComplexFloat;

// C++ type <-> dtype:  CppTypeToScalarType<float>::value == kFloat;  ScalarTypeToCppType<kFloat> is float
template <typename T>
struct CppTypeToScalarType;
template <ScalarType>
struct ScalarTypeToCppTypeImpl;
#define OPCORE_SPECIALIZE_CPP_TYPE_(cpp_type, name)                                       \
  template <>                                                                             \
  struct CppTypeToScalarType<cpp_type> {                                                  \
    static constexpr ScalarType value = ScalarType::name;                                 \
  };                                                                                      \
  template <>                                                                             \
  struct ScalarTypeToCppTypeImpl<ScalarType::name> {                                      \
    using type = cpp_type;                                                                \
  };
OPCORE_FORALL_SCALAR_TYPES(OPCORE_SPECIALIZE_CPP_TYPE_)
#undef OPCORE_SPECIALIZE_CPP_TYPE_
template <ScalarType t>
using ScalarTypeToCppType = typename ScalarTypeToCppTypeImpl<t>::type;

// The type a kernel computes in for elements of type T (ATen's opmath_type): float for Half
// and BFloat16, so that they round once per element; T itself otherwise.
template <typename T>
struct OpMathType {
  using type = T;
};
template <>
struct OpMathType<Half> {
  using type = float;
};
template <>
struct OpMathType<BFloat16> {
  using type = float;
};
template <typename T>
using opmath_t = typename OpMathType<T>::type;

// A value of type From as type To, as a dtype conversion (copy_, .to()) makes it: a complex
// value into a real type keeps its real part (into bool: whether it is nonzero), a real one
// into a complex type has imaginary part 0. A floating value into uint8 goes through int64, as
// in PyTorch: C++ leaves a negative one undefined, which x86 wraps and a GPU clamps; this way
// both wrap (-2.5 -> 254).
template <typename To, typename From>
OPCORE_HOST_DEVICE inline To convertValue(From v) {
  if constexpr (is_complex_v<To>) {
    if constexpr (is_complex_v<From>) {
      return To(v);
    } else {
      return To(static_cast<typename To::value_type>(v));
    }
  } else if constexpr (is_complex_v<From>) {
    if constexpr (std::is_same_v<To, bool>) return static_cast<bool>(v);
    return convertValue<To>(v.real());
  } else if constexpr (std::is_same_v<To, uint8_t> && !std::is_integral_v<From>) {
    return static_cast<uint8_t>(static_cast<int64_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

namespace detail {
// Throws NotImplementedError: "exp" not implemented for 'Bool' (PyTorch's words).
[[noreturn]] void throwNotImplementedForDtype(const char* name, ScalarType t);
}  // namespace detail

}  // namespace opcore

// Note [Dispatching on dtypes]
// The OPCORE_DISPATCH_* macros run a lambda with `scalar_t` bound to the C++ type of a
// runtime dtype, over the set the macro names, as ATen's AT_DISPATCH_* do; any other dtype
// raises NotImplementedError naming the operation and the dtype. The sets:
//   INTEGRAL   Byte, Char, Short, Int, Long          FLOATING  Double, Float
//   ALL_TYPES  INTEGRAL + FLOATING                    COMPLEX   ComplexDouble, ComplexFloat
// and _AND(T1) / _AND2 / _AND3 add dtypes by value:
//   OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, t.scalar_type(), "exp", [&] { ... });
// OPCORE_DISPATCH_SWITCH with OPCORE_DISPATCH_CASE* builds any other set.
#define OPCORE_DISPATCH_SWITCH(TYPE, NAME, ...)                              \
  [&] {                                                                      \
    const ::opcore::ScalarType the_type_ = TYPE;                             \
    switch (the_type_) {                                                     \
      __VA_ARGS__                                                            \
      default:                                                               \
        break;                                                               \
    }                                                                        \
    ::opcore::detail::throwNotImplementedForDtype(NAME, the_type_);          \
  }()

#define OPCORE_DISPATCH_CASE(enum_value, ...)                      \
  case enum_value: {                                               \
    using scalar_t [[maybe_unused]] = ::opcore::ScalarTypeToCppType<enum_value>; \
    return __VA_ARGS__();                                          \
  }

#define OPCORE_DISPATCH_CASE_INTEGRAL_TYPES(...)                  \
  OPCORE_DISPATCH_CASE(::opcore::ScalarType::Byte, __VA_ARGS__)  \
  OPCORE_DISPATCH_CASE(::opcore::ScalarType::Char, __VA_ARGS__)  \
  OPCORE_DISPATCH_CASE(::opcore::ScalarType::Short, __VA_ARGS__) \
  OPCORE_DISPATCH_CASE(::opcore::ScalarType::Int, __VA_ARGS__)   \
  OPCORE_DISPATCH_CASE(::opcore::ScalarType::Long, __VA_ARGS__)
#define OPCORE_DISPATCH_CASE_FLOATING_TYPES(...)                   \
  OPCORE_DISPATCH_CASE(::opcore::ScalarType::Double, __VA_ARGS__) \
  OPCORE_DISPATCH_CASE(::opcore::ScalarType::Float, __VA_ARGS__)
#define OPCORE_DISPATCH_CASE_COMPLEX_TYPES(...)                           \
  OPCORE_DISPATCH_CASE(::opcore::ScalarType::ComplexDouble, __VA_ARGS__) \
  OPCORE_DISPATCH_CASE(::opcore::ScalarType::ComplexFloat, __VA_ARGS__)
#define OPCORE_DISPATCH_CASE_ALL_TYPES(...)        \
  OPCORE_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__) \
  OPCORE_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)

#define OPCORE_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__))
#define OPCORE_DISPATCH_INTEGRAL_TYPES_AND(T1, TYPE, NAME, ...)                             \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__) \
                                         OPCORE_DISPATCH_CASE(T1, __VA_ARGS__))
#define OPCORE_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__))
#define OPCORE_DISPATCH_FLOATING_TYPES_AND2(T1, T2, TYPE, NAME, ...)                        \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) \
                                         OPCORE_DISPATCH_CASE(T1, __VA_ARGS__)        \
                                             OPCORE_DISPATCH_CASE(T2, __VA_ARGS__))
#define OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(T1, T2, TYPE, NAME, ...)           \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) \
                                         OPCORE_DISPATCH_CASE_COMPLEX_TYPES(__VA_ARGS__)  \
                                             OPCORE_DISPATCH_CASE(T1, __VA_ARGS__)    \
                                                 OPCORE_DISPATCH_CASE(T2, __VA_ARGS__))
#define OPCORE_DISPATCH_ALL_TYPES(TYPE, NAME, ...) \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__))
#define OPCORE_DISPATCH_ALL_TYPES_AND2(T1, T2, TYPE, NAME, ...)                        \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) \
                                         OPCORE_DISPATCH_CASE(T1, __VA_ARGS__)   \
                                             OPCORE_DISPATCH_CASE(T2, __VA_ARGS__))
#define OPCORE_DISPATCH_ALL_TYPES_AND3(T1, T2, T3, TYPE, NAME, ...)                    \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) \
                                         OPCORE_DISPATCH_CASE(T1, __VA_ARGS__)   \
                                             OPCORE_DISPATCH_CASE(T2, __VA_ARGS__) \
                                                 OPCORE_DISPATCH_CASE(T3, __VA_ARGS__))
#define OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX(TYPE, NAME, ...)                      \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) \
                                         OPCORE_DISPATCH_CASE_COMPLEX_TYPES(__VA_ARGS__))
#define OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND(T1, TYPE, NAME, ...)              \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) \
                                         OPCORE_DISPATCH_CASE_COMPLEX_TYPES(__VA_ARGS__) \
                                             OPCORE_DISPATCH_CASE(T1, __VA_ARGS__))
#define OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(T1, T2, TYPE, NAME, ...)            \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) \
                                         OPCORE_DISPATCH_CASE_COMPLEX_TYPES(__VA_ARGS__) \
                                             OPCORE_DISPATCH_CASE(T1, __VA_ARGS__)   \
                                                 OPCORE_DISPATCH_CASE(T2, __VA_ARGS__))
#define OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(T1, T2, T3, TYPE, NAME, ...)        \
  OPCORE_DISPATCH_SWITCH(TYPE, NAME, OPCORE_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) \
                                         OPCORE_DISPATCH_CASE_COMPLEX_TYPES(__VA_ARGS__) \
                                             OPCORE_DISPATCH_CASE(T1, __VA_ARGS__)   \
                                                 OPCORE_DISPATCH_CASE(T2, __VA_ARGS__) \
                                                     OPCORE_DISPATCH_CASE(T3, __VA_ARGS__))
// Every dtype a tensor can hold.
#define OPCORE_DISPATCH_EVERY_TYPE(TYPE, NAME, ...) \
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(::opcore::kHalf, ::opcore::kBFloat16, ::opcore::kBool, TYPE, NAME, __VA_ARGS__)

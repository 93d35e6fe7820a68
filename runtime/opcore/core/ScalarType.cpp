// Names and the promotion table of ScalarType.
#include <opcore/core/ScalarType.h>

#include <opcore/core/Error.h>

namespace opcore {

const char* toString(ScalarType t) {
  static constexpr const char* kNames[kNumScalarTypes] = {
      "Byte", "Char",         "Short",         "Int",  "Long",  "Half",   "Float",  "Double",
      "ComplexHalf", "ComplexFloat", "ComplexDouble", "Bool", "QInt8", "QUInt8", "QInt32", "BFloat16"};
  const int i = static_cast<int>(t);
  return i >= 0 && i < kNumScalarTypes ? kNames[i] : "Undefined";
}

void checkSupportedScalarType(ScalarType t) {
  OPCORE_CHECK_NOT_IMPLEMENTED(isSupportedScalarType(t), "opcore's tensors cannot hold dtype ", t,
                               " (number ", static_cast<int>(t), ")");
}

ScalarType toRealValueType(ScalarType t) {
  switch (t) {
    case kComplexFloat: return kFloat;
    case kComplexDouble: return kDouble;
    default: return t;
  }
}

ScalarType toComplexType(ScalarType t) {
  switch (t) {
    case kFloat: case kHalf: case kBFloat16: case kComplexFloat: return kComplexFloat;
    case kDouble: case kComplexDouble: return kComplexDouble;
    default: OPCORE_FAIL("no complex dtype corresponds to ", t);
  }
}

ScalarType promoteTypes(ScalarType a, ScalarType b) {
  checkSupportedScalarType(a);
  checkSupportedScalarType(b);
  // PyTorch's table, rows and columns in enumerator order; the unsupported rows and columns
  // (ComplexHalf, the quantized types) are never read.
  constexpr ScalarType u1 = kByte, i1 = kChar, i2 = kShort, i4 = kInt, i8 = kLong, f2 = kHalf,
                       f4 = kFloat, f8 = kDouble, c4 = kComplexFloat, c8 = kComplexDouble,
                       b1 = kBool, bf = kBFloat16, ud = kComplexHalf;
  static constexpr ScalarType kTable[kNumScalarTypes][kNumScalarTypes] = {
      //        u1  i1  i2  i4  i8  f2  f4  f8  c2  c4  c8  b1  q1  q2  q3  bf
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, ud, c4, c8, u1, ud, ud, ud, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, ud, c4, c8, i1, ud, ud, ud, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, ud, c4, c8, i2, ud, ud, ud, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, ud, c4, c8, i4, ud, ud, ud, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, ud, c4, c8, i8, ud, ud, ud, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, ud, c4, c8, f2, ud, ud, ud, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, ud, c4, c8, f4, ud, ud, ud, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, ud, c8, c8, f8, ud, ud, ud, f8},
      /* c2 */ {ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c8, ud, c4, c8, c4, ud, ud, ud, c4},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, ud, c8, c8, c8, ud, ud, ud, c8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, ud, c4, c8, b1, ud, ud, ud, bf},
      /* q1 */ {ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud},
      /* q2 */ {ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud},
      /* q3 */ {ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud, ud},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, ud, c4, c8, bf, ud, ud, ud, bf},
  };
  return kTable[static_cast<int>(a)][static_cast<int>(b)];
}

namespace detail {

void throwNotImplementedForDtype(const char* name, ScalarType t) {
  throwNotImplementedError(__FILE__, __LINE__, strCat('"', name, "\" not implemented for '", t, "'"));
}

}  // namespace detail

}  // namespace opcore

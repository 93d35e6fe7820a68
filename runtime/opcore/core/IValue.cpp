// The cold half of IValue: error messages, equality and printing.
#include <opcore/core/IValue.h>

#include <charconv>
#include <cstdio>
#include <ostream>

namespace opcore {

const char* IValue::tagName(Tag t) {
  switch (t) {
    case Tag::None: return "None";
    case Tag::Int: return "Int";
    case Tag::Double: return "Double";
    case Tag::Bool: return "Bool";
    case Tag::ScalarType: return "ScalarType";
    case Tag::Device: return "Device";
    case Tag::Layout: return "Layout";
    case Tag::MemoryFormat: return "MemoryFormat";
    case Tag::QScheme: return "QScheme";
    case Tag::Dimname: return "Dimname";
    case Tag::Stream: return "Stream";
    case Tag::Tensor: return "Tensor";
    case Tag::String: return "String";
    case Tag::ComplexDouble: return "ComplexDouble";
    case Tag::IntList: return "IntList";
    case Tag::DoubleList: return "DoubleList";
    case Tag::BoolList: return "BoolList";
    case Tag::TensorList: return "TensorList";
    case Tag::GenericList: return "GenericList";
    case Tag::Tuple: return "Tuple";
    case Tag::Storage: return "Storage";
    case Tag::Generator: return "Generator";
  }
  OPCORE_INTERNAL_ASSERT(false, "IValue tag ", static_cast<int>(t), " has no name");
  return "";  // unreachable
}

void IValue::reportWrongTag(Tag expected) const {
  OPCORE_FAIL("IValue: expected ", tagName(expected), " but got ", tagName());
}

void IValue::reportWrongScalar() const {
  OPCORE_FAIL("IValue: expected Scalar (Int, Double, Bool or ComplexDouble) but got ", tagName());
}

void IValue::reportIntOverflow(uint64_t v) {
  OPCORE_FAIL("IValue: the unsigned value ", v, " does not fit in an Int (int64_t)");
}

ScalarType IValue::scalarTypeFromInt() const {
  OPCORE_CHECK(tag_ == Tag::Int, "IValue: expected ScalarType but got ", tagName());
  const int64_t v = payload_.u.as_int;
  OPCORE_CHECK(v >= 0 && v < kNumScalarTypes, "IValue: Int ", v,
               " is not a ScalarType (valid values are 0 to ", kNumScalarTypes - 1, ")");
  return static_cast<ScalarType>(v);
}

int64_t IValue::enumFromInt(Tag expected, int count) const {
  OPCORE_CHECK(tag_ == Tag::Int, "IValue: expected ", tagName(expected), " but got ", tagName());
  const int64_t v = payload_.u.as_int;
  OPCORE_CHECK(v >= 0 && v < count, "IValue: Int ", v, " is not a ", tagName(expected),
               " (valid values are 0 to ", count - 1, ")");
  return v;
}

const char* IValue::checkCString(const char* s) {
  OPCORE_CHECK(s != nullptr, "IValue: cannot make a String from a null const char*");
  return s;
}

namespace {

template <typename T>
bool listsEqual(ArrayRef<T> a, ArrayRef<T> b) {
  return a == b;
}

bool tensorListsEqual(ArrayRef<TensorBase> a, ArrayRef<TensorBase> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_same(b[i])) return false;
  }
  return true;
}

// Shortest text that reads back as the same double, Python style: 2.0, 0.1, 1e+20, inf, nan.
void printDouble(std::ostream& os, double d) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d);
  OPCORE_INTERNAL_ASSERT(ec == std::errc(), "to_chars failed for a double");
  std::string_view text(buf, static_cast<size_t>(end - buf));
  os << text;
  if (text.find_first_not_of("-0123456789") == std::string_view::npos) os << ".0";
}

void printString(std::ostream& os, std::string_view s) {
  os << '"';
  for (const char c : s) {
    switch (c) {
      case '"': os << "\\\""; break;
      case '\\': os << "\\\\"; break;
      case '\n': os << "\\n"; break;
      case '\t': os << "\\t"; break;
      case '\r': os << "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char hex[8];
          std::snprintf(hex, sizeof(hex), "\\x%02x", static_cast<unsigned>(c));
          os << hex;
        } else {
          os << c;
        }
    }
  }
  os << '"';
}

void printStorage(std::ostream& os, const Storage& s) {
  if (!s) {
    os << "Storage(undefined)";
    return;
  }
  os << "Storage(nbytes=" << s->nbytes() << ", device=" << s->device().str() << ")";
}

void printTensor(std::ostream& os, const TensorBase& t) {
  if (!t.defined()) {
    os << "Tensor(undefined)";
    return;
  }
  os << "Tensor(sizes=" << t.sizes() << ", dtype=" << toString(t.scalar_type())
     << ", device=" << t.device().str() << ")";
}

// "[a, b]", or "(a, b)" with a trailing comma for one element, as Python writes tuples.
template <typename T, typename PrintOne>
void printSequence(std::ostream& os, const T& values, bool tuple, PrintOne print_one) {
  os << (tuple ? "(" : "[");
  bool first = true;
  for (const auto& v : values) {
    if (!first) os << ", ";
    first = false;
    print_one(v);
  }
  if (tuple && values.size() == 1) os << ",";
  os << (tuple ? ")" : "]");
}

}  // namespace

bool operator==(const IValue& a, const IValue& b) {
  if (a.tag() != b.tag()) return false;
  using Tag = IValue::Tag;
  switch (a.tag()) {
    case Tag::None: return true;
    case Tag::Int: return a.toInt() == b.toInt();
    case Tag::Double: return a.toDouble() == b.toDouble();
    case Tag::Bool: return a.toBool() == b.toBool();
    case Tag::ScalarType: return a.toScalarType() == b.toScalarType();
    case Tag::Device: return a.toDevice() == b.toDevice();
    case Tag::Layout: return a.toLayout() == b.toLayout();
    case Tag::MemoryFormat: return a.toMemoryFormat() == b.toMemoryFormat();
    case Tag::QScheme: return a.toQScheme() == b.toQScheme();
    case Tag::Dimname: return a.toDimname() == b.toDimname();
    case Tag::Stream: return a.toStream() == b.toStream();
    case Tag::Tensor: return a.toTensorBase().is_same(b.toTensorBase());
    case Tag::String: return a.toStringView() == b.toStringView();
    case Tag::ComplexDouble: return a.toComplexDouble() == b.toComplexDouble();
    case Tag::IntList: return listsEqual(a.toIntList(), b.toIntList());
    case Tag::DoubleList: return listsEqual(a.toDoubleList(), b.toDoubleList());
    case Tag::BoolList: return a.toBoolList() == b.toBoolList();
    case Tag::TensorList: return tensorListsEqual(a.toTensorList(), b.toTensorList());
    case Tag::GenericList: return listsEqual(a.toGenericList(), b.toGenericList());
    case Tag::Tuple: return listsEqual(a.toTuple(), b.toTuple());
    case Tag::Storage: return a.toStorage().get() == b.toStorage().get();  // identity
    case Tag::Generator: return a.toGenerator() == b.toGenerator();        // identity
  }
  OPCORE_INTERNAL_ASSERT(false, "operator==: IValue tag ", static_cast<int>(a.tag()), " not handled");
  return false;  // unreachable
}

std::ostream& operator<<(std::ostream& os, IValue::Tag t) { return os << IValue::tagName(t); }

std::ostream& operator<<(std::ostream& os, const IValue& v) {
  using Tag = IValue::Tag;
  switch (v.tag()) {
    case Tag::None: return os << "None";
    case Tag::Int: return os << v.toInt();
    case Tag::Double: printDouble(os, v.toDouble()); return os;
    case Tag::Bool: return os << (v.toBool() ? "True" : "False");
    case Tag::ScalarType: return os << toString(v.toScalarType());
    case Tag::Device: return os << v.toDevice().str();
    case Tag::Layout: return os << v.toLayout();
    case Tag::MemoryFormat: return os << v.toMemoryFormat();
    case Tag::QScheme: return os << v.toQScheme();
    case Tag::Dimname: return os << v.toDimname();
    case Tag::Stream: return os << v.toStream();
    case Tag::Tensor: printTensor(os, v.toTensorBase()); return os;
    case Tag::String: printString(os, v.toStringView()); return os;
    case Tag::ComplexDouble: return os << v.toComplexDouble();
    case Tag::IntList:
      printSequence(os, v.toIntList(), false, [&](int64_t x) { os << x; });
      return os;
    case Tag::DoubleList:
      printSequence(os, v.toDoubleList(), false, [&](double x) { printDouble(os, x); });
      return os;
    case Tag::BoolList:
      printSequence(os, v.toBoolList(), false, [&](bool x) { os << (x ? "True" : "False"); });
      return os;
    case Tag::TensorList:
      printSequence(os, v.toTensorList(), false, [&](const TensorBase& t) { printTensor(os, t); });
      return os;
    case Tag::GenericList:
    case Tag::Tuple:
      printSequence(os, v.isTuple() ? v.toTuple() : v.toGenericList(), v.isTuple(),
                    [&](const IValue& x) { os << x; });
      return os;
    case Tag::Storage: printStorage(os, v.toStorage()); return os;
    case Tag::Generator: return os << v.toGenerator();
  }
  OPCORE_INTERNAL_ASSERT(false, "operator<<: IValue tag ", static_cast<int>(v.tag()), " not handled");
  return os;  // unreachable
}

}  // namespace opcore

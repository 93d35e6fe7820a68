// libFuzzer target: IValue (runtime/opcore/core/IValue.{h,cpp}) and the templated conversions
// the dispatcher's boxing uses (detail::FromIValue in runtime/opcore/dispatch/Boxing.h).
// From the input it builds IValues of every tag (nested lists and tuples included, tensors
// owned and borrowed), then for each:
//   - every accessor and every FromIValue<T> either succeeds, exactly when the tag (and for
//     the Int -> enum and DeviceIndex conversions, the value) allows it, or throws
//     opcore::Error; values built from C++ come back unchanged;
//   - copies, moves, assignments (self-assignment, and assignment from an element of the
//     IValue's own payload) keep the value; a moved-from IValue is None;
//   - operator== agrees with a structural comparison and is symmetric; printing never fails.
// Anything else (another exception, a sanitizer report, a leak) is a defect.
#include <opcore/core/Empty.h>
#include <opcore/core/Error.h>
#include <opcore/core/IValue.h>
#include <opcore/dispatch/Boxing.h>

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace opcore {
namespace {

using Tag = IValue::Tag;
using detail::FromIValue;

std::string show(const IValue& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

[[noreturn]] void failure(const std::string& what, const IValue& v) {
  std::fprintf(stderr, "fuzz_ivalue: %s (IValue %s: %s)\n", what.c_str(), v.tagName(), show(v).c_str());
  std::abort();
}

// Runs `f`; true when it returned, false when it threw opcore::Error. Other exceptions escape
// (libFuzzer reports them as crashes).
template <typename F>
bool succeeds(F&& f) {
  try {
    f();
    return true;
  } catch (const Error&) {
    return false;
  }
}

// How same() compares doubles: bitwise (NaN equal to NaN, -0.0 different from 0.0), or with
// IEEE == as operator== does.
bool g_ieee_doubles = false;

bool sameDouble(double a, double b) {
  if (g_ieee_doubles) return a == b;
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

bool hasNaN(const IValue& v) {
  switch (v.tag()) {
    case Tag::Double: return std::isnan(v.toDouble());
    case Tag::ComplexDouble: return std::isnan(v.toComplexDouble().real()) || std::isnan(v.toComplexDouble().imag());
    case Tag::DoubleList:
      for (double d : v.toDoubleList()) {
        if (std::isnan(d)) return true;
      }
      return false;
    case Tag::GenericList:
    case Tag::Tuple:
      for (const IValue& e : v.isTuple() ? v.toTuple() : v.toGenericList()) {
        if (hasNaN(e)) return true;
      }
      return false;
    default: return false;
  }
}

// Structural equality, with NaN equal to NaN and -0.0 different from 0.0 (bitwise doubles).
bool same(const IValue& a, const IValue& b) {
  if (a.tag() != b.tag()) return false;
  switch (a.tag()) {
    case Tag::Double: return sameDouble(a.toDouble(), b.toDouble());
    case Tag::ComplexDouble:
      return sameDouble(a.toComplexDouble().real(), b.toComplexDouble().real()) &&
             sameDouble(a.toComplexDouble().imag(), b.toComplexDouble().imag());
    case Tag::DoubleList: {
      const auto x = a.toDoubleList(), y = b.toDoubleList();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!sameDouble(x[i], y[i])) return false;
      }
      return true;
    }
    case Tag::GenericList:
    case Tag::Tuple: {
      const auto x = a.isTuple() ? a.toTuple() : a.toGenericList();
      const auto y = b.isTuple() ? b.toTuple() : b.toGenericList();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!same(x[i], y[i])) return false;
      }
      return true;
    }
    default: return a == b;
  }
}

// ---- building IValues from the input ----------------------------------------------------------

struct Builder {
  FuzzedDataProvider& in;
  std::vector<TensorBase> tensors;  // a few tensors, so that identity comparisons can match

  TensorBase tensor() {
    const size_t i = in.ConsumeIntegralInRange<size_t>(0, tensors.size());
    return i == tensors.size() ? TensorBase() : tensors[i];  // sometimes undefined
  }
  double number() {
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
      case 0: return std::nan("");
      case 1: return in.ConsumeBool() ? INFINITY : -INFINITY;
      case 2: return in.ConsumeBool() ? 0.0 : -0.0;
      default: return in.ConsumeFloatingPoint<double>();
    }
  }
  Device device() {
    return Device(static_cast<DeviceType>(in.ConsumeIntegralInRange<int>(0, 2)), in.ConsumeIntegral<int8_t>());
  }
  std::string text() { return in.ConsumeRandomLengthString(24); }

  IValue make(int depth) {
    const Tag tag = static_cast<Tag>(in.ConsumeIntegralInRange<int>(0, static_cast<int>(Tag::Generator)));
    switch (tag) {
      case Tag::None: return IValue();
      case Tag::Int: return IValue(in.ConsumeIntegral<int64_t>());
      case Tag::Double: return IValue(number());
      case Tag::Bool: return IValue(in.ConsumeBool());
      case Tag::ScalarType: return IValue(static_cast<ScalarType>(in.ConsumeIntegralInRange<int>(0, kNumScalarTypes - 1)));
      case Tag::Device: return IValue(device());
      case Tag::Layout: return IValue(static_cast<Layout>(in.ConsumeIntegralInRange<int>(0, kNumLayouts - 1)));
      case Tag::MemoryFormat:
        return IValue(static_cast<MemoryFormat>(in.ConsumeIntegralInRange<int>(0, kNumMemoryFormats - 1)));
      case Tag::QScheme: return IValue(static_cast<QScheme>(in.ConsumeIntegralInRange<int>(0, kNumQSchemes - 1)));
      case Tag::Dimname: {
        // Valid names are interned for good (Dimname.cpp): a bounded set of them, so that runs
        // free what they allocate and libFuzzer's leak check stays on.
        static const char* const kNames[] = {"N", "C", "H", "W", "*", "", "1x", "a b", "_", "N*"};
        std::optional<Dimname> n;
        const std::string name = in.ConsumeBool() ? std::string(kNames[in.ConsumeIntegralInRange<size_t>(0, 9)])
                                                  : in.ConsumeBytesAsString(1);
        if (succeeds([&] { n = Dimname::fromString(name); })) return IValue(*n);
        return IValue(Dimname::wildcard());
      }
      case Tag::Stream: return IValue(Stream(device(), in.ConsumeIntegral<int32_t>()));
      case Tag::Tensor: {
        const TensorBase t = tensor();
        return in.ConsumeBool() ? IValue(t) : IValue::borrow(tensors.empty() ? t : tensors.front());
      }
      case Tag::String: return IValue(text());
      case Tag::ComplexDouble: return IValue(complex<double>(number(), number()));
      case Tag::IntList: {
        std::vector<int64_t> v(in.ConsumeIntegralInRange<size_t>(0, 5));
        for (auto& x : v) x = in.ConsumeIntegral<int64_t>();
        return IValue(std::move(v));
      }
      case Tag::DoubleList: {
        std::vector<double> v(in.ConsumeIntegralInRange<size_t>(0, 5));
        for (auto& x : v) x = number();
        return IValue(std::move(v));
      }
      case Tag::BoolList: {
        std::vector<bool> v(in.ConsumeIntegralInRange<size_t>(0, 5));
        for (size_t i = 0; i < v.size(); ++i) v[i] = in.ConsumeBool();
        return IValue(std::move(v));
      }
      case Tag::TensorList: {
        std::vector<TensorBase> v(in.ConsumeIntegralInRange<size_t>(0, 4));
        for (auto& t : v) t = tensor();
        return IValue(std::move(v));
      }
      case Tag::GenericList:
      case Tag::Tuple: {
        std::vector<IValue> v(depth > 0 ? in.ConsumeIntegralInRange<size_t>(0, 4) : 0);
        for (auto& e : v) e = make(depth - 1);
        return tag == Tag::Tuple ? IValue::tuple(std::move(v)) : IValue::list(std::move(v));
      }
      case Tag::Storage: {
        if (in.ConsumeBool() || tensors.empty()) return IValue(Storage());
        return IValue(tensors.front().storage());
      }
      case Tag::Generator:
        return in.ConsumeBool() ? IValue(Generator()) : IValue(Generator::create(device(), in.ConsumeIntegral<uint64_t>()));
    }
    return IValue();
  }
};

// ---- which conversions must succeed -------------------------------------------------------------

bool intIn(const IValue& v, int64_t lo, int64_t hi) { return v.isInt() && v.toInt() >= lo && v.toInt() <= hi; }

bool allOf(const IValue& v, bool (*ok)(const IValue&)) {
  if (!v.isGenericList()) return false;
  for (const IValue& e : v.toGenericList()) {
    if (!ok(e)) return false;
  }
  return true;
}

bool isOptionalTensor(const IValue& v) { return v.isNone() || v.isTensor(); }
bool isString(const IValue& v) { return v.isString(); }
bool isScalar(const IValue& v) { return v.isScalar(); }
bool isDimname(const IValue& v) { return v.isDimname(); }
bool isIntList(const IValue& v) { return v.isIntList(); }

// Checks that FromIValue<T> succeeds exactly when `ok`, for T and std::optional<T>.
template <typename T>
void checkFrom(const IValue& v, bool ok, const char* type) {
  if (succeeds([&] { [[maybe_unused]] auto holder = FromIValue<T>::get(v); }) != ok) {
    failure(std::string("FromIValue<") + type + ">: " + (ok ? "threw" : "accepted"), v);
  }
  const bool ok_optional = v.isNone() || ok;
  if (succeeds([&] { [[maybe_unused]] auto holder = FromIValue<std::optional<T>>::get(v); }) != ok_optional) {
    failure(std::string("FromIValue<optional<") + type + ">>: " + (ok_optional ? "threw" : "accepted"), v);
  }
}

template <typename F>
void checkAccessor(const IValue& v, bool ok, const char* name, F&& f) {
  if (succeeds(f) != ok) failure(std::string(name) + (ok ? " threw" : " did not throw"), v);
}

void checkConversions(const IValue& v) {
  const Tag t = v.tag();
  checkAccessor(v, t == Tag::Tensor, "toTensorBase", [&] { (void)v.toTensorBase(); });
  checkAccessor(v, t == Tag::Int, "toInt", [&] { (void)v.toInt(); });
  checkAccessor(v, t == Tag::Double, "toDouble", [&] { (void)v.toDouble(); });
  checkAccessor(v, t == Tag::Bool, "toBool", [&] { (void)v.toBool(); });
  checkAccessor(v, t == Tag::ComplexDouble, "toComplexDouble", [&] { (void)v.toComplexDouble(); });
  checkAccessor(v, v.isScalar(), "toScalar", [&] { (void)v.toScalar(); });
  checkAccessor(v, t == Tag::ScalarType || intIn(v, 0, kNumScalarTypes - 1), "toScalarType",
                [&] { (void)v.toScalarType(); });
  checkAccessor(v, t == Tag::Device, "toDevice", [&] { (void)v.toDevice(); });
  checkAccessor(v, t == Tag::Layout || intIn(v, 0, kNumLayouts - 1), "toLayout", [&] { (void)v.toLayout(); });
  checkAccessor(v, t == Tag::MemoryFormat || intIn(v, 0, kNumMemoryFormats - 1), "toMemoryFormat",
                [&] { (void)v.toMemoryFormat(); });
  checkAccessor(v, t == Tag::QScheme || intIn(v, 0, kNumQSchemes - 1), "toQScheme", [&] { (void)v.toQScheme(); });
  checkAccessor(v, t == Tag::Dimname, "toDimname", [&] { (void)v.toDimname(); });
  checkAccessor(v, t == Tag::Stream, "toStream", [&] { (void)v.toStream(); });
  checkAccessor(v, t == Tag::Storage, "toStorage", [&] { (void)v.toStorage(); });
  checkAccessor(v, t == Tag::Generator, "toGenerator", [&] { (void)v.toGenerator(); });
  checkAccessor(v, t == Tag::String, "toStringView", [&] { (void)v.toStringView(); });
  checkAccessor(v, t == Tag::IntList, "toIntList", [&] { (void)v.toIntList(); });
  checkAccessor(v, t == Tag::DoubleList, "toDoubleList", [&] { (void)v.toDoubleList(); });
  checkAccessor(v, t == Tag::BoolList, "toBoolList", [&] { (void)v.toBoolList(); });
  checkAccessor(v, t == Tag::TensorList, "toTensorList", [&] { (void)v.toTensorList(); });
  checkAccessor(v, t == Tag::GenericList, "toGenericList", [&] { (void)v.toGenericList(); });
  checkAccessor(v, t == Tag::Tuple, "toTuple", [&] { (void)v.toTuple(); });

  // The conversions of Boxing.h, as an unboxed kernel's arguments get them.
  checkFrom<int64_t>(v, t == Tag::Int, "int64_t");
  checkFrom<DeviceIndex>(v, intIn(v, -128, 127), "DeviceIndex");
  checkFrom<double>(v, t == Tag::Double, "double");
  checkFrom<bool>(v, t == Tag::Bool, "bool");
  checkFrom<Scalar>(v, v.isScalar(), "Scalar");
  checkFrom<ScalarType>(v, t == Tag::ScalarType || intIn(v, 0, kNumScalarTypes - 1), "ScalarType");
  checkFrom<Device>(v, t == Tag::Device, "Device");
  checkFrom<Layout>(v, t == Tag::Layout || intIn(v, 0, kNumLayouts - 1), "Layout");
  checkFrom<MemoryFormat>(v, t == Tag::MemoryFormat || intIn(v, 0, kNumMemoryFormats - 1), "MemoryFormat");
  checkFrom<QScheme>(v, t == Tag::QScheme || intIn(v, 0, kNumQSchemes - 1), "QScheme");
  checkFrom<Dimname>(v, t == Tag::Dimname, "Dimname");
  checkFrom<Stream>(v, t == Tag::Stream, "Stream");
  checkFrom<Storage>(v, t == Tag::Storage, "Storage");
  checkFrom<Generator>(v, t == Tag::Generator, "Generator");
  checkFrom<TensorBase>(v, t == Tag::Tensor, "Tensor");
  checkFrom<std::string_view>(v, t == Tag::String, "string_view");
  checkFrom<std::string>(v, t == Tag::String, "string");
  checkFrom<ArrayRef<int64_t>>(v, t == Tag::IntList, "int[]");
  checkFrom<ArrayRef<double>>(v, t == Tag::DoubleList, "float[]");
  checkFrom<ArrayRef<bool>>(v, t == Tag::BoolList, "bool[]");
  checkFrom<std::array<bool, 3>>(v, t == Tag::BoolList && v.toBoolList().size() == 3, "bool[3]");
  checkFrom<ArrayRef<TensorBase>>(v, t == Tag::TensorList, "Tensor[]");
  checkFrom<ArrayRef<std::optional<TensorBase>>>(v, t == Tag::TensorList || allOf(v, isOptionalTensor), "Tensor?[]");
  checkFrom<ArrayRef<Scalar>>(v, t == Tag::IntList || t == Tag::DoubleList || t == Tag::BoolList || allOf(v, isScalar),
                              "Scalar[]");
  checkFrom<ArrayRef<std::string_view>>(v, allOf(v, isString), "str[]");
  checkFrom<ArrayRef<Dimname>>(v, allOf(v, isDimname), "Dimname[]");
  checkFrom<ArrayRef<std::vector<int64_t>>>(v, allOf(v, isIntList), "int[][]");
  checkFrom<std::vector<int64_t>>(v, t == Tag::IntList, "vector<int64_t>");
  checkFrom<std::vector<bool>>(v, t == Tag::BoolList, "vector<bool>");
  checkFrom<std::vector<std::string>>(v, allOf(v, isString), "vector<string>");
  checkFrom<std::vector<TensorBase>>(v, t == Tag::TensorList, "vector<Tensor>");
  // T[]? arguments: None or the list.
  if (succeeds([&] { (void)FromIValue<OptionalArrayRef<int64_t>>::get(v); }) != (v.isNone() || t == Tag::IntList)) {
    failure("FromIValue<OptionalArrayRef<int64_t>>", v);
  }
  if (succeeds([&] { (void)FromIValue<OptionalArrayRef<TensorBase>>::get(v); }) != (v.isNone() || t == Tag::TensorList)) {
    failure("FromIValue<OptionalArrayRef<Tensor>>", v);
  }
}

// ---- values that go through C++ and back ------------------------------------------------------

void checkRoundTrip(const IValue& v, bool equal) {
  if (!equal) failure("a value does not come back from its IValue unchanged", v);
}

void checkFromCpp(Builder& b) {
  const int64_t i = b.in.ConsumeIntegral<int64_t>();
  IValue vi(i);
  checkRoundTrip(vi, vi.toInt() == i && FromIValue<int64_t>::get(vi) == i && vi.toScalar().toLong() == i);
  const double d = b.number();
  IValue vd(d);
  checkRoundTrip(vd, sameDouble(vd.toDouble(), d) && sameDouble(vd.toScalar().toDouble(), d));
  // Unsigned values must fit in an Int.
  const uint64_t u = b.in.ConsumeIntegral<uint64_t>();
  const bool fits = u <= static_cast<uint64_t>(INT64_MAX);
  if (succeeds([&] { IValue vu(u); if (static_cast<uint64_t>(vu.toInt()) != u) failure("unsigned changed", vu); }) != fits) {
    failure("IValue(uint64_t) must throw exactly when the value does not fit", IValue(static_cast<int64_t>(u >> 1)));
  }
  if (succeeds([] { IValue v(static_cast<const char*>(nullptr)); })) failure("IValue(null const char*) accepted", IValue());
  // A Scalar keeps its kind.
  const Scalar scalars[] = {Scalar(i), Scalar(d), Scalar(b.in.ConsumeBool()), Scalar(complex<double>(d, b.number()))};
  for (const Scalar& s : scalars) {
    const IValue v(s);
    const Scalar back = v.toScalar();
    if (back.isComplex() != s.isComplex() || back.isFloatingPoint() != s.isFloatingPoint() ||
        back.isBoolean() != s.isBoolean()) {
      failure("a Scalar changes kind through an IValue", v);
    }
  }
  // Optionals: None or the value.
  const std::optional<int64_t> oi = b.in.ConsumeBool() ? std::optional<int64_t>(i) : std::nullopt;
  const IValue voi(oi);
  if (FromIValue<std::optional<int64_t>>::get(voi) != oi) failure("optional<int64_t> round trip", voi);
  // Lists through their C++ forms.
  std::vector<int64_t> ints(b.in.ConsumeIntegralInRange<size_t>(0, 4));
  for (auto& x : ints) x = b.in.ConsumeIntegral<int64_t>();
  const IValue vl(ints);
  if (FromIValue<std::vector<int64_t>>::get(vl) != ints) failure("int[] round trip", vl);
  const IValue vo{OptionalArrayRef<int64_t>(ArrayRef<int64_t>(ints))};
  if (!vo.isIntList() || vo.toIntList().vec() != ints) failure("int[]? round trip", vo);
  std::vector<bool> bools(b.in.ConsumeIntegralInRange<size_t>(0, 4));
  for (size_t k = 0; k < bools.size(); ++k) bools[k] = b.in.ConsumeBool();
  const IValue vb(bools);
  const auto holder = FromIValue<ArrayRef<bool>>::get(vb);  // owns the bools the view shows
  const ArrayRef<bool> view = holder;
  if (std::vector<bool>(view.begin(), view.end()) != bools) failure("bool[] round trip", vb);
  std::vector<std::optional<TensorBase>> opt_tensors;
  for (size_t k = b.in.ConsumeIntegralInRange<size_t>(0, 3); k > 0; --k) {
    const TensorBase t = b.tensor();
    opt_tensors.push_back(t.defined() ? std::optional<TensorBase>(t) : std::nullopt);
  }
  const IValue vt(opt_tensors);
  const auto back = FromIValue<ArrayRef<std::optional<TensorBase>>>::get(vt);
  if (back.size() != opt_tensors.size()) failure("Tensor?[] round trip changes the length", vt);
  for (size_t k = 0; k < back.size(); ++k) {
    if (back[k].has_value() != opt_tensors[k].has_value() || (back[k] && !back[k]->is_same(*opt_tensors[k]))) {
      failure("Tensor?[] round trip changes an element", vt);
    }
  }
  std::vector<std::string> strings(b.in.ConsumeIntegralInRange<size_t>(0, 3));
  for (auto& s : strings) s = b.text();
  const IValue vs(strings);
  if (FromIValue<std::vector<std::string>>::get(vs) != strings) failure("str[] round trip", vs);
}

// ---- copy, move, assignment, comparison, printing ------------------------------------------

void checkCopiesAndMoves(const IValue& v) {
  IValue copy = v;
  if (copy.isBorrowed()) failure("a copy of a borrowed IValue is borrowed", v);
  if (!same(copy, v)) failure("a copy differs", v);
  if (!hasNaN(v) && !(copy == v)) failure("a copy is not == to its original", v);
  IValue moved = std::move(copy);
  if (!copy.isNone() || !same(moved, v)) failure("a move lost the value or left the source not None", v);  // NOLINT
  IValue& alias = moved;
  moved = alias;             // self-assignment, copying
  moved = std::move(alias);  // self-assignment, moving
  if (!same(moved, v)) failure("self-assignment changed the value", v);
  // Only stack entries borrow (Note [Borrowed IValues]): list and tuple elements own.
  if (v.isGenericList() || v.isTuple()) {
    for (const IValue& e : v.isTuple() ? v.toTuple() : v.toGenericList()) {
      if (e.isBorrowed()) failure("a list or tuple holds a borrowed element", v);
    }
  }
  // Assigning an element of the IValue's own payload to it.
  if (moved.isGenericList() || moved.isTuple()) {
    const ArrayRef<IValue> elems = moved.isTuple() ? moved.toTuple() : moved.toGenericList();
    if (!elems.empty()) {
      const IValue expected = elems.back();
      moved = elems.back();
      if (!same(moved, expected)) failure("assigning an IValue its own element", v);
    }
  }
  if (v.isTensor()) {
    IValue owner = v;
    const TensorBase t = std::move(owner).toTensorBase();
    if (!owner.isNone() || !t.is_same(v.toTensorBase())) failure("toTensorBase() && lost the tensor", v);
    IValue borrowed = IValue::borrow(v.toTensorBase());
    borrowed.own();
    if (borrowed.isBorrowed() || !(borrowed == v)) failure("own() lost the tensor", v);
  }
  (void)show(v);
}

void checkPair(const IValue& a, const IValue& b) {
  if ((a == b) != (b == a)) failure("operator== is not symmetric", a);
  if (!hasNaN(a) && !hasNaN(b)) {
    g_ieee_doubles = true;
    const bool structurally = same(a, b);
    g_ieee_doubles = false;
    if ((a == b) != structurally) {
      std::ostringstream why;
      why << "operator== disagrees with a structural comparison against " << b;
      failure(why.str(), a);
    }
  }
  IValue c = a;
  c = b;
  if (!same(c, b)) failure("copy assignment", b);
  c = IValue(a);
  if (!same(c, a)) failure("move assignment", a);
}

}  // namespace
}  // namespace opcore

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace opcore;
  FuzzedDataProvider in(data, size);
  Builder b{in, {}};
  static const ScalarType kDtypes[] = {ScalarType::Float, ScalarType::Long, ScalarType::Bool, ScalarType::Double};
  for (size_t n = in.ConsumeIntegralInRange<size_t>(0, 3); n > 0; --n) {
    b.tensors.push_back(detail::emptyCpu({in.ConsumeIntegralInRange<int64_t>(0, 3)},
                                         kDtypes[in.ConsumeIntegralInRange<size_t>(0, 3)]));
  }
  std::vector<IValue> values;
  for (size_t n = in.ConsumeIntegralInRange<size_t>(1, 6); n > 0 && in.remaining_bytes() > 0; --n) {
    values.push_back(b.make(3));
  }
  for (const IValue& v : values) {
    checkConversions(v);
    checkCopiesAndMoves(v);
    if (v.isGenericList()) {
      for (const IValue& e : v.toGenericList()) checkConversions(e);
    }
  }
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = 0; j < values.size(); ++j) checkPair(values[i], values[j]);
  }
  checkFromCpp(b);
  return 0;
}

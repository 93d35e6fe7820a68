// libFuzzer target: boxed calls through the dispatcher (Note [Boxed calling convention] in
// runtime/opcore/dispatch/Boxing.h). From the input it derives
//   - a schema from a small grammar (Tensor, Tensor?, Tensor[], Tensor?[], int, int[], int[2],
//     SymInt, float, bool, bool[3], str, Scalar, ScalarType, Layout, Device, Generator,
//     Dimname, DeviceIndex, ... with optionals, defaults, keyword-only and out arguments with
//     alias annotations, and returns, aliased ones included);
//   - a kernel for it, registered through a fresh Library fragment and removed after the run
//     by the Library's RAII handles: a boxed kernel at CPU or a composite key which converts
//     each argument as an unboxed kernel's adapter would (detail::FromIValue of the argument's
//     C++ type), or an unboxed kernel for one of a few fixed schemas;
//   - stacks of IValues: right and wrong types, None, nested lists, borrowed tensors, values
//     below the arguments, too few values;
// and calls the operator boxed (callBoxed, redispatchBoxed, callBoxedForDispatchKey).
// Properties:
//   - a call either throws opcore::Error or runs the kernel, which then sees at least the
//     schema's number of values, no borrowed argument, and pops and pushes as it should;
//   - the argument conversions accept exactly the values a model of the schema's types
//     accepts (below), so a stack that matches the schema is never rejected, and one that
//     does not is never taken;
//   - the values below the arguments are left alone, and the registrations leave nothing
//     behind (ASan's leak check).
#include <opcore/core/Empty.h>
#include <opcore/core/Error.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/dispatch/FunctionSchema.h>
#include <opcore/library/Library.h>

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace opcore {
namespace {

using detail::FromIValue;

std::string show(const Stack& stack) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < stack.size(); ++i) os << (i ? ", " : "") << stack[i];
  os << "]";
  return os.str();
}

// How the failing call was made ("callBoxed", ...), for the report.
const char* g_call_kind = "";

[[noreturn]] void failure(const std::string& what, const std::string& schema, const Stack& stack) {
  std::fprintf(stderr, "fuzz_boxed_call: %s\n  call:   %s\n  schema: %s\n  stack:  %s\n", what.c_str(), g_call_kind,
               schema.c_str(), show(stack).c_str());
  std::abort();
}

// ---- the model: which values an argument of a schema type accepts ------------------------------

bool intIn(const IValue& v, int64_t lo, int64_t hi) { return v.isInt() && v.toInt() >= lo && v.toInt() <= hi; }

bool acceptsOne(const IValue& v, const std::string& base) {
  if (base == "Tensor") return v.isTensor();
  if (base == "int" || base == "SymInt") return v.isInt();
  if (base == "DeviceIndex") return intIn(v, -128, 127);
  if (base == "float") return v.isDouble();
  if (base == "bool" || base == "SymBool") return v.isBool();
  if (base == "str") return v.isString();
  if (base == "Scalar") return v.isScalar();
  if (base == "ScalarType") return v.isScalarType() || intIn(v, 0, kNumScalarTypes - 1);
  if (base == "Layout") return v.isLayout() || intIn(v, 0, kNumLayouts - 1);
  if (base == "MemoryFormat") return v.isMemoryFormat() || intIn(v, 0, kNumMemoryFormats - 1);
  if (base == "Device") return v.isDevice();
  if (base == "Generator") return v.isGenerator();
  if (base == "Dimname") return v.isDimname();
  std::abort();  // the grammar below makes no other base
}

bool genericListOf(const IValue& v, const std::string& base, bool optional_elements) {
  if (!v.isGenericList()) return false;
  for (const IValue& e : v.toGenericList()) {
    if (!(optional_elements && e.isNone()) && !acceptsOne(e, base)) return false;
  }
  return true;
}

// The suffixes the grammar makes: "", "?", "[]", "[N]", "[]?", "?[]".
bool accepts(const IValue& v, const SchemaType& t) {
  if (t.isOptional() && v.isNone()) return true;
  if (!t.isList()) return acceptsOne(v, t.base);
  const bool optional_elements = t.suffix.rfind("?[", 0) == 0;
  const std::string& b = t.base;
  if (b == "Tensor") return v.isTensorList() || (optional_elements && genericListOf(v, b, true));
  if (b == "int" || b == "SymInt") return v.isIntList();
  if (b == "float") return v.isDoubleList();
  if (b == "bool") return v.isBoolList() && (t.suffix.rfind("[3]", 0) != 0 || v.toBoolList().size() == 3);
  if (b == "Scalar") return v.isIntList() || v.isDoubleList() || v.isBoolList() || genericListOf(v, b, false);
  return genericListOf(v, b, false);  // str[], Dimname[]
}

// ---- the kernel side: converting as an unboxed kernel's adapter would ---------------------------

template <typename T>
void convert(const IValue& v) {
  [[maybe_unused]] auto holder = FromIValue<T>::get(v);
}

template <typename T>
void convertAs(const IValue& v, const SchemaType& t) {
  const bool list = t.isList();
  const bool optional = t.isOptional();
  if (list && optional) return convert<OptionalArrayRef<T>>(v);
  if (list) return convert<ArrayRef<T>>(v);
  if (optional) return convert<std::optional<T>>(v);
  return convert<T>(v);
}

// Throws opcore::Error when `v` cannot be an argument of type `t`.
void convertArgument(const IValue& v, const SchemaType& t) {
  const std::string& b = t.base;
  if (b == "Tensor" && t.suffix.rfind("?[", 0) == 0) return convert<ArrayRef<std::optional<TensorBase>>>(v);
  if (b == "bool" && t.suffix.rfind("[3]", 0) == 0) {
    return t.isOptional() ? convert<std::optional<std::array<bool, 3>>>(v) : convert<std::array<bool, 3>>(v);
  }
  if (b == "Tensor") return convertAs<TensorBase>(v, t);
  if (b == "int" || b == "SymInt") return convertAs<int64_t>(v, t);
  if (b == "DeviceIndex") {  // no list form
    return t.isOptional() ? convert<std::optional<DeviceIndex>>(v) : convert<DeviceIndex>(v);
  }
  if (b == "float") return convertAs<double>(v, t);
  if (b == "bool" || b == "SymBool") return convertAs<bool>(v, t);
  if (b == "str") return convertAs<std::string_view>(v, t);
  if (b == "Scalar") return convertAs<Scalar>(v, t);
  if (b == "ScalarType") return convertAs<ScalarType>(v, t);
  if (b == "Layout") return convertAs<Layout>(v, t);
  if (b == "MemoryFormat") return convertAs<MemoryFormat>(v, t);
  if (b == "Device") return convertAs<Device>(v, t);
  if (b == "Generator") return convertAs<Generator>(v, t);
  if (b == "Dimname") return convertAs<Dimname>(v, t);
  std::abort();
}

// What the kernel of one call saw.
struct KernelRun {
  bool ran = false;
  bool converted = false;  // every argument converted
  std::string problem;     // a broken dispatcher guarantee, found inside the kernel
};

bool reachesBorrowed(const IValue& v) {
  if (v.isBorrowed()) return true;
  if (v.isGenericList() || v.isTuple()) {
    for (const IValue& e : v.isTuple() ? v.toTuple() : v.toGenericList()) {
      if (reachesBorrowed(e)) return true;
    }
  }
  return false;
}

// The boxed kernel: checks what the dispatcher guarantees, converts every argument (throwing
// opcore::Error as a generated kernel would), then pops the arguments and pushes the returns.
void boxedKernel(KernelRun& run, const OperatorHandle& op, Stack* stack) {
  run.ran = true;
  const FunctionSchema& schema = op.schema();
  const size_t n = schema.arguments().size();
  if (stack->size() < n) {
    run.problem = "the kernel got fewer values than the schema has arguments";
    return;
  }
  const size_t base = stack->size() - n;
  // A boxed kernel may keep anything it is given (Note [Borrowed IValues]): nothing it can
  // reach is borrowed, list and tuple elements included.
  for (size_t i = 0; i < n; ++i) {
    if (reachesBorrowed((*stack)[base + i])) run.problem = "a boxed kernel got a borrowed value in argument " + std::to_string(i);
  }
  for (size_t i = 0; i < n; ++i) convertArgument((*stack)[base + i], schema.arguments()[i].type);
  run.converted = true;
  // The returns: an aliased return is its argument; others get a value of their type.
  Stack returns;
  for (const Return& r : schema.returns()) {
    IValue value;
    if (r.type.alias) {
      for (size_t i = 0; i < n; ++i) {
        if (schema.arguments()[i].type.alias == r.type.alias) value = (*stack)[base + i];
      }
    } else if (!r.type.isOptional()) {
      value = r.type.isTensor() ? IValue(TensorBase()) : IValue(int64_t{0});
    }
    returns.push_back(std::move(value));
  }
  stack->resize(base);
  for (IValue& v : returns) stack->push_back(std::move(v));
}

// ---- the generator ------------------------------------------------------------------------

struct TypeChoice {
  const char* base;
  std::vector<const char*> suffixes;
  std::vector<const char*> defaults;  // for the type without suffix
};

const std::vector<TypeChoice>& typeChoices() {
  static const std::vector<TypeChoice> choices = {
      {"Tensor", {"", "?", "[]", "?[]", "[]?"}, {}},
      {"int", {"", "?", "[]", "[2]", "[]?"}, {"0", "-3", "Mean"}},
      {"SymInt", {"", "[]", "?"}, {"7"}},
      {"float", {"", "?", "[]", "[]?"}, {"1.5", "-inf", "2"}},
      {"bool", {"", "?", "[]", "[3]"}, {"True", "False"}},
      {"str", {"", "?", "[]"}, {"\"mean\"", "'a,b'"}},
      {"Scalar", {"", "?", "[]"}, {"1", "2.5", "True"}},
      {"ScalarType", {"", "?"}, {"Float", "Long"}},
      {"Layout", {"", "?"}, {"Strided"}},
      {"MemoryFormat", {"", "?"}, {"ChannelsLast"}},
      {"Device", {"", "?"}, {"cpu"}},
      {"Generator", {"", "?"}, {}},
      {"Dimname", {"", "[]"}, {}},
      {"DeviceIndex", {"", "?"}, {"-1", "3"}},
  };
  return choices;
}

template <typename T>
const T& pick(FuzzedDataProvider& in, const std::vector<T>& v) {
  return v[in.ConsumeIntegralInRange<size_t>(0, v.size() - 1)];
}

// A schema text such as "f.out(Tensor a0, int[]? a1=None, *, Tensor(a!) a2) -> Tensor(a!)";
// it always parses (a failure to parse is reported as a defect of the generator or parser).
std::string makeSchema(FuzzedDataProvider& in) {
  std::string s = in.ConsumeBool() ? "f" : "f.out";
  s += "(";
  const size_t num_args = in.ConsumeIntegralInRange<size_t>(0, 7);
  const size_t kwarg_from = in.ConsumeIntegralInRange<size_t>(0, num_args + 1);  // > num_args: none
  std::vector<std::string> aliases;
  for (size_t i = 0; i < num_args; ++i) {
    if (i) s += ", ";
    if (i == kwarg_from) s += "*, ";
    const TypeChoice& c = pick(in, typeChoices());
    const std::string suffix = pick(in, c.suffixes);
    std::string type = c.base;
    if (type == "Tensor" && suffix.empty() && in.ConsumeBool()) {  // an out or view argument
      const std::string alias = std::string(1, static_cast<char>('a' + aliases.size()));
      type += "(" + alias + (in.ConsumeBool() ? "!" : "") + ")";
      aliases.push_back(type);
    }
    s += type + suffix + " a" + std::to_string(i);
    if (in.ConsumeBool()) {
      if (suffix.size() && suffix.back() == '?') {
        s += "=None";
      } else if (suffix.empty() && !c.defaults.empty()) {
        s += "=" + std::string(pick(in, c.defaults));
      } else if (suffix.size() && suffix[0] == '[' && (c.base == std::string("int") || c.base == std::string("float"))) {
        s += "=[0,1]";
      }
    }
  }
  s += ") -> ";
  const size_t num_returns = in.ConsumeIntegralInRange<size_t>(0, 3);
  std::vector<std::string> returns;
  for (size_t i = 0; i < num_returns; ++i) {
    if (!aliases.empty() && in.ConsumeBool()) {
      returns.push_back(pick(in, aliases));
    } else {
      returns.push_back(pick(in, std::vector<std::string>{"Tensor", "int", "Tensor?", "Tensor[]"}));
    }
  }
  if (num_returns == 1 && in.ConsumeBool()) return s + returns[0];
  s += "(";
  for (size_t i = 0; i < returns.size(); ++i) s += (i ? ", " : "") + returns[i];
  return s + ")";
}

struct ValueMaker {
  FuzzedDataProvider& in;
  std::vector<TensorBase> tensors;

  TensorBase tensor() {
    const size_t i = in.ConsumeIntegralInRange<size_t>(0, tensors.size());
    return i == tensors.size() ? TensorBase() : tensors[i];
  }
  IValue tensorValue() { return in.ConsumeBool() ? IValue(tensor()) : IValue::borrow(tensors.front()); }

  // A value of one element of base type `base`, usually right, sometimes not.
  IValue one(const std::string& base) {
    if (in.ConsumeIntegralInRange<int>(0, 9) == 0) return any(1);
    if (base == "Tensor") return tensorValue();
    if (base == "int" || base == "SymInt") return IValue(in.ConsumeIntegral<int64_t>());
    if (base == "DeviceIndex" || base == "ScalarType" || base == "Layout" || base == "MemoryFormat") {
      if (in.ConsumeBool()) return IValue(in.ConsumeIntegralInRange<int64_t>(-200, 200));
      if (base == "ScalarType") return IValue(static_cast<ScalarType>(in.ConsumeIntegralInRange<int>(0, kNumScalarTypes - 1)));
      if (base == "Layout") return IValue(static_cast<Layout>(in.ConsumeIntegralInRange<int>(0, kNumLayouts - 1)));
      if (base == "MemoryFormat") return IValue(static_cast<MemoryFormat>(in.ConsumeIntegralInRange<int>(0, kNumMemoryFormats - 1)));
      return IValue(in.ConsumeIntegral<int64_t>());
    }
    if (base == "float") return IValue(in.ConsumeFloatingPoint<double>());
    if (base == "bool") return IValue(in.ConsumeBool());
    if (base == "str") return IValue(in.ConsumeRandomLengthString(8));
    if (base == "Scalar") return any(0);
    if (base == "Device") return IValue(device());
    if (base == "Generator") return in.ConsumeBool() ? IValue(Generator()) : IValue(Generator::create(device(), 1));
    if (base == "Dimname") return IValue(Dimname::fromString(in.ConsumeBool() ? "N" : "C"));
    return any(1);
  }
  Device device() {
    return Device(static_cast<DeviceType>(in.ConsumeIntegralInRange<int>(0, 2)), in.ConsumeIntegralInRange<int8_t>(-1, 1));
  }
  // A list for type `t`, of the right shape or not.
  IValue list(const SchemaType& t) {
    const size_t n = in.ConsumeIntegralInRange<size_t>(0, 4);
    const std::string& b = t.base;
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
      case 0: {  // a GenericList of elements (of the right type, mostly)
        std::vector<IValue> elems;
        for (size_t i = 0; i < n; ++i) elems.push_back(in.ConsumeIntegralInRange<int>(0, 3) == 0 ? IValue() : one(b));
        return IValue::list(std::move(elems));
      }
      case 1: {
        std::vector<TensorBase> v(n);
        for (auto& x : v) x = tensor();
        return IValue(std::move(v));
      }
      case 2: {
        std::vector<int64_t> v(n);
        for (auto& x : v) x = in.ConsumeIntegral<int64_t>();
        return IValue(std::move(v));
      }
      default:
        if (b == "float") {
          std::vector<double> v(n);
          for (auto& x : v) x = in.ConsumeFloatingPoint<double>();
          return IValue(std::move(v));
        }
        std::vector<bool> v(n);
        for (size_t i = 0; i < n; ++i) v[i] = in.ConsumeBool();
        return IValue(std::move(v));
    }
  }
  IValue forType(const SchemaType& t) {
    if (t.isOptional() && in.ConsumeIntegralInRange<int>(0, 3) == 0) return IValue();
    if (in.ConsumeIntegralInRange<int>(0, 15) == 0) return any(2);
    return t.isList() ? list(t) : one(t.base);
  }
  // Anything, of any tag, nested lists included.
  IValue any(int depth) {
    switch (in.ConsumeIntegralInRange<int>(0, 9)) {
      case 0: return IValue();
      case 1: return IValue(in.ConsumeIntegral<int64_t>());
      case 2: return IValue(in.ConsumeFloatingPoint<double>());
      case 3: return IValue(in.ConsumeBool());
      case 4: return IValue(complex<double>(1, 2));
      case 5: return tensorValue();
      case 6: return IValue(std::string("s"));
      case 7: return IValue(ScalarType::Float);
      case 8: {
        std::vector<IValue> elems(depth > 0 ? in.ConsumeIntegralInRange<size_t>(0, 3) : 0);
        for (auto& e : elems) e = any(depth - 1);
        return in.ConsumeBool() ? IValue::list(std::move(elems)) : IValue::tuple(std::move(elems));
      }
      default: return IValue(std::vector<int64_t>{1, 2});
    }
  }
};

// Registers the fallthroughs the autograd library registers in a full build (this build has
// no autograd/), so that calls with tensors reach the backend and composite kernels.
void registerFallthroughs() {
  static Library* in_place = [] {
    auto* lib = new Library(Library::IMPL, "_", DispatchKey::ADInplaceOrView, __FILE__, __LINE__);
    lib->fallback(KernelFunction::makeFallthrough());
    return lib;
  }();
  static Library* autograd = [] {
    auto* lib = new Library(Library::IMPL, "_", DispatchKey::Autograd, __FILE__, __LINE__);
    lib->fallback(KernelFunction::makeFallthrough());
    return lib;
  }();
  (void)in_place;
  (void)autograd;
}

// ---- unboxed kernels for a few fixed schemas ------------------------------------------------

int64_t sumArgs(const TensorBase& t, int64_t a, ArrayRef<int64_t> list, std::optional<double> scale, const Scalar& s) {
  // Uses every argument; unsigned, so that a large `a` wraps instead of overflowing.
  const uint64_t sum = static_cast<uint64_t>(a) + list.size() + (scale ? 1 : 0) + (s.isBoolean() ? 1 : 0);
  return t.defined() ? static_cast<int64_t>(sum >> 1) : 0;
}
TensorBase& outKernel(const TensorBase& self, ArrayRef<std::optional<TensorBase>> idx, TensorBase& out) { return out; }
std::tuple<TensorBase, TensorBase> pairKernel(ArrayRef<TensorBase> list, OptionalArrayRef<int64_t> dims, bool keep,
                                              std::optional<ScalarType> dtype) {
  return {list.empty() ? TensorBase() : list[0], TensorBase()};
}
void voidKernel(std::string_view s, ArrayRef<Scalar> values, ArrayRef<std::string_view> names, DeviceIndex index) {}

struct UnboxedCase {
  const char* schema;
  void (*impl)(Library&);
};

const UnboxedCase kUnboxedCases[] = {
    {"u0(Tensor self, int a, int[] list, float? scale, Scalar s) -> int",
     [](Library& m) { m.impl("u0", OPCORE_FN(sumArgs)); }},
    {"u1.out(Tensor self, Tensor?[] indices, *, Tensor(a!) out) -> Tensor(a!)",
     [](Library& m) { m.impl("u1.out", OPCORE_FN(outKernel)); }},
    {"u2(Tensor[] list, int[]? dims=None, bool keep=False, *, ScalarType? dtype=None) -> (Tensor, Tensor)",
     [](Library& m) { m.impl("u2", OPCORE_FN(pairKernel)); }},
    {"u3(str s, Scalar[] values, str[] names, DeviceIndex index) -> ()",
     [](Library& m) { m.impl("u3", OPCORE_FN(voidKernel)); }},
};

// ---- one run -----------------------------------------------------------------------------

enum class Way { Call, Redispatch, ForKey };

// Calls `op` on `stack` and checks the result against the model.
void callAndCheck(const OperatorHandle& op, Stack stack, bool boxed_kernel, DispatchKey key,
                  KernelRun& run, Way way) {
  const FunctionSchema& schema = op.schema();
  const std::string text = schema.str();
  const size_t n = schema.arguments().size();
  const Stack before = stack;
  bool matches = stack.size() >= n;
  for (size_t i = 0; matches && i < n; ++i) matches = accepts(stack[stack.size() - n + i], schema.arguments()[i].type);
  // Which values are the caller's: below the arguments (all of the stack but the top n).
  const size_t callers = stack.size() >= n ? stack.size() - n : 0;
  run = KernelRun();
  bool threw = false;
  bool not_implemented = false;
  std::string error;
  try {
    switch (way) {
      case Way::Call:
        g_call_kind = "callBoxed";
        op.callBoxed(stack);
        break;
      case Way::Redispatch:
        g_call_kind = "redispatchBoxed(CPU)";
        op.redispatchBoxed(DispatchKeySet(DispatchKey::CPU), stack);
        break;
      case Way::ForKey:
        g_call_kind = "callBoxedForDispatchKey";
        op.callBoxedForDispatchKey(key, stack);
        break;
    }
  } catch (const NotImplementedError& e) {
    // No kernel for the call's keys: only possible when the kernel is not a composite one
    // (a composite serves every backend, and Undefined).
    if (key != DispatchKey::CPU && matches) failure(std::string("no kernel found: ") + e.what(), text, before);
    threw = true;
    not_implemented = true;
    error = e.what();
  } catch (const Error& e) {
    threw = true;
    error = e.what();
  }
  if (!run.problem.empty()) failure(run.problem, text, before);
  if (threw) {
    // A stack that matches may only miss a kernel (a CPU kernel, and a call on Meta or
    // undefined tensors), never be rejected.
    if (matches && !not_implemented) failure("a stack that matches the schema was rejected: " + error, text, before);
    if (run.ran && run.converted) failure("the call threw after the kernel converted every argument: " + error, text, before);
    return;
  }
  if (!run.ran && boxed_kernel) failure("the call returned without running the kernel", text, before);
  if (!matches) failure("a stack that does not match the schema was accepted", text, before);
  if (stack.size() != callers + schema.returns().size()) failure("the call left the wrong number of values", text, before);
  for (size_t i = 0; i < callers; ++i) {
    if (!(stack[i] == before[i]) && !(before[i].isDouble() || before[i].isGenericList() || before[i].isTuple())) {
      failure("the call changed a value below its arguments", text, before);
    }
  }
}

}  // namespace
}  // namespace opcore

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace opcore;
  registerFallthroughs();
  FuzzedDataProvider in(data, size);
  ValueMaker values{in, {}};
  values.tensors.push_back(detail::emptyCpu({1}, ScalarType::Float));
  if (in.ConsumeBool()) values.tensors.push_back(detail::empty({2}, ScalarType::Long, Device(DeviceType::Meta)));

  // A fresh fragment of a namespace of its own; its destructor removes every registration.
  Library def(Library::FRAGMENT, "fuzz", std::nullopt, __FILE__, __LINE__);
  std::string schema_text;
  bool boxed = true;
  DispatchKey key = DispatchKey::CPU;
  KernelRun run;
  std::optional<Library> impl;
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {  // an unboxed kernel for a fixed schema
    boxed = false;
    const UnboxedCase& c = kUnboxedCases[in.ConsumeIntegralInRange<size_t>(0, std::size(kUnboxedCases) - 1)];
    schema_text = c.schema;
    def.def(c.schema);
    impl.emplace(Library::IMPL, "fuzz", DispatchKey::CPU, __FILE__, __LINE__);
    c.impl(*impl);
  } else {
    schema_text = makeSchema(in);
    try {
      def.def(schema_text.c_str());
    } catch (const Error& e) {
      std::fprintf(stderr, "fuzz_boxed_call: the generated schema does not parse: %s\n", e.what());
      std::abort();
    }
    const DispatchKey keys[] = {DispatchKey::CPU, DispatchKey::CompositeExplicitAutograd,
                                DispatchKey::CompositeImplicitAutograd};
    key = keys[in.ConsumeIntegralInRange<size_t>(0, 2)];
    impl.emplace(Library::IMPL, "fuzz", key, __FILE__, __LINE__);
    const std::string name = schema_text.substr(0, schema_text.find('('));
    impl->impl(name.c_str(), KernelFunction::makeFromBoxedFunctor([&run](const OperatorHandle& op, Stack* stack) {
      boxedKernel(run, op, stack);
    }));
  }
  const std::string name = schema_text.substr(0, schema_text.find('('));
  const size_t dot = name.find('.');
  const OperatorHandle op = Dispatcher::singleton().findSchemaOrThrow(
      ("fuzz::" + name.substr(0, dot)).c_str(), dot == std::string::npos ? "" : name.substr(dot + 1).c_str());

  for (int calls = in.ConsumeIntegralInRange<int>(1, 4); calls > 0 && in.remaining_bytes() > 0; --calls) {
    Stack stack;
    const size_t below = in.ConsumeIntegralInRange<size_t>(0, 2);
    for (size_t i = 0; i < below; ++i) stack.push_back(values.any(1));
    const auto& args = op.schema().arguments();
    const size_t skip = in.ConsumeIntegralInRange<int>(0, 7) == 0 ? in.ConsumeIntegralInRange<size_t>(0, args.size()) : 0;
    for (size_t i = 0; i + skip < args.size(); ++i) stack.push_back(values.forType(args[i].type));
    const int way = in.ConsumeIntegralInRange<int>(0, 5);
    callAndCheck(op, std::move(stack), boxed, key, run, way == 4 ? Way::ForKey : way == 5 ? Way::Redispatch : Way::Call);
  }
  Dispatcher::singleton().checkInvariants();
  return 0;
}

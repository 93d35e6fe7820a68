// Overload resolution for the generated bindings; see Note [Python argument matching] in
// PythonArgParser.h.
#include <opcore/python/PythonArgParser.h>

#include <opcore/core/Error.h>
#include <opcore/dispatch/FunctionSchema.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/Wrap.h>

#include <algorithm>
#include <limits>
#include <sstream>

namespace opcore::python {
namespace {

ParamKind kindOf(const SchemaType& t) {
  const std::string& b = t.base;
  const bool list = t.isList();
  const bool optional_elements = t.suffix.rfind("?[", 0) == 0;
  if (b == "Tensor") return !list ? ParamKind::Tensor : optional_elements ? ParamKind::OptionalTensorList : ParamKind::TensorList;
  if (list) {
    if (b == "int" || b == "SymInt") return ParamKind::IntList;
    if (b == "float") return ParamKind::DoubleList;
    if (b == "bool") return ParamKind::BoolList;
  } else {
    if (b == "Scalar") return ParamKind::Scalar;
    if (b == "int" || b == "SymInt") return ParamKind::Int;
    if (b == "DeviceIndex") return ParamKind::DeviceIndex;
    if (b == "float") return ParamKind::Double;
    if (b == "bool" || b == "SymBool") return ParamKind::Bool;
    if (b == "str") return ParamKind::String;
    if (b == "ScalarType") return ParamKind::ScalarType;
    if (b == "Device") return ParamKind::Device;
    if (b == "Layout") return ParamKind::Layout;
    if (b == "MemoryFormat") return ParamKind::MemoryFormat;
    if (b == "Generator") return ParamKind::Generator;
  }
  OPCORE_FAIL("Python bindings: schema type ", t.str(), " has no Python equivalent (generator bug: "
              "gen/api/python.py should not have bound it)");
}

PyObject* checkedNew(PyObject* obj) {
  if (!obj) throw PythonError();
  return obj;
}

PyObject* scalarDefault(ParamKind kind, const std::string& text) {
  if (text == "True") return Py_NewRef(Py_True);
  if (text == "False") return Py_NewRef(Py_False);
  if (text == "inf") return PyFloat_FromDouble(std::numeric_limits<double>::infinity());
  if (text == "-inf") return PyFloat_FromDouble(-std::numeric_limits<double>::infinity());
  if (text == "nan" || text == "-nan") return PyFloat_FromDouble(std::numeric_limits<double>::quiet_NaN());
  if (text == "Mean") return PyLong_FromLong(1);  // opcore::Reduction
  if (text == "Sum") return PyLong_FromLong(2);
  switch (kind) {
    case ParamKind::ScalarType: {
      static const std::pair<const char*, ScalarType> names[] = {
          {"long", kLong}, {"int", kInt}, {"float", kFloat}, {"double", kDouble}, {"bool", kBool}};
      for (const auto& [name, t] : names) {
        if (text == name) return Py_NewRef(dtypeObject(t));
      }
      break;
    }
    case ParamKind::Layout:
      if (text == "strided") return Py_NewRef(layoutObject(Layout::Strided));
      break;
    case ParamKind::MemoryFormat: {
      static const std::pair<const char*, MemoryFormat> names[] = {
          {"contiguous_format", MemoryFormat::Contiguous}, {"preserve_format", MemoryFormat::Preserve},
          {"channels_last", MemoryFormat::ChannelsLast}, {"channels_last_3d", MemoryFormat::ChannelsLast3d}};
      for (const auto& [name, m] : names) {
        if (text == name) return Py_NewRef(memoryFormatObject(m));
      }
      break;
    }
    case ParamKind::Device:
      return deviceObject(parseDevice(text));
    case ParamKind::String: {
      std::string s;
      for (size_t i = 1; i + 1 < text.size(); ++i) s += text[i] == '\\' ? text[++i] : text[i];
      return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
    }
    default:
      break;
  }
  const bool is_float = text.find_first_of(".eE") != std::string::npos;
  if (is_float) return PyFloat_FromDouble(std::stod(text));
  return PyLong_FromString(text.c_str(), nullptr, 10);
}

// The Python object a schema default stands for ("None", "1", "[0,1]", "contiguous_format").
PyObject* defaultObject(const Param& p, const std::string& text) {
  if (text == "None") return Py_NewRef(Py_None);
  if ((p.kind == ParamKind::IntList || p.kind == ParamKind::DoubleList) && !text.empty() && text[0] == '[') {
    PyObject* tuple = checkedNew(PyTuple_New(0));
    std::string item;
    std::istringstream items(text.substr(1, text.size() - 2));
    while (std::getline(items, item, ',')) {
      PyObject* value = checkedNew(scalarDefault(p.kind == ParamKind::IntList ? ParamKind::Int : ParamKind::Double, item));
      const Py_ssize_t n = PyTuple_GET_SIZE(tuple);
      if (_PyTuple_Resize(&tuple, n + 1) < 0) throw PythonError();
      PyTuple_SET_ITEM(tuple, n, value);
    }
    return tuple;
  }
  return checkedNew(scalarDefault(p.kind, text));
}

bool isDouble(PyObject* obj) { return PyFloat_Check(obj) || PyLong_Check(obj); }

bool isScalarTensor(PyObject* obj) {
  if (!isTensor(obj)) return false;
  const Tensor& t = unpackTensor(obj);
  return t.defined() && t.dim() == 0 && !t.requires_grad();
}

bool isSequence(PyObject* obj) { return PyTuple_Check(obj) || PyList_Check(obj); }

// Every element of a tuple or list satisfies `pred`.
template <typename Pred>
bool allItems(PyObject* seq, Pred pred) {
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject** items = PySequence_Fast_ITEMS(seq);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!pred(items[i])) return false;
  }
  return true;
}

bool matches(const Param& p, PyObject* obj) {
  if (obj == Py_None) return p.optional;
  switch (p.kind) {
    case ParamKind::Tensor: return isTensor(obj);
    case ParamKind::Scalar: return isScalar(obj);
    case ParamKind::Int:
    case ParamKind::DeviceIndex: return isInt(obj);
    case ParamKind::Double: return isDouble(obj) || isScalarTensor(obj);
    case ParamKind::Bool: return PyBool_Check(obj);
    case ParamKind::String: return PyUnicode_Check(obj);
    case ParamKind::ScalarType:
      return PyObject_TypeCheck(obj, &PyDtypeType) || obj == reinterpret_cast<PyObject*>(&PyFloat_Type) ||
             obj == reinterpret_cast<PyObject*>(&PyLong_Type) || obj == reinterpret_cast<PyObject*>(&PyBool_Type);
    case ParamKind::Device: return PyObject_TypeCheck(obj, &PyDeviceType) || PyUnicode_Check(obj) || isInt(obj);
    case ParamKind::Layout: return PyObject_TypeCheck(obj, &PyLayoutType);
    case ParamKind::MemoryFormat: return PyObject_TypeCheck(obj, &PyMemoryFormatType);
    case ParamKind::Generator: return isGenerator(obj);
    case ParamKind::TensorList:
      return isSequence(obj) && (p.list_size == 0 || PySequence_Fast_GET_SIZE(obj) == p.list_size) &&
             allItems(obj, isTensor);
    case ParamKind::OptionalTensorList:
      return isSequence(obj) && allItems(obj, [](PyObject* o) { return o == Py_None || isTensor(o); });
    case ParamKind::IntList: return (isSequence(obj) && allItems(obj, isInt)) || (p.list_size > 0 && isInt(obj));
    case ParamKind::DoubleList: return isSequence(obj) && allItems(obj, isDouble);
    case ParamKind::BoolList: return isSequence(obj) && allItems(obj, [](PyObject* o) { return PyBool_Check(o) != 0; });
  }
  return false;
}

}  // namespace

// --- Python values as C++ values ---------------------------------------------------------------

bool isInt(PyObject* obj) {
  if (PyLong_Check(obj)) return !PyBool_Check(obj);
  if (PyFloat_Check(obj) || isTensor(obj)) return false;  // numpy ints have __index__, floats do not
  return Py_TYPE(obj)->tp_as_number && Py_TYPE(obj)->tp_as_number->nb_index;
}

int64_t toInt64(PyObject* obj) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (overflow) throw ValueError("Python int too large to convert to a 64-bit integer");
  if (v == -1 && PyErr_Occurred()) throw PythonError();
  return v;
}

// A complex number that is not a Python complex, such as numpy.complex64 (numpy.complex128
// is one): a numbers.Complex that is not a numbers.Real (numpy registers its scalars there).
bool isOtherComplex(PyObject* obj) {
  if (isTensor(obj) || PyLong_Check(obj) || PyFloat_Check(obj)) return false;
  static PyObject* numbers = PyImport_ImportModule("numbers");
  static PyObject* complex_abc = numbers ? PyObject_GetAttrString(numbers, "Complex") : nullptr;
  static PyObject* real_abc = numbers ? PyObject_GetAttrString(numbers, "Real") : nullptr;
  if (!complex_abc || !real_abc) throw PythonError();
  const int is_complex = PyObject_IsInstance(obj, complex_abc);
  const int is_real = is_complex == 1 ? PyObject_IsInstance(obj, real_abc) : 0;
  if (is_complex < 0 || is_real < 0) throw PythonError();
  return is_complex == 1 && is_real == 0;
}

bool isScalar(PyObject* obj) {
  return PyLong_Check(obj) || PyFloat_Check(obj) || PyComplex_Check(obj) || isScalarTensor(obj) ||
         (!isTensor(obj) && Py_TYPE(obj)->tp_as_number &&
          (Py_TYPE(obj)->tp_as_number->nb_index || Py_TYPE(obj)->tp_as_number->nb_float) &&
          !PyUnicode_Check(obj)) ||
         isOtherComplex(obj);
}

int64_t indexToInt64(PyObject* obj) {
  if (PyLong_Check(obj)) return toInt64(obj);
  PyObject* index = PyNumber_Index(obj);
  if (!index) throw PythonError();
  const int64_t v = toInt64(index);
  Py_DECREF(index);
  return v;
}

Scalar toScalar(PyObject* obj) {
  if (PyBool_Check(obj)) return Scalar(obj == Py_True);
  if (PyLong_Check(obj)) return Scalar(toInt64(obj));
  if (PyFloat_Check(obj)) return Scalar(PyFloat_AS_DOUBLE(obj));
  if (PyComplex_Check(obj)) return Scalar(complex<double>(PyComplex_RealAsDouble(obj), PyComplex_ImagAsDouble(obj)));
  if (isTensor(obj)) {
    const Tensor& t = unpackTensor(obj);
    if (isComplexType(t.scalar_type())) return Scalar(t.item<complex<double>>());
    if (isFloatingType(t.scalar_type())) return Scalar(t.item<double>());
    if (t.scalar_type() == kBool) return Scalar(t.item<bool>());
    return Scalar(t.item<int64_t>());
  }
  if (Py_TYPE(obj)->tp_as_number && Py_TYPE(obj)->tp_as_number->nb_index) {  // numpy integers (a 0-d float array refuses: a float)
    PyObject* index = PyNumber_Index(obj);
    if (index) {
      const int64_t v = toInt64(index);
      Py_DECREF(index);
      return Scalar(v);
    }
    PyErr_Clear();
  }
  if (isOtherComplex(obj)) {
    const Py_complex z = PyComplex_AsCComplex(obj);
    if (z.real == -1.0 && PyErr_Occurred()) throw PythonError();
    return Scalar(complex<double>(z.real, z.imag));
  }
  const double v = PyFloat_AsDouble(obj);
  if (v == -1.0 && PyErr_Occurred()) throw PythonError();
  return Scalar(v);
}

ScalarType toScalarType(PyObject* obj) {
  if (obj == reinterpret_cast<PyObject*>(&PyFloat_Type)) return kDouble;
  if (obj == reinterpret_cast<PyObject*>(&PyLong_Type)) return kLong;
  if (obj == reinterpret_cast<PyObject*>(&PyBool_Type)) return kBool;
  if (PyUnicode_Check(obj)) {
    const char* text = PyUnicode_AsUTF8(obj);
    if (!text) throw PythonError();
    throw TypeError(dtypeStringProblem(text));
  }
  if (!PyObject_TypeCheck(obj, &PyDtypeType)) throw TypeError("expected a dtype such as opcore.float32, not " + typeName(obj));
  return reinterpret_cast<PyDtype*>(obj)->scalar_type;
}

Device toDevice(PyObject* obj) {
  if (PyObject_TypeCheck(obj, &PyDeviceType)) return reinterpret_cast<PyDevice*>(obj)->device;
  if (PyUnicode_Check(obj)) {
    const char* text = PyUnicode_AsUTF8(obj);
    if (!text) throw PythonError();
    return parseDevice(text);
  }
  if (!isInt(obj)) throw TypeError("expected a device such as 'cpu' or opcore.device('cuda', 0), not " + typeName(obj));
  const int64_t index = indexToInt64(obj);
  if (index < 0 || index > std::numeric_limits<DeviceIndex>::max()) {
    throw ValueError(detail::strCat("device index ", index, " is out of range"));
  }
  return Device(DeviceType::CUDA, static_cast<DeviceIndex>(index));
}

std::string typeName(PyObject* obj) {
  if (isTensor(obj)) return "Tensor";
  if (PyTuple_Check(obj) || PyList_Check(obj)) {  // one level: "tuple of (int, list)"
    std::string s = std::string(Py_TYPE(obj)->tp_name) + " of (";
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    for (Py_ssize_t i = 0; i < n && i < 4; ++i) {
      PyObject* item = PySequence_Fast_GET_ITEM(obj, i);
      s += (i ? ", " : "") + (isTensor(item) ? std::string("Tensor") : std::string(Py_TYPE(item)->tp_name));
    }
    return s + (n > 4 ? ", ...)" : ")");
  }
  return Py_TYPE(obj)->tp_name;
}

// --- PythonArgParser ------------------------------------------------------------------------------

PythonArgParser::PythonArgParser(const char* name, bool method, std::initializer_list<const char*> schemas)
    : name_(name), method_(method) {
  for (const char* text : schemas) addSignature(text, method);
}

PythonArgParser::PythonArgParser(const char* name, bool method, const std::vector<std::string>& schemas,
                                 bool schema_names)
    : name_(name), method_(method), schema_names_(schema_names) {
  for (const std::string& text : schemas) addSignature(text.c_str(), method);
}

void PythonArgParser::addSignature(const char* text, bool method) {
  const char* name = name_.c_str();
  {
    const FunctionSchema schema = FunctionSchema::parse(text);
    Signature sig;
    sig.schema = text;
    OPCORE_INTERNAL_ASSERT(schema.arguments().size() <= PythonArgs::kMaxArgs, "too many arguments in ", text);
    for (const Argument& a : schema.arguments()) {
      Param p;
      const bool is_self = method && sig.self_index < 0 && a.name == "self" && a.type.isTensor() && a.type.suffix.empty();
      if (is_self) sig.self_index = static_cast<int>(sig.params.size());
      p.name = (!method && !schema_names_ && a.name == "self") ? "input" : a.name;
      p.type_name = a.type.base + a.type.suffix;
      p.kind = kindOf(a.type);
      p.optional = a.type.isOptional();
      p.kwarg_only = a.kwarg_only;
      if (p.kind == ParamKind::IntList || p.kind == ParamKind::TensorList) {
        const size_t open = a.type.suffix.find('[');
        p.list_size = std::strtoll(a.type.suffix.c_str() + open + 1, nullptr, 10);
      }
      if (a.default_value) p.default_value = defaultObject(p, *a.default_value);
      p.interned_name = checkedNew(PyUnicode_InternFromString(p.name.c_str()));
      if (!is_self && !p.kwarg_only) ++sig.num_positional;
      sig.params.push_back(std::move(p));
    }
    OPCORE_INTERNAL_ASSERT(!method || sig.self_index >= 0, "method ", name, ": no `Tensor self` in ", text);
    for (const Param& p : sig.params) {
      if (&p - sig.params.data() == sig.self_index || p.kwarg_only) continue;
      sig.varargs_intlist = sig.num_positional == 1 && p.kind == ParamKind::IntList;
      break;
    }
    signatures_.push_back(std::move(sig));
  }
}

PythonArgParser::~PythonArgParser() {
  // The generated bindings' parsers are function-local statics, destroyed after the
  // interpreter has gone: their objects went with it.
  if (!Py_IsInitialized()) return;
  for (Signature& sig : signatures_) {
    for (Param& p : sig.params) {
      Py_XDECREF(p.default_value);
      Py_XDECREF(p.interned_name);
    }
  }
}

std::string PythonArgParser::Signature::text() const {
  std::string s = "(";
  bool star = false, first = true;
  for (size_t i = 0; i < params.size(); ++i) {
    if (static_cast<int>(i) == self_index) continue;
    const Param& p = params[i];
    if (!first) s += ", ";
    first = false;
    if (p.kwarg_only && !star) {
      s += "*, ";
      star = true;
    }
    s += p.type_name + " " + p.name;
    if (p.default_value) {
      PyObject* r = PyObject_Repr(p.default_value);
      if (r) {
        s += std::string("=") + PyUnicode_AsUTF8(r);
        Py_DECREF(r);
      } else {
        PyErr_Clear();
      }
    }
  }
  return s + ")";
}

namespace {
// " (unknown dtype 'flaot16'; did you mean 'float16'?)" when a string was given for a dtype.
std::string stringDtypeHint(const Param& p, PyObject* obj) {
  if (p.kind != ParamKind::ScalarType || !PyUnicode_Check(obj)) return "";
  const char* text = PyUnicode_AsUTF8(obj);
  if (!text) {
    PyErr_Clear();
    return "";
  }
  return " (" + dtypeStringProblem(text) + ")";
}
}  // namespace

bool PythonArgParser::match(const Signature& sig, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                            PyObject* kwnames, PythonArgs& out, std::string* why) const {
  const auto fail = [&](auto&&... parts) {
    if (why) *why = detail::strCat(parts...);
    return false;
  };
  // Filled in place (a failed match leaves junk the next match clears): no copy on success.
  PyObject** values = out.values_;
  const int n = static_cast<int>(sig.params.size());
  std::fill(values, values + n, nullptr);
  if (sig.self_index >= 0) values[sig.self_index] = self;
  out.varargs_param_ = -1;

  // Positional arguments, in parameter order.
  Py_ssize_t used = 0;
  for (int i = 0; i < n && used < nargs; ++i) {
    const Param& p = sig.params[i];
    if (i == sig.self_index) continue;
    if (p.kwarg_only) break;
    if (sig.varargs_intlist && isInt(args[0]) && (nargs > 1 || p.list_size == 0)) {
      for (Py_ssize_t k = 0; k < nargs; ++k) {
        if (!isInt(args[k])) return fail("argument '", p.name, "' must be a sequence of ints, but element ", k, " is ", typeName(args[k]));
      }
      out.varargs_param_ = i;
      out.varargs_ = args;
      out.num_varargs_ = nargs;
      values[i] = Py_None;  // placeholder: intlist() reads the varargs
      used = nargs;
      break;
    }
    values[i] = args[used++];
  }
  if (used < nargs) {
    return fail("takes ", sig.num_positional, " positional argument", sig.num_positional == 1 ? "" : "s", " but ",
                nargs, (nargs == 1 ? " was" : " were"), " given");
  }
  // Keywords, by name.
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    int found = -1;
    for (int i = 0; i < n && found < 0; ++i) {
      if (i != sig.self_index && sig.params[i].interned_name == key) found = i;
    }
    for (int i = 0; i < n && found < 0; ++i) {
      if (i != sig.self_index && PyUnicode_Compare(sig.params[i].interned_name, key) == 0) found = i;
    }
    if (found < 0 && args[nargs + k] == Py_None && PyUnicode_CompareWithASCIIString(key, "out") == 0) {
      continue;  // out=None: no out argument, as in torch
    }
    if (found < 0) {
      const char* s = PyUnicode_AsUTF8(key);
      if (!s) PyErr_Clear();
      return fail("got an unexpected keyword argument '", s ? s : "?", "'");
    }
    if (values[found]) return fail("got multiple values for argument '", sig.params[found].name, "'");
    values[found] = args[nargs + k];
  }
  // Defaults, and the types.
  for (int i = 0; i < n; ++i) {
    const Param& p = sig.params[i];
    if (!values[i]) {
      if (!p.default_value) return fail("missing required argument '", p.name, "' (", p.type_name, ")");
      values[i] = p.default_value;
    } else if (i != sig.self_index && i != out.varargs_param_ && !matches(p, values[i])) {
      return fail("argument '", p.name, "' must be ", p.type_name, ", not ", typeName(values[i]), stringDtypeHint(p, values[i]));
    }
  }
  return true;
}

bool PythonArgParser::plausible(const Signature& sig, Py_ssize_t nargs, PyObject* kwnames) {
  if (!sig.varargs_intlist && nargs > sig.num_positional) return false;
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  const auto named = [&](const Param& p) {
    for (Py_ssize_t k = 0; k < nkw; ++k) {
      if (PyUnicode_Compare(p.interned_name, PyTuple_GET_ITEM(kwnames, k)) == 0) return true;
    }
    return false;
  };
  Py_ssize_t positional = 0;
  int matched_keywords = 0;
  for (int i = 0; i < static_cast<int>(sig.params.size()); ++i) {
    const Param& p = sig.params[i];
    if (i == sig.self_index) continue;
    const bool by_position = !p.kwarg_only && positional++ < nargs;
    const bool by_name = named(p);
    matched_keywords += by_name;
    if (!by_position && !by_name && !p.default_value) return false;
  }
  return matched_keywords == nkw;
}

PythonArgs PythonArgParser::parse(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) const {
  PythonArgs out;
  out.parser_ = this;
  for (size_t i = 0; i < signatures_.size(); ++i) {
    if (match(signatures_[i], self, args, nargs, kwnames, out, nullptr)) {
      out.index_ = static_cast<int>(i);
      return out;
    }
  }
  const std::string qualified = (method_ ? "Tensor." : "") + name_ + "()";
  // As torch's parser: when one signature alone could take these arguments (zeros(True) cannot
  // be zeros.out, whose `out` is missing), its own error says what is wrong.
  const Signature* only = signatures_.size() == 1 ? &signatures_[0] : nullptr;
  if (!only) {
    for (const Signature& sig : signatures_) {
      if (!plausible(sig, nargs, kwnames)) continue;
      if (only) {
        only = nullptr;
        break;
      }
      only = &sig;
    }
  }
  if (only) {
    std::string why;
    match(*only, self, args, nargs, kwnames, out, &why);
    throw TypeError(qualified + ": " + why + "; expected " + name_ + only->text());
  }
  std::string got = "(";
  for (Py_ssize_t i = 0; i < nargs; ++i) got += (i ? ", " : "") + typeName(args[i]);
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    const char* key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    got += (nargs + k ? ", " : "") + std::string(key ? key : "?") + "=" + typeName(args[nargs + k]);
  }
  std::string msg = qualified + " received an invalid combination of arguments - got " + got +
                    "), but expected one of:";
  for (const Signature& sig : signatures_) msg += "\n * " + name_ + sig.text();
  for (Py_ssize_t k = 0; k < nkw; ++k) {  // dtype="float16": say what is wrong with the string
    PyObject* value = args[nargs + k];
    if (PyUnicode_Check(value) && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), "dtype") == 0) {
      const char* text = PyUnicode_AsUTF8(value);
      if (text) msg.append("\n").append(dtypeStringProblem(text));
      PyErr_Clear();
    }
  }
  throw TypeError(msg);
}

// --- PythonArgs accessors -------------------------------------------------------------------

const Param& PythonArgs::param(int i) const { return parser_->signatures()[index_].params[i]; }

Tensor& PythonArgs::toTensor(int i) const { return unpackTensor(values_[i]); }

std::optional<Tensor> PythonArgs::toOptionalTensor(int i) const {
  if (values_[i] == Py_None) return std::nullopt;
  return unpackTensor(values_[i]);
}

std::vector<Tensor> PythonArgs::toTensorList(int i) const {
  PyObject* seq = values_[i];
  std::vector<Tensor> result;
  result.reserve(PySequence_Fast_GET_SIZE(seq));
  for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); ++k) result.push_back(unpackTensor(PySequence_Fast_GET_ITEM(seq, k)));
  return result;
}

std::vector<std::optional<Tensor>> PythonArgs::toOptionalTensorList(int i) const {
  PyObject* seq = values_[i];
  std::vector<std::optional<Tensor>> result;
  for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); ++k) {
    PyObject* item = PySequence_Fast_GET_ITEM(seq, k);
    result.push_back(item == Py_None ? std::nullopt : std::optional<Tensor>(unpackTensor(item)));
  }
  return result;
}

Scalar PythonArgs::toScalar(int i) const { return python::toScalar(values_[i]); }

std::optional<Scalar> PythonArgs::toOptionalScalar(int i) const {
  if (values_[i] == Py_None) return std::nullopt;
  return toScalar(i);
}

int64_t PythonArgs::toInt64(int i) const { return indexToInt64(values_[i]); }

std::optional<int64_t> PythonArgs::toOptionalInt64(int i) const {
  if (values_[i] == Py_None) return std::nullopt;
  return toInt64(i);
}

DeviceIndex PythonArgs::toDeviceIndex(int i) const {
  const int64_t v = toInt64(i);
  if (v < std::numeric_limits<DeviceIndex>::min() || v > std::numeric_limits<DeviceIndex>::max()) {
    throw ValueError("a DeviceIndex argument must be between -128 and 127, but got " + std::to_string(v));
  }
  return static_cast<DeviceIndex>(v);
}

std::optional<DeviceIndex> PythonArgs::toOptionalDeviceIndex(int i) const {
  if (values_[i] == Py_None) return std::nullopt;
  return toDeviceIndex(i);
}

double PythonArgs::toDouble(int i) const {
  PyObject* obj = values_[i];
  if (isTensor(obj)) return unpackTensor(obj).item<double>();
  const double v = PyFloat_AsDouble(obj);
  if (v == -1.0 && PyErr_Occurred()) throw PythonError();
  return v;
}

std::optional<double> PythonArgs::toOptionalDouble(int i) const {
  if (values_[i] == Py_None) return std::nullopt;
  return toDouble(i);
}

std::optional<bool> PythonArgs::toOptionalBool(int i) const {
  if (values_[i] == Py_None) return std::nullopt;
  return toBool(i);
}

std::string_view PythonArgs::toStringView(int i) const {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(values_[i], &size);
  if (!data) throw PythonError();
  return std::string_view(data, static_cast<size_t>(size));
}

std::optional<std::string_view> PythonArgs::toOptionalStringView(int i) const {
  if (values_[i] == Py_None) return std::nullopt;
  return toStringView(i);
}

std::vector<int64_t> PythonArgs::toIntList(int i) const {
  PyObject* const* items;
  Py_ssize_t n;
  if (i == varargs_param_) {
    items = varargs_;
    n = num_varargs_;
  } else if (isSequence(values_[i])) {
    items = PySequence_Fast_ITEMS(values_[i]);
    n = PySequence_Fast_GET_SIZE(values_[i]);
  } else {  // a single int for int[N]
    return std::vector<int64_t>(static_cast<size_t>(param(i).list_size), indexToInt64(values_[i]));
  }
  std::vector<int64_t> result(static_cast<size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) result[k] = indexToInt64(items[k]);
  return result;
}

PythonArgs::OptionalList<int64_t> PythonArgs::toOptionalIntList(int i) const {
  if (values_[i] == Py_None && i != varargs_param_) return {};
  return {toIntList(i)};
}

std::vector<bool> PythonArgs::toBoolList(int i) const {
  PyObject* seq = values_[i];
  std::vector<bool> result;
  for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); ++k) result.push_back(PySequence_Fast_GET_ITEM(seq, k) == Py_True);
  return result;
}

std::vector<double> PythonArgs::toDoubleList(int i) const {
  PyObject* seq = values_[i];
  std::vector<double> result;
  for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); ++k) {
    const double v = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, k));
    if (v == -1.0 && PyErr_Occurred()) throw PythonError();
    result.push_back(v);
  }
  return result;
}

PythonArgs::OptionalList<double> PythonArgs::toOptionalDoubleList(int i) const {
  if (values_[i] == Py_None) return {};
  return {toDoubleList(i)};
}

ScalarType PythonArgs::toScalarType(int i) const { return python::toScalarType(values_[i]); }

std::optional<ScalarType> PythonArgs::toOptionalScalarType(int i) const {
  if (values_[i] == Py_None) return std::nullopt;
  return toScalarType(i);
}

Device PythonArgs::toDevice(int i) const { return python::toDevice(values_[i]); }

std::optional<Device> PythonArgs::toOptionalDevice(int i) const {
  if (values_[i] == Py_None) return std::nullopt;
  return toDevice(i);
}

Layout PythonArgs::toLayout(int i) const { return reinterpret_cast<PyLayout*>(values_[i])->layout; }

std::optional<Layout> PythonArgs::toOptionalLayout(int i) const {
  if (values_[i] == Py_None) return std::nullopt;
  return toLayout(i);
}

MemoryFormat PythonArgs::toMemoryFormat(int i) const { return reinterpret_cast<PyMemoryFormat*>(values_[i])->memory_format; }

std::optional<MemoryFormat> PythonArgs::toOptionalMemoryFormat(int i) const {
  if (values_[i] == Py_None) return std::nullopt;
  return toMemoryFormat(i);
}

std::optional<Generator> PythonArgs::toOptionalGenerator(int i) const {
  if (values_[i] == Py_None) return std::nullopt;
  return reinterpret_cast<PyGenerator*>(values_[i])->generator;
}

PyObject* PythonArgs::returnArguments(std::initializer_list<int> indices) const {
  if (indices.size() == 1) return Py_NewRef(values_[*indices.begin()]);
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(indices.size()));
  if (!tuple) return nullptr;
  Py_ssize_t k = 0;
  for (int i : indices) PyTuple_SET_ITEM(tuple, k++, Py_NewRef(values_[i]));
  return tuple;
}

PyObject* PythonArgs::returnItems(int i, PyTypeObject* named) const {
  PyObject* seq = values_[i];  // a tuple or a list: the parser checked
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject* tuple = named ? PyStructSequence_New(named) : PyTuple_New(n);
  if (!tuple) return nullptr;
  PyObject** items = PySequence_Fast_ITEMS(seq);
  for (Py_ssize_t k = 0; k < n; ++k) PyTuple_SET_ITEM(tuple, k, Py_NewRef(items[k]));  // a structseq is a tuple
  return tuple;
}

}  // namespace opcore::python

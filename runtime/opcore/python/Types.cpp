// opcore.dtype, opcore.layout, opcore.memory_format and opcore.device: small immutable
// Python objects; one object per dtype, layout and memory format (compared by identity, as
// torch.float32 is), a new device object per call; and the dtype functions promote_types,
// can_cast and result_type.
#include <opcore/python/BindingTable.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>
#include <opcore/python/Wrap.h>

#include <opcore/core/Error.h>

#include "common/TypePromotion.h"  // kernels/ (cmake/PythonExtension.cmake): the kernels' result-type rules

#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <vector>

namespace opcore::python {
namespace {

template <typename T>
PyObject* namedRepr(PyObject* self) {
  return PyUnicode_FromFormat("opcore.%s", reinterpret_cast<T*>(self)->name);
}

std::array<PyDtype, kNumScalarTypes> dtypes;
std::array<PyLayout, kNumLayouts> layouts;
std::array<PyMemoryFormat, kNumMemoryFormats> memory_formats;

ScalarType scalarTypeOf(PyObject* self) { return reinterpret_cast<PyDtype*>(self)->scalar_type; }
PyObject* dtypeIsFloatingPoint(PyObject* self, void*) { return PyBool_FromLong(isFloatingType(scalarTypeOf(self))); }
PyObject* dtypeIsComplex(PyObject* self, void*) { return PyBool_FromLong(isComplexType(scalarTypeOf(self))); }
PyObject* dtypeIsSigned(PyObject* self, void*) { return PyBool_FromLong(isSignedType(scalarTypeOf(self))); }
PyObject* dtypeItemsize(PyObject* self, void*) { return PyLong_FromSize_t(elementSize(scalarTypeOf(self))); }
PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtypeIsFloatingPoint, nullptr, "whether the dtype is a floating-point type (float16, bfloat16, float32, float64)", nullptr},
    {"is_complex", dtypeIsComplex, nullptr, "whether the dtype is a complex type (complex64, complex128)", nullptr},
    {"is_signed", dtypeIsSigned, nullptr, "whether the dtype holds negative values (all but uint8 and bool)", nullptr},
    {"itemsize", dtypeItemsize, nullptr, "the size of one element in bytes", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// dtype.to_real() and dtype.to_complex(), as torch's: complex64 <-> float32, complex128 <-> float64.
PyObject* dtypeToReal(PyObject* self, PyObject*) { return Py_NewRef(dtypeObject(toRealValueType(scalarTypeOf(self)))); }
PyObject* dtypeToComplex(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  return Py_NewRef(dtypeObject(toComplexType(scalarTypeOf(self))));
  OPCORE_PY_END
}
PyMethodDef dtype_methods[] = {
    {"to_real", dtypeToReal, METH_NOARGS, "to_real(): the real dtype of a complex one (complex64 -> float32); others unchanged"},
    {"to_complex", dtypeToComplex, METH_NOARGS, "to_complex(): the complex dtype of a floating one (float64 -> complex128)"},
    {nullptr, nullptr, 0, nullptr}};

// The names of the dtypes: each one's primary name and its alias (torch's spellings).
struct DtypeName {
  ScalarType type;
  const char* name;
  const char* alias;
};
constexpr DtypeName kDtypeNames[] = {
    {kByte, "uint8", nullptr},        {kChar, "int8", nullptr},         {kShort, "int16", "short"},
    {kInt, "int32", "int"},           {kLong, "int64", "long"},         {kHalf, "float16", "half"},
    {kFloat, "float32", "float"},     {kDouble, "float64", "double"},   {kComplexFloat, "complex64", "cfloat"},
    {kComplexDouble, "complex128", "cdouble"}, {kBool, "bool", nullptr}, {kBFloat16, "bfloat16", nullptr}};

// Levenshtein distance, for did-you-mean suggestions.
size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// promote_types(type1, type2), can_cast(from_, to): torch's functions of two dtypes.
bool twoDtypes(PyObject* args, PyObject* kwargs, const char* format, const char* first, const char* second,
               ScalarType& a, ScalarType& b) {
  PyObject *x = nullptr, *y = nullptr;
  const char* keywords[] = {first, second, nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, format, const_cast<char**>(keywords), &PyDtypeType, &x,
                                   &PyDtypeType, &y)) {
    return false;
  }
  a = scalarTypeOf(x);
  b = scalarTypeOf(y);
  return true;
}
PyObject* promoteTypesPy(PyObject*, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  ScalarType a, b;
  if (!twoDtypes(args, kwargs, "O!O!:promote_types", "type1", "type2", a, b)) return nullptr;
  return Py_NewRef(dtypeObject(promoteTypes(a, b)));
  OPCORE_PY_END
}
PyObject* canCastPy(PyObject*, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  ScalarType a, b;
  if (!twoDtypes(args, kwargs, "O!O!:can_cast", "from_", "to", a, b)) return nullptr;
  return PyBool_FromLong(canCast(a, b));
  OPCORE_PY_END
}

// result_type(tensor, other): the dtype an operator computes in for these operands, tensors or
// Python numbers (Note [Result type] in kernels/common/TypePromotion.cpp: tensors with
// dimensions before zero-dim tensors before numbers, each class mattering only when its
// category is higher).
PyObject* resultTypePy(PyObject*, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  PyObject *a = nullptr, *b = nullptr;
  static const char* keywords[] = {"tensor", "other", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:result_type", const_cast<char**>(keywords), &a, &b)) return nullptr;
  native::ResultTypeState state;
  for (PyObject* operand : {a, b}) {
    if (isTensor(operand)) {
      state.add(unpackTensor(operand));
    } else if (isScalar(operand) || PyComplex_Check(operand)) {
      state.add(toScalar(operand));
    } else {
      throw TypeError("result_type(): expected a Tensor or a number, not " + typeName(operand));
    }
  }
  return Py_NewRef(dtypeObject(state.result()));
  OPCORE_PY_END
}

PyMethodDef dtype_functions[] = {
    {"promote_types", asPyCFunction(promoteTypesPy), METH_VARARGS | METH_KEYWORDS,
     "promote_types(type1, type2): the smallest dtype both convert to without losing category or range"},
    {"can_cast", asPyCFunction(canCastPy), METH_VARARGS | METH_KEYWORDS,
     "can_cast(from_, to): whether a result of dtype from_ may be written into a tensor of dtype to"},
    {"result_type", asPyCFunction(resultTypePy), METH_VARARGS | METH_KEYWORDS,
     "result_type(tensor, other): the dtype an arithmetic operator computes in for these tensors or numbers"},
    {nullptr, nullptr, 0, nullptr}};

// opcore.device("cpu"), opcore.device("cuda:1"), opcore.device("cuda", 1), opcore.device(other)
PyObject* deviceNew(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  PyObject* spec = nullptr;
  PyObject* index = Py_None;
  static const char* names[] = {"type", "index", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:device", const_cast<char**>(names), &spec, &index)) return nullptr;
  if (PyObject_TypeCheck(spec, &PyDeviceType) && index == Py_None) return Py_NewRef(spec);
  if (!PyUnicode_Check(spec)) {
    throw TypeError(std::string("device(): expected a str such as 'cpu' or 'cuda:0', not ") + Py_TYPE(spec)->tp_name);
  }
  Device d = parseDevice(PyUnicode_AsUTF8(spec));
  if (index != Py_None) {
    if (d.has_index()) throw ValueError("device(): the type string already has an index");
    if (!isInt(index)) throw TypeError("device(): index must be an int, not " + typeName(index));
    const int64_t i = toInt64(index);
    if (i < 0 || i > 127) throw ValueError("device(): index " + std::to_string(i) + " is out of range");
    d = Device(d.type(), static_cast<DeviceIndex>(i));
  }
  return deviceObject(d);
  OPCORE_PY_END
}

PyObject* deviceRepr(PyObject* self) {
  const Device d = reinterpret_cast<PyDevice*>(self)->device;
  const std::string type = Device(d.type()).str();
  if (d.has_index()) return PyUnicode_FromFormat("device(type='%s', index=%d)", type.c_str(), static_cast<int>(d.index()));
  return PyUnicode_FromFormat("device(type='%s')", type.c_str());
}
PyObject* deviceStr(PyObject* self) { return PyUnicode_FromString(reinterpret_cast<PyDevice*>(self)->device.str().c_str()); }
PyObject* deviceType(PyObject* self, void*) {
  return PyUnicode_FromString(Device(reinterpret_cast<PyDevice*>(self)->device.type()).str().c_str());
}
PyObject* deviceIndex(PyObject* self, void*) {
  const Device d = reinterpret_cast<PyDevice*>(self)->device;
  if (!d.has_index()) Py_RETURN_NONE;
  return PyLong_FromLong(d.index());
}
PyGetSetDef device_getset[] = {
    {"type", deviceType, nullptr, "'cpu', 'cuda', 'meta' or PrivateUse1's name", nullptr},
    {"index", deviceIndex, nullptr, "the device index, or None", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};
PyObject* deviceRichCompare(PyObject* a, PyObject* b, int op) {
  if (!PyObject_TypeCheck(b, &PyDeviceType) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  const bool eq = reinterpret_cast<PyDevice*>(a)->device == reinterpret_cast<PyDevice*>(b)->device;
  return PyBool_FromLong(eq == (op == Py_EQ));
}
Py_hash_t deviceHash(PyObject* self) {
  const Device d = reinterpret_cast<PyDevice*>(self)->device;
  return static_cast<Py_hash_t>(static_cast<int>(d.type()) * 1000 + d.index() + 2);
}

}  // namespace

PyTypeObject PyDtypeType = {PyVarObject_HEAD_INIT(nullptr, 0) "opcore.dtype"};
PyTypeObject PyLayoutType = {PyVarObject_HEAD_INIT(nullptr, 0) "opcore.layout"};
PyTypeObject PyMemoryFormatType = {PyVarObject_HEAD_INIT(nullptr, 0) "opcore.memory_format"};
PyTypeObject PyDeviceType = {PyVarObject_HEAD_INIT(nullptr, 0) "opcore.device"};

PyObject* dtypeObject(ScalarType t) {
  OPCORE_INTERNAL_ASSERT(isSupportedScalarType(t), "dtypeObject(", static_cast<int>(t), "): no object for this dtype");
  return reinterpret_cast<PyObject*>(&dtypes[static_cast<int>(t)]);
}

std::string dtypeStringProblem(std::string_view text) {
  std::string_view name = text;
  for (std::string_view prefix : {"opcore.", "torch."}) {
    if (name.substr(0, prefix.size()) == prefix) name.remove_prefix(prefix.size());
  }
  const char* closest = nullptr;
  size_t best = std::string_view::npos;
  for (const DtypeName& n : kDtypeNames) {
    for (const char* candidate : {n.name, n.alias}) {
      if (!candidate) continue;
      if (name == candidate) {
        return detail::strCat("a dtype is an object such as opcore.", n.name, ", not the string '", text, "'");
      }
      const size_t d = editDistance(name, candidate);
      if (d < best) {
        best = d;
        closest = candidate;
      }
    }
  }
  // As difflib's cutoff: a suggestion only when at most about a third of the name differs.
  if (closest && best <= std::max<size_t>(1, std::string_view(closest).size() / 3)) {
    return detail::strCat("unknown dtype '", text, "'; did you mean '", closest, "'?");
  }
  return detail::strCat("unknown dtype '", text, "' (the dtypes: uint8, int8, int16, int32, int64, float16, bfloat16, "
                        "float32, float64, complex64, complex128, bool)");
}
PyObject* layoutObject(Layout l) { return reinterpret_cast<PyObject*>(&layouts[static_cast<int>(l)]); }
PyObject* memoryFormatObject(MemoryFormat m) { return reinterpret_cast<PyObject*>(&memory_formats[static_cast<int>(m)]); }

PyObject* deviceObject(Device d) {
  PyDevice* obj = PyObject_New(PyDevice, &PyDeviceType);
  if (!obj) throw PythonError();
  obj->device = d;
  return reinterpret_cast<PyObject*>(obj);
}

Device parseDevice(std::string_view text) {
  const size_t colon = text.find(':');
  const std::optional<DeviceType> t = parseDeviceType(text.substr(0, colon));
  if (!t) {  // PyTorch's RuntimeError; "npu" is a device type only once a backend renamed PrivateUse1
    std::string msg = detail::strCat("Expected one of cpu, cuda, meta, ", toString(DeviceType::PrivateUse1),
                                     " device type at start of device string: ", text);
    for (const DtypeName& n : kDtypeNames) {  // t.to("float16"): a dtype is an object
      if (text == n.name || (n.alias && text == n.alias)) msg += detail::strCat("; for a dtype, pass opcore.", n.name);
    }
    throw Error(msg);
  }
  if (colon == std::string_view::npos) return Device(*t);
  int index = -1;
  const std::string_view digits = text.substr(colon + 1);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || end != digits.data() + digits.size() || index < 0 || index > 127) {
    throw ValueError("invalid device index in '" + std::string(text) + "'");
  }
  return Device(*t, static_cast<DeviceIndex>(index));
}

// Readies the four types and their objects, and adds them to `module` (opcore._C):
// _C.float32, _C.strided, _C.contiguous_format, _C.device, ...
bool initTypes(PyObject* module) {
  PyDtypeType.tp_basicsize = sizeof(PyDtype);
  PyDtypeType.tp_flags = Py_TPFLAGS_DEFAULT;
  PyDtypeType.tp_repr = namedRepr<PyDtype>;
  PyDtypeType.tp_getset = dtype_getset;
  PyDtypeType.tp_methods = dtype_methods;
  PyLayoutType.tp_basicsize = sizeof(PyLayout);
  PyLayoutType.tp_flags = Py_TPFLAGS_DEFAULT;
  PyLayoutType.tp_repr = namedRepr<PyLayout>;
  PyMemoryFormatType.tp_basicsize = sizeof(PyMemoryFormat);
  PyMemoryFormatType.tp_flags = Py_TPFLAGS_DEFAULT;
  PyMemoryFormatType.tp_repr = namedRepr<PyMemoryFormat>;
  PyDeviceType.tp_basicsize = sizeof(PyDevice);
  PyDeviceType.tp_flags = Py_TPFLAGS_DEFAULT;
  PyDeviceType.tp_new = deviceNew;
  PyDeviceType.tp_repr = deviceRepr;
  PyDeviceType.tp_str = deviceStr;
  PyDeviceType.tp_getset = device_getset;
  PyDeviceType.tp_richcompare = deviceRichCompare;
  PyDeviceType.tp_hash = deviceHash;
  for (PyTypeObject* type : {&PyDtypeType, &PyLayoutType, &PyMemoryFormatType, &PyDeviceType}) {
    if (PyType_Ready(type) < 0) return false;
  }
  // dtypes[] is indexed by ScalarType; the unsupported ones (ComplexHalf, the quantized
  // types) are holes that dtypeObject never hands out (Note [Dtypes]).
  for (const DtypeName& n : kDtypeNames) {
    PyDtype& d = dtypes[static_cast<int>(n.type)];
    PyObject_Init(reinterpret_cast<PyObject*>(&d), &PyDtypeType);
    d.scalar_type = n.type;
    d.name = n.name;
    if (PyModule_AddObjectRef(module, n.name, dtypeObject(n.type)) < 0) return false;
    if (n.alias && PyModule_AddObjectRef(module, n.alias, dtypeObject(n.type)) < 0) return false;
  }
  if (PyModule_AddFunctions(module, dtype_functions) < 0) return false;
  // torch's names; the sparse ones exist so that a factory can refuse them by name.
  static const char* layout_names[] = {"strided", "sparse_coo", "sparse_csr"};
  static_assert(std::size(layout_names) == kNumLayouts);
  for (int i = 0; i < kNumLayouts; ++i) {
    PyLayout& l = layouts[i];
    PyObject_Init(reinterpret_cast<PyObject*>(&l), &PyLayoutType);
    l.layout = static_cast<Layout>(i);
    l.name = layout_names[i];
    if (PyModule_AddObjectRef(module, l.name, layoutObject(l.layout)) < 0) return false;
  }
  static const char* format_names[] = {"contiguous_format", "preserve_format", "channels_last", "channels_last_3d"};
  for (int i = 0; i < kNumMemoryFormats; ++i) {
    PyMemoryFormat& m = memory_formats[i];
    PyObject_Init(reinterpret_cast<PyObject*>(&m), &PyMemoryFormatType);
    m.memory_format = static_cast<MemoryFormat>(i);
    m.name = format_names[i];
    if (PyModule_AddObjectRef(module, m.name, reinterpret_cast<PyObject*>(&m)) < 0) return false;
  }
  for (PyTypeObject* type : {&PyDtypeType, &PyLayoutType, &PyMemoryFormatType, &PyDeviceType}) {
    const char* name = type->tp_name + sizeof("opcore.") - 1;
    if (PyModule_AddObjectRef(module, name, reinterpret_cast<PyObject*>(type)) < 0) return false;
  }
  return true;
}

}  // namespace opcore::python

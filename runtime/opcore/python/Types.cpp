// opcore.dtype, opcore.layout, opcore.memory_format and opcore.device: small immutable
// Python objects; one object per dtype, layout and memory format (compared by identity, as
// torch.float32 is), a new device object per call.
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>
#include <opcore/python/Wrap.h>

#include <opcore/core/Error.h>

#include <array>
#include <charconv>
#include <string>

namespace opcore::python {
namespace {

template <typename T>
PyObject* namedRepr(PyObject* self) {
  return PyUnicode_FromFormat("opcore.%s", reinterpret_cast<T*>(self)->name);
}

std::array<PyDtype, kNumScalarTypes> dtypes;
std::array<PyLayout, 1> layouts;
std::array<PyMemoryFormat, kNumMemoryFormats> memory_formats;

PyObject* dtypeIsFloatingPoint(PyObject* self, void*) {
  return PyBool_FromLong(isFloatingType(reinterpret_cast<PyDtype*>(self)->scalar_type));
}
PyObject* dtypeItemsize(PyObject* self, void*) {
  return PyLong_FromSize_t(elementSize(reinterpret_cast<PyDtype*>(self)->scalar_type));
}
PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtypeIsFloatingPoint, nullptr, "whether the dtype is a floating-point type", nullptr},
    {"itemsize", dtypeItemsize, nullptr, "the size of one element in bytes", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

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
    {"type", deviceType, nullptr, "'cpu', 'cuda' or 'meta'", nullptr},
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

PyObject* dtypeObject(ScalarType t) { return reinterpret_cast<PyObject*>(&dtypes[static_cast<int>(t)]); }
PyObject* layoutObject(Layout l) {
  OPCORE_CHECK(l == Layout::Strided, "layout ", static_cast<int>(l), " has no Python object yet");
  return reinterpret_cast<PyObject*>(&layouts[0]);
}
PyObject* memoryFormatObject(MemoryFormat m) { return reinterpret_cast<PyObject*>(&memory_formats[static_cast<int>(m)]); }

PyObject* deviceObject(Device d) {
  PyDevice* obj = PyObject_New(PyDevice, &PyDeviceType);
  if (!obj) throw PythonError();
  obj->device = d;
  return reinterpret_cast<PyObject*>(obj);
}

Device parseDevice(std::string_view text) {
  const size_t colon = text.find(':');
  const std::string_view type = text.substr(0, colon);
  opcore::DeviceType t;
  if (type == "cpu") {
    t = DeviceType::CPU;
  } else if (type == "cuda") {
    t = DeviceType::CUDA;
  } else if (type == "meta") {
    t = DeviceType::Meta;
  } else {
    throw ValueError("invalid device string '" + std::string(text) + "' (expected 'cpu', 'cuda', 'cuda:<index>' or 'meta')");
  }
  if (colon == std::string_view::npos) return Device(t);
  int index = -1;
  const std::string_view digits = text.substr(colon + 1);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || end != digits.data() + digits.size() || index < 0 || index > 127) {
    throw ValueError("invalid device index in '" + std::string(text) + "'");
  }
  return Device(t, static_cast<DeviceIndex>(index));
}

// Readies the four types and their objects, and adds them to `module` (opcore._C):
// _C.float32, _C.strided, _C.contiguous_format, _C.device, ...
bool initTypes(PyObject* module) {
  PyDtypeType.tp_basicsize = sizeof(PyDtype);
  PyDtypeType.tp_flags = Py_TPFLAGS_DEFAULT;
  PyDtypeType.tp_repr = namedRepr<PyDtype>;
  PyDtypeType.tp_getset = dtype_getset;
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
  struct DtypeName {
    ScalarType type;
    const char* name;
    const char* alias;
  };
  static const DtypeName dtype_names[] = {{kBool, "bool", nullptr},
                                          {kInt, "int32", "int"},
                                          {kLong, "int64", "long"},
                                          {kFloat, "float32", "float"},
                                          {kDouble, "float64", "double"}};
  for (const DtypeName& n : dtype_names) {
    PyDtype& d = dtypes[static_cast<int>(n.type)];
    PyObject_Init(reinterpret_cast<PyObject*>(&d), &PyDtypeType);
    d.scalar_type = n.type;
    d.name = n.name;
    if (PyModule_AddObjectRef(module, n.name, dtypeObject(n.type)) < 0) return false;
    if (n.alias && PyModule_AddObjectRef(module, n.alias, dtypeObject(n.type)) < 0) return false;
  }
  PyObject_Init(reinterpret_cast<PyObject*>(&layouts[0]), &PyLayoutType);
  layouts[0].layout = Layout::Strided;
  layouts[0].name = "strided";
  if (PyModule_AddObjectRef(module, "strided", layoutObject(Layout::Strided)) < 0) return false;
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

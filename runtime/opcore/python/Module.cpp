// opcore._C: the module init. Collects the generated bindings (build/generated/python/), adds
// the module functions to opcore._C (and to opcore._C._nn, ... for `python_module:`), the
// methods to opcore.Tensor, and the hand-written parts (types, autograd, numpy).
#include <opcore/python/Module.h>

#include <opcore/core/Device.h>
#include <opcore/core/Generator.h>
#include <opcore/core/Parallel.h>
#include <opcore/dispatch/FunctionSchema.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include "PythonFunctions.h"

#include <climits>
#include <map>
#include <string>
#include <unordered_map>

namespace opcore::python {
namespace {

// Every generated module function of opcore._C, and every generated Tensor method, by name
// (filled once, at import).
std::unordered_map<std::string, FastFunction>& operatorFunctions() {
  static std::unordered_map<std::string, FastFunction> functions;
  return functions;
}
std::unordered_map<std::string, FastFunction>& operatorMethods() {
  static std::unordered_map<std::string, FastFunction> methods;
  return methods;
}

FastFunction fastFunction(const PyMethodDef& def) {
  return reinterpret_cast<FastFunction>(reinterpret_cast<void (*)()>(def.ml_meth));
}

PyObject* manualSeed(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  if (!isInt(arg)) throw TypeError("manual_seed(): seed must be an int, not " + typeName(arg));
  const unsigned long long seed = PyLong_AsUnsignedLongLongMask(arg);
  if (seed == static_cast<unsigned long long>(-1) && PyErr_Occurred()) return nullptr;
  opcore::manual_seed(seed);
  return Py_NewRef(defaultGeneratorObject());  // as torch.manual_seed
  OPCORE_PY_END
}

PyObject* getDefaultDtype(PyObject*, PyObject*) { return Py_NewRef(dtypeObject(kDefaultFloat)); }

PyObject* setNumThreads(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  if (!isInt(arg)) throw TypeError("set_num_threads(): expected an int, but got " + typeName(arg));
  const int64_t n = toInt64(arg);
  if (n < 1 || n > INT_MAX) throw ValueError("set_num_threads(): expected a positive number of threads, but got " + std::to_string(n));
  opcore::set_num_threads(static_cast<int>(n));
  Py_RETURN_NONE;
  OPCORE_PY_END
}

PyObject* getNumThreads(PyObject*, PyObject*) { return PyLong_FromLong(opcore::get_num_threads()); }

// _parse_schema(text): the runtime parser's reading of a schema, printed (as torch._C.parse_schema);
// tests/fuzz/fuzz_gen.py compares it with the generator's parser.
PyObject* parseSchema(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  if (!PyUnicode_Check(arg)) throw TypeError("_parse_schema(): expected a str, but got " + typeName(arg));
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(arg, &size);
  if (!text) throw PythonError();
  const std::string printed = FunctionSchema::parse(std::string_view(text, static_cast<size_t>(size))).str();
  return PyUnicode_DecodeUTF8(printed.data(), static_cast<Py_ssize_t>(printed.size()), "strict");
  OPCORE_PY_END
}

// _rename_privateuse1_backend(name): opcore.utils.rename_privateuse1_backend's C++ half.
PyObject* renamePrivateUse1Backend(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  if (!PyUnicode_Check(arg)) throw TypeError("rename_privateuse1_backend(): expected a str, but got " + typeName(arg));
  const char* name = PyUnicode_AsUTF8(arg);
  if (!name) throw PythonError();
  opcore::register_privateuse1_backend(name);
  Py_RETURN_NONE;
  OPCORE_PY_END
}

PyObject* getPrivateUse1BackendName(PyObject*, PyObject*) {
  return PyUnicode_FromString(toString(DeviceType::PrivateUse1));
}

// _add_tensor_method(name, obj): sets opcore.Tensor.<name> (a static type, so Python's setattr
// refuses), for generate_methods_for_privateuse1_backend; never replaces an attribute.
PyObject* addTensorMethod(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  const char* name = nullptr;
  PyObject* obj = nullptr;
  if (!PyArg_ParseTuple(args, "sO:_add_tensor_method", &name, &obj)) return nullptr;
  PyObject* dict = PyTensorType.tp_dict;
  if (PyDict_GetItemString(dict, name)) throw Error(detail::strCat("opcore.Tensor already has an attribute '", name, "'"));
  if (PyDict_SetItemString(dict, name, obj) < 0) throw PythonError();
  PyType_Modified(&PyTensorType);
  Py_RETURN_NONE;
  OPCORE_PY_END
}

// opcore::detail::warn's handler in a process with Python: a UserWarning, so that the warnings
// filters apply. A kernel may run without the GIL (GilRelease), so it is taken here; when the
// filter makes the warning an error, the PythonError carrying it (fetched with the GIL held)
// unwinds to the binding, which raises it.
void warnInPython(const std::string& msg) {
  const PyGILState_STATE gil = PyGILState_Ensure();
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) == 0) {
    PyGILState_Release(gil);
    return;
  }
  PythonError error;
  PyGILState_Release(gil);
  throw error;
}

PyMethodDef module_methods[] = {
    {"_rename_privateuse1_backend", renamePrivateUse1Backend, METH_O,
     "_rename_privateuse1_backend(name): names PrivateUse1's devices (opcore.utils.rename_privateuse1_backend)"},
    {"_get_privateuse1_backend_name", getPrivateUse1BackendName, METH_NOARGS,
     "_get_privateuse1_backend_name(): PrivateUse1's name ('privateuseone' until renamed)"},
    {"_add_tensor_method", addTensorMethod, METH_VARARGS,
     "_add_tensor_method(name, obj): adds an attribute to opcore.Tensor (never replacing one)"},
    {"manual_seed", manualSeed, METH_O, "manual_seed(seed): seeds the default generators; returns default_generator"},
    {"get_default_dtype", getDefaultDtype, METH_NOARGS, "get_default_dtype(): the dtype of floating-point results (float32)"},
    {"set_num_threads", setNumThreads, METH_O, "set_num_threads(n): the threads CPU kernels may use (n >= 1)"},
    {"get_num_threads", getNumThreads, METH_NOARGS, "get_num_threads(): the threads CPU kernels may use"},
    {"_parse_schema", parseSchema, METH_O, "_parse_schema(schema): the runtime parser's printing of it (RuntimeError if malformed)"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "opcore._C",
                          "opcore._C: the compiled part of opcore (operators, Tensor, autograd)", -1, module_methods};

// Adds `functions` (each module's methods table must outlive the module: they are kept here).
bool addFunctions(PyObject* module, const std::vector<Binding>& functions) {
  static std::map<std::string, std::vector<PyMethodDef>> tables;
  for (const Binding& b : functions) tables[b.module].push_back(b.def);
  for (auto& [name, defs] : tables) {
    defs.push_back({nullptr, nullptr, 0, nullptr});
    PyObject* target = module;
    if (!name.empty()) {  // opcore._C._nn for `python_module: nn`
      const std::string qualified = "opcore._C._" + name;
      target = PyModule_New(qualified.c_str());
      // In sys.modules too, so that `from opcore._C._nn import ...` finds it.
      if (!target || PyDict_SetItemString(PyImport_GetModuleDict(), qualified.c_str(), target) < 0 ||
          PyModule_AddObject(module, ("_" + name).c_str(), target) < 0) {
        Py_XDECREF(target);
        return false;
      }
    }
    if (PyModule_AddFunctions(target, defs.data()) < 0) return false;
  }
  for (const Binding& b : functions) {
    if (b.module[0] == '\0') operatorFunctions()[b.def.ml_name] = fastFunction(b.def);
  }
  return true;
}

}  // namespace

FastFunction operatorFunction(const char* name) {
  const auto it = operatorFunctions().find(name);
  return it == operatorFunctions().end() ? nullptr : it->second;
}

FastFunction operatorMethod(const char* name) {
  const auto it = operatorMethods().find(name);
  return it == operatorMethods().end() ? nullptr : it->second;
}

}  // namespace opcore::python

PyMODINIT_FUNC PyInit__C() {
  using namespace opcore::python;
  PyObject* module = PyModule_Create(&module_def);
  if (!module) return nullptr;
  static BindingTable table;
  addAllBindings(table);
  for (const Binding& b : table.methods) operatorMethods()[b.def.ml_name] = fastFunction(b.def);
  if (!initTypes(module) || !initGenerator(module) || !initTensorType(module, table.methods) || !addFunctions(module, table.functions) ||
      !initAutograd(module) || !initNumpy(module) || !initDispatch(module, kTags) || !initOperator(module) ||
      !initLibrary(module) || !initDeviceRuntime(module)) {
    Py_DECREF(module);
    return nullptr;
  }
  opcore::detail::setWarningHandler(&warnInPython);
  return module;
}

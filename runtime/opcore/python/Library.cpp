// opcore._C._Library: the registrations of one opcore.library.Library (and of
// OperatorBase.py_impl, and the Python dispatch key's fallback), made through an
// opcore::Library; Python functions become kernels through pythonKernel() (PythonKernel.cpp).
//   lib = _C._Library("FRAGMENT", "myops", None, "file.py:3")
//   lib.define("scale(Tensor x, float f) -> Tensor", [], "file.py:4")
//   lib.impl("scale", fn, "CPU", False, "file.py:5")
#include <opcore/python/Module.h>

#include <opcore/library/Library.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opcore::python {

namespace {

struct PyLibrary {
  PyObject_HEAD
  std::optional<Library> lib;
};
PyTypeObject PyLibraryType = {PyVarObject_HEAD_INIT(nullptr, 0) "opcore._C._Library"};

Library& lib(PyObject* self) {
  auto& l = reinterpret_cast<PyLibrary*>(self)->lib;
  if (!l) throw Error("this Library was destroyed (_destroy()): make a new one to register again");
  return *l;
}

std::string str(PyObject* obj, const char* what) {
  if (!PyUnicode_Check(obj)) throw TypeError(std::string(what) + " must be a str, not " + typeName(obj));
  return PyUnicode_AsUTF8(obj);
}

std::optional<DispatchKey> optionalKey(PyObject* obj) {
  if (obj == Py_None || (PyUnicode_Check(obj) && PyUnicode_GetLength(obj) == 0)) return std::nullopt;
  return toDispatchKey(obj);
}

// _Library(kind, ns, dispatch_key, site): kind "DEF", "IMPL" or "FRAGMENT".
int libraryInit(PyObject* self, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  PyObject *kind, *ns, *key, *site;
  if (!PyArg_ParseTuple(args, "OOOO:_Library", &kind, &ns, &key, &site)) return -1;
  const std::string k = str(kind, "kind");
  const Library::Kind parsed = k == "DEF" ? Library::DEF : k == "IMPL" ? Library::IMPL : k == "FRAGMENT" ? Library::FRAGMENT
      : throw ValueError("Library kind must be 'DEF', 'IMPL' or 'FRAGMENT', not '" + k + "'");
  const std::optional<DispatchKey> dispatch_key = optionalKey(key);
  if (parsed == Library::IMPL && !dispatch_key) throw ValueError("an IMPL library needs a dispatch_key");
  auto& l = reinterpret_cast<PyLibrary*>(self)->lib;
  l.reset();
  l.emplace(parsed, str(ns, "ns"), dispatch_key, str(site, "site"));
  return 0;
  OPCORE_PY_END_INT
}

PyObject* libraryNew(PyTypeObject* type, PyObject*, PyObject*) {
  PyObject* self = type->tp_alloc(type, 0);
  if (self) new (&reinterpret_cast<PyLibrary*>(self)->lib) std::optional<Library>();
  return self;
}

void libraryDealloc(PyObject* self) {
  reinterpret_cast<PyLibrary*>(self)->lib.~optional();
  Py_TYPE(self)->tp_free(self);
}

// define(schema, tags, site)
PyObject* libraryDefine(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  OPCORE_PY_BEGIN
  if (nargs != 3) throw TypeError("define(schema, tags, site)");
  std::vector<std::string> tags;
  PyObjectPtr items(PySequence_Fast(args[1], "tags must be a sequence of str"));
  if (!items) throw PythonError();
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(items.get()); ++i) tags.push_back(str(PySequence_Fast_GET_ITEM(items.get(), i), "a tag"));
  lib(self).def(str(args[0], "schema").c_str(), std::move(tags), str(args[2], "site"));
  Py_RETURN_NONE;
  OPCORE_PY_END
}

// impl(name, fn_or_None, dispatch_key, with_keyset, site)
PyObject* libraryImpl(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  OPCORE_PY_BEGIN
  if (nargs != 5) throw TypeError("impl(name, fn, dispatch_key, with_keyset, site)");
  lib(self).impl(str(args[0], "name").c_str(), optionalKey(args[2]),
                 pythonKernel(args[1], false, isTrue(args[3])), str(args[4], "site"));
  Py_RETURN_NONE;
  OPCORE_PY_END
}

// fallback(fn_or_None, dispatch_key, with_keyset, site): fn(op_name, overload_name, [keyset,] *args, **kwargs)
PyObject* libraryFallback(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  OPCORE_PY_BEGIN
  if (nargs != 4) throw TypeError("fallback(fn, dispatch_key, with_keyset, site)");
  lib(self).fallback(toDispatchKey(args[1]), pythonKernel(args[0], true, isTrue(args[2])),
                     str(args[3], "site"));
  Py_RETURN_NONE;
  OPCORE_PY_END
}

PyObject* libraryDestroy(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  auto& l = reinterpret_cast<PyLibrary*>(self)->lib;
  // Removing registrations frees Python kernels, which takes the GIL we hold: fine (reentrant).
  l.reset();
  Py_RETURN_NONE;
  OPCORE_PY_END
}

PyMethodDef library_methods[] = {
    {"define", asPyCFunction(libraryDefine), METH_FASTCALL, "define(schema, tags, site)"},
    {"impl", asPyCFunction(libraryImpl), METH_FASTCALL,
     "impl(name, fn, dispatch_key, with_keyset, site): fn=None registers a fallthrough kernel"},
    {"fallback", asPyCFunction(libraryFallback), METH_FASTCALL,
     "fallback(fn, dispatch_key, with_keyset, site): fn(op_name, overload_name, [keyset,] *args, **kwargs)"},
    {"_destroy", libraryDestroy, METH_NOARGS, "removes every registration this library made"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool initLibrary(PyObject* module) {
  PyLibraryType.tp_basicsize = sizeof(PyLibrary);
  PyLibraryType.tp_flags = Py_TPFLAGS_DEFAULT;
  PyLibraryType.tp_doc = "The registrations of one opcore.library.Library (see there)";
  PyLibraryType.tp_new = libraryNew;
  PyLibraryType.tp_init = libraryInit;
  PyLibraryType.tp_dealloc = libraryDealloc;
  PyLibraryType.tp_methods = library_methods;
  if (PyType_Ready(&PyLibraryType) < 0) return false;
  return PyModule_AddObjectRef(module, "_Library", reinterpret_cast<PyObject*>(&PyLibraryType)) == 0;
}

}  // namespace opcore::python

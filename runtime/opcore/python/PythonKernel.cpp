// Python functions as dispatcher kernels, and opcore._C._Library, through which
// opcore.library (and OperatorBase.py_impl, and the Python dispatch key's fallback) registers
// them. A Python kernel is a boxed kernel: it takes the GIL, hands the arguments to the
// function as Python objects and pushes what it returns as the schema's returns.
//
// Note [Boxed calls from and to Python]
// Arguments go to Python as PyTorch passes them to Python kernels: those before `*` by
// position, keyword-only ones by name. Returns come back through a PythonArgParser built from
// the schema's return types (one parameter per return), so that a Python kernel's results are
// checked and converted exactly as the arguments of a call from Python are: a Tensor return
// takes a Tensor, an int return an int, and anything else is a TypeError naming the kernel.
// An exception the function raises travels through the C++ frames as a PythonError and is
// raised again, unchanged, where the call entered from Python.
#include <opcore/python/Module.h>

#include <opcore/dispatch/Dispatcher.h>
#include <opcore/library/Library.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include <memory>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace opcore::python {

PyObject* fromIValue(const IValue& v) {
  if (v.isNone() || v.isGenerator()) Py_RETURN_NONE;
  if (v.isTensor()) return wrap(Tensor(v.toTensorBase()));
  if (v.isBool()) return PyBool_FromLong(v.toBool());
  if (v.isInt()) return PyLong_FromLongLong(v.toInt());
  if (v.isDouble()) return PyFloat_FromDouble(v.toDouble());
  if (v.isString()) return PyUnicode_FromStringAndSize(v.toStringView().data(), static_cast<Py_ssize_t>(v.toStringView().size()));
  if (v.isScalarType()) return wrap(v.toScalarType());
  if (v.isDevice()) return deviceObject(v.toDevice());
  if (v.isLayout()) return Py_NewRef(layoutObject(v.toLayout()));
  if (v.isMemoryFormat()) return Py_NewRef(memoryFormatObject(v.toMemoryFormat()));
  if (v.isTensorList()) {
    std::vector<Tensor> list;
    for (const TensorBase& t : v.toTensorList()) list.emplace_back(t);
    return wrap(list);
  }
  auto sequence = [](auto values, auto convert) {
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(values.size()));
    if (!list) throw PythonError();
    for (size_t i = 0; i < values.size(); ++i) PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), convert(values[i]));
    return list;
  };
  if (v.isIntList()) return sequence(v.toIntList(), [](int64_t x) { return PyLong_FromLongLong(x); });
  if (v.isDoubleList()) return sequence(v.toDoubleList(), [](double x) { return PyFloat_FromDouble(x); });
  if (v.isBoolList()) return sequence(v.toBoolList(), [](bool x) { return PyBool_FromLong(x); });
  if (v.isGenericList()) return sequence(v.toGenericList(), [](const IValue& x) { return fromIValue(x); });
  throw TypeError("a boxed value of this type has no Python equivalent yet");
}

PyObject* returnsToPython(const Stack& stack, size_t first) {
  const size_t n = stack.size() - first;
  if (n == 0) Py_RETURN_NONE;
  if (n == 1) return fromIValue(stack[first]);
  PyObjectPtr tuple(PyTuple_New(static_cast<Py_ssize_t>(n)));
  if (!tuple) throw PythonError();
  for (size_t i = 0; i < n; ++i) PyTuple_SET_ITEM(tuple.get(), static_cast<Py_ssize_t>(i), fromIValue(stack[first + i]));
  return tuple.release();
}

namespace {

// A reference owned by C++ code that may drop it without the GIL (a kernel is deregistered
// from any thread), or after the interpreter has gone (static destruction at exit).
struct GilSafeRef {
  PyObject* obj;
  explicit GilSafeRef(PyObject* o) : obj(Py_NewRef(o)) {}
  GilSafeRef(GilSafeRef&& o) noexcept : obj(std::exchange(o.obj, nullptr)) {}
  GilSafeRef(const GilSafeRef&) = delete;
  ~GilSafeRef() {
    if (!obj || !Py_IsInitialized()) return;
    GilAcquire gil;
    Py_DECREF(obj);
  }
};

// The schema's returns as the parameters of a parser: "returns(Tensor r0, int r1) -> ()".
std::string returnsSchema(const FunctionSchema& schema) {
  std::string text = "returns(";
  for (size_t i = 0; i < schema.returns().size(); ++i) {
    SchemaType type = schema.returns()[i].type;
    type.alias.reset();
    text += (i ? ", " : "") + type.str() + " r" + std::to_string(i);
  }
  return text + ") -> ()";
}

// Pushes the Python kernel's `result` as the schema's returns (Note [Boxed calls from and to
// Python]), read by `parser` (over returnsSchema(op.schema())).
void pushReturns(const OperatorHandle& op, const PythonArgParser& parser, PyObject* result, Stack& stack) {
  const FunctionSchema& schema = op.schema();
  const size_t n = schema.returns().size();
  auto where = [&] { return "the Python kernel of " + op.operatorName().str(); };
  if (n == 0) {
    if (result != Py_None) throw TypeError(where() + " must return None, not " + typeName(result));
    return;
  }
  PyObjectPtr items;
  PyObject* const* values = &result;
  if (n > 1) {
    if (!PyTuple_Check(result) && !PyList_Check(result)) {
      throw TypeError(where() + " must return a tuple of " + std::to_string(n) + " values, not " + typeName(result));
    }
    items.reset(PySequence_Fast(result, "returns"));
    if (!items || static_cast<size_t>(PySequence_Fast_GET_SIZE(items.get())) != n) {
      throw TypeError(where() + " must return " + std::to_string(n) + " values, not " +
                      std::to_string(PySequence_Size(result)));
    }
    values = PySequence_Fast_ITEMS(items.get());
  }
  const PythonArgs r = [&] {
    try {
      return parser.parse(nullptr, values, static_cast<Py_ssize_t>(n), nullptr);
    } catch (const TypeError& e) {
      throw TypeError(where() + " returned a value the schema '" + schema.str() + "' does not allow: " + e.what());
    }
  }();
  for (size_t i = 0; i < n; ++i) stack.push_back(r.toIValue(static_cast<int>(i)));
}

// A Python function as a boxed kernel. Before the operator's arguments it may pass the
// operator's name and overload (fallbacks, which serve every operator) and the call's key set
// (with_keyset=True, for kernels that redispatch).
class PythonKernel {
 public:
  PythonKernel(PyObject* fn, bool with_op_name, bool with_keyset)
      : state_(std::make_shared<State>(fn, with_op_name, with_keyset)) {}

  void operator()(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) const {
    GilAcquire gil;
    // The function may remove this very kernel (destroy its Library): the call keeps what it
    // uses alive until it returns.
    const std::shared_ptr<State> state = state_;
    const FunctionSchema& schema = op.schema();
    const size_t num_args = schema.arguments().size();
    const size_t first = stack->size() - num_args;
    PyObjectPtr args(PyList_New(0));
    PyObjectPtr kwargs(PyDict_New());
    if (!args || !kwargs) throw PythonError();
    auto append = [&](PyObject* item) {  // steals item
      PyObjectPtr owned(item);
      if (!owned || PyList_Append(args.get(), owned.get()) < 0) throw PythonError();
    };
    if (state->with_op_name) {
      append(PyUnicode_FromString(op.operatorName().name.c_str()));
      append(PyUnicode_FromString(op.operatorName().overload_name.c_str()));
    }
    if (state->with_keyset) append(wrap(ks));
    for (size_t i = 0; i < num_args; ++i) {
      const Argument& a = schema.arguments()[i];
      if (!a.kwarg_only) {
        append(fromIValue((*stack)[first + i]));
        continue;
      }
      PyObjectPtr value(fromIValue((*stack)[first + i]));
      if (PyDict_SetItemString(kwargs.get(), a.name.c_str(), value.get()) < 0) throw PythonError();
    }
    PyObjectPtr arg_tuple(PyList_AsTuple(args.get()));
    if (!arg_tuple) throw PythonError();
    PyObjectPtr result(PyObject_Call(state->fn.obj, arg_tuple.get(), kwargs.get()));
    if (!result) throw PythonError();
    stack->erase(stack->begin() + static_cast<std::ptrdiff_t>(first), stack->end());
    pushReturns(op, state->returnsParser(op), result.get(), *stack);
  }

 private:
  struct ReturnsParser {
    const void* version = nullptr;
    std::unique_ptr<PythonArgParser> parser;
  };
  struct State {
    State(PyObject* f, bool op_name, bool keyset) : fn(f), with_op_name(op_name), with_keyset(keyset) {}
    ~State() {
      // The last owner may be any thread (deregistration); the parsers hold Python objects.
      if (returns.empty() || !Py_IsInitialized()) return;
      GilAcquire gil;
      returns.clear();
    }
    // The parser of `op`'s returns, made on its first call and again after a registration
    // changed the operator (its schema may have). Precondition: the GIL is held, which
    // serialises access to the map.
    const PythonArgParser& returnsParser(const OperatorHandle& op) {
      ReturnsParser& known = returns[&op.operatorName()];  // entries live for the process
      if (!known.parser || known.version != op.tableVersion()) {
        const std::vector<std::string> schemas{returnsSchema(op.schema())};
        const std::string where = "the Python kernel of " + op.operatorName().str();
        known.parser = std::make_unique<PythonArgParser>(where.c_str(), /*method=*/false, schemas);
        known.version = op.tableVersion();
      }
      return *known.parser;
    }

    GilSafeRef fn;
    bool with_op_name;
    bool with_keyset;
    std::unordered_map<const OperatorName*, ReturnsParser> returns;
  };
  std::shared_ptr<State> state_;
};

// --- opcore._C._Library ----------------------------------------------------------------------

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

// A Python callable, or None for a fallthrough kernel.
KernelFunction kernelOf(PyObject* fn, bool with_op_name, bool with_keyset) {
  if (fn == Py_None) return KernelFunction::makeFallthrough();
  if (!PyCallable_Check(fn)) throw TypeError("a kernel must be callable, not " + typeName(fn));
  return KernelFunction::makeFromBoxedFunctor(PythonKernel(fn, with_op_name, with_keyset));
}

// impl(name, fn_or_None, dispatch_key, with_keyset, site)
PyObject* libraryImpl(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  OPCORE_PY_BEGIN
  if (nargs != 5) throw TypeError("impl(name, fn, dispatch_key, with_keyset, site)");
  lib(self).impl(str(args[0], "name").c_str(), optionalKey(args[2]),
                 kernelOf(args[1], false, PyObject_IsTrue(args[3]) == 1), str(args[4], "site"));
  Py_RETURN_NONE;
  OPCORE_PY_END
}

// fallback(fn_or_None, dispatch_key, with_keyset, site): fn(op_name, overload_name, [keyset,] *args, **kwargs)
PyObject* libraryFallback(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  OPCORE_PY_BEGIN
  if (nargs != 4) throw TypeError("fallback(fn, dispatch_key, with_keyset, site)");
  lib(self).fallback(toDispatchKey(args[1]), kernelOf(args[0], true, PyObject_IsTrue(args[2]) == 1),
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

bool initPythonKernels(PyObject* module) {
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

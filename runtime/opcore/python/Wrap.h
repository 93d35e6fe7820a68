// Python objects for opcore values: the Tensor type (a PyObject holding an opcore::Tensor),
// dtype / device / layout / memory_format objects, and wrap(), which turns whatever an
// operator returns into a new Python reference (a tensor's one object, made or reused).
//   PyObject* obj = wrap(opcore::ones({2}));   // an opcore.Tensor (None for an undefined one)
//   Tensor& t = unpackTensor(obj);             // precondition: isTensor(obj)
#pragma once

#include <Python.h>

#include <opcore/Tensor.h>
#include <opcore/core/Scalar.h>

#include <cstdint>
#include <initializer_list>
#include <tuple>
#include <utility>
#include <vector>

namespace opcore::python {

// --- opcore.Tensor ------------------------------------------------------------------------
// Its one object per tensor: see Note [The Python object of a tensor] (opcore/core/TensorImpl.h).
struct PyTensor {
  PyObject_HEAD
  Tensor cdata;
  PyObject* weakreflist;  // weakref.ref(t) works, as for torch.Tensor
};
extern PyTypeObject PyTensorType;

inline bool isTensor(PyObject* obj) { return PyObject_TypeCheck(obj, &PyTensorType); }
inline Tensor& unpackTensor(PyObject* obj) { return reinterpret_cast<PyTensor*>(obj)->cdata; }
// False for a tensor subclass made by Tensor._make_wrapper_subclass (Python key, no storage):
// its values exist only in the subclass's own fields.
inline bool hasData(const Tensor& t) { return !t.key_set().has(DispatchKey::Python) || t.unsafeGetTensorImpl()->data() != nullptr; }
// Throws, naming `what` ("tolist()"), when !hasData(t).
void checkHasData(const Tensor& t, const char* what);

// --- dtype, layout, memory_format, device ---------------------------------------------------
struct PyDtype {
  PyObject_HEAD
  ScalarType scalar_type;
  const char* name;  // "float32"
};
struct PyLayout {
  PyObject_HEAD
  Layout layout;
  const char* name;  // "strided"
};
struct PyMemoryFormat {
  PyObject_HEAD
  MemoryFormat memory_format;
  const char* name;  // "contiguous_format"
};
struct PyDevice {
  PyObject_HEAD
  Device device;
};
extern PyTypeObject PyDtypeType, PyLayoutType, PyMemoryFormatType, PyDeviceType;

// The one object per value (borrowed references, alive as long as the module).
PyObject* dtypeObject(ScalarType t);
PyObject* layoutObject(Layout l);
PyObject* memoryFormatObject(MemoryFormat m);
// A new opcore.device object.
PyObject* deviceObject(Device d);
// "cpu", "cuda", "cuda:1", "meta"; throws ValueError naming the string otherwise.
Device parseDevice(std::string_view text);

// --- opcore.Generator (Generator.cpp) ---------------------------------------------------------
struct PyGenerator {
  PyObject_HEAD
  Generator generator;
};
extern PyTypeObject PyGeneratorType;
inline bool isGenerator(PyObject* obj) { return PyObject_TypeCheck(obj, &PyGeneratorType); }
// A new Python object of `type` (opcore.Generator or a subclass) holding `g`.
PyObject* newGeneratorObject(PyTypeObject* type, Generator g);
// opcore.default_generator (a borrowed reference, alive as long as the module).
PyObject* defaultGeneratorObject();

// --- wrap: a C++ result as a new Python reference --------------------------------------------
PyObject* wrap(Tensor t);
PyObject* wrap(const std::vector<Tensor>& ts);
PyObject* wrap(const Scalar& s);
PyObject* wrap(ScalarType t);
inline PyObject* wrap(bool b) { return PyBool_FromLong(b); }
inline PyObject* wrap(int64_t v) { return PyLong_FromLongLong(v); }
inline PyObject* wrap(double v) { return PyFloat_FromDouble(v); }

// A tuple, or, given `named` (returnType()), a named tuple: `values, indices = t.max(0)` and
// `t.max(0).values` both work, as with torch.return_types.
template <typename... Ts>
PyObject* wrap(std::tuple<Ts...> values, PyTypeObject* named = nullptr) {
  PyObject* tuple = named ? PyStructSequence_New(named) : PyTuple_New(sizeof...(Ts));
  if (!tuple) return nullptr;
  bool ok = true;
  std::apply([&](auto&... v) {
    Py_ssize_t i = 0;
    ((ok = ok && [&] {
       PyObject* item = wrap(std::move(v));
       if (item) PyTuple_SET_ITEM(tuple, i++, item);  // a structseq is a tuple
       return item != nullptr;
     }()), ...);
  }, values);
  if (!ok) {
    Py_DECREF(tuple);
    return nullptr;
  }
  return tuple;
}

// The named-tuple type opcore.return_types.<name> with the given fields (the named returns of
// a schema), made on first use (one per name) and kept for the process. Throws PythonError.
PyTypeObject* returnType(const char* name, std::initializer_list<const char*> fields);

// --- the GIL ----------------------------------------------------------------------------------
// Runs `f` with the GIL released (other Python threads run meanwhile; Ctrl-C pressed during a
// long kernel raises KeyboardInterrupt as soon as it returns) and returns its result by value.
// Precondition: the GIL is held.
class GilRelease {
 public:
  GilRelease() : state_(PyEval_SaveThread()) {}
  ~GilRelease() { PyEval_RestoreThread(state_); }
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

 private:
  PyThreadState* state_;
};

// Holds the GIL for its lifetime, from any thread (the engine runs hooks and Python nodes,
// and the dispatcher Python kernels, where it may not be held).
class GilAcquire {
 public:
  GilAcquire() : state_(PyGILState_Ensure()) {}
  ~GilAcquire() { PyGILState_Release(state_); }
  GilAcquire(const GilAcquire&) = delete;
  GilAcquire& operator=(const GilAcquire&) = delete;

 private:
  PyGILState_STATE state_;
};

template <typename F>
auto callWithoutGil(F&& f) {
  using Result = std::decay_t<decltype(f())>;
  GilRelease release;
  if constexpr (std::is_void_v<Result>) {
    f();
  } else {
    return Result(f());
  }
}

}  // namespace opcore::python

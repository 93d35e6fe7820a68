// C++ exceptions at the boundary to Python. Every function Python calls is wrapped in
//   OPCORE_PY_BEGIN ... OPCORE_PY_END
// so that no exception crosses into the interpreter: opcore::Error becomes RuntimeError with
// its message (opcore::IndexError IndexError, opcore::NotImplementedError
// NotImplementedError, opcore::OutOfMemoryError opcore.cuda.OutOfMemoryError), the Python-facing errors below their Python namesakes, std::bad_alloc
// MemoryError, and a PythonError (a Python exception raised inside a callback, such as a
// hook, that C++ code let unwind through it) is restored as it was raised.
#pragma once

#include <Python.h>

#include <opcore/core/Error.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace opcore::python {

// Raised where Python raises the exception of the same name (IndexError is the runtime's
// opcore::IndexError, which kernels throw too).
struct TypeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ValueError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// opcore.cuda.OutOfMemoryError (a RuntimeError), made by initDeviceRuntime.
PyObject*& outOfMemoryErrorType();

// The Python exception currently set (PyErr_Occurred()), carried through C++ frames. Built
// with the GIL held; owns the exception object until it is restored.
class PythonError : public std::exception {
 public:
  PythonError();  // fetches (and clears) the current Python exception
  PythonError(PythonError&& other) noexcept;
  PythonError(const PythonError&) = delete;
  ~PythonError() override;
  const char* what() const noexcept override { return message_.c_str(); }
  // Sets it as the current Python exception again (the GIL must be held).
  void restore();

 private:
  PyObject* type_ = nullptr;
  PyObject* exception_ = nullptr;
  PyObject* traceback_ = nullptr;
  std::string message_;
};

// One owned reference, released when it goes out of scope (on a C++ exception too).
struct PyDecref {
  void operator()(PyObject* obj) const { Py_XDECREF(obj); }
};
using PyObjectPtr = std::unique_ptr<PyObject, PyDecref>;

// bool(obj) as Python computes it (__bool__, __len__); throws PythonError when that raises.
inline bool isTrue(PyObject* obj) {
  const int truth = PyObject_IsTrue(obj);
  if (truth < 0) throw PythonError();
  return truth == 1;
}

// Sets the Python exception matching the C++ exception being handled; call in a catch block.
void setPythonErrorFromCurrentException();

}  // namespace opcore::python

#define OPCORE_PY_BEGIN try {
#define OPCORE_PY_END                                        \
  }                                                          \
  catch (...) {                                              \
    ::opcore::python::setPythonErrorFromCurrentException(); \
    return nullptr;                                          \
  }
// For slots returning int (-1 on error).
#define OPCORE_PY_END_INT                                    \
  }                                                          \
  catch (...) {                                              \
    ::opcore::python::setPythonErrorFromCurrentException(); \
    return -1;                                               \
  }

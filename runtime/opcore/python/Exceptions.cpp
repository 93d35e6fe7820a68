#include <opcore/python/Exceptions.h>

#include <opcore/core/Error.h>

#include <new>

namespace opcore::python {

PythonError::PythonError() {
  PyErr_Fetch(&type_, &exception_, &traceback_);
  PyErr_NormalizeException(&type_, &exception_, &traceback_);
  if (!exception_) {
    message_ = "PythonError raised without a Python exception set (an opcore bug)";
    return;
  }
  PyObject* text = PyObject_Str(exception_);
  const char* s = text ? PyUnicode_AsUTF8(text) : nullptr;
  message_ = std::string(Py_TYPE(exception_)->tp_name) + ": " + (s ? s : "<unprintable>");
  if (!s) PyErr_Clear();
  Py_XDECREF(text);
}

PythonError::PythonError(PythonError&& other) noexcept
    : type_(std::exchange(other.type_, nullptr)),
      exception_(std::exchange(other.exception_, nullptr)),
      traceback_(std::exchange(other.traceback_, nullptr)),
      message_(std::move(other.message_)) {}

PythonError::~PythonError() {
  if (!type_ && !exception_ && !traceback_) return;
  // It may be destroyed where the GIL is not held (unwinding through a kernel).
  const PyGILState_STATE gil = PyGILState_Ensure();
  Py_XDECREF(type_);
  Py_XDECREF(exception_);
  Py_XDECREF(traceback_);
  PyGILState_Release(gil);
}

void PythonError::restore() {
  if (type_) {
    PyErr_Restore(std::exchange(type_, nullptr), std::exchange(exception_, nullptr), std::exchange(traceback_, nullptr));
  } else {
    PyErr_SetString(PyExc_RuntimeError, message_.c_str());
  }
}

PyObject*& outOfMemoryErrorType() {
  static PyObject* type = nullptr;
  return type;
}

void setPythonErrorFromCurrentException() {
  try {
    throw;
  } catch (PythonError& e) {
    e.restore();
  } catch (const TypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const opcore::IndexError& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const opcore::OutOfMemoryError& e) {
    PyErr_SetString(outOfMemoryErrorType() ? outOfMemoryErrorType() : PyExc_RuntimeError, e.what());
  } catch (const opcore::NotImplementedError& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  } catch (const ValueError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "opcore: unknown C++ exception");
  }
}

}  // namespace opcore::python

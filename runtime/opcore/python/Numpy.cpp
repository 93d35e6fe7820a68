// Python data to tensors and back: opcore.from_numpy (shares memory, through the buffer
// protocol), t.numpy() and numpy.asarray(t) (share memory, through __array_interface__),
// opcore.tensor(data) (copies nested lists, numbers, arrays). opcore._C does not link
// against numpy: the two protocols are numpy's own, so numpy is needed only to call numpy().
#include <opcore/python/Module.h>

#include <opcore/autograd/GradMode.h>
#include <opcore/core/Empty.h>
#include <opcore/core/Error.h>
#include <opcore/ops/clone.h>
#include <opcore/ops/to.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include <cstring>
#include <string>
#include <vector>

namespace opcore::python {
namespace {

// The dtype of a buffer-protocol format ("f", "<d", "q", "?", "Zf", ...), or nullopt: the
// integer codes by their item size, since "l" is 8 bytes on Linux and 4 on Windows.
std::optional<ScalarType> dtypeOfFormat(const char* format, Py_ssize_t itemsize) {
  std::string f = format ? format : "B";
  if (!f.empty() && (f[0] == '<' || f[0] == '=' || f[0] == '@' || f[0] == '|')) f = f.substr(1);
  if (f == "Zf") return kComplexFloat;
  if (f == "Zd") return kComplexDouble;
  if (f.size() != 1) return std::nullopt;
  switch (f[0]) {
    case '?': return kBool;
    case 'e': return kHalf;
    case 'f': return kFloat;
    case 'd': return kDouble;
    case 'B': return itemsize == 1 ? std::optional<ScalarType>(kByte) : std::nullopt;
    case 'b': case 'h': case 'i': case 'l': case 'q':
      switch (itemsize) {
        case 1: return kChar;
        case 2: return kShort;
        case 4: return kInt;
        case 8: return kLong;
        default: return std::nullopt;
      }
    default: return std::nullopt;
  }
}

// numpy's array-interface type string of a dtype; bfloat16 has none (torch's TypeError).
const char* typestr(ScalarType t) {
  switch (t) {
    case kBool: return "|b1";
    case kByte: return "|u1";
    case kChar: return "|i1";
    case kShort: return "<i2";
    case kInt: return "<i4";
    case kLong: return "<i8";
    case kHalf: return "<f2";
    case kFloat: return "<f4";
    case kDouble: return "<f8";
    case kComplexFloat: return "<c8";
    case kComplexDouble: return "<c16";
    default: throw TypeError(std::string("Got unsupported ScalarType ") + toString(t));
  }
}

constexpr const char* kSupportedNumpyTypes =
    "The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
    "uint8, and bool.";

// Why an array of this buffer format cannot become a tensor, in torch's words for a numpy
// array ("can't convert np.ndarray of type numpy.uint16. The only supported types are: ..."),
// by its format for another buffer.
std::string unsupportedDtype(PyObject* obj, const char* format, Py_ssize_t itemsize) {
  std::string what = std::string("a buffer of format '") + format + "' (itemsize " + std::to_string(itemsize) + ")";
  PyObjectPtr dtype(PyObject_GetAttrString(obj, "dtype"));
  PyObjectPtr type(dtype ? PyObject_GetAttrString(dtype.get(), "type") : nullptr);
  PyObjectPtr name(type ? PyObject_GetAttrString(type.get(), "__name__") : nullptr);
  if (name && PyUnicode_Check(name.get())) what = std::string("np.ndarray of type numpy.") + PyUnicode_AsUTF8(name.get());
  PyErr_Clear();  // an object with no numpy dtype is named by its format
  return "can't convert " + what + ". " + kSupportedNumpyTypes;
}

// Releases a buffer taken by fromBuffer, from whatever thread frees the storage.
void releaseBuffer(void* context) {
  auto* view = static_cast<Py_buffer*>(context);
  if (Py_IsInitialized()) {
    const PyGILState_STATE gil = PyGILState_Ensure();
    PyBuffer_Release(view);
    PyGILState_Release(gil);
  }
  delete view;
}

// A tensor over the memory of `obj` (a numpy array or any strided buffer); `writable`: refuse
// read-only buffers (from_numpy shares memory, so writes through the tensor must be allowed).
Tensor fromBuffer(PyObject* obj, bool writable, const char* what) {
  auto view = std::make_unique<Py_buffer>();
  if (PyObject_GetBuffer(obj, view.get(), PyBUF_RECORDS_RO) < 0) {
    PyErr_Clear();
    throw TypeError(std::string(what) + ": expected a numpy array or an object with the buffer protocol, not " + typeName(obj));
  }
  const std::optional<ScalarType> dtype = dtypeOfFormat(view->format, view->itemsize);
  std::string problem;
  if (!dtype) {
    problem = unsupportedDtype(obj, view->format ? view->format : "B", view->itemsize);
  } else if (writable && view->readonly) {
    problem = "the array is not writable, and the tensor would share its memory; copy it first "
              "(opcore.tensor(array) copies, as does from_numpy(array.copy()))";
  }
  std::vector<int64_t> sizes(view->shape, view->shape + view->ndim);
  std::vector<int64_t> strides(static_cast<size_t>(view->ndim));
  for (int d = 0; problem.empty() && d < view->ndim; ++d) {
    if (view->strides[d] < 0 || view->strides[d] % view->itemsize != 0) {
      problem = "the array has a negative stride or one that is not a multiple of its item size (" +
                std::to_string(view->strides[d]) + " bytes); copy it first (array.copy())";
    }
    strides[d] = view->strides[d] / view->itemsize;
  }
  if (!problem.empty()) {
    PyBuffer_Release(view.get());
    throw TypeError(std::string(what) + ": " + problem);
  }
  void* data = view->buf;
  // The bytes the strides reach (more than len for a strided slice such as arr[:, ::2]).
  size_t nbytes = 0;
  if (view->len > 0) {
    nbytes = static_cast<size_t>(view->itemsize);
    for (int d = 0; d < view->ndim; ++d) nbytes += static_cast<size_t>((view->shape[d] - 1) * view->strides[d]);
  }
  const Device cpu(DeviceType::CPU);
  // The storage owns the buffer: it is released (with the GIL) when the last tensor goes.
  Py_buffer* owned = view.release();
  Storage storage = makeIntrusive<StorageImpl>(DataPtr(data, owned, releaseBuffer, cpu), nbytes);
  auto impl = makeIntrusive<TensorImpl>(std::move(storage), *dtype, cpu);
  impl->setSizesAndStrides(sizes, strides, 0);
  return Tensor(TensorBase(std::move(impl)));
}

// --- opcore.tensor(data) from nested sequences ---------------------------------------------------

void inferShape(PyObject* obj, size_t depth, std::vector<int64_t>& shape, ScalarType& dtype, bool& any) {
  if (depth > TensorImpl::kMaxDims) {
    throw ValueError("opcore.tensor(): the data is nested more than " + std::to_string(TensorImpl::kMaxDims) +
                     " levels deep (a tensor has at most that many dimensions)");
  }
  if (isTensor(obj) || isScalar(obj)) {
    if (depth != shape.size()) throw ValueError("opcore.tensor(): the nested sequences do not have the same depth");
    // A Python number's dtype: bool, int64, the default float dtype, the default complex one.
    const ScalarType t = isTensor(obj)      ? unpackTensor(obj).scalar_type()
                         : PyBool_Check(obj) ? kBool
                         : PyFloat_Check(obj) ? kDefaultFloat
                         : isInt(obj)        ? kLong
                         : toScalar(obj).isComplex() ? kDefaultComplex
                                                     : kDefaultFloat;
    dtype = any ? promoteTypes(dtype, t) : t;
    any = true;
    if (isTensor(obj) && unpackTensor(obj).numel() != 1) throw ValueError("opcore.tensor(): only one-element tensors can be elements of a nested sequence");
    return;
  }
  if (!PySequence_Check(obj) || PyUnicode_Check(obj) || PyBytes_Check(obj)) {
    throw TypeError("opcore.tensor(): could not infer a dtype from an element of type " + typeName(obj));
  }
  const Py_ssize_t n = PySequence_Size(obj);
  if (n < 0) throw PythonError();
  if (depth == shape.size()) {
    if (any) throw ValueError("opcore.tensor(): the nested sequences do not have the same depth");
    shape.push_back(n);
  } else if (shape[depth] != n) {
    throw ValueError("opcore.tensor(): expected a sequence of length " + std::to_string(shape[depth]) + " at dim " +
                     std::to_string(depth) + " (got " + std::to_string(n) + ")");
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    const PyObjectPtr item(PySequence_GetItem(obj, i));
    if (!item) throw PythonError();
    inferShape(item.get(), depth + 1, shape, dtype, any);
  }
}

template <typename T>
void fillFrom(PyObject* obj, T*& out) {
  if (isTensor(obj) || isScalar(obj)) {
    const Scalar s = toScalar(obj);
    if constexpr (!is_complex_v<T>) {
      // As torch: a complex number does not silently lose its imaginary part.
      if (s.isComplex() && !isTensor(obj)) {
        throw TypeError(std::string("opcore.tensor(): a complex number cannot be an element of a tensor of dtype ") +
                        reinterpret_cast<PyDtype*>(dtypeObject(CppTypeToScalarType<T>::value))->name);
      }
    }
    *out++ = s.to<T>();
    return;
  }
  const Py_ssize_t n = PySequence_Size(obj);
  for (Py_ssize_t i = 0; i < n; ++i) {
    const PyObjectPtr item(PySequence_GetItem(obj, i));
    if (!item) throw PythonError();
    fillFrom(item.get(), out);
  }
}

// The elements are converted straight to `dtype` when given (not through the inferred one).
Tensor fromNested(PyObject* data, std::optional<ScalarType> requested) {
  std::vector<int64_t> shape;
  ScalarType dtype = kDefaultFloat;
  bool any = false;
  inferShape(data, 0, shape, dtype, any);
  dtype = requested.value_or(dtype);
  Tensor result(detail::emptyCpu(shape, dtype));
  OPCORE_DISPATCH_EVERY_TYPE(dtype, "tensor", [&] {
    scalar_t* out = result.data_ptr<scalar_t>();
    fillFrom(data, out);
  });
  return result;
}

bool hasBuffer(PyObject* obj) { return PyObject_CheckBuffer(obj) && !PyBytes_Check(obj) && !PyByteArray_Check(obj); }

// opcore.tensor(data, *, dtype=None, device=None, requires_grad=False): always a copy.
PyObject* tensorFactory(PyObject*, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  PyObject* data = nullptr;
  PyObject *dtype = Py_None, *device = Py_None;
  int requires_grad = 0;
  static const char* keywords[] = {"data", "dtype", "device", "requires_grad", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OOp:tensor", const_cast<char**>(keywords), &data, &dtype, &device,
                                   &requires_grad)) {
    return nullptr;
  }
  const std::optional<ScalarType> to_dtype = dtype == Py_None ? std::nullopt : std::optional<ScalarType>(toScalarType(dtype));
  const std::optional<Device> to_device = device == Py_None ? std::nullopt : std::optional<Device>(toDevice(device));
  Tensor t;
  {
    autograd::NoGradGuard no_grad;
    if (isTensor(data)) {
      t = opcore::clone(unpackTensor(data)).detach();
    } else if (hasBuffer(data)) {
      t = opcore::clone(fromBuffer(data, /*writable=*/false, "opcore.tensor()"));
    } else {
      t = fromNested(data, to_dtype);
    }
    if (to_device && *to_device != t.device()) t = t.to(*to_device, to_dtype);
    if (to_dtype && *to_dtype != t.scalar_type()) t = t.to(*to_dtype);
  }
  if (requires_grad) t.requires_grad_(true);
  return wrap(t);
  OPCORE_PY_END
}

PyObject* fromNumpy(PyObject*, PyObject* array) {
  OPCORE_PY_BEGIN
  return wrap(fromBuffer(array, /*writable=*/true, "from_numpy()"));
  OPCORE_PY_END
}

// The dict numpy reads to make an array over a tensor's memory (numpy keeps the tensor alive).
PyObject* arrayInterface(PyObject* self, void*) {
  OPCORE_PY_BEGIN
  const Tensor& t = unpackTensor(self);
  checkHasData(t, "numpy()");
  if (!t.is_cpu()) {  // torch's message and type
    throw TypeError(detail::strCat("can't convert ", t.device(),
                                   " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."));
  }
  // torch's message and type (RuntimeError), for t.numpy() and numpy.asarray(t) alike.
  OPCORE_CHECK(!t.requires_grad(), "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
  const size_t itemsize = t.element_size();
  PyObject* shape = PyTuple_New(t.dim());
  PyObject* strides = PyTuple_New(t.dim());
  if (!shape || !strides) throw PythonError();
  for (int64_t d = 0; d < t.dim(); ++d) {
    PyTuple_SET_ITEM(shape, d, PyLong_FromLongLong(t.size(d)));
    PyTuple_SET_ITEM(strides, d, PyLong_FromLongLong(t.stride(d) * static_cast<int64_t>(itemsize)));
  }
  // A tensor with no elements may have no memory; numpy needs some address.
  static char empty_data = 0;
  void* data = t.numel() == 0 ? &empty_data : t.data_ptr();
  return Py_BuildValue("{s:N,s:N,s:s,s:(N,O),s:i}", "shape", shape, "strides", strides, "typestr", typestr(t.scalar_type()),
                       "data", PyLong_FromVoidPtr(data), Py_False, "version", 3);
  OPCORE_PY_END
}

PyMethodDef numpy_functions[] = {
    {"from_numpy", fromNumpy, METH_O,
     "from_numpy(array): a tensor sharing the memory of a numpy array (writable, of dtype bool, uint8, int8, int16, "
     "int32, int64, float16, float32, float64, complex64 or complex128; strides kept)"},
    {"tensor", asPyCFunction(tensorFactory), METH_VARARGS | METH_KEYWORDS,
     "tensor(data, *, dtype=None, device=None, requires_grad=False): a new tensor holding a copy of data (nested "
     "sequences of numbers, a number, a numpy array or a tensor)"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PyObject* tensorNumpy(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  typestr(unpackTensor(self).scalar_type());  // bfloat16: TypeError before numpy sees the tensor
  OPCORE_PY_END
  PyObject* numpy = PyImport_ImportModule("numpy");
  if (!numpy) return nullptr;
  PyObject* array = PyObject_CallMethod(numpy, "asarray", "O", self);
  Py_DECREF(numpy);
  return array;
}

PyObject* tensorArray(PyObject* self, PyObject* args, PyObject* kwargs) {
  PyObject* dtype = Py_None;
  PyObject* copy = Py_None;
  static const char* keywords[] = {"dtype", "copy", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:__array__", const_cast<char**>(keywords), &dtype, &copy)) return nullptr;
  PyObject* array = tensorNumpy(self, nullptr);
  if (!array || dtype == Py_None) return array;
  PyObject* converted = PyObject_CallMethod(array, "astype", "O", dtype);
  Py_DECREF(array);
  return converted;
}

bool initNumpy(PyObject* module) {
  static PyGetSetDef interface_getset[] = {
      {"__array_interface__", arrayInterface, nullptr, "numpy's array interface (shares memory)", nullptr},
      {nullptr, nullptr, nullptr, nullptr, nullptr}};
  PyObject* descr = PyDescr_NewGetSet(&PyTensorType, &interface_getset[0]);
  if (!descr || PyDict_SetItemString(PyTensorType.tp_dict, "__array_interface__", descr) < 0) {
    Py_XDECREF(descr);
    return false;
  }
  Py_DECREF(descr);
  PyType_Modified(&PyTensorType);
  return PyModule_AddFunctions(module, numpy_functions) == 0;
}

}  // namespace opcore::python

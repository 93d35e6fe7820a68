// Tensor subclasses made in Python: Tensor._make_wrapper_subclass, and the objects of their
// tensors kept (class and attributes) while only C++ holds the tensor (Note [The Python
// object of a tensor] in opcore/core/TensorImpl.h).
#include <opcore/python/Module.h>

#include <opcore/core/Error.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opcore::python {

namespace {

void releaseSaved(void* saved) {
  if (!Py_IsInitialized()) return;  // at exit, after the interpreter: nothing to release
  GilAcquire gil;
  Py_DECREF(static_cast<PyObject*>(saved));
}

}  // namespace

// The subclass object of `t` remade from the saved class and attributes. Precondition: the
// slot has no live object and has a saved one.
PyObject* wrapSubclass(Tensor t) {
  PyObjectSlot& slot = t.unsafeGetTensorImpl()->pyobjSlot();
  PyObjectPtr saved(static_cast<PyObject*>(std::exchange(slot.saved, nullptr)));  // (class, dict)
  auto* type = reinterpret_cast<PyTypeObject*>(PyTuple_GET_ITEM(saved.get(), 0));
  PyObject* obj = type->tp_alloc(type, 0);
  if (!obj) throw PythonError();
  new (&reinterpret_cast<PyTensor*>(obj)->cdata) Tensor(std::move(t));
  slot.object = obj;
  PyObject* dict = PyTuple_GET_ITEM(saved.get(), 1);
  if (dict != Py_None && PyObject_GenericSetDict(obj, dict, nullptr) < 0) {
    Py_DECREF(obj);
    throw PythonError();
  }
  return obj;
}

// tp_finalize, which CPython runs for subclass objects (not for opcore.Tensor's own) before
// it clears their attributes: when C++ still holds the tensor, keep the class and attributes.
void tensorFinalize(PyObject* self) {
  Tensor& t = reinterpret_cast<PyTensor*>(self)->cdata;
  if (!t.defined() || t.unsafeGetTensorImpl()->pyobjSlot().object != self) return;
  PyObjectSlot& slot = t.unsafeGetTensorImpl()->pyobjSlot();
  slot.object = nullptr;
  if (t.use_count() == 1) return;
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);  // a finalizer leaves the error state as it was
  PyObject* dict = PyObject_GenericGetDict(self, nullptr);
  if (!dict) PyErr_Clear();
  PyObject* saved = PyTuple_Pack(2, reinterpret_cast<PyObject*>(Py_TYPE(self)), dict ? dict : Py_None);
  Py_XDECREF(dict);
  if (saved) {
    slot.saved = saved;
    slot.release = &releaseSaved;
  } else {
    PyErr_Clear();
  }
  PyErr_Restore(type, value, traceback);
}

// Tensor._make_wrapper_subclass(cls, size, strides=None, *, storage_offset=0, dtype=None,
// device=None, requires_grad=False): an instance of `cls` with this metadata and no data of
// its own, whose calls reach cls.__torch_dispatch__ (its keys hold Python).
PyObject* makeWrapperSubclass(PyObject*, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  static const char* keywords[] = {"cls", "size", "strides", "storage_offset", "dtype", "device", "requires_grad", nullptr};
  PyObject *cls, *size, *strides = Py_None, *dtype = Py_None, *device = Py_None;
  Py_ssize_t storage_offset = 0;
  int requires_grad = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O$nOOp:_make_wrapper_subclass", const_cast<char**>(keywords), &cls,
                                   &size, &strides, &storage_offset, &dtype, &device, &requires_grad)) {
    return nullptr;
  }
  if (!PyType_Check(cls) || cls == reinterpret_cast<PyObject*>(&PyTensorType) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &PyTensorType)) {
    throw TypeError("_make_wrapper_subclass(cls, ...): cls must be a subclass of opcore.Tensor, not " + typeName(cls));
  }
  auto ints = [](PyObject* seq, const char* what) {
    PyObjectPtr items(PySequence_Fast(seq, what));
    if (!items) throw PythonError();
    std::vector<int64_t> out;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(items.get()); ++i) out.push_back(toInt64(PySequence_Fast_GET_ITEM(items.get(), i)));
    return out;
  };
  const std::vector<int64_t> sizes = ints(size, "size must be a sequence of ints");
  std::vector<int64_t> strides_v(sizes.size());
  if (strides == Py_None) {
    contiguousStridesInto(sizes, strides_v.data());
  } else {
    strides_v = ints(strides, "strides must be a sequence of ints");
    if (strides_v.size() != sizes.size()) throw ValueError("_make_wrapper_subclass: strides and size differ in length");
  }
  const ScalarType scalar_type = dtype == Py_None ? kDefaultFloat : toScalarType(dtype);
  const Device dev = device == Py_None ? Device(DeviceType::CPU) : toDevice(device);
  // A storage with a size and no data, as a Meta tensor's: metadata checks and the version
  // counter work; kernels never run on it, the Python key sits above every backend.
  const std::optional<int64_t> extent = storageExtent(sizes, strides_v, storage_offset);
  if (!extent) throw ValueError("_make_wrapper_subclass: the sizes and strides reach more elements than int64_t can count");
  int64_t nbytes = 0;
  if (__builtin_mul_overflow(*extent, static_cast<int64_t>(elementSize(scalar_type)), &nbytes)) {
    throw ValueError("_make_wrapper_subclass: the sizes and strides reach more bytes than int64_t can count");
  }
  auto impl = IntrusivePtr<TensorImpl>(new TensorImpl(Storage(new StorageImpl(DataPtr(), static_cast<size_t>(nbytes))), scalar_type, dev));
  impl->setKeySet(impl->key_set().add(DispatchKey::Python));
  impl->setSizesAndStrides(sizes, strides_v, storage_offset);
  Tensor t(TensorBase(std::move(impl)));
  if (requires_grad) t.requires_grad_(true);
  PyTypeObject* type = reinterpret_cast<PyTypeObject*>(cls);
  PyObject* obj = type->tp_alloc(type, 0);
  if (!obj) throw PythonError();
  t.unsafeGetTensorImpl()->pyobjSlot().object = obj;
  new (&reinterpret_cast<PyTensor*>(obj)->cdata) Tensor(std::move(t));
  return obj;
  OPCORE_PY_END
}

}  // namespace opcore::python

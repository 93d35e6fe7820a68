// opcore.Tensor: the Python type holding an opcore::Tensor. Its operator methods (`add`,
// `add_`, ...) are generated (build/generated/python/); this file has the rest: properties,
// the hand-written methods (size, item, backward, numpy, ...), Python operators through the
// generated functions, and repr.
#include <opcore/python/Module.h>

#include <opcore/autograd/Engine.h>
#include <opcore/autograd/Node.h>
#include <opcore/autograd/Variable.h>
#include <opcore/core/Error.h>
#include <opcore/ops/full.h>
#include <opcore/ops/to_ops.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace opcore::python {

PyTypeObject PyTensorType = {PyVarObject_HEAD_INIT(nullptr, 0) "opcore.Tensor"};


// See Note [The Python object of a tensor]: the tensor's live object when it has one (a
// subclass's remade from what was saved), else a new opcore.Tensor, recorded in the slot.
PyObject* wrap(Tensor t) {
  if (!t.defined()) Py_RETURN_NONE;
  PyObjectSlot& slot = t.unsafeGetTensorImpl()->pyobjSlot();
  if (slot.object) return Py_NewRef(static_cast<PyObject*>(slot.object));
  if (OPCORE_UNLIKELY(slot.saved)) return wrapSubclass(std::move(t));  // Subclass.cpp
  PyObject* obj = PyTensorType.tp_alloc(&PyTensorType, 0);
  if (!obj) throw PythonError();
  slot.object = obj;
  new (&reinterpret_cast<PyTensor*>(obj)->cdata) Tensor(std::move(t));
  return obj;
}

void checkHasData(const Tensor& t, const char* what) {
  if (!hasData(t)) {
    throw Error(std::string(what) + ": this tensor subclass has no data of its own (made by _make_wrapper_subclass); "
                "read the tensors it wraps");
  }
}

PyObject* wrap(const std::vector<Tensor>& ts) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(ts.size()));
  if (!list) throw PythonError();
  for (size_t i = 0; i < ts.size(); ++i) {
    PyObject* item = wrap(ts[i]);
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), item);
  }
  return list;
}

PyObject* wrap(const Scalar& s) {
  if (s.isFloatingPoint()) return PyFloat_FromDouble(s.toDouble());
  if (s.isComplex()) {
    const complex<double> z = s.toComplexDouble();
    return PyComplex_FromDoubles(z.real(), z.imag());
  }
  if (s.isBoolean()) return PyBool_FromLong(s.toBool());
  return PyLong_FromLongLong(s.toLong());
}

PyObject* wrap(ScalarType t) { return Py_NewRef(dtypeObject(t)); }

PyTypeObject* returnType(const char* name, std::initializer_list<const char*> fields) {
  // One type per operator name (its function and its method share it), made with the GIL
  // held; the type and the names it refers to are kept for the process.
  static std::unordered_map<std::string, PyTypeObject*> types;
  PyTypeObject*& known = types[name];
  if (known) return known;
  auto* members = new PyStructSequence_Field[fields.size() + 1]();
  size_t i = 0;
  for (const char* field : fields) members[i++] = {field, nullptr};
  auto* desc = new PyStructSequence_Desc{(new std::string("opcore.return_types." + std::string(name)))->c_str(),
                                         nullptr, members, static_cast<int>(fields.size())};
  known = PyStructSequence_NewType(desc);
  if (!known) throw PythonError();
  return known;
}

namespace {

Tensor& self_(PyObject* self) { return unpackTensor(self); }

PyObject* sizesTuple(IntArrayRef sizes) {
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(sizes.size()));
  if (!tuple) throw PythonError();
  for (size_t i = 0; i < sizes.size(); ++i) PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), PyLong_FromLongLong(sizes[i]));
  return tuple;
}

// --- lifetime, repr -------------------------------------------------------------------------

PyObject* tensorNew(PyTypeObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_TypeError, "opcore.Tensor cannot be constructed directly: use opcore.tensor(data), "
                                   "opcore.empty(size) or another factory");
  return nullptr;
}

// Forgets the object in its tensor's slot first (a subclass's tensorFinalize may have done so
// already), so that nothing a weakref callback runs can reach the dying object.
void tensorDealloc(PyObject* self) {
  auto* pt = reinterpret_cast<PyTensor*>(self);
  Tensor& t = pt->cdata;
  if (t.defined() && t.unsafeGetTensorImpl()->pyobjSlot().object == self) t.unsafeGetTensorImpl()->pyobjSlot().object = nullptr;
  if (OPCORE_UNLIKELY(pt->weakreflist != nullptr)) PyObject_ClearWeakRefs(self);
  t.~Tensor();
  Py_TYPE(self)->tp_free(self);
}

// The C++ printer's "dtype=Half" as Python's "dtype=opcore.float16", as torch prints
// "dtype=torch.float16" (the C++ text names dtypes as c10 does, for C++ users).
std::string pythonDtypeNames(std::string text, ScalarType t) {
  const std::string cpp = std::string(", dtype=") + toString(t);
  const size_t at = text.rfind(cpp);
  if (at == std::string::npos) return text;
  const char* name = reinterpret_cast<PyDtype*>(dtypeObject(t))->name;
  return text.replace(at, cpp.size(), std::string(", dtype=opcore.") + name);
}

PyObject* tensorRepr(PyObject* self) {
  OPCORE_PY_BEGIN
  const Tensor& t = self_(self);
  if (!hasData(t)) {
    std::string sizes;
    for (int64_t s : t.sizes()) sizes += (sizes.empty() ? "" : ", ") + std::to_string(s);
    return PyUnicode_FromFormat("%s(size=(%s), dtype=opcore.%s)", Py_TYPE(self)->tp_name, sizes.c_str(),
                                reinterpret_cast<PyDtype*>(dtypeObject(t.scalar_type()))->name);
  }
  if (t.is_cpu()) return PyUnicode_FromString(pythonDtypeNames(t.toString(), t.scalar_type()).c_str());
  // Another device's values, copied to the CPU, as torch prints them: "tensor([1., 2.],
  // device='npu:0')", the device before the dtype.
  std::string text = pythonDtypeNames(t.to(Device(DeviceType::CPU)).toString(), t.scalar_type());
  const size_t dtype_at = text.rfind(", dtype=");
  text.insert(dtype_at == std::string::npos ? text.size() - 1 : dtype_at, detail::strCat(", device='", t.device(), "'"));
  return PyUnicode_FromString(text.c_str());
  OPCORE_PY_END
}

// --- properties ---------------------------------------------------------------------------

PyObject* getShape(PyObject* self, void*) {
  OPCORE_PY_BEGIN
  return sizesTuple(self_(self).sizes());
  OPCORE_PY_END
}
PyObject* getDtype(PyObject* self, void*) { return Py_NewRef(dtypeObject(self_(self).scalar_type())); }
PyObject* getLayout(PyObject* self, void*) { return Py_NewRef(layoutObject(Layout::Strided)); }  // the only one
PyObject* getDevice(PyObject* self, void*) {
  OPCORE_PY_BEGIN
  return deviceObject(self_(self).device());
  OPCORE_PY_END
}
PyObject* getNdim(PyObject* self, void*) { return PyLong_FromLongLong(self_(self).dim()); }
PyObject* getIsCpu(PyObject* self, void*) { return PyBool_FromLong(self_(self).is_cpu()); }
PyObject* getIsCuda(PyObject* self, void*) { return PyBool_FromLong(self_(self).is_cuda()); }
PyObject* getIsMeta(PyObject* self, void*) { return PyBool_FromLong(self_(self).is_meta()); }
PyObject* getRequiresGrad(PyObject* self, void*) { return PyBool_FromLong(self_(self).requires_grad()); }
int setRequiresGrad(PyObject* self, PyObject* value, void*) {
  OPCORE_PY_BEGIN
  if (!value || !PyBool_Check(value)) throw TypeError("requires_grad must be a bool");
  self_(self).requires_grad_(value == Py_True);
  return 0;
  OPCORE_PY_END_INT
}
PyObject* getGrad(PyObject* self, void*) {
  OPCORE_PY_BEGIN
  return wrap(self_(self).grad());
  OPCORE_PY_END
}
int setGrad(PyObject* self, PyObject* value, void*) {
  OPCORE_PY_BEGIN
  if (!value || value == Py_None) {
    self_(self).mutable_grad() = Tensor();
    return 0;
  }
  if (!isTensor(value)) throw TypeError(std::string("assigned grad must be a Tensor or None, not ") + Py_TYPE(value)->tp_name);
  const Tensor& self_t = self_(self);
  const Tensor& grad = unpackTensor(value);
  if (grad.sizes() != self_t.sizes() || grad.scalar_type() != self_t.scalar_type()) {
    throw ValueError(detail::strCat("assigned grad has shape ", grad.sizes(), " and dtype ", grad.scalar_type(),
                                    ", but the tensor has shape ", self_t.sizes(), " and dtype ", self_t.scalar_type()));
  }
  self_t.mutable_grad() = grad;
  return 0;
  OPCORE_PY_END_INT
}
PyObject* getIsLeaf(PyObject* self, void*) { return PyBool_FromLong(self_(self).is_leaf()); }
PyObject* getGradFn(PyObject* self, void*) {
  OPCORE_PY_BEGIN
  return wrapNode(self_(self).grad_fn());
  OPCORE_PY_END
}
PyObject* getData(PyObject* self, void*) {
  OPCORE_PY_BEGIN
  return wrap(self_(self).detach());
  OPCORE_PY_END
}
PyObject* getVersion(PyObject* self, void*) { return PyLong_FromUnsignedLong(self_(self)._version()); }
PyObject* getOutputNr(PyObject* self, void*) { return PyLong_FromUnsignedLong(self_(self).output_nr()); }
PyObject* getRetainsGrad(PyObject* self, void*) { return PyBool_FromLong(self_(self).retains_grad()); }
PyObject* getItemsize(PyObject* self, void*) { return PyLong_FromSize_t(self_(self).element_size()); }

PyGetSetDef tensor_getset[] = {
    {"shape", getShape, nullptr, "the size of each dimension, a tuple", nullptr},
    {"dtype", getDtype, nullptr, "the element type (opcore.float32, ...)", nullptr},
    {"layout", getLayout, nullptr, "the memory layout: opcore.strided, the only one opcore makes", nullptr},
    {"device", getDevice, nullptr, "the device the data lives on", nullptr},
    {"ndim", getNdim, nullptr, "the number of dimensions", nullptr},
    {"is_cpu", getIsCpu, nullptr, "whether the data lives in the CPU's memory", nullptr},
    {"is_cuda", getIsCuda, nullptr, "whether the data lives on a CUDA device", nullptr},
    {"is_meta", getIsMeta, nullptr, "whether the tensor is on the meta device (sizes and dtype, no data)", nullptr},
    {"requires_grad", getRequiresGrad, setRequiresGrad, "whether gradients flow to this tensor", nullptr},
    {"grad", getGrad, setGrad, "the gradient backward() accumulated into this leaf, or None", nullptr},
    {"is_leaf", getIsLeaf, nullptr, "True for tensors the user created (no grad_fn)", nullptr},
    {"grad_fn", getGradFn, nullptr, "the backward node that made this tensor, or None", nullptr},
    {"data", getData, nullptr, "the same data without the graph (detach())", nullptr},
    {"_version", getVersion, nullptr, "how many in-place operations changed this tensor's memory", nullptr},
    {"output_nr", getOutputNr, nullptr, "which output of grad_fn this tensor is", nullptr},
    {"retains_grad", getRetainsGrad, nullptr, "whether a non-leaf keeps .grad after backward()", nullptr},
    {"itemsize", getItemsize, nullptr, "the size of one element in bytes", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// --- hand-written methods ---------------------------------------------------------------------

// The single optional `dim` argument of size() and stride(): null when not given.
PyObject* optionalDim(const char* name, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (nargs + nkw > 1) throw TypeError(std::string(name) + "() takes at most 1 argument (dim)");
  if (nkw == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "dim") != 0) {
    throw TypeError(std::string(name) + "() got an unexpected keyword argument");
  }
  if (nargs + nkw == 0) return nullptr;
  if (!isInt(args[0])) throw TypeError(std::string(name) + "(): argument 'dim' must be int, not " + typeName(args[0]));
  return args[0];
}

PyObject* tensorSize(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OPCORE_PY_BEGIN
  PyObject* dim = optionalDim("size", args, nargs, kwnames);
  if (!dim) return sizesTuple(self_(self).sizes());
  return PyLong_FromLongLong(self_(self).size(indexToInt64(dim)));
  OPCORE_PY_END
}

PyObject* tensorStride(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OPCORE_PY_BEGIN
  PyObject* dim = optionalDim("stride", args, nargs, kwnames);
  if (!dim) return sizesTuple(self_(self).strides());
  return PyLong_FromLongLong(self_(self).stride(indexToInt64(dim)));
  OPCORE_PY_END
}

PyObject* tensorDim(PyObject* self, PyObject*) { return PyLong_FromLongLong(self_(self).dim()); }
PyObject* tensorNumel(PyObject* self, PyObject*) { return PyLong_FromLongLong(self_(self).numel()); }
PyObject* tensorStorageOffset(PyObject* self, PyObject*) { return PyLong_FromLongLong(self_(self).storage_offset()); }
PyObject* tensorElementSize(PyObject* self, PyObject*) { return PyLong_FromSize_t(self_(self).element_size()); }
PyObject* tensorDataPtr(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  checkHasData(self_(self), "data_ptr()");
  return PyLong_FromVoidPtr(self_(self).data_ptr());
  OPCORE_PY_END
}
PyObject* tensorIsContiguous(PyObject* self, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  static const char* keywords[] = {"memory_format", nullptr};
  PyObject* format = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O!:is_contiguous", const_cast<char**>(keywords),
                                   &PyMemoryFormatType, &format)) {
    return nullptr;
  }
  const Tensor& t = self_(self);
  return PyBool_FromLong(format ? t.is_contiguous(reinterpret_cast<PyMemoryFormat*>(format)->memory_format)
                                : t.is_contiguous());
  OPCORE_PY_END
}
PyObject* tensorIsFloatingPoint(PyObject* self, PyObject*) { return PyBool_FromLong(isFloatingType(self_(self).scalar_type())); }
PyObject* tensorIsComplex(PyObject* self, PyObject*) { return PyBool_FromLong(isComplexType(self_(self).scalar_type())); }
PyObject* tensorIsSigned(PyObject* self, PyObject*) { return PyBool_FromLong(isSignedType(self_(self).scalar_type())); }

PyObject* itemObject(const Tensor& t) {
  checkHasData(t, "item()");
  OPCORE_CHECK(t.numel() == 1, "item(): a tensor with ", t.numel(), " elements cannot be converted to a scalar");
  return wrap(detail::elementAt(t, 0));
}

PyObject* tensorItem(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  return itemObject(self_(self));
  OPCORE_PY_END
}

// complex(t): the one element as a Python complex, whatever the dtype (as torch).
PyObject* tensorComplex(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  const complex<double> z = self_(self).item<complex<double>>();
  return PyComplex_FromDoubles(z.real(), z.imag());
  OPCORE_PY_END
}

// Nested lists of Python numbers, in the logical order.
PyObject* toList(const Tensor& t, int64_t dim, int64_t& flat) {
  if (dim == t.dim()) return wrap(detail::elementAt(t, flat++));
  PyObject* list = PyList_New(t.size(dim));
  if (!list) throw PythonError();
  for (int64_t i = 0; i < t.size(dim); ++i) {
    PyObject* item = toList(t, dim + 1, flat);
    if (!item) {
      Py_DECREF(list);
      throw PythonError();
    }
    PyList_SET_ITEM(list, i, item);
  }
  return list;
}

PyObject* tensorTolist(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  const Tensor& t = self_(self);
  checkHasData(t, "tolist()");
  OPCORE_CHECK(t.is_cpu(), "tolist(): tensor is on ", t.device(), "; copy it to the CPU first");
  int64_t flat = 0;
  return toList(t, 0, flat);
  OPCORE_PY_END
}

PyObject* tensorBackward(PyObject* self, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  static const char* keywords[] = {"gradient", "retain_graph", "create_graph", "inputs", nullptr};
  PyObject* gradient = Py_None;
  PyObject* retain_graph = Py_None;
  int create_graph = 0;
  PyObject* inputs = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OOpO:backward", const_cast<char**>(keywords), &gradient,
                                   &retain_graph, &create_graph, &inputs)) {
    return nullptr;
  }
  if (gradient != Py_None && !isTensor(gradient)) throw TypeError("backward(): gradient must be a Tensor or None");
  if (retain_graph != Py_None && !PyBool_Check(retain_graph)) throw TypeError("backward(): retain_graph must be a bool or None");
  std::vector<Tensor> input_list = inputs == Py_None ? std::vector<Tensor>() : tensorSequence(inputs, "backward(): inputs");
  const Tensor grad = gradient == Py_None ? Tensor() : unpackTensor(gradient);
  const std::optional<bool> retain = retain_graph == Py_None ? std::nullopt : std::optional<bool>(retain_graph == Py_True);
  const Tensor& t = self_(self);
  callWithoutGil([&] { autograd::backward({t}, {grad}, retain, create_graph != 0, input_list); });
  Py_RETURN_NONE;
  OPCORE_PY_END
}

PyObject* tensorRequiresGrad_(PyObject* self, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  static const char* keywords[] = {"requires_grad", nullptr};
  int requires_grad = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|p:requires_grad_", const_cast<char**>(keywords), &requires_grad)) {
    return nullptr;
  }
  self_(self).requires_grad_(requires_grad != 0);
  return Py_NewRef(self);
  OPCORE_PY_END
}

PyObject* tensorDetach(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  return wrap(self_(self).detach());
  OPCORE_PY_END
}
PyObject* tensorDetach_(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  self_(self).detach_();
  return Py_NewRef(self);
  OPCORE_PY_END
}
PyObject* tensorRetainGrad(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  self_(self).retain_grad();
  Py_RETURN_NONE;
  OPCORE_PY_END
}

// byte(), char(), short(), int(), long(), half(), bfloat16(), float(), double(), cfloat(),
// cdouble(), bool(): to(dtype), as in torch.
template <ScalarType kType>
PyObject* tensorAsType(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  const Tensor& t = self_(self);
  return wrap(callWithoutGil([&] { return _ops::to_dtype::call(t, kType, false, false); }));
  OPCORE_PY_END
}

PyObject* tensorCpu(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  const Tensor& t = self_(self);
  if (t.is_cpu()) return Py_NewRef(self);
  return wrap(callWithoutGil([&] { return _ops::to_device::call(t, Device(DeviceType::CPU), std::nullopt, false, false); }));
  OPCORE_PY_END
}


std::vector<PyMethodDef> handWrittenMethods() {
  constexpr int kFast = METH_FASTCALL | METH_KEYWORDS;
  return {
      {"_make_wrapper_subclass", asPyCFunction(makeWrapperSubclass), METH_VARARGS | METH_KEYWORDS | METH_STATIC,
       "_make_wrapper_subclass(cls, size, strides=None, *, storage_offset=0, dtype=None, device=None, "
       "requires_grad=False): a cls instance with this metadata and no data, whose calls reach cls.__torch_dispatch__"},
      {"size", asPyCFunction(tensorSize), kFast, "size(dim=None): the shape as a tuple, or the size of one dimension"},
      {"stride", asPyCFunction(tensorStride), kFast, "stride(dim=None): the strides as a tuple, or the stride of one dimension"},
      {"dim", tensorDim, METH_NOARGS, "dim(): the number of dimensions"},
      {"ndimension", tensorDim, METH_NOARGS, "ndimension(): the number of dimensions"},
      {"numel", tensorNumel, METH_NOARGS, "numel(): the number of elements"},
      {"storage_offset", tensorStorageOffset, METH_NOARGS, "storage_offset(): the first element's offset in the storage"},
      {"element_size", tensorElementSize, METH_NOARGS, "element_size(): the size of one element in bytes"},
      {"data_ptr", tensorDataPtr, METH_NOARGS, "data_ptr(): the address of the first element"},
      {"is_contiguous", asPyCFunction(tensorIsContiguous), METH_VARARGS | METH_KEYWORDS,
       "is_contiguous(memory_format=contiguous_format): whether the elements are dense in the format's order"},
      {"is_floating_point", tensorIsFloatingPoint, METH_NOARGS,
       "is_floating_point(): whether the dtype is a floating-point type (float16, bfloat16, float32, float64)"},
      {"is_complex", tensorIsComplex, METH_NOARGS, "is_complex(): whether the dtype is complex64 or complex128"},
      {"is_signed", tensorIsSigned, METH_NOARGS, "is_signed(): whether the dtype holds negative values (not uint8, bool)"},
      {"__complex__", tensorComplex, METH_NOARGS, "complex(t): the value of a one-element tensor as a Python complex"},
      {"item", tensorItem, METH_NOARGS, "item(): the value of a one-element tensor as a Python number"},
      {"tolist", tensorTolist, METH_NOARGS, "tolist(): the elements as nested lists of Python numbers"},
      {"backward", asPyCFunction(tensorBackward), METH_VARARGS | METH_KEYWORDS,
       "backward(gradient=None, retain_graph=None, create_graph=False, inputs=None): accumulates the gradient of "
       "this tensor into the .grad of the leaves of its graph"},
      {"requires_grad_", asPyCFunction(tensorRequiresGrad_), METH_VARARGS | METH_KEYWORDS,
       "requires_grad_(requires_grad=True): marks a leaf as needing gradients; returns self"},
      {"detach", tensorDetach, METH_NOARGS, "detach(): the same data without the graph"},
      {"detach_", tensorDetach_, METH_NOARGS, "detach_(): makes this tensor a leaf that does not require grad"},
      {"retain_grad", tensorRetainGrad, METH_NOARGS, "retain_grad(): keeps .grad of a non-leaf after backward()"},
      {"register_hook", registerHook, METH_O,
       "register_hook(hook): calls hook(grad) whenever the gradient of this tensor is computed; a Tensor it returns "
       "replaces the gradient. Returns a handle with remove()"},
      {"numpy", reinterpret_cast<PyCFunction>(tensorNumpy), METH_NOARGS,
       "numpy(): a numpy array sharing this tensor's memory (CPU tensors that do not require grad)"},
      {"__array__", asPyCFunction(tensorArray), METH_VARARGS | METH_KEYWORDS,
       "__array__(dtype=None): numpy.asarray(tensor)"},
      {"byte", tensorAsType<kByte>, METH_NOARGS, "byte(): to(opcore.uint8)"},
      {"char", tensorAsType<kChar>, METH_NOARGS, "char(): to(opcore.int8)"},
      {"short", tensorAsType<kShort>, METH_NOARGS, "short(): to(opcore.int16)"},
      {"int", tensorAsType<kInt>, METH_NOARGS, "int(): to(opcore.int32)"},
      {"long", tensorAsType<kLong>, METH_NOARGS, "long(): to(opcore.int64)"},
      {"half", tensorAsType<kHalf>, METH_NOARGS, "half(): to(opcore.float16)"},
      {"bfloat16", tensorAsType<kBFloat16>, METH_NOARGS, "bfloat16(): to(opcore.bfloat16)"},
      {"float", tensorAsType<kFloat>, METH_NOARGS, "float(): to(opcore.float32)"},
      {"double", tensorAsType<kDouble>, METH_NOARGS, "double(): to(opcore.float64)"},
      {"cfloat", tensorAsType<kComplexFloat>, METH_NOARGS, "cfloat(): to(opcore.complex64)"},
      {"cdouble", tensorAsType<kComplexDouble>, METH_NOARGS, "cdouble(): to(opcore.complex128)"},
      {"bool", tensorAsType<kBool>, METH_NOARGS, "bool(): to(opcore.bool)"},
      {"cpu", tensorCpu, METH_NOARGS, "cpu(): this tensor if it is on the CPU, else a copy there"},
  };
}

// --- Python operators, through the generated functions ------------------------------------

bool isOperand(PyObject* obj) { return isTensor(obj) || isScalar(obj); }

// opcore.<name>(a, b) (b null: opcore.<name>(a)); a TypeError when this build has no such
// operator (the Python operators need add, sub, mul, div, matmul, neg and the comparisons).
PyObject* callFunction(const char* name, PyObject* a, PyObject* b) {
  PyObject* args[] = {a, b};
  const FastFunction fn = operatorFunction(name);
  if (!fn) return PyErr_Format(PyExc_TypeError, "opcore.%s is not an operator of this build", name);
  return fn(nullptr, args, b ? 2 : 1, nullptr);
}

// a.<name>(b), the in-place method.
PyObject* callMethod(const char* name, PyObject* a, PyObject* b) {
  const FastFunction fn = operatorMethod(name);
  if (!fn) return PyErr_Format(PyExc_TypeError, "Tensor.%s is not an operator of this build", name);
  return fn(a, &b, 1, nullptr);
}

PyObject* binary(const char* name, PyObject* a, PyObject* b) {
  if (!isTensor(a) || !isOperand(b)) Py_RETURN_NOTIMPLEMENTED;
  return callFunction(name, a, b);
}

// `a + b` and `2 + b` (commutative: the tensor goes first).
PyObject* commutative(const char* name, PyObject* a, PyObject* b) {
  if (isTensor(a) && isOperand(b)) return callFunction(name, a, b);
  if (isTensor(b) && isOperand(a)) return callFunction(name, b, a);
  Py_RETURN_NOTIMPLEMENTED;
}

PyObject* nbAdd(PyObject* a, PyObject* b) { return commutative("add", a, b); }
PyObject* nbMul(PyObject* a, PyObject* b) { return commutative("mul", a, b); }

// `s - t` is (-t) + s; `s / t` divides a zero-dim tensor of s (Note [Reflected operators]).
PyObject* nbSub(PyObject* a, PyObject* b) {
  if (isTensor(a)) return binary("sub", a, b);
  if (!isTensor(b) || !isScalar(a)) Py_RETURN_NOTIMPLEMENTED;
  PyObject* negated = callFunction("neg", b, nullptr);
  if (!negated) return nullptr;
  PyObject* result = callFunction("add", negated, a);
  Py_DECREF(negated);
  return result;
}

// Note [Reflected operators]
// `s / t` (s a Python number) needs a tensor on the left. s becomes a zero-dim tensor whose
// dtype takes part in type promotion as a Python number would: an int is int64 (a zero-dim
// int64 does not widen an int32 tensor), a float is float64 against a floating tensor (the
// tensor's dtype wins within a category) and the default float dtype against an integral one
// (as `int_tensor / 2.5` gives float32); a complex number likewise is complex128 against a
// floating or complex tensor and the default complex dtype (complex64) against the others.
// The number `a` as a zero-dim tensor beside tensor `b` (Note [Reflected operators]); a new
// reference, or null with a Python error set.
PyObject* wrapReflected(PyObject* a, PyObject* b) {
  OPCORE_PY_BEGIN
  const Scalar s = toScalar(a);
  const Tensor& t = unpackTensor(b);
  const bool inexact = isFloatingType(t.scalar_type()) || isComplexType(t.scalar_type());
  const ScalarType dtype = s.isFloatingPoint() ? (inexact ? kDouble : kDefaultFloat)
                           : s.isComplex()     ? (inexact ? kComplexDouble : kDefaultComplex)
                                               : s.type();
  return wrap(opcore::full({}, s, t.options().dtype(dtype)));
  OPCORE_PY_END
}

// `s <op> t` for an operator with no overload taking the number first.
PyObject* reflected(const char* name, PyObject* a, PyObject* b) {
  PyObject* lhs = wrapReflected(a, b);
  if (!lhs) return nullptr;
  PyObject* result = callFunction(name, lhs, b);
  Py_DECREF(lhs);
  return result;
}

PyObject* nbTrueDivide(PyObject* a, PyObject* b) {
  if (isTensor(a)) return binary("div", a, b);
  if (!isTensor(b) || !isScalar(a)) Py_RETURN_NOTIMPLEMENTED;
  return reflected("div", a, b);
}

// The operators of issue #33: `&`, `|`, `^` (bitwise_and / or / xor, commutative), `<<`, `>>`,
// `%` and `**` (whose number-first forms are the Scalar_Tensor / Scalar overloads), `//`
// (floor_divide; a number first is wrapped, Note [Reflected operators]), and their in-place
// forms.
PyObject* nbAnd(PyObject* a, PyObject* b) { return commutative("bitwise_and", a, b); }
PyObject* nbOr(PyObject* a, PyObject* b) { return commutative("bitwise_or", a, b); }
PyObject* nbXor(PyObject* a, PyObject* b) { return commutative("bitwise_xor", a, b); }
PyObject* numberFirst(const char* name, PyObject* a, PyObject* b) {
  if (isTensor(a)) return binary(name, a, b);
  if (!isTensor(b) || !isScalar(a)) Py_RETURN_NOTIMPLEMENTED;
  return callFunction(name, a, b);
}
PyObject* nbLshift(PyObject* a, PyObject* b) { return numberFirst("bitwise_left_shift", a, b); }
PyObject* nbRshift(PyObject* a, PyObject* b) { return numberFirst("bitwise_right_shift", a, b); }
PyObject* nbRemainder(PyObject* a, PyObject* b) { return numberFirst("remainder", a, b); }
PyObject* nbPower(PyObject* a, PyObject* b, PyObject* modulo) {
  if (modulo != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return numberFirst("pow", a, b);
}
PyObject* nbFloorDivide(PyObject* a, PyObject* b) {
  if (isTensor(a)) return binary("floor_divide", a, b);
  if (!isTensor(b) || !isScalar(a)) Py_RETURN_NOTIMPLEMENTED;
  return reflected("floor_divide", a, b);
}
PyObject* nbMatmul(PyObject* a, PyObject* b) {
  if (!isTensor(a) || !isTensor(b)) Py_RETURN_NOTIMPLEMENTED;
  return callFunction("matmul", a, b);
}
PyObject* nbNegative(PyObject* a) { return callFunction("neg", a, nullptr); }
PyObject* nbPositive(PyObject* a) { return Py_NewRef(a); }

PyObject* inplace(const char* name, PyObject* a, PyObject* b) {
  if (!isOperand(b)) Py_RETURN_NOTIMPLEMENTED;
  return callMethod(name, a, b);
}
PyObject* nbInplaceAdd(PyObject* a, PyObject* b) { return inplace("add_", a, b); }
PyObject* nbInplaceSub(PyObject* a, PyObject* b) { return inplace("sub_", a, b); }
PyObject* nbInplaceMul(PyObject* a, PyObject* b) { return inplace("mul_", a, b); }
PyObject* nbInplaceTrueDivide(PyObject* a, PyObject* b) { return inplace("div_", a, b); }
PyObject* nbInplaceAnd(PyObject* a, PyObject* b) { return inplace("bitwise_and_", a, b); }
PyObject* nbInplaceOr(PyObject* a, PyObject* b) { return inplace("bitwise_or_", a, b); }
PyObject* nbInplaceXor(PyObject* a, PyObject* b) { return inplace("bitwise_xor_", a, b); }
PyObject* nbInplaceLshift(PyObject* a, PyObject* b) { return inplace("bitwise_left_shift_", a, b); }
PyObject* nbInplaceRshift(PyObject* a, PyObject* b) { return inplace("bitwise_right_shift_", a, b); }
PyObject* nbInplaceRemainder(PyObject* a, PyObject* b) { return inplace("remainder_", a, b); }
PyObject* nbInplaceFloorDivide(PyObject* a, PyObject* b) { return inplace("floor_divide_", a, b); }
PyObject* nbInplacePower(PyObject* a, PyObject* b, PyObject* modulo) {
  if (modulo != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return inplace("pow_", a, b);
}

// bool(t), float(t), int(t): one-element tensors only, as in torch.
int nbBool(PyObject* self) {
  OPCORE_PY_BEGIN
  const Tensor& t = self_(self);
  OPCORE_CHECK(t.numel() != 0, "Boolean value of Tensor with no values is ambiguous");
  OPCORE_CHECK(t.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
  return t.item<bool>();
  OPCORE_PY_END_INT
}
// float(t) and int(t) of a complex tensor: only with no imaginary part (torch's message).
void checkRealValue(const Tensor& t, const char* type) {
  if (!isComplexType(t.scalar_type())) return;
  OPCORE_CHECK(t.item<complex<double>>().imag() == 0, "value cannot be converted to type ", type, " without overflow");
}
PyObject* nbFloat(PyObject* self) {
  OPCORE_PY_BEGIN
  checkRealValue(self_(self), "double");
  return PyFloat_FromDouble(self_(self).item<double>());
  OPCORE_PY_END
}
// As int(x) of the Python number: exact for int64, ValueError for nan, OverflowError for inf.
PyObject* nbInt(PyObject* self) {
  OPCORE_PY_BEGIN
  const Tensor& t = self_(self);
  checkRealValue(t, "int64_t");
  if (isFloatingType(t.scalar_type()) || isComplexType(t.scalar_type())) return PyLong_FromDouble(t.item<double>());
  return PyLong_FromLongLong(t.item<int64_t>());
  OPCORE_PY_END
}
PyObject* nbIndex(PyObject* self) {
  OPCORE_PY_BEGIN
  const Tensor& t = self_(self);
  if (!isIntegralType(t.scalar_type(), /*include_bool=*/false) || t.numel() != 1) {
    throw TypeError("only integer tensors of a single element can be converted to an index");
  }
  return PyLong_FromLongLong(t.item<int64_t>());
  OPCORE_PY_END
}

PyNumberMethods tensor_as_number = [] {
  PyNumberMethods m{};
  m.nb_add = nbAdd;
  m.nb_subtract = nbSub;
  m.nb_multiply = nbMul;
  m.nb_true_divide = nbTrueDivide;
  m.nb_matrix_multiply = nbMatmul;
  m.nb_negative = nbNegative;
  m.nb_positive = nbPositive;
  m.nb_inplace_add = nbInplaceAdd;
  m.nb_inplace_subtract = nbInplaceSub;
  m.nb_inplace_multiply = nbInplaceMul;
  m.nb_inplace_true_divide = nbInplaceTrueDivide;
  m.nb_and = nbAnd;
  m.nb_or = nbOr;
  m.nb_xor = nbXor;
  m.nb_lshift = nbLshift;
  m.nb_rshift = nbRshift;
  m.nb_remainder = nbRemainder;
  m.nb_power = nbPower;
  m.nb_floor_divide = nbFloorDivide;
  m.nb_inplace_and = nbInplaceAnd;
  m.nb_inplace_or = nbInplaceOr;
  m.nb_inplace_xor = nbInplaceXor;
  m.nb_inplace_lshift = nbInplaceLshift;
  m.nb_inplace_rshift = nbInplaceRshift;
  m.nb_inplace_remainder = nbInplaceRemainder;
  m.nb_inplace_floor_divide = nbInplaceFloorDivide;
  m.nb_inplace_power = nbInplacePower;
  m.nb_bool = nbBool;
  m.nb_float = nbFloat;
  m.nb_int = nbInt;
  m.nb_index = nbIndex;
  return m;
}();

PyObject* richCompare(PyObject* a, PyObject* b, int op) {
  static const char* const names[] = {"lt", "le", "eq", "ne", "gt", "ge"};  // Py_LT .. Py_GE
  if (!isOperand(b)) Py_RETURN_NOTIMPLEMENTED;
  return callFunction(names[op], a, b);
}

Py_ssize_t mpLength(PyObject* self) {
  OPCORE_PY_BEGIN
  const Tensor& t = self_(self);
  if (t.dim() == 0) throw TypeError("len() of a 0-d tensor");
  return static_cast<Py_ssize_t>(t.size(0));
  OPCORE_PY_END_INT
}

PyMappingMethods tensor_as_mapping = {mpLength, tensorGetItem, tensorSetItem};

// Iteration yields t[0], t[1], ... (the sequence protocol stops at IndexError).
PyObject* sqItem(PyObject* self, Py_ssize_t i) {
  PyObject* index = PyLong_FromSsize_t(i);
  if (!index) return nullptr;
  PyObject* result = tensorGetItem(self, index);
  Py_DECREF(index);
  return result;
}
PyObject* tensorIter(PyObject* self) {
  OPCORE_PY_BEGIN
  if (self_(self).dim() == 0) throw TypeError("iteration over a 0-d tensor");
  return PySeqIter_New(self);
  OPCORE_PY_END
}

PySequenceMethods tensor_as_sequence = [] {
  PySequenceMethods m{};
  m.sq_length = mpLength;
  m.sq_item = sqItem;
  return m;
}();

}  // namespace

bool initTensorType(PyObject* module, const std::vector<Binding>& generated_methods) {
  static std::vector<PyMethodDef> methods = handWrittenMethods();
  for (const Binding& b : generated_methods) methods.push_back(b.def);
  methods.push_back({nullptr, nullptr, 0, nullptr});
  PyTensorType.tp_basicsize = sizeof(PyTensor);
  PyTensorType.tp_weaklistoffset = offsetof(PyTensor, weakreflist);
  PyTensorType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  PyTensorType.tp_doc = "opcore.Tensor: an n-dimensional array with autograd; see help(opcore)";
  PyTensorType.tp_new = tensorNew;
  PyTensorType.tp_dealloc = tensorDealloc;
  PyTensorType.tp_finalize = tensorFinalize;
  PyTensorType.tp_repr = tensorRepr;
  PyTensorType.tp_getset = tensor_getset;
  PyTensorType.tp_methods = methods.data();
  PyTensorType.tp_as_number = &tensor_as_number;
  PyTensorType.tp_as_mapping = &tensor_as_mapping;
  PyTensorType.tp_as_sequence = &tensor_as_sequence;
  PyTensorType.tp_richcompare = richCompare;
  PyTensorType.tp_iter = tensorIter;
  PyTensorType.tp_hash = PyBaseObject_Type.tp_hash;  // by identity, as torch.Tensor
  if (PyType_Ready(&PyTensorType) < 0) return false;
  return PyModule_AddObjectRef(module, "Tensor", reinterpret_cast<PyObject*>(&PyTensorType)) == 0;
}

}  // namespace opcore::python

// t[index] and t[index] = value, through the view and index operators (torch's basic and
// advanced indexing):
//   t[1]          select(0, 1)                  t[:, 1:3]     slice(1, 1, 3)
//   t[..., None]  unsqueeze(-1 after the rest)  t[idx]        index({idx}) (a long or bool tensor)
//   t[[0, 2]]     index({tensor([0, 2])})       t[0] = 5      select(0, 0).fill_(5)
//   t[:, 0] = u   select(1, 0).copy_(u)         t[idx] = u    index_put_({idx}, u)
#include <opcore/python/Module.h>

#include <opcore/core/Error.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/full.h>
#include <opcore/ops/index.h>
#include <opcore/ops/index_put.h>
#include <opcore/ops/squeeze.h>
#include <opcore/ops/select.h>
#include <opcore/ops/slice.h>
#include <opcore/ops/unsqueeze.h>
#include <opcore/ops/zeros.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include <optional>
#include <vector>

namespace opcore::python {
namespace {

// How many dimensions of the tensor an index item consumes.
int64_t consumedDims(PyObject* item) {
  if (item == Py_None || item == Py_Ellipsis || PyBool_Check(item)) return 0;
  if (isTensor(item) && unpackTensor(item).scalar_type() == kBool) return unpackTensor(item).dim();
  return 1;
}

int64_t sliceBound(PyObject* obj, const char* what) {
  if (!isInt(obj)) throw TypeError(std::string("slice ") + what + " must be an int or None, not " + typeName(obj));
  return indexToInt64(obj);
}

// The view `items` select (ints, slices, None, Ellipsis), and the tensor indices left for
// index() at the dimensions they apply to.
Tensor applySlicing(const Tensor& self, PyObject* const* items, Py_ssize_t n, std::vector<std::optional<Tensor>>& tensor_indices) {
  int64_t specified = 0;
  bool ellipsis = false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (items[i] == Py_Ellipsis) {
      if (ellipsis) throw IndexError("an index can only have a single ellipsis ('...')");
      ellipsis = true;
    }
    specified += consumedDims(items[i]);
  }
  if (specified > self.dim()) {
    throw IndexError("too many indices for tensor of dimension " + std::to_string(self.dim()) + " (got " +
                     std::to_string(specified) + ")");
  }
  Tensor result = self;
  int64_t dim = 0;         // of `result`
  int64_t self_dim = 0;    // of `self`, for messages
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = items[i];
    if (item == Py_Ellipsis) {
      self_dim += self.dim() - specified;
    } else if (item != Py_None && !PyBool_Check(item)) {
      self_dim += consumedDims(item);
    }
    if (isInt(item)) {
      const int64_t index = indexToInt64(item);
      const int64_t size = result.size(dim);
      if (index < -size || index >= size) {
        throw IndexError("index " + std::to_string(index) + " is out of bounds for dimension " +
                         std::to_string(self_dim - 1) + " with size " + std::to_string(size));
      }
      result = opcore::select(result, dim, index);
    } else if (PySlice_Check(item)) {
      auto* s = reinterpret_cast<PySliceObject*>(item);
      const std::optional<int64_t> start = s->start == Py_None ? std::nullopt : std::optional<int64_t>(sliceBound(s->start, "start"));
      const std::optional<int64_t> stop = s->stop == Py_None ? std::nullopt : std::optional<int64_t>(sliceBound(s->stop, "stop"));
      const int64_t step = s->step == Py_None ? 1 : sliceBound(s->step, "step");
      if (step <= 0) throw ValueError("step must be greater than zero");
      result = opcore::slice(result, dim, start, stop, step);
      ++dim;
    } else if (item == Py_None) {
      result = opcore::unsqueeze(result, dim);
      ++dim;
    } else if (item == Py_Ellipsis) {
      dim += self.dim() - specified;
    } else if (PyBool_Check(item)) {
      // t[True] adds a dimension of size 1 indexed by [0], t[False] one indexed by [] (PyTorch's
      // boolToIndexingTensor), so that it broadcasts with the other tensor indices: t[True, 1, [0, 3]]
      // has shape [2].
      result = opcore::unsqueeze(result, dim);
      tensor_indices.resize(static_cast<size_t>(dim));
      tensor_indices.push_back(opcore::zeros({item == Py_True ? 1 : 0}, self.options().dtype(kLong)));
      ++dim;
    } else if (isTensor(item)) {
      const Tensor& index = unpackTensor(item);
      const ScalarType t = index.scalar_type();
      if (t != kLong && t != kInt && t != kBool) {
        throw IndexError(std::string("tensors used as indices must be long, int or bool tensors, not ") + toString(t));
      }
      tensor_indices.resize(static_cast<size_t>(dim));
      tensor_indices.push_back(index);
      dim += t == kBool ? index.dim() : 1;
    } else {
      throw IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or bool tensors are valid indices (got " +
                       typeName(item) + ")");
    }
  }
  return result;
}

// Whether a sequence index stands for a tuple of indices (NumPy's legacy rule, which
// PyTorch's treatSequenceAsTuple keeps): it holds a tensor, a sequence, a slice, None or
// Ellipsis. Otherwise a sequence is one index, converted to a tensor (t[[0, 2]]).
bool sequenceIsTuple(PyObject* index) {
  if (PyTuple_Check(index)) return true;
  if (isTensor(index) || !PySequence_Check(index) || PyUnicode_Check(index) || PyBytes_Check(index)) return false;
  const Py_ssize_t n = PySequence_Size(index);
  if (n < 0) {
    PyErr_Clear();
    return false;
  }
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObjectPtr obj(PySequence_GetItem(index, i));
    if (!obj) {
      PyErr_Clear();
      return false;
    }
    PyObject* o = obj.get();
    if (isTensor(o) || PySequence_Check(o) || PySlice_Check(o) || o == Py_Ellipsis || o == Py_None) return true;
  }
  return false;
}

// A list (or other sequence) index as a tensor, through opcore.tensor(); an empty one is Long.
PyObjectPtr sequenceToTensor(PyObject* item) {
  PyObjectPtr module(PyImport_ImportModule("opcore"));
  if (!module) throw PythonError();
  PyObjectPtr tensor_fn(PyObject_GetAttrString(module.get(), "tensor"));
  if (!tensor_fn) throw PythonError();
  PyObjectPtr t(PyObject_CallOneArg(tensor_fn.get(), item));
  if (!t) throw PythonError();
  if (!isTensor(t.get())) throw TypeError("opcore.tensor() of an index did not give a tensor");
  const Tensor& index = unpackTensor(t.get());
  if (index.numel() == 0 && index.scalar_type() != kBool) return PyObjectPtr(wrap(index.to(kLong)));
  return t;
}

// The items of an index (a tuple's elements, or the index itself), sequences converted to
// tensors; `owned` keeps the new objects alive.
std::vector<PyObject*> indexItems(PyObject* index, std::vector<PyObjectPtr>& owned) {
  std::vector<PyObject*> items;
  if (sequenceIsTuple(index)) {
    PyObjectPtr tuple(PySequence_Tuple(index));
    if (!tuple) throw PythonError();
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tuple.get()); ++i) items.push_back(PyTuple_GET_ITEM(tuple.get(), i));
    owned.push_back(std::move(tuple));
  } else {
    items.push_back(index);
  }
  for (PyObject*& item : items) {
    if (!isTensor(item) && !isInt(item) && PySequence_Check(item) && !PyUnicode_Check(item) && !PyBytes_Check(item)) {
      owned.push_back(sequenceToTensor(item));
      item = owned.back().get();
    }
  }
  return items;
}

Tensor indexed(const Tensor& self, PyObject* index) {
  std::vector<std::optional<Tensor>> tensor_indices;
  std::vector<PyObjectPtr> owned;
  const std::vector<PyObject*> items = indexItems(index, owned);
  Tensor result = applySlicing(self, items.data(), static_cast<Py_ssize_t>(items.size()), tensor_indices);
  if (!tensor_indices.empty()) result = opcore::index(result, tensor_indices);
  return result;
}

// The value of `t[...] = value` without its leading size-1 dimensions (PyTorch's
// slicePrefix1sSize: t[0] = ones(1, 4) fills a row of 4).
Tensor withoutLeadingOnes(Tensor value) {
  while (value.dim() > 0 && value.size(0) == 1) value = opcore::squeeze(value, 0);
  return value;
}

}  // namespace

PyObject* tensorGetItem(PyObject* self, PyObject* index) {
  OPCORE_PY_BEGIN
  return wrap(indexed(unpackTensor(self), index));
  OPCORE_PY_END
}

int tensorSetItem(PyObject* self, PyObject* index, PyObject* value) {
  OPCORE_PY_BEGIN
  if (!value) throw TypeError("tensor items cannot be deleted");
  std::vector<std::optional<Tensor>> tensor_indices;
  std::vector<PyObjectPtr> owned;
  const Tensor& t = unpackTensor(self);
  const std::vector<PyObject*> items = indexItems(index, owned);
  Tensor view = applySlicing(t, items.data(), static_cast<Py_ssize_t>(items.size()), tensor_indices);
  if (!isTensor(value) && !isScalar(value)) {
    throw TypeError("can only assign a Tensor or a Python number to tensor items, not " + typeName(value));
  }
  if (!tensor_indices.empty()) {
    // Advanced indexing writes through index_put_, the value converted to the tensor's dtype
    // (as copy_ does; PyTorch 1.13 refuses another dtype here, later versions convert).
    Tensor values = isTensor(value) ? withoutLeadingOnes(unpackTensor(value))
                                    : opcore::full({}, toScalar(value), view.options());
    if (values.scalar_type() != view.scalar_type()) values = values.to(view.scalar_type());
    opcore::index_put_(view, tensor_indices, values, false);
  } else if (isTensor(value)) {
    opcore::copy_(view, withoutLeadingOnes(unpackTensor(value)));
  } else {
    opcore::fill_(view, toScalar(value));
  }
  return 0;
  OPCORE_PY_END_INT
}

}  // namespace opcore::python

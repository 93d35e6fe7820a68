// t[index] and t[index] = value, through the view and index operators (torch's basic and
// advanced indexing):
//   t[1]          select(0, 1)                  t[:, 1:3]     slice(1, 1, 3)
//   t[..., None]  unsqueeze(-1 after the rest)  t[idx]        index({idx}) (a long or bool tensor)
//   t[0] = 5      select(0, 0).fill_(5)         t[:, 0] = u   select(1, 0).copy_(u)
#include <opcore/python/Module.h>

#include <opcore/core/Error.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/index.h>
#include <opcore/ops/select.h>
#include <opcore/ops/slice.h>
#include <opcore/ops/unsqueeze.h>
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
      // t[True] adds a dimension of size 1, t[False] one of size 0.
      result = opcore::unsqueeze(result, dim);
      if (item == Py_False) result = opcore::slice(result, dim, 0, 0, 1);
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
    } else if (PySequence_Check(item) && !PyUnicode_Check(item)) {
      throw IndexError("indexing with a sequence is not supported; use a tensor of indices: t[opcore.tensor(" + typeName(item) + ")]");
    } else {
      throw IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or bool tensors are valid indices (got " +
                       typeName(item) + ")");
    }
  }
  return result;
}

Tensor indexed(const Tensor& self, PyObject* index) {
  std::vector<std::optional<Tensor>> tensor_indices;
  Tensor result;
  if (PyTuple_Check(index)) {
    result = applySlicing(self, &PyTuple_GET_ITEM(index, 0), PyTuple_GET_SIZE(index), tensor_indices);
  } else {
    result = applySlicing(self, &index, 1, tensor_indices);
  }
  if (!tensor_indices.empty()) result = opcore::index(result, tensor_indices);
  return result;
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
  const Tensor& t = unpackTensor(self);
  Tensor view = PyTuple_Check(index) ? applySlicing(t, &PyTuple_GET_ITEM(index, 0), PyTuple_GET_SIZE(index), tensor_indices)
                                     : applySlicing(t, &index, 1, tensor_indices);
  if (!tensor_indices.empty()) {
    throw IndexError("assigning through a tensor index (t[idx] = v) needs index_put_, which is not an operator of this "
                     "build; assign through ints, slices, None and ... only");
  }
  if (isTensor(value)) {
    opcore::copy_(view, unpackTensor(value));
  } else if (isScalar(value)) {
    opcore::fill_(view, toScalar(value));
  } else {
    throw TypeError("can only assign a Tensor or a Python number to tensor items, not " + typeName(value));
  }
  return 0;
  OPCORE_PY_END_INT
}

}  // namespace opcore::python

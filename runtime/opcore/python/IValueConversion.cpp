// Boxed values (the dispatcher's IValue) and Python objects, both ways (Note [Boxed calls from
// and to Python] in PythonKernel.cpp): fromIValue() for what Python kernels receive and boxed
// calls return; PythonArgs::toIValue() for what Python hands to a boxed call (opcore.ops,
// opcore._C._Operator) or returns from a Python kernel, read by a PythonArgParser.
//   PyObject* obj = fromIValue(stack[0]);     // a new reference (a tensor's one object)
//   stack.push_back(r.toIValue(0));           // r: a PythonArgs
#include <opcore/python/Module.h>

#include <opcore/core/Error.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include <utility>
#include <vector>

namespace opcore::python {

// --- to Python ------------------------------------------------------------------------------

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

// --- from Python ----------------------------------------------------------------------------

IValue PythonArgs::toIValue(int i) const {
  const Param& p = param(i);
  if (values_[i] == Py_None && i != varargs_param_) return IValue();
  switch (p.kind) {
    case ParamKind::Tensor: return IValue(static_cast<const TensorBase&>(toTensor(i)));
    case ParamKind::Scalar: return IValue(toScalar(i));
    case ParamKind::Int: return IValue(toInt64(i));
    case ParamKind::DeviceIndex: return IValue(toDeviceIndex(i));
    case ParamKind::Double: return IValue(toDouble(i));
    case ParamKind::Bool: return IValue(toBool(i));
    case ParamKind::String: return IValue(toStringView(i));
    case ParamKind::ScalarType: return IValue(toScalarType(i));
    case ParamKind::Device: return IValue(toDevice(i));
    case ParamKind::Layout: return IValue(toLayout(i));
    case ParamKind::MemoryFormat: return IValue(toMemoryFormat(i));
    case ParamKind::Generator: return IValue();
    case ParamKind::TensorList: {
      std::vector<TensorBase> list;
      for (const Tensor& t : toTensorList(i)) list.push_back(t);
      return IValue(std::move(list));
    }
    case ParamKind::OptionalTensorList: return IValue(toOptionalTensorList(i));
    case ParamKind::IntList: return IValue(toIntList(i));
    case ParamKind::DoubleList: return IValue(toDoubleList(i));
  }
  OPCORE_INTERNAL_ASSERT(false, "unhandled parameter kind");
}

}  // namespace opcore::python

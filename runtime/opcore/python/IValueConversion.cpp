// Boxed values (the dispatcher's IValue) and Python objects, both ways: fromIValue() and
// returnsToPython() for what Python kernels receive and boxed calls return;
// PythonArgs::toIValue() and pushReturns() for what Python hands to a boxed call (opcore.ops,
// opcore._C._Operator) or returns from a Python kernel, read by a PythonArgParser.
//   PyObject* obj = fromIValue(stack[0]);     // a new reference (a tensor's one object)
//   stack.push_back(r.toIValue(0));           // r: a PythonArgs
//
// Note [Boxed calls from and to Python]
// Arguments go to Python as PyTorch passes them to Python kernels: those before `*` by
// position, keyword-only ones by name. Returns come back through a PythonArgParser built from
// the schema's return types (one parameter per return), so that a Python kernel's results are
// checked and converted exactly as the arguments of a call from Python are: a Tensor return
// takes a Tensor, an int return an int, and anything else is a TypeError naming the kernel.
// A Tensor return also takes None, an undefined tensor, as PyTorch's: the form in which an
// undefined result reaches Python (convolution_backward's unasked gradients), so a kernel
// that forwards a call's results returns them unchanged.
// An exception the function raises travels through the C++ frames as a PythonError and is
// raised again, unchanged, where the call entered from Python.
#include <opcore/python/Module.h>

#include <opcore/core/Error.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include <string>
#include <utility>
#include <vector>

namespace opcore::python {

// --- to Python ------------------------------------------------------------------------------

PyObject* fromIValue(const IValue& v) {
  if (v.isNone()) Py_RETURN_NONE;
  if (v.isGenerator()) {
    Generator g = v.toGenerator();
    if (!g.defined()) Py_RETURN_NONE;
    return newGeneratorObject(&PyGeneratorType, std::move(g));
  }
  if (v.isTensor()) return wrap(Tensor(v.toTensorBase()));
  if (v.isBool()) return PyBool_FromLong(v.toBool());
  if (v.isInt()) return PyLong_FromLongLong(v.toInt());
  if (v.isDouble()) return PyFloat_FromDouble(v.toDouble());
  if (v.isComplexDouble()) {
    const complex<double> z = v.toComplexDouble();
    return PyComplex_FromDoubles(z.real(), z.imag());
  }
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

PyObject* returnsToPython(const Stack& returns) {
  if (returns.empty()) Py_RETURN_NONE;
  if (returns.size() == 1) return fromIValue(returns[0]);
  PyObjectPtr tuple(PyTuple_New(static_cast<Py_ssize_t>(returns.size())));
  if (!tuple) throw PythonError();
  for (size_t i = 0; i < returns.size(); ++i) {
    PyTuple_SET_ITEM(tuple.get(), static_cast<Py_ssize_t>(i), fromIValue(returns[i]));
  }
  return tuple.release();
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
    case ParamKind::Generator: return IValue(*toOptionalGenerator(i));
    case ParamKind::TensorList: {
      std::vector<TensorBase> list;
      for (const Tensor& t : toTensorList(i)) list.push_back(t);
      return IValue(std::move(list));
    }
    case ParamKind::OptionalTensorList: return IValue(toOptionalTensorList(i));
    case ParamKind::IntList: return IValue(toIntList(i));
    case ParamKind::DoubleList: return IValue(toDoubleList(i));
    case ParamKind::BoolList: return IValue(toBoolList(i));
  }
  OPCORE_INTERNAL_ASSERT(false, "unhandled parameter kind");
}

namespace {
// A `Tensor` return (not optional, not a list): a Python kernel may give None for it.
bool plainTensor(const SchemaType& type) { return type.isTensor() && type.suffix.empty(); }
}  // namespace

// The schema's returns as the parameters of a parser: "returns(Tensor r0, int r1) -> ()".
std::string returnsSchema(const FunctionSchema& schema) {
  std::string text = "returns(";
  for (size_t i = 0; i < schema.returns().size(); ++i) {
    SchemaType type = schema.returns()[i].type;
    type.alias.reset();
    if (plainTensor(type)) type.suffix = "?";  // None: an undefined tensor
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
  for (size_t i = 0; i < n; ++i) {
    IValue v = r.toIValue(static_cast<int>(i));
    if (v.isNone() && plainTensor(schema.returns()[i].type)) v = TensorBase();
    stack.push_back(std::move(v));
  }
}

}  // namespace opcore::python

// The dispatcher from Python: _C._call_boxed(name, overload_name, *args, **kwargs) calls any
// registered operator through the boxed calling convention, its arguments read by the same
// PythonArgParser as the generated bindings (from the schema the operator was registered
// with). The generated bindings test compares the two paths (typed and boxed) call by call.
#include <opcore/python/Module.h>

#include <opcore/dispatch/Dispatcher.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include <string>

namespace opcore::python {
namespace {

PyObject* fromIValue(const IValue& v) {
  if (v.isNone()) Py_RETURN_NONE;
  if (v.isTensor()) return wrap(Tensor(v.toTensorBase()));
  if (v.isBool()) return PyBool_FromLong(v.toBool());
  if (v.isInt()) return PyLong_FromLongLong(v.toInt());
  if (v.isDouble()) return PyFloat_FromDouble(v.toDouble());
  if (v.isScalarType()) return wrap(v.toScalarType());
  if (v.isTensorList()) {
    std::vector<Tensor> list;
    for (const TensorBase& t : v.toTensorList()) list.emplace_back(t);
    return wrap(list);
  }
  if (v.isIntList()) {
    const ArrayRef<int64_t> list = v.toIntList();
    PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(list.size()));
    if (!tuple) throw PythonError();
    for (size_t i = 0; i < list.size(); ++i) PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), PyLong_FromLongLong(list[i]));
    return tuple;
  }
  throw TypeError("_call_boxed: a return value of this type has no Python equivalent yet");
}

PyObject* callBoxed(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OPCORE_PY_BEGIN
  if (nargs < 2 || !PyUnicode_Check(args[0]) || !PyUnicode_Check(args[1])) {
    throw TypeError("_call_boxed(name, overload_name, *args, **kwargs): name and overload_name are strs");
  }
  const OperatorHandle op = Dispatcher::singleton().findSchemaOrThrow(PyUnicode_AsUTF8(args[0]), PyUnicode_AsUTF8(args[1]));
  const std::string schema = op.schema().str();
  const PythonArgParser parser(op.operatorName().str().c_str(), /*method=*/false, {schema.c_str()});
  const PythonArgs r = parser.parse(nullptr, args + 2, nargs - 2, kwnames);
  Stack stack;
  const int num_arguments = static_cast<int>(op.schema().arguments().size());
  for (int i = 0; i < num_arguments; ++i) stack.push_back(r.toIValue(i));
  callWithoutGil([&] { op.callBoxed(stack); });
  if (stack.size() == 1) return fromIValue(stack[0]);
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(stack.size()));
  if (!tuple) return nullptr;
  for (size_t i = 0; i < stack.size(); ++i) {
    PyObject* item = fromIValue(stack[i]);
    PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), item);
  }
  return tuple;
  OPCORE_PY_END
}

PyMethodDef dispatch_functions[] = {
    {"_call_boxed", asPyCFunction(callBoxed), METH_FASTCALL | METH_KEYWORDS,
     "_call_boxed(name, overload_name, *args, **kwargs): calls the operator `name.overload_name` through the "
     "dispatcher's boxed calling convention"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool initDispatch(PyObject* module) { return PyModule_AddFunctions(module, dispatch_functions) == 0; }

}  // namespace opcore::python

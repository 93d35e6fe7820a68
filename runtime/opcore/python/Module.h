// What the parts of opcore._C (runtime/opcore/python/*.cpp) give each other; not a public
// header. Each init* readies its types and adds its names to the module; false means a Python
// exception is set.
#pragma once

#include <Python.h>

#include <opcore/python/BindingTable.h>
#include <opcore/python/Wrap.h>

#include <opcore/core/DispatchKeySet.h>
#include <opcore/core/IValue.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace opcore::autograd {
class Node;
}  // namespace opcore::autograd

namespace opcore {
class FunctionSchema;
class KernelFunction;
class OperatorHandle;
}  // namespace opcore

namespace opcore::python {

class PythonArgParser;

bool initTypes(PyObject* module);                                                  // Types.cpp
bool initGenerator(PyObject* module);                                              // Generator.cpp
bool initTensorType(PyObject* module, const std::vector<Binding>& generated_methods);  // Tensor.cpp
bool initAutograd(PyObject* module);                                               // Autograd.cpp
bool initNumpy(PyObject* module);                                                  // Numpy.cpp
bool initDispatch(PyObject* module, std::span<const TagInfo> tags);                 // Dispatch.cpp
bool initOperator(PyObject* module);                                               // Operator.cpp
bool initLibrary(PyObject* module);                                                // Library.cpp
bool initDeviceRuntime(PyObject* module);                                          // DeviceRuntime.cpp

// The generated module function `opcore.<name>` (a METH_FASTCALL | METH_KEYWORDS function),
// for the Python operators (`a + b` calls add). Throws when the YAML has no such function.
// Null when the YAML has no such function.
using FastFunction = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);
FastFunction operatorFunction(const char* name);  // Module.cpp
// The generated Tensor method `Tensor.<name>` (self is the first argument), or null.
FastFunction operatorMethod(const char* name);

// Autograd.cpp
PyObject* wrapNode(std::shared_ptr<autograd::Node> node);  // None for null
PyObject* registerHook(PyObject* self, PyObject* hook);     // Tensor.register_hook
// The tensors of a tuple or list (or one tensor); TypeError naming `what` otherwise. With
// `none_as_undefined`, None (as the whole argument, or as an item) gives no tensor, or an
// undefined one (a missing gradient).
std::vector<Tensor> tensorSequence(PyObject* obj, const char* what, bool none_as_undefined = false);

// Indexing.cpp: t[index], t[index] = value
PyObject* tensorGetItem(PyObject* self, PyObject* index);
int tensorSetItem(PyObject* self, PyObject* index, PyObject* value);

// Numpy.cpp
PyObject* tensorNumpy(PyObject* self, PyObject*);
PyObject* tensorArray(PyObject* self, PyObject* args, PyObject* kwargs);

// Subclass.cpp (Note [The Python object of a tensor]).
PyObject* wrapSubclass(Tensor t);        // wrap() of a tensor whose slot has a saved object
void tensorFinalize(PyObject* self);     // PyTensorType.tp_finalize
PyObject* makeWrapperSubclass(PyObject*, PyObject* args, PyObject* kwargs);  // Tensor._make_wrapper_subclass

// Dispatch.cpp: dispatch keys and key sets as Python objects.
PyObject* dispatchKeyObject(DispatchKey k);          // an opcore._C.DispatchKey
DispatchKey toDispatchKey(PyObject* obj);            // a DispatchKey or its name; TypeError/ValueError
PyObject* wrap(DispatchKeySet ks);                   // an opcore._C.DispatchKeySet
DispatchKeySet toDispatchKeySet(PyObject* obj);      // a DispatchKeySet, or one key
// The operator named "ns::name.overload" (a str); opcore::Error when it is not defined.
OperatorHandle findOperator(PyObject* qualified_name);

// IValueConversion.cpp (Note [Boxed calls from and to Python]): a boxed value as a Python
// object, and a boxed call's returns as what Python gets (None, the one value, or a tuple);
// the other way is PythonArgs::toIValue (PythonArgParser.h), and pushReturns for what a Python
// kernel returned, read by a parser over returnsSchema(op.schema()):
// "returns(Tensor r0, int r1) -> ()".
PyObject* fromIValue(const IValue& v);
PyObject* returnsToPython(const Stack& returns);
std::string returnsSchema(const FunctionSchema& schema);
void pushReturns(const OperatorHandle& op, const PythonArgParser& parser, PyObject* result, Stack& stack);

// PythonKernel.cpp: the Python callable `fn` as a boxed kernel, or a fallthrough kernel for
// None. Before the operator's arguments it may pass the operator's name and overload
// (`with_op_name`, for fallbacks) and the call's key set (`with_keyset`). TypeError when fn is
// not callable.
KernelFunction pythonKernel(PyObject* fn, bool with_op_name, bool with_keyset);

}  // namespace opcore::python

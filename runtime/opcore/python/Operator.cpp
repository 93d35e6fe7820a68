// opcore._C._Operator: one or more overloads of a registered operator, callable from Python
// through the dispatcher's boxed calling convention. opcore.ops builds OpOverload (one
// overload) and OpOverloadPacket (all of a name's overloads) on it, so that calling either
// runs this C call with no Python frame in between:
//
//   op = _C._Operator("aten::add", ["Tensor", "Scalar"])
//   op(a, b)                 # the overload is picked from the arguments, as the generated bindings do
//   op._redispatch(keyset, a, b)
//
// The overloads' schemas are read through a PythonArgParser, made again whenever the
// dispatcher changed one of them (their definitions may come and go with Python Libraries).
#include <opcore/python/Module.h>

#include <opcore/dispatch/Dispatcher.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace opcore::python {
namespace {

// What a call needs, read from the dispatcher's schemas: immutable once made, and shared with
// the calls in flight, so that a registration change (a new snapshot) or re-initialisation
// while a call runs with the GIL released cannot pull anything from under that call.
struct Snapshot {
  std::vector<const void*> versions;        // the overloads' tables it was made from
  std::unique_ptr<PythonArgParser> parser;  // over the overloads that have a schema
  std::vector<OperatorHandle> parsed;       // parser signature i -> its overload
};

struct OperatorData {
  std::string name;                      // "aten::add"
  std::vector<OperatorHandle> handles;   // one per overload
  std::shared_ptr<const Snapshot> snapshot;
};

struct PyOperator {
  PyObject_HEAD
  OperatorData* data;
  vectorcallfunc vectorcall;  // operatorVectorcall: calls skip building an argument tuple
};
PyTypeObject PyOperatorType = {PyVarObject_HEAD_INIT(nullptr, 0) "opcore._C._Operator"};

OperatorData& data(PyObject* self) {
  OperatorData* d = reinterpret_cast<PyOperator*>(self)->data;
  if (!d) throw Error("_Operator used before __init__");
  return *d;
}

// The current snapshot, made again when a registration changed an overload since the last.
// Precondition: the GIL is held.
std::shared_ptr<const Snapshot> snapshot(OperatorData& d) {
  bool stale = !d.snapshot;
  for (size_t i = 0; i < d.handles.size() && !stale; ++i) stale = d.handles[i].tableVersion() != d.snapshot->versions[i];
  if (!stale) return d.snapshot;
  auto s = std::make_shared<Snapshot>();
  for (const OperatorHandle& op : d.handles) {
    s->versions.push_back(op.tableVersion());
    if (op.hasSchema()) s->parsed.push_back(op);
  }
  // The generated bindings' resolution order (_resolution_order in gen/api/python.py):
  // overloads taking a Tensor where another takes a Scalar first, since a zero-dim tensor
  // also matches a Scalar; otherwise in the order given.
  auto positional_scalars = [](const OperatorHandle& op) {
    const auto& args = op.schema().arguments();
    return std::count_if(args.begin(), args.end(), [](const Argument& a) { return !a.kwarg_only && a.type.base == "Scalar"; });
  };
  std::stable_sort(s->parsed.begin(), s->parsed.end(), [&](const OperatorHandle& x, const OperatorHandle& y) {
    return positional_scalars(x) < positional_scalars(y);
  });
  std::vector<std::string> schemas;
  for (const OperatorHandle& op : s->parsed) schemas.push_back(op.schema().str());
  if (schemas.empty()) throw Error("operator '" + d.name + "' has no definition any more (its Library was destroyed)");
  s->parser = std::make_unique<PythonArgParser>(d.name.c_str(), /*method=*/false, schemas, /*schema_names=*/true);
  d.snapshot = std::move(s);
  return d.snapshot;
}

PyObject* operatorVectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames);

int operatorInit(PyObject* self, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  PyObject *name, *overloads;
  if (!PyArg_ParseTuple(args, "UO:_Operator", &name, &overloads)) return -1;
  auto d = std::make_unique<OperatorData>();
  d->name = PyUnicode_AsUTF8(name);
  PyObjectPtr items(PySequence_Fast(overloads, "_Operator(name, overload_names): overload_names is a list of str"));
  if (!items) throw PythonError();
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(items.get()); ++i) {
    PyObject* overload = PySequence_Fast_GET_ITEM(items.get(), i);
    if (!PyUnicode_Check(overload)) throw TypeError("an overload name must be a str, not " + typeName(overload));
    d->handles.push_back(Dispatcher::singleton().findSchemaOrThrow(d->name.c_str(), PyUnicode_AsUTF8(overload)));
  }
  if (d->handles.empty()) throw ValueError("_Operator('" + d->name + "'): no overloads given");
  delete std::exchange(reinterpret_cast<PyOperator*>(self)->data, d.release());
  reinterpret_cast<PyOperator*>(self)->vectorcall = operatorVectorcall;
  return 0;
  OPCORE_PY_END_INT
}

void operatorDealloc(PyObject* self) {
  delete reinterpret_cast<PyOperator*>(self)->data;
  Py_TYPE(self)->tp_free(self);
}

// Parses (args, kwnames) and runs `call(handle, stack)`; returns the results: a mutable
// return is the argument's own object (`ops.aten.add_.Tensor(a, b) is a`), as every tensor
// comes back as its one object (Note [The Python object of a tensor]).
template <typename Call>
PyObject* callOperator(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, Call&& call) {
  const std::shared_ptr<const Snapshot> s = snapshot(data(self));
  const PythonArgs r = s->parser->parse(nullptr, args, nargs, kwnames);
  const OperatorHandle& op = s->parsed[static_cast<size_t>(r.index())];
  const size_t num_args = op.schema().arguments().size();
  Stack stack;
  stack.reserve(num_args);
  for (size_t i = 0; i < num_args; ++i) stack.push_back(r.toIValue(static_cast<int>(i)));
  callWithoutGil([&] { call(op, stack); });
  OPCORE_INTERNAL_ASSERT(stack.size() == op.schema().returns().size(), "a kernel of ", op.operatorName().str(),
                         " returned ", stack.size(), " values where the schema has ", op.schema().returns().size());
  return returnsToPython(stack);
}

// tp_call gives a tuple and a dict; the parser takes the vectorcall form.
template <typename Call>
PyObject* callFromTuple(PyObject* self, PyObject* args, PyObject* kwargs, Py_ssize_t skip, Call&& call) {
  const Py_ssize_t nargs = PyTuple_GET_SIZE(args) - skip;
  PyObject* const* items = &PyTuple_GET_ITEM(args, 0) + skip;
  if (!kwargs || PyDict_GET_SIZE(kwargs) == 0) return callOperator(self, items, nargs, nullptr, call);
  std::vector<PyObject*> all(items, items + nargs);
  PyObjectPtr kwnames(PyTuple_New(PyDict_GET_SIZE(kwargs)));
  if (!kwnames) throw PythonError();
  Py_ssize_t pos = 0, i = 0;
  PyObject *key, *value;
  while (PyDict_Next(kwargs, &pos, &key, &value)) {
    PyTuple_SET_ITEM(kwnames.get(), i++, Py_NewRef(key));
    all.push_back(value);
  }
  return callOperator(self, all.data(), nargs, kwnames.get(), call);
}

PyObject* operatorVectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  OPCORE_PY_BEGIN
  return callOperator(self, args, PyVectorcall_NARGS(nargsf), kwnames,
                      [](const OperatorHandle& op, Stack& stack) { op.callBoxed(stack); });
  OPCORE_PY_END
}

PyObject* operatorCall(PyObject* self, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  return callFromTuple(self, args, kwargs, 0, [](const OperatorHandle& op, Stack& stack) { op.callBoxed(stack); });
  OPCORE_PY_END
}

// _redispatch(keyset, *args, **kwargs): the kernel for the keyset's highest key, as in C++.
PyObject* operatorRedispatch(PyObject* self, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  if (PyTuple_GET_SIZE(args) < 1) throw TypeError("redispatch(keyset, *args, **kwargs): the keyset is missing");
  const DispatchKeySet ks = toDispatchKeySet(PyTuple_GET_ITEM(args, 0));
  return callFromTuple(self, args, kwargs, 1, [ks](const OperatorHandle& op, Stack& stack) { op.redispatchBoxed(ks, stack); });
  OPCORE_PY_END
}

// _call_for_dispatch_key(key, *args, **kwargs): the kernel the table holds for runtime key `key`.
PyObject* operatorCallForKey(PyObject* self, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  if (PyTuple_GET_SIZE(args) < 1) throw TypeError("_call_for_dispatch_key(key, *args, **kwargs): the key is missing");
  const DispatchKey k = toDispatchKey(PyTuple_GET_ITEM(args, 0));
  if (!isKernelKey(k) && !isAliasKey(k)) throw ValueError(std::string("'") + toString(k) + "' is not a key a kernel can be registered at");
  return callFromTuple(self, args, kwargs, 1, [k](const OperatorHandle& op, Stack& stack) { op.callBoxedForDispatchKey(k, stack); });
  OPCORE_PY_END
}

const OperatorHandle& handleAt(PyObject* self, PyObject* index) {
  OperatorData& d = data(self);
  const Py_ssize_t i = PyLong_AsSsize_t(index);
  if (i == -1 && PyErr_Occurred()) throw PythonError();
  if (i < 0 || static_cast<size_t>(i) >= d.handles.size()) throw ValueError("no overload at index " + std::to_string(i));
  return d.handles[static_cast<size_t>(i)];
}

PyObject* optionalText(const std::optional<std::string>& s) {
  if (!s) Py_RETURN_NONE;
  return PyUnicode_FromString(s->c_str());
}

// _schema_info(i): (name, overload_name, arguments, returns) of overload i, with
// arguments ((name, type, default, kwarg_only, alias), ...) and returns ((name, type, alias), ...);
// types without their alias annotation, defaults as the schema writes them (or None).
PyObject* operatorSchemaInfo(PyObject* self, PyObject* index) {
  OPCORE_PY_BEGIN
  const FunctionSchema& schema = handleAt(self, index).schema();
  auto bare = [](SchemaType t) {
    t.alias.reset();
    return t.str();
  };
  PyObjectPtr args(PyTuple_New(static_cast<Py_ssize_t>(schema.arguments().size())));
  PyObjectPtr rets(PyTuple_New(static_cast<Py_ssize_t>(schema.returns().size())));
  if (!args || !rets) throw PythonError();
  for (size_t i = 0; i < schema.arguments().size(); ++i) {
    const Argument& a = schema.arguments()[i];
    PyObject* item = Py_BuildValue("(ssNON)", a.name.c_str(), bare(a.type).c_str(), optionalText(a.default_value),
                                   a.kwarg_only ? Py_True : Py_False, optionalText(a.type.alias));
    if (!item) throw PythonError();
    PyTuple_SET_ITEM(args.get(), static_cast<Py_ssize_t>(i), item);
  }
  for (size_t i = 0; i < schema.returns().size(); ++i) {
    const Return& r = schema.returns()[i];
    PyObject* item = Py_BuildValue("(ssN)", r.name.c_str(), bare(r.type).c_str(), optionalText(r.type.alias));
    if (!item) throw PythonError();
    PyTuple_SET_ITEM(rets.get(), static_cast<Py_ssize_t>(i), item);
  }
  return Py_BuildValue("(ssOOs)", schema.operatorName().name.c_str(), schema.operatorName().overload_name.c_str(),
                       args.get(), rets.get(), schema.str().c_str());
  OPCORE_PY_END
}

PyObject* operatorTags(PyObject* self, PyObject* index) {
  OPCORE_PY_BEGIN
  const std::vector<std::string>& tags = handleAt(self, index).tags();
  PyObjectPtr list(PyList_New(static_cast<Py_ssize_t>(tags.size())));
  if (!list) throw PythonError();
  for (size_t i = 0; i < tags.size(); ++i) PyList_SET_ITEM(list.get(), static_cast<Py_ssize_t>(i), PyUnicode_FromString(tags[i].c_str()));
  return list.release();
  OPCORE_PY_END
}

PyObject* operatorTableVersion(PyObject* self, PyObject* index) {
  OPCORE_PY_BEGIN
  return PyLong_FromVoidPtr(const_cast<void*>(handleAt(self, index).tableVersion()));
  OPCORE_PY_END
}

PyObject* operatorSchemaDebug(PyObject* self, PyObject* index) {
  OPCORE_PY_BEGIN
  return PyUnicode_FromString(handleAt(self, index).schemaDebug().c_str());
  OPCORE_PY_END
}

// Note [Vectorcall for Python subclasses]
// OpOverload and OpOverloadPacket are Python subclasses of _Operator. CPython 3.11 gives a
// Python subclass its base's vectorcall offset but not the flag that enables it (3.12 does,
// unless the subclass defines __call__), so their calls would build an argument tuple and
// dict first. _enable_vectorcall(cls) sets the flag on such a class, as 3.12 would.
PyObject* enableVectorcall(PyObject*, PyObject* cls) {
  OPCORE_PY_BEGIN
  auto* type = reinterpret_cast<PyTypeObject*>(cls);
  if (!PyType_Check(cls) || !PyType_IsSubtype(type, &PyOperatorType)) {
    throw TypeError("_enable_vectorcall(cls): cls must be a subclass of _Operator");
  }
  if (type->tp_call != PyOperatorType.tp_call) throw TypeError("_enable_vectorcall(cls): cls defines __call__");
  type->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
  PyType_Modified(type);
  Py_RETURN_NONE;
  OPCORE_PY_END
}

PyMethodDef operator_methods[] = {
    {"_redispatch", asPyCFunction(operatorRedispatch), METH_VARARGS | METH_KEYWORDS,
     "_redispatch(keyset, *args, **kwargs): runs the kernel of the keyset's highest key"},
    {"_call_for_dispatch_key", asPyCFunction(operatorCallForKey), METH_VARARGS | METH_KEYWORDS,
     "_call_for_dispatch_key(key, *args, **kwargs): runs the kernel the dispatch table holds for key"},
    {"_schema_info", operatorSchemaInfo, METH_O, "_schema_info(i): overload i's schema as tuples"},
    {"_tag_names", operatorTags, METH_O, "_tag_names(i): overload i's tags, as names"},
    {"_table_version", operatorTableVersion, METH_O,
     "_table_version(i): changes whenever a registration changes what a call of overload i runs"},
    {"_schema_debug", operatorSchemaDebug, METH_O, "_schema_debug(i): where overload i was defined"},
    {"_enable_vectorcall", enableVectorcall, METH_O | METH_STATIC,
     "_enable_vectorcall(cls): see Note [Vectorcall for Python subclasses]"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool initOperator(PyObject* module) {
  PyOperatorType.tp_basicsize = sizeof(PyOperator);
  PyOperatorType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_VECTORCALL;
  PyOperatorType.tp_vectorcall_offset = offsetof(PyOperator, vectorcall);
  PyOperatorType.tp_doc = "_Operator(qualified_name, overload_names): see opcore.ops.OpOverload";
  PyOperatorType.tp_new = PyType_GenericNew;
  PyOperatorType.tp_init = operatorInit;
  PyOperatorType.tp_dealloc = operatorDealloc;
  PyOperatorType.tp_call = operatorCall;
  PyOperatorType.tp_methods = operator_methods;
  if (PyType_Ready(&PyOperatorType) < 0) return false;
  return PyModule_AddObjectRef(module, "_Operator", reinterpret_cast<PyObject*>(&PyOperatorType)) == 0;
}

}  // namespace opcore::python

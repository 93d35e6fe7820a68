// The dispatcher from Python: opcore._C.DispatchKey (an int-valued Enum of every key,
// alias keys included), opcore._C.DispatchKeySet, opcore._C.Tag (tags.yaml), the _dispatch_* functions
// that read the registry and this thread's key sets, and load_library's loader. (Operators
// are called from Python through opcore._C._Operator, Operator.cpp.)
#include <opcore/python/Module.h>

#include <opcore/dispatch/Dispatcher.h>
#include <opcore/dispatch/LocalDispatchKeySet.h>
#include <opcore/library/Library.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include <dlfcn.h>

#include <sstream>
#include <string>

namespace opcore::python {

namespace {
PyObject* dispatch_key_type = nullptr;  // the Enum type; alive as long as the module

struct PyDispatchKeySet {
  PyObject_HEAD
  DispatchKeySet keys;
};
PyTypeObject PyDispatchKeySetType = {PyVarObject_HEAD_INIT(nullptr, 0) "opcore._C.DispatchKeySet"};
}  // namespace

PyObject* dispatchKeyObject(DispatchKey k) {
  PyObjectPtr value(PyLong_FromLong(static_cast<long>(k)));
  if (!value) throw PythonError();
  PyObject* key = PyObject_CallOneArg(dispatch_key_type, value.get());
  if (!key) throw PythonError();
  return key;
}

DispatchKey toDispatchKey(PyObject* obj) {
  if (PyUnicode_Check(obj)) {
    const std::optional<DispatchKey> k = parseDispatchKey(PyUnicode_AsUTF8(obj));
    if (!k) throw ValueError(std::string("unknown dispatch key '") + PyUnicode_AsUTF8(obj) + "'");
    return *k;
  }
  if (!PyObject_TypeCheck(obj, reinterpret_cast<PyTypeObject*>(dispatch_key_type))) {
    throw TypeError("expected a DispatchKey (or its name), not " + typeName(obj));
  }
  return static_cast<DispatchKey>(PyLong_AsLong(obj));
}

PyObject* wrap(DispatchKeySet ks) {
  PyObject* obj = PyDispatchKeySetType.tp_alloc(&PyDispatchKeySetType, 0);
  if (!obj) throw PythonError();
  reinterpret_cast<PyDispatchKeySet*>(obj)->keys = ks;
  return obj;
}

DispatchKeySet toDispatchKeySet(PyObject* obj) {
  if (PyObject_TypeCheck(obj, &PyDispatchKeySetType)) return reinterpret_cast<PyDispatchKeySet*>(obj)->keys;
  return DispatchKeySet(toDispatchKey(obj));
}

OperatorHandle findOperator(PyObject* qualified_name) {
  if (!PyUnicode_Check(qualified_name)) throw TypeError("expected an operator name such as 'aten::add.Tensor', not " + typeName(qualified_name));
  const OperatorName name = OperatorName::parse(PyUnicode_AsUTF8(qualified_name));
  return Dispatcher::singleton().findSchemaOrThrow(name.name.c_str(), name.overload_name.c_str());
}

namespace {

// Every key, Undefined and alias keys included; per-backend functionality keys (Dense,
// AutogradFunctionality) as well, as in c10.
template <typename F>
void forEachKey(F&& f) {
  for (int i = 0; i < kNumKeys; ++i) f(static_cast<DispatchKey>(i));
}

// --- DispatchKeySet ----------------------------------------------------------------------------

DispatchKeySet& keys(PyObject* self) { return reinterpret_cast<PyDispatchKeySet*>(self)->keys; }

PyObject* keySetNew(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  PyObject* arg = nullptr;
  if (!PyArg_ParseTuple(args, "|O:DispatchKeySet", &arg) || (kwargs && PyDict_Size(kwargs) > 0)) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "DispatchKeySet(key=None) takes no keyword arguments");
    return nullptr;
  }
  DispatchKeySet ks;
  if (arg && PyObject_TypeCheck(arg, &PyDispatchKeySetType)) {
    ks = keys(arg);
  } else if (arg && (PyList_Check(arg) || PyTuple_Check(arg))) {
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(arg); ++i) ks = ks.add(toDispatchKey(PySequence_Fast_GET_ITEM(arg, i)));
  } else if (arg) {
    ks = DispatchKeySet(toDispatchKey(arg));
  }
  return wrap(ks);
  OPCORE_PY_END
}

// As C++ prints it, lowest priority first: "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU)".
PyObject* keySetRepr(PyObject* self) {
  OPCORE_PY_BEGIN
  std::ostringstream os;
  os << keys(self);
  return PyUnicode_FromString(os.str().c_str());
  OPCORE_PY_END
}

PyObject* keySetBinary(PyObject* a, PyObject* b, DispatchKeySet (*op)(DispatchKeySet, DispatchKeySet)) {
  OPCORE_PY_BEGIN
  if (!PyObject_TypeCheck(a, &PyDispatchKeySetType) || !PyObject_TypeCheck(b, &PyDispatchKeySetType)) {
    Py_RETURN_NOTIMPLEMENTED;
  }
  return wrap(op(keys(a), keys(b)));
  OPCORE_PY_END
}
PyObject* keySetOr(PyObject* a, PyObject* b) {
  return keySetBinary(a, b, [](DispatchKeySet x, DispatchKeySet y) { return x | y; });
}
PyObject* keySetAnd(PyObject* a, PyObject* b) {
  return keySetBinary(a, b, [](DispatchKeySet x, DispatchKeySet y) { return x & y; });
}
PyObject* keySetSub(PyObject* a, PyObject* b) {
  return keySetBinary(a, b, [](DispatchKeySet x, DispatchKeySet y) { return x - y; });
}

PyObject* keySetRichCompare(PyObject* a, PyObject* b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, &PyDispatchKeySetType)) Py_RETURN_NOTIMPLEMENTED;
  return PyBool_FromLong((keys(a) == keys(b)) == (op == Py_EQ));
}

Py_hash_t keySetHash(PyObject* self) {
  const Py_hash_t h = static_cast<Py_hash_t>(keys(self).raw());
  return h == -1 ? -2 : h;
}

PyObject* keySetHas(PyObject* self, PyObject* key) {
  OPCORE_PY_BEGIN
  return PyBool_FromLong(keys(self).has(toDispatchKey(key)));
  OPCORE_PY_END
}
PyObject* keySetAdd(PyObject* self, PyObject* key) {
  OPCORE_PY_BEGIN
  return wrap(keys(self).add(toDispatchKey(key)));
  OPCORE_PY_END
}
PyObject* keySetRemove(PyObject* self, PyObject* key) {
  OPCORE_PY_BEGIN
  return wrap(keys(self).remove(toDispatchKey(key)));
  OPCORE_PY_END
}
PyObject* keySetHighest(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  return dispatchKeyObject(keys(self).highestPriorityTypeId());
  OPCORE_PY_END
}
PyObject* keySetEmpty(PyObject* self, PyObject*) { return PyBool_FromLong(keys(self).empty()); }
PyObject* keySetRaw(PyObject* self, PyObject*) { return PyLong_FromUnsignedLongLong(keys(self).raw()); }

PyMethodDef keyset_methods[] = {
    {"has", keySetHas, METH_O, "has(key): whether the set holds the key (a per-backend key needs its functionality and backend)"},
    {"add", keySetAdd, METH_O, "add(key): a new set with the key"},
    {"remove", keySetRemove, METH_O, "remove(key): a new set without the key's functionality"},
    {"highestPriorityTypeId", keySetHighest, METH_NOARGS, "highestPriorityTypeId(): the key a call with this set runs first"},
    {"empty", keySetEmpty, METH_NOARGS, "empty(): whether the set holds no key"},
    {"raw_repr", keySetRaw, METH_NOARGS, "raw_repr(): the set's bits"},
    {nullptr, nullptr, 0, nullptr}};

PyNumberMethods keyset_as_number = [] {
  PyNumberMethods m{};
  m.nb_or = keySetOr;
  m.nb_and = keySetAnd;
  m.nb_subtract = keySetSub;
  return m;
}();

// --- _dispatch_* -------------------------------------------------------------------------------

// Note [The keys _dispatch_keys reports]
// torch gives every tensor its backend's Autograd key (and, for CPU, CUDA and PrivateUse1, its
// Autocast key) for its whole life: `_dispatch_keys(cpu_tensor)` is DispatchKeySet(CPU,
// ADInplaceOrView, AutogradCPU, AutocastCPU). opcore's tensors carry the Autograd key only while
// they require grad, so that calls that need no gradient skip the autograd layer, and opcore
// has no autocast kernels; _dispatch_keys adds both keys, as torch reports them (and as a
// higher-order operator, which dispatches in Python on this set, orders its kernels: Autograd
// before the backend; it skips the Autocast keys). The C++ dispatcher keeps using the
// tensor's own keys.
DispatchKeySet reportedKeys(DispatchKeySet ks) {
  const BackendComponent backend = ks.highestBackend();
  if (backend == BackendComponent::InvalidBit) return ks;
  ks = ks.add(toRuntimePerBackendKey(DispatchKey::AutogradFunctionality, backend));
  if (backend != BackendComponent::MetaBit) ks = ks.add(toRuntimePerBackendKey(DispatchKey::AutocastFunctionality, backend));
  return ks;
}

PyObject* dispatchKeys(PyObject*, PyObject* tensor) {
  OPCORE_PY_BEGIN
  if (!isTensor(tensor)) throw TypeError("_dispatch_keys(tensor): expected a Tensor, not " + typeName(tensor));
  return wrap(reportedKeys(unpackTensor(tensor).key_set()));
  OPCORE_PY_END
}

PyObject* dispatchKeySetFull(PyObject*, PyObject*) {
  OPCORE_PY_BEGIN
  DispatchKeySet ks;
  forEachKey([&](DispatchKey k) { ks = ks.add(k); });
  return wrap(ks);
  OPCORE_PY_END
}

PyObject* isAliasKeyFn(PyObject*, PyObject* key) {
  OPCORE_PY_BEGIN
  return PyBool_FromLong(isAliasKey(toDispatchKey(key)));
  OPCORE_PY_END
}

PyObject* tlsIncludeSet(PyObject*, PyObject*) {
  OPCORE_PY_BEGIN
  return wrap(tlsLocalDispatchKeySet().included);
  OPCORE_PY_END
}
PyObject* tlsExcludeSet(PyObject*, PyObject*) {
  OPCORE_PY_BEGIN
  return wrap(tlsLocalDispatchKeySet().excluded);
  OPCORE_PY_END
}

// _dispatch_tls_set_dispatch_key_{included,excluded}(key, on): the thread's sets change until
// set back (Python has no RAII guard; opcore.utils._python_dispatch pairs the calls).
template <DispatchKeySet LocalDispatchKeySet::*Set>
PyObject* tlsSetKey(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OPCORE_PY_BEGIN
  if (nargs != 2) throw TypeError("expected (key, on)");
  const DispatchKeySet k(toDispatchKey(args[0]));
  DispatchKeySet& set = detail::tls_local_dispatch_key_set.*Set;
  set = isTrue(args[1]) ? (set | k) : DispatchKeySet::fromRaw(set.raw() & ~k.raw());
  Py_RETURN_NONE;
  OPCORE_PY_END
}
template <DispatchKeySet LocalDispatchKeySet::*Set>
PyObject* tlsIsKey(PyObject*, PyObject* key) {
  OPCORE_PY_BEGIN
  return PyBool_FromLong((tlsLocalDispatchKeySet().*Set).has(toDispatchKey(key)));
  OPCORE_PY_END
}

// (name, key): the operator `name` ("aten::add.Tensor") and a DispatchKey.
std::pair<OperatorHandle, DispatchKey> operatorAndKey(PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) throw TypeError("expected (name, dispatch_key)");
  return {findOperator(args[0]), toDispatchKey(args[1])};
}

PyObject* hasKernelForDispatchKey(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OPCORE_PY_BEGIN
  const auto [op, k] = operatorAndKey(args, nargs);
  return PyBool_FromLong(op.hasKernelForDispatchKey(k));
  OPCORE_PY_END
}

PyObject* hasComputedKernelForDispatchKey(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OPCORE_PY_BEGIN
  const auto [op, k] = operatorAndKey(args, nargs);
  return PyBool_FromLong(op.hasComputedKernelForDispatchKey(k));
  OPCORE_PY_END
}

PyObject* kernelIsFallthrough(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OPCORE_PY_BEGIN
  const auto [op, k] = operatorAndKey(args, nargs);
  if (!isKernelKey(k)) throw ValueError(std::string("'") + toString(k) + "' is not a runtime key");
  return PyBool_FromLong(op.isKernelFallthroughKernel(k));
  OPCORE_PY_END
}

// Whether a kernel is registered at any key of `ks` (alias keys are never in a set).
PyObject* hasKernelForAnyDispatchKey(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OPCORE_PY_BEGIN
  if (nargs != 2) throw TypeError("expected (name, keyset)");
  const OperatorHandle op = findOperator(args[0]);
  const DispatchKeySet ks = toDispatchKeySet(args[1]);
  bool any = false;
  forEachKey([&](DispatchKey k) { any = any || (isKernelKey(k) && ks.has(k) && op.hasKernelForDispatchKey(k)); });
  return PyBool_FromLong(any);
  OPCORE_PY_END
}

PyObject* dispatchDump(PyObject*, PyObject* name) {
  OPCORE_PY_BEGIN
  return PyUnicode_FromString(findOperator(name).dumpState().c_str());
  OPCORE_PY_END
}
PyObject* dispatchDumpTable(PyObject*, PyObject* name) {
  OPCORE_PY_BEGIN
  return PyUnicode_FromString(findOperator(name).dumpComputedTable().c_str());
  OPCORE_PY_END
}
PyObject* dispatchCheckInvariants(PyObject*, PyObject* name) {
  OPCORE_PY_BEGIN
  findOperator(name).checkInvariants();
  Py_RETURN_NONE;
  OPCORE_PY_END
}

PyObject* stringList(const std::vector<std::string>& items) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(items.size()));
  if (!list) throw PythonError();
  for (size_t i = 0; i < items.size(); ++i) PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), PyUnicode_FromString(items[i].c_str()));
  return list;
}
PyObject* allOpNames(PyObject*, PyObject*) {
  OPCORE_PY_BEGIN
  return stringList(Dispatcher::singleton().allOperatorNames());
  OPCORE_PY_END
}
// _excluded_reason("aten::add"): why this build left the operator out (a selective build), or "".
PyObject* excludedReason(PyObject*, PyObject* name) {
  OPCORE_PY_BEGIN
  if (!PyUnicode_Check(name)) throw TypeError("_excluded_reason(name): name is a str, not " + typeName(name));
  const std::string reason = Dispatcher::singleton().excludedReason(PyUnicode_AsUTF8(name));
  return PyUnicode_FromStringAndSize(reason.data(), static_cast<Py_ssize_t>(reason.size()));
  OPCORE_PY_END
}
PyObject* danglingImpls(PyObject*, PyObject*) {
  OPCORE_PY_BEGIN
  return stringList(Dispatcher::singleton().findDanglingImpls());
  OPCORE_PY_END
}

PyObject* setTrace(PyObject*, PyObject* on) {
  OPCORE_PY_BEGIN
  detail::show_dispatch_trace.store(isTrue(on), std::memory_order_relaxed);
  Py_RETURN_NONE;
  OPCORE_PY_END
}
PyObject* traceEnabled(PyObject*, PyObject*) { return PyBool_FromLong(detail::dispatchTraceEnabled()); }

// _load_library(path): dlopen()s a library whose static OPCORE_LIBRARY blocks register
// operators (Note [Loading an operator library]). OSError when it cannot be loaded;
// RuntimeError naming the failed block when a registration fails, after unloading it.
PyObject* loadLibrary(PyObject*, PyObject* path) {
  OPCORE_PY_BEGIN
  if (!PyUnicode_Check(path)) throw TypeError("load_library(path): path is a str, not " + typeName(path));
  const std::string file = PyUnicode_AsUTF8(path);
  std::string load_error, registration_error;
  callWithoutGil([&] {
    LibraryLoadScope scope;
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      load_error = why ? why : "dlopen failed";
    } else if (!scope.error().empty()) {
      registration_error = scope.error();
      dlclose(handle);  // the blocks that did register go with their Library objects
    }
  });
  if (!registration_error.empty()) {
    throw Error("could not load the operator library " + file + ": " + registration_error +
                "; nothing it registered remains");
  }
  if (!load_error.empty()) {
    PyErr_Format(PyExc_OSError, "could not load the operator library %s: %s", file.c_str(), load_error.c_str());
    return nullptr;
  }
  Py_RETURN_NONE;  // the library stays loaded for the process, as with ctypes.CDLL
  OPCORE_PY_END
}

PyMethodDef dispatch_functions[] = {
    {"_dispatch_keys", dispatchKeys, METH_O, "_dispatch_keys(tensor): the tensor's DispatchKeySet"},
    {"_dispatch_keyset_full", dispatchKeySetFull, METH_NOARGS, "_dispatch_keyset_full(): a set of every key"},
    {"_dispatch_is_alias_key", isAliasKeyFn, METH_O, "_dispatch_is_alias_key(key): registration-only key (Autograd, Composite*)"},
    {"_dispatch_tls_local_include_set", tlsIncludeSet, METH_NOARGS, "this thread's included keys"},
    {"_dispatch_tls_local_exclude_set", tlsExcludeSet, METH_NOARGS, "this thread's excluded keys"},
    {"_dispatch_tls_set_dispatch_key_included", asPyCFunction(tlsSetKey<&LocalDispatchKeySet::included>), METH_FASTCALL,
     "_dispatch_tls_set_dispatch_key_included(key, on): adds (removes) key to every call's keys on this thread"},
    {"_dispatch_tls_set_dispatch_key_excluded", asPyCFunction(tlsSetKey<&LocalDispatchKeySet::excluded>), METH_FASTCALL,
     "_dispatch_tls_set_dispatch_key_excluded(key, on): removes key from every call's keys on this thread (or stops)"},
    {"_dispatch_tls_is_dispatch_key_included", tlsIsKey<&LocalDispatchKeySet::included>, METH_O, "whether key is included"},
    {"_dispatch_tls_is_dispatch_key_excluded", tlsIsKey<&LocalDispatchKeySet::excluded>, METH_O, "whether key is excluded"},
    {"_dispatch_has_kernel_for_dispatch_key", asPyCFunction(hasKernelForDispatchKey), METH_FASTCALL,
     "_dispatch_has_kernel_for_dispatch_key(name, key): a kernel is registered at key itself"},
    {"_dispatch_has_computed_kernel_for_dispatch_key", asPyCFunction(hasComputedKernelForDispatchKey), METH_FASTCALL,
     "_dispatch_has_computed_kernel_for_dispatch_key(name, key): the dispatch table has a kernel for the runtime key"},
    {"_dispatch_has_kernel_for_any_dispatch_key", asPyCFunction(hasKernelForAnyDispatchKey), METH_FASTCALL,
     "_dispatch_has_kernel_for_any_dispatch_key(name, keyset): a kernel is registered at a key of the set"},
    {"_dispatch_kernel_for_dispatch_key_is_fallthrough", asPyCFunction(kernelIsFallthrough), METH_FASTCALL,
     "_dispatch_kernel_for_dispatch_key_is_fallthrough(name, key): a call reaching key skips it"},
    {"_dispatch_dump", dispatchDump, METH_O, "_dispatch_dump(name): the operator's registrations per key, with their sites"},
    {"_dispatch_dump_table", dispatchDumpTable, METH_O, "_dispatch_dump_table(name): its computed dispatch table"},
    {"_dispatch_check_invariants", dispatchCheckInvariants, METH_O, "_dispatch_check_invariants(name)"},
    {"_dispatch_get_all_op_names", allOpNames, METH_NOARGS, "every defined operator, sorted"},
    {"_dispatch_find_dangling_impls", danglingImpls, METH_NOARGS, "operators with kernels but no definition"},
    {"_excluded_reason", excludedReason, METH_O, "_excluded_reason(name): why this build left the operator out, or ''"},
    {"_dispatch_set_trace", setTrace, METH_O, "_dispatch_set_trace(on): print every dispatcher call (as OPCORE_SHOW_DISPATCH_TRACE=1)"},
    {"_dispatch_trace_enabled", traceEnabled, METH_NOARGS, "whether calls print a dispatch trace"},
    {"_load_library", loadLibrary, METH_O, "_load_library(path): see opcore.ops.load_library"},
    {nullptr, nullptr, 0, nullptr}};

// An enum.Enum called `name` in opcore._C, from (member, value) pairs.
PyObject* makeEnum(const char* name, PyObject* members, PyObject* module, bool int_values) {
  PyObjectPtr enum_module(PyImport_ImportModule("enum"));
  if (!enum_module) return nullptr;
  PyObjectPtr enum_type(PyObject_GetAttrString(enum_module.get(), "Enum"));
  if (!enum_type) return nullptr;
  PyObjectPtr args(Py_BuildValue("(sO)", name, members));
  // type=int: members are ints (C++ reads them as such) but print as DispatchKey.CPU.
  PyObjectPtr kwargs(int_values ? Py_BuildValue("{sssO}", "module", "opcore._C", "type", &PyLong_Type)
                                : Py_BuildValue("{ss}", "module", "opcore._C"));
  if (!args || !kwargs) return nullptr;
  PyObject* type = PyObject_Call(enum_type.get(), args.get(), kwargs.get());
  if (!type || PyModule_AddObjectRef(module, name, type) < 0) {
    Py_XDECREF(type);
    return nullptr;
  }
  return type;
}

}  // namespace

bool initDispatch(PyObject* module, std::span<const TagInfo> tags) {
  PyObjectPtr key_members(PyList_New(0));
  if (!key_members) return false;
  forEachKey([&](DispatchKey k) {
    PyObjectPtr item(Py_BuildValue("(si)", toString(k), static_cast<int>(k)));
    if (item) PyList_Append(key_members.get(), item.get());
  });
  dispatch_key_type = makeEnum("DispatchKey", key_members.get(), module, true);
  if (!dispatch_key_type) return false;

  PyObjectPtr tag_members(PyList_New(0));
  if (!tag_members) return false;
  for (const TagInfo& t : tags) {
    PyObjectPtr item(Py_BuildValue("(ss)", t.name, t.name));
    if (item) PyList_Append(tag_members.get(), item.get());
  }
  PyObjectPtr tag_type(makeEnum("Tag", tag_members.get(), module, false));
  if (!tag_type) return false;
  std::string doc = "The tags of tags.yaml, as OpOverload.tags gives them:\n";
  for (const TagInfo& t : tags) doc += std::string("\n") + t.name + ": " + t.desc;
  PyObjectPtr doc_text(PyUnicode_FromString(doc.c_str()));
  if (!doc_text || PyObject_SetAttrString(tag_type.get(), "__doc__", doc_text.get()) < 0) return false;

  PyDispatchKeySetType.tp_basicsize = sizeof(PyDispatchKeySet);
  PyDispatchKeySetType.tp_flags = Py_TPFLAGS_DEFAULT;
  PyDispatchKeySetType.tp_doc = "DispatchKeySet(key_or_keys=None): a set of dispatch keys, as a call computes it";
  PyDispatchKeySetType.tp_new = keySetNew;
  PyDispatchKeySetType.tp_repr = keySetRepr;
  PyDispatchKeySetType.tp_methods = keyset_methods;
  PyDispatchKeySetType.tp_as_number = &keyset_as_number;
  PyDispatchKeySetType.tp_richcompare = keySetRichCompare;
  PyDispatchKeySetType.tp_hash = keySetHash;
  if (PyType_Ready(&PyDispatchKeySetType) < 0) return false;
  if (PyModule_AddObjectRef(module, "DispatchKeySet", reinterpret_cast<PyObject*>(&PyDispatchKeySetType)) < 0) return false;
  return PyModule_AddFunctions(module, dispatch_functions) == 0;
}

}  // namespace opcore::python

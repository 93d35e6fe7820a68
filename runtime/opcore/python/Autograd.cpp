// Autograd from Python: grad_fn nodes as Python objects, Python hooks, grad modes, the engine's
// backward() and grad(), and the node behind opcore.autograd.Function (forward and backward
// written in Python; python/opcore/autograd/function.py).
#include <opcore/python/Module.h>

#include <opcore/autograd/Engine.h>
#include <opcore/autograd/GradMode.h>
#include <opcore/autograd/Node.h>
#include <opcore/autograd/SavedVariable.h>
#include <opcore/autograd/Variable.h>
#include <opcore/core/Error.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace opcore::python {
namespace {

// A strong reference to a Python object owned by C++ code that may drop it without the GIL.
class PyRef {
 public:
  explicit PyRef(PyObject* obj) : obj_(Py_NewRef(obj)) {}
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  ~PyRef() {
    if (!Py_IsInitialized()) return;  // at exit, the interpreter is gone: nothing to release
    GilAcquire gil;
    Py_DECREF(obj_);
  }
  PyObject* get() const { return obj_; }

 private:
  PyObject* obj_;
};

// --- grad_fn: opcore._C._Node --------------------------------------------------------------

struct PyNode {
  PyObject_HEAD
  std::shared_ptr<autograd::Node> node;
};
PyTypeObject NodeType = {PyVarObject_HEAD_INIT(nullptr, 0) "opcore._C._Node"};

void nodeDealloc(PyObject* self) {
  reinterpret_cast<PyNode*>(self)->node.~shared_ptr();
  Py_TYPE(self)->tp_free(self);
}
PyObject* nodeName(PyObject* self, PyObject*) {
  return PyUnicode_FromString(reinterpret_cast<PyNode*>(self)->node->name().c_str());
}
PyObject* nodeRepr(PyObject* self) {
  return PyUnicode_FromFormat("<%s object at %p>", reinterpret_cast<PyNode*>(self)->node->name().c_str(),
                              static_cast<void*>(reinterpret_cast<PyNode*>(self)->node.get()));
}
// ((node or None, input_nr), ...), one per input of the forward operation.
PyObject* nodeNextFunctions(PyObject* self, void*) {
  OPCORE_PY_BEGIN
  const autograd::edge_list& edges = reinterpret_cast<PyNode*>(self)->node->nextEdges();
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(edges.size()));
  if (!tuple) return nullptr;
  for (size_t i = 0; i < edges.size(); ++i) {
    PyObject* fn = wrapNode(edges[i].function);
    PyObject* pair = Py_BuildValue("(NI)", fn, edges[i].input_nr);
    if (!pair) {
      Py_DECREF(tuple);
      return nullptr;
    }
    PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), pair);
  }
  return tuple;
  OPCORE_PY_END
}
// AccumulateGrad.variable: the leaf the node accumulates into.
PyObject* nodeVariable(PyObject* self, void*) {
  OPCORE_PY_BEGIN
  const auto* accumulate = dynamic_cast<const autograd::AccumulateGrad*>(reinterpret_cast<PyNode*>(self)->node.get());
  if (!accumulate) {
    PyErr_SetString(PyExc_AttributeError, "only AccumulateGrad nodes have a variable");
    return nullptr;
  }
  return wrap(Tensor(accumulate->variable()));
  OPCORE_PY_END
}
PyObject* nodeRichCompare(PyObject* a, PyObject* b, int op) {
  if (!PyObject_TypeCheck(b, &NodeType) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  const bool eq = reinterpret_cast<PyNode*>(a)->node == reinterpret_cast<PyNode*>(b)->node;
  return PyBool_FromLong(eq == (op == Py_EQ));
}
Py_hash_t nodeHash(PyObject* self) { return _Py_HashPointer(reinterpret_cast<PyNode*>(self)->node.get()); }

PyMethodDef node_methods[] = {{"name", nodeName, METH_NOARGS, "name(): the node's class, e.g. 'MulBackward0'"},
                              {nullptr, nullptr, 0, nullptr}};
PyGetSetDef node_getset[] = {
    {"next_functions", nodeNextFunctions, nullptr, "the nodes the gradients flow to next, with their input numbers", nullptr},
    {"variable", nodeVariable, nullptr, "AccumulateGrad only: the leaf it accumulates into", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// --- hooks: register_hook and its handle -----------------------------------------------------

struct PyHookHandle {
  PyObject_HEAD
  TensorBase tensor;
  unsigned id;
  bool removed;
};
PyTypeObject HookHandleType = {PyVarObject_HEAD_INIT(nullptr, 0) "opcore._C._RemovableHandle"};

void handleDealloc(PyObject* self) {
  reinterpret_cast<PyHookHandle*>(self)->tensor.~TensorBase();
  Py_TYPE(self)->tp_free(self);
}
PyObject* handleRemove(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  auto* h = reinterpret_cast<PyHookHandle*>(self);
  if (!h->removed) h->tensor.remove_hook(h->id);
  h->removed = true;
  Py_RETURN_NONE;
  OPCORE_PY_END
}
PyMethodDef handle_methods[] = {{"remove", handleRemove, METH_NOARGS, "remove(): the hook is no longer called"},
                                {nullptr, nullptr, 0, nullptr}};

// --- grad modes ---------------------------------------------------------------------------------

PyObject* isGradEnabled(PyObject*, PyObject*) { return PyBool_FromLong(autograd::GradMode::is_enabled()); }
PyObject* setGradEnabled(PyObject*, PyObject* arg) {
  if (!PyBool_Check(arg)) {
    PyErr_Format(PyExc_TypeError, "set_grad_enabled(): mode must be a bool, not %s", Py_TYPE(arg)->tp_name);
    return nullptr;
  }
  autograd::GradMode::set_enabled(arg == Py_True);
  Py_RETURN_NONE;
}
PyObject* isInferenceModeEnabled(PyObject*, PyObject*) { return PyBool_FromLong(autograd::InferenceMode::is_enabled()); }

// _C._InferenceMode(): a guard object; __enter__ and __exit__ open and close an
// InferenceMode scope (python/opcore/autograd/grad_mode.py builds the context manager on it).
struct PyInferenceMode {
  PyObject_HEAD
  std::optional<autograd::InferenceMode> guard;
};
PyTypeObject InferenceModeType = {PyVarObject_HEAD_INIT(nullptr, 0) "opcore._C._InferenceMode"};
PyObject* inferenceModeNew(PyTypeObject* type, PyObject*, PyObject*) {
  PyObject* self = type->tp_alloc(type, 0);
  if (self) new (&reinterpret_cast<PyInferenceMode*>(self)->guard) std::optional<autograd::InferenceMode>();
  return self;
}
void inferenceModeDealloc(PyObject* self) {
  reinterpret_cast<PyInferenceMode*>(self)->guard.~optional();
  Py_TYPE(self)->tp_free(self);
}
PyObject* inferenceModeEnter(PyObject* self, PyObject*) {
  auto& guard = reinterpret_cast<PyInferenceMode*>(self)->guard;
  if (guard) {
    PyErr_SetString(PyExc_RuntimeError, "inference_mode: this guard is already entered");
    return nullptr;
  }
  guard.emplace();
  Py_RETURN_NONE;
}
PyObject* inferenceModeExit(PyObject* self, PyObject*) {
  reinterpret_cast<PyInferenceMode*>(self)->guard.reset();
  Py_RETURN_NONE;
}
PyMethodDef inference_mode_methods[] = {{"__enter__", inferenceModeEnter, METH_NOARGS, nullptr},
                                        {"__exit__", inferenceModeExit, METH_VARARGS, nullptr},
                                        {nullptr, nullptr, 0, nullptr}};

// --- the engine ---------------------------------------------------------------------------------

std::optional<bool> optionalBool(PyObject* obj, const char* what) {
  if (obj == Py_None) return std::nullopt;
  if (!PyBool_Check(obj)) throw TypeError(std::string(what) + " must be a bool or None");
  return obj == Py_True;
}

// _C._backward(tensors, grad_tensors, retain_graph, create_graph, inputs)
PyObject* runBackward(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  PyObject *tensors, *grads, *retain, *inputs;
  int create_graph;
  if (!PyArg_ParseTuple(args, "OOOpO", &tensors, &grads, &retain, &create_graph, &inputs)) return nullptr;
  const std::vector<Tensor> ts = tensorSequence(tensors, "backward(): tensors");
  const std::vector<Tensor> gs = tensorSequence(grads, "backward(): grad_tensors", /*none_as_undefined=*/true);
  const std::vector<Tensor> in = inputs == Py_None ? std::vector<Tensor>() : tensorSequence(inputs, "backward(): inputs");
  const std::optional<bool> retain_graph = optionalBool(retain, "backward(): retain_graph");
  callWithoutGil([&] { autograd::backward(ts, gs, retain_graph, create_graph != 0, in); });
  Py_RETURN_NONE;
  OPCORE_PY_END
}

// _C._grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused) -> tuple
PyObject* runGrad(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  PyObject *outputs, *inputs, *grads, *retain;
  int create_graph, allow_unused;
  if (!PyArg_ParseTuple(args, "OOOOpp", &outputs, &inputs, &grads, &retain, &create_graph, &allow_unused)) return nullptr;
  const std::vector<Tensor> outs = tensorSequence(outputs, "grad(): outputs");
  const std::vector<Tensor> ins = tensorSequence(inputs, "grad(): inputs");
  const std::vector<Tensor> gs = tensorSequence(grads, "grad(): grad_outputs", /*none_as_undefined=*/true);
  const std::optional<bool> retain_graph = optionalBool(retain, "grad(): retain_graph");
  const std::vector<Tensor> result = callWithoutGil(
      [&] { return autograd::grad(outs, ins, gs, retain_graph, create_graph != 0, allow_unused != 0); });
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(result.size()));
  if (!tuple) return nullptr;
  for (size_t i = 0; i < result.size(); ++i) PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), wrap(result[i]));
  return tuple;
  OPCORE_PY_END
}

// --- opcore.autograd.Function ----------------------------------------------------------------

// Note [Python Function nodes]
// Function.apply (python/opcore/autograd/function.py) runs forward() under no_grad, then hands
// the context, the inputs and the outputs to _C._function_apply, which makes this node the
// outputs' grad_fn, with one next edge per tensor input. The tensors the context saved become
// SavedVariables (an output is saved without its grad_fn, so no reference cycle), and the
// context's own list is dropped. backward() gets them as ctx.saved_tensors, set only while it
// runs. The node owns the context and the backward function (PyRef: released with the GIL
// from whatever thread drops the node). Concurrent backward() calls through one retained graph
// (Note [Concurrent backward] in autograd/Engine.h) run one node's apply() one at a time: the
// context is shared, and one call deleting saved_tensors while another's backward still reads
// it turned that call's AttributeError into "PythonError raised without a Python exception".
// The lock is taken before the GIL (calls reach apply() with the GIL released, and backward()
// releases it inside kernels), and is recursive for a backward() that reaches its own node.
class PyFunctionNode final : public autograd::Node {
 public:
  // Precondition: `cls` is a type and `backward` its backward function.
  PyFunctionNode(PyObject* cls, PyObject* backward, PyObject* ctx, std::vector<int> tensor_inputs, size_t num_inputs)
      : backward_(backward),
        ctx_(ctx),
        name_(std::string(reinterpret_cast<PyTypeObject*>(cls)->tp_name) + "Backward"),
        tensor_inputs_(std::move(tensor_inputs)),
        num_inputs_(num_inputs) {}

  std::string name() const override { return name_; }
  void releaseVariables() override {
    released_ = !saved_.empty();
    saved_.clear();
  }
  std::vector<autograd::SavedVariable> saved_;

  autograd::variable_list apply(autograd::variable_list&& grads) override {
    OPCORE_CHECK(!released_, name_, ": trying to backward through the graph a second time (or to read saved "
                 "tensors after they were freed); pass retain_graph=True to the first backward() to keep them");
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    GilAcquire gil;
    std::vector<Tensor> saved;
    for (const auto& v : saved_) saved.push_back(v.unpack(shared_from_this()));
    PyObject* saved_tuple = wrapTensors(saved);
    if (PyObject_SetAttrString(ctx_.get(), "saved_tensors", saved_tuple) < 0) {
      Py_DECREF(saved_tuple);
      throw PythonError();
    }
    Py_DECREF(saved_tuple);
    PyObject* args = PyTuple_New(static_cast<Py_ssize_t>(grads.size() + 1));
    if (!args) throw PythonError();
    PyTuple_SET_ITEM(args, 0, Py_NewRef(ctx_.get()));
    for (size_t i = 0; i < grads.size(); ++i) PyTuple_SET_ITEM(args, static_cast<Py_ssize_t>(i + 1), wrap(grads[i]));
    PyObject* result = PyObject_Call(backward_.get(), args, nullptr);
    Py_DECREF(args);
    // Dropping saved_tensors must not clear the exception backward raised (if any).
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (PyObject_DelAttrString(ctx_.get(), "saved_tensors") < 0) PyErr_Clear();
    PyErr_Restore(type, value, traceback);
    if (!result) throw PythonError();
    return toInputGrads(result);
  }

 private:
  static PyObject* wrapTensors(const std::vector<Tensor>& ts) {
    PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(ts.size()));
    if (!tuple) throw PythonError();
    for (size_t i = 0; i < ts.size(); ++i) PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), wrap(ts[i]));
    return tuple;
  }

  // backward()'s result (a tuple with one entry per forward input, or a single value when
  // forward took one input) as the gradients of the tensor inputs, in edge order. Steals `result`.
  autograd::variable_list toInputGrads(PyObject* result) {
    if (!PyTuple_Check(result)) {
      PyObject* tuple = PyTuple_Pack(1, result);
      Py_DECREF(result);
      if (!tuple) throw PythonError();
      result = tuple;
    }
    // As in torch: a wrong count, or a gradient for an input that is not a tensor, is a
    // RuntimeError; a gradient that is not a tensor is a TypeError.
    const Py_ssize_t n = PyTuple_GET_SIZE(result);
    std::string error;
    bool type_error = false;
    if (static_cast<size_t>(n) != num_inputs_) {
      error = name_ + ": backward returned " + std::to_string(n) + " gradient" + (n == 1 ? "" : "s") + ", but forward took " +
              std::to_string(num_inputs_) + " input" + (num_inputs_ == 1 ? "" : "s");
    }
    autograd::variable_list grads;
    for (size_t k = 0; error.empty() && k < tensor_inputs_.size(); ++k) {
      PyObject* g = PyTuple_GET_ITEM(result, tensor_inputs_[k]);
      if (g != Py_None && !isTensor(g)) {
        error = name_ + ": backward returned " + typeName(g) + " as the gradient of input " +
                std::to_string(tensor_inputs_[k]) + " (expected a Tensor or None)";
        type_error = true;
        break;
      }
      grads.push_back(g == Py_None ? Tensor() : unpackTensor(g));
    }
    for (Py_ssize_t i = 0; error.empty() && i < n; ++i) {
      const bool is_tensor_input = std::find(tensor_inputs_.begin(), tensor_inputs_.end(), i) != tensor_inputs_.end();
      if (!is_tensor_input && PyTuple_GET_ITEM(result, i) != Py_None) {
        error = name_ + ": backward returned a gradient for input " + std::to_string(i) + ", which is not a Tensor (expected None)";
      }
    }
    Py_DECREF(result);
    if (type_error) throw TypeError(error);
    OPCORE_CHECK(error.empty(), error);
    return grads;
  }

  PyRef backward_;
  PyRef ctx_;
  std::string name_;
  std::vector<int> tensor_inputs_;  // the positions of the forward inputs that are tensors
  size_t num_inputs_;
  bool released_ = false;  // saved tensors were freed by a backward without retain_graph
  std::recursive_mutex mutex_;  // one apply() at a time (Note [Python Function nodes])
};

// _C._function_apply(cls, ctx, inputs: tuple, outputs) -> outputs (an input returned as an
// output is replaced by an alias, so that the input keeps its own history).
PyObject* functionApply(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  PyObject *cls, *ctx, *inputs, *outputs;
  if (!PyArg_ParseTuple(args, "O!OO!O", &PyType_Type, &cls, &ctx, &PyTuple_Type, &inputs, &outputs)) return nullptr;
  const bool single = isTensor(outputs);
  if (!single && !PyTuple_Check(outputs)) {
    throw TypeError(std::string(reinterpret_cast<PyTypeObject*>(cls)->tp_name) +
                    ".forward must return a Tensor or a tuple of Tensors, not " + typeName(outputs));
  }
  std::vector<int> tensor_inputs;
  std::vector<Tensor> input_tensors;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(inputs); ++i) {
    PyObject* item = PyTuple_GET_ITEM(inputs, i);
    if (isTensor(item)) {
      tensor_inputs.push_back(static_cast<int>(i));
      input_tensors.push_back(unpackTensor(item));
    }
  }
  bool requires_grad = false;
  for (const Tensor& t : input_tensors) requires_grad = requires_grad || t.requires_grad();
  requires_grad = requires_grad && autograd::GradMode::is_enabled();

  const PyObjectPtr owned(single ? PyTuple_Pack(1, outputs) : PyTuple_New(PyTuple_GET_SIZE(outputs)));
  if (!owned) return nullptr;
  PyObject* result = owned.get();
  std::shared_ptr<PyFunctionNode> node;
  if (requires_grad) {
    PyObject* backward = PyObject_GetAttrString(cls, "backward");
    if (!backward) return nullptr;
    node = std::make_shared<PyFunctionNode>(cls, backward, ctx, tensor_inputs, static_cast<size_t>(PyTuple_GET_SIZE(inputs)));
    Py_DECREF(backward);  // the node holds its own reference
    autograd::edge_list edges;
    for (const Tensor& t : input_tensors) edges.push_back(autograd::gradientEdge(t));
    node->setNextEdges(std::move(edges));
  }
  std::vector<Tensor> output_tensors;
  const Py_ssize_t num_outputs = PyTuple_GET_SIZE(single ? result : outputs);
  for (Py_ssize_t i = 0; i < num_outputs; ++i) {
    PyObject* out = single ? outputs : PyTuple_GET_ITEM(outputs, i);
    if (!isTensor(out)) {
      if (!single) PyTuple_SET_ITEM(result, i, Py_NewRef(out));
      continue;
    }
    Tensor t = unpackTensor(out);
    for (const Tensor& in : input_tensors) {
      if (in.is_same(t)) t = autograd::shallowAlias(t);
    }
    if (node) autograd::setHistory(t, node);
    output_tensors.push_back(t);
    PyObject* wrapped = t.is_same(unpackTensor(out)) ? Py_NewRef(out) : wrap(t);
    if (single) {
      Py_SETREF(PyTuple_GET_ITEM(result, 0), wrapped);
    } else {
      PyTuple_SET_ITEM(result, i, wrapped);
    }
  }
  // The tensors ctx.save_for_backward() recorded (Note [Python Function nodes]).
  PyObject* to_save = PyObject_GetAttrString(ctx, "to_save");
  if (!to_save) {
    PyErr_Clear();
  } else {
    std::vector<Tensor> saved = tensorSequence(to_save, "save_for_backward()", /*none_as_undefined=*/true);
    Py_DECREF(to_save);
    if (PyObject_DelAttrString(ctx, "to_save") < 0) PyErr_Clear();
    if (node) {
      for (const Tensor& s : saved) {
        bool is_output = false;
        for (const Tensor& o : output_tensors) is_output = is_output || (s.defined() && o.is_same(s));
        node->saved_.emplace_back(s, is_output);
      }
    } else {
      PyObject* tuple = PyTuple_New(0);  // no graph: backward cannot run; keep the API uniform
      if (tuple) {
        if (PyObject_SetAttrString(ctx, "saved_tensors", tuple) < 0) PyErr_Clear();
        Py_DECREF(tuple);
      }
    }
  }
  if (single) return Py_NewRef(PyTuple_GET_ITEM(result, 0));
  return Py_NewRef(result);
  OPCORE_PY_END
}

PyMethodDef autograd_functions[] = {
    {"is_grad_enabled", isGradEnabled, METH_NOARGS, "is_grad_enabled(): whether operations record the graph"},
    {"_set_grad_enabled", setGradEnabled, METH_O, "_set_grad_enabled(mode)"},
    {"is_inference_mode_enabled", isInferenceModeEnabled, METH_NOARGS, "is_inference_mode_enabled()"},
    {"_backward", runBackward, METH_VARARGS, "_backward(tensors, grad_tensors, retain_graph, create_graph, inputs)"},
    {"_grad", runGrad, METH_VARARGS, "_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)"},
    {"_function_apply", functionApply, METH_VARARGS, "_function_apply(cls, ctx, inputs, outputs)"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

std::vector<Tensor> tensorSequence(PyObject* obj, const char* what, bool none_as_undefined) {
  if (none_as_undefined && obj == Py_None) return {};
  if (isTensor(obj)) return {unpackTensor(obj)};
  if (!PyTuple_Check(obj) && !PyList_Check(obj)) {
    throw TypeError(std::string(what) + " must be a Tensor or a sequence of Tensors, not " + typeName(obj));
  }
  std::vector<Tensor> result;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(obj); ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(obj, i);
    if (none_as_undefined && item == Py_None) {
      result.emplace_back();
    } else if (isTensor(item)) {
      result.push_back(unpackTensor(item));
    } else {
      throw TypeError(std::string(what) + ": element " + std::to_string(i) + " is " + typeName(item) + ", not a Tensor");
    }
  }
  return result;
}

PyObject* wrapNode(std::shared_ptr<autograd::Node> node) {
  if (!node) Py_RETURN_NONE;
  PyObject* obj = NodeType.tp_alloc(&NodeType, 0);
  if (!obj) throw PythonError();
  new (&reinterpret_cast<PyNode*>(obj)->node) std::shared_ptr<autograd::Node>(std::move(node));
  return obj;
}

PyObject* registerHook(PyObject* self, PyObject* hook) {
  OPCORE_PY_BEGIN
  if (!PyCallable_Check(hook)) throw TypeError("register_hook(): hook must be callable, not " + typeName(hook));
  const Tensor& t = unpackTensor(self);
  auto fn = std::make_shared<PyRef>(hook);
  const unsigned id = t.register_hook([fn](const Tensor& grad) -> Tensor {
    GilAcquire gil;
    PyObject* arg = wrap(grad);
    PyObject* result = PyObject_CallOneArg(fn->get(), arg);
    Py_DECREF(arg);
    if (!result) throw PythonError();
    if (result == Py_None) {
      Py_DECREF(result);
      return Tensor();
    }
    if (!isTensor(result)) {
      const std::string type = typeName(result);
      Py_DECREF(result);
      throw TypeError("a hook returned " + type + " (expected a Tensor or None)");
    }
    Tensor replaced = unpackTensor(result);
    Py_DECREF(result);
    return replaced;
  });
  PyHookHandle* handle = PyObject_New(PyHookHandle, &HookHandleType);
  if (!handle) return nullptr;
  new (&handle->tensor) TensorBase(t);
  handle->id = id;
  handle->removed = false;
  return reinterpret_cast<PyObject*>(handle);
  OPCORE_PY_END
}

bool initAutograd(PyObject* module) {
  NodeType.tp_basicsize = sizeof(PyNode);
  NodeType.tp_flags = Py_TPFLAGS_DEFAULT;
  NodeType.tp_dealloc = nodeDealloc;
  NodeType.tp_repr = nodeRepr;
  NodeType.tp_methods = node_methods;
  NodeType.tp_getset = node_getset;
  NodeType.tp_richcompare = nodeRichCompare;
  NodeType.tp_hash = nodeHash;
  HookHandleType.tp_basicsize = sizeof(PyHookHandle);
  HookHandleType.tp_flags = Py_TPFLAGS_DEFAULT;
  HookHandleType.tp_dealloc = handleDealloc;
  HookHandleType.tp_methods = handle_methods;
  InferenceModeType.tp_basicsize = sizeof(PyInferenceMode);
  InferenceModeType.tp_flags = Py_TPFLAGS_DEFAULT;
  InferenceModeType.tp_new = inferenceModeNew;
  InferenceModeType.tp_dealloc = inferenceModeDealloc;
  InferenceModeType.tp_methods = inference_mode_methods;
  for (PyTypeObject* type : {&NodeType, &HookHandleType, &InferenceModeType}) {
    if (PyType_Ready(type) < 0) return false;
  }
  if (PyModule_AddObjectRef(module, "_Node", reinterpret_cast<PyObject*>(&NodeType)) < 0 ||
      PyModule_AddObjectRef(module, "_InferenceMode", reinterpret_cast<PyObject*>(&InferenceModeType)) < 0) {
    return false;
  }
  return PyModule_AddFunctions(module, autograd_functions) == 0;
}

}  // namespace opcore::python

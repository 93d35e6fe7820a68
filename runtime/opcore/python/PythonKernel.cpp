// Python functions as dispatcher kernels (opcore._C._Library registers them, Library.cpp). A
// Python kernel is a boxed kernel: it takes the GIL, hands the arguments to the function as
// Python objects (IValueConversion.cpp) and pushes what it returns as the schema's returns.
//
// Note [Boxed calls from and to Python]
// Arguments go to Python as PyTorch passes them to Python kernels: those before `*` by
// position, keyword-only ones by name. Returns come back through a PythonArgParser built from
// the schema's return types (one parameter per return), so that a Python kernel's results are
// checked and converted exactly as the arguments of a call from Python are: a Tensor return
// takes a Tensor, an int return an int, and anything else is a TypeError naming the kernel.
// An exception the function raises travels through the C++ frames as a PythonError and is
// raised again, unchanged, where the call entered from Python.
#include <opcore/python/Module.h>

#include <opcore/dispatch/Dispatcher.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

namespace opcore::python {

namespace {

// A reference owned by C++ code that may drop it without the GIL (a kernel is deregistered
// from any thread), or after the interpreter has gone (static destruction at exit).
struct GilSafeRef {
  PyObject* obj;
  explicit GilSafeRef(PyObject* o) : obj(Py_NewRef(o)) {}
  GilSafeRef(GilSafeRef&& o) noexcept : obj(std::exchange(o.obj, nullptr)) {}
  GilSafeRef(const GilSafeRef&) = delete;
  ~GilSafeRef() {
    if (!obj || !Py_IsInitialized()) return;
    GilAcquire gil;
    Py_DECREF(obj);
  }
};

// The schema's returns as the parameters of a parser: "returns(Tensor r0, int r1) -> ()".
std::string returnsSchema(const FunctionSchema& schema) {
  std::string text = "returns(";
  for (size_t i = 0; i < schema.returns().size(); ++i) {
    SchemaType type = schema.returns()[i].type;
    type.alias.reset();
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
  for (size_t i = 0; i < n; ++i) stack.push_back(r.toIValue(static_cast<int>(i)));
}

// A Python function as a boxed kernel. Before the operator's arguments it may pass the
// operator's name and overload (fallbacks, which serve every operator) and the call's key set
// (with_keyset=True, for kernels that redispatch).
class PythonKernel {
 public:
  PythonKernel(PyObject* fn, bool with_op_name, bool with_keyset)
      : state_(std::make_shared<State>(fn, with_op_name, with_keyset)) {}

  void operator()(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) const {
    GilAcquire gil;
    // The function may remove this very kernel (destroy its Library): the call keeps what it
    // uses alive until it returns.
    const std::shared_ptr<State> state = state_;
    const FunctionSchema& schema = op.schema();
    const size_t num_args = schema.arguments().size();
    const size_t first = stack->size() - num_args;
    PyObjectPtr args(PyList_New(0));
    PyObjectPtr kwargs(PyDict_New());
    if (!args || !kwargs) throw PythonError();
    auto append = [&](PyObject* item) {  // steals item
      PyObjectPtr owned(item);
      if (!owned || PyList_Append(args.get(), owned.get()) < 0) throw PythonError();
    };
    if (state->with_op_name) {
      append(PyUnicode_FromString(op.operatorName().name.c_str()));
      append(PyUnicode_FromString(op.operatorName().overload_name.c_str()));
    }
    if (state->with_keyset) append(wrap(ks));
    for (size_t i = 0; i < num_args; ++i) {
      const Argument& a = schema.arguments()[i];
      if (!a.kwarg_only) {
        append(fromIValue((*stack)[first + i]));
        continue;
      }
      PyObjectPtr value(fromIValue((*stack)[first + i]));
      if (PyDict_SetItemString(kwargs.get(), a.name.c_str(), value.get()) < 0) throw PythonError();
    }
    PyObjectPtr arg_tuple(PyList_AsTuple(args.get()));
    if (!arg_tuple) throw PythonError();
    PyObjectPtr result(PyObject_Call(state->fn.obj, arg_tuple.get(), kwargs.get()));
    if (!result) throw PythonError();
    stack->erase(stack->begin() + static_cast<std::ptrdiff_t>(first), stack->end());
    pushReturns(op, state->returnsParser(op), result.get(), *stack);
  }

 private:
  struct ReturnsParser {
    const void* version = nullptr;
    std::unique_ptr<PythonArgParser> parser;
  };
  struct State {
    State(PyObject* f, bool op_name, bool keyset) : fn(f), with_op_name(op_name), with_keyset(keyset) {}
    ~State() {
      // The last owner may be any thread (deregistration); the parsers hold Python objects.
      if (returns.empty() || !Py_IsInitialized()) return;
      GilAcquire gil;
      returns.clear();
    }
    // The parser of `op`'s returns, made on its first call and again after a registration
    // changed the operator (its schema may have). Precondition: the GIL is held, which
    // serialises access to the map.
    const PythonArgParser& returnsParser(const OperatorHandle& op) {
      ReturnsParser& known = returns[&op.operatorName()];  // entries live for the process
      if (!known.parser || known.version != op.tableVersion()) {
        const std::vector<std::string> schemas{returnsSchema(op.schema())};
        const std::string where = "the Python kernel of " + op.operatorName().str();
        known.parser = std::make_unique<PythonArgParser>(where.c_str(), /*method=*/false, schemas);
        known.version = op.tableVersion();
      }
      return *known.parser;
    }

    GilSafeRef fn;
    bool with_op_name;
    bool with_keyset;
    std::unordered_map<const OperatorName*, ReturnsParser> returns;
  };
  std::shared_ptr<State> state_;
};

}  // namespace

KernelFunction pythonKernel(PyObject* fn, bool with_op_name, bool with_keyset) {
  if (fn == Py_None) return KernelFunction::makeFallthrough();
  if (!PyCallable_Check(fn)) throw TypeError("a kernel must be callable, not " + typeName(fn));
  return KernelFunction::makeFromBoxedFunctor(PythonKernel(fn, with_op_name, with_keyset));
}

}  // namespace opcore::python

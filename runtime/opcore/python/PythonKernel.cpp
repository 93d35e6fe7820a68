// Python functions as dispatcher kernels (opcore._C._Library registers them, Library.cpp). A
// Python kernel is a boxed kernel: it takes the GIL, hands the arguments to the function as
// Python objects and pushes what it returns as the schema's returns (IValueConversion.cpp,
// Note [Boxed calls from and to Python]).
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

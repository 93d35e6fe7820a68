// One overload-resolution routine for every generated binding (the role of torch's
// PythonArgParser). A binding lists its overloads' schemas; parse() matches the Python call
// against them in order and returns the first that fits, with each argument's Python object
// (or its default); the accessors convert them to the dispatcher's C++ types, one per schema
// type, all spelled toX / toOptionalX (Note [Python accessors] in gen/api/python.py).
//
//   static const PythonArgParser parser("add", /*method=*/false, {
//       "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", ...});
//   PythonArgs r = parser.parse(nullptr, args, nargs, kwnames);
//   switch (r.index()) { case 0: return wrap(opcore::add(r.toTensor(0), r.toTensor(1), r.toScalar(2))); ... }
//
// Note [Python argument matching]
// As in torch: positional arguments fill the parameters in order, keywords by name (a
// function's `self` is called `input`; a method's `self` is the object it is called on). A
// parameter after `*` is keyword-only. Every parameter without a default must be given.
// Types: Tensor takes an opcore.Tensor; Scalar takes Python ints, floats, complex numbers and
// bools and zero-dim tensors that do not require grad, float the same but complex numbers;
// int takes ints (not bools) and objects with __index__; int[] takes a sequence of ints, and
// int[N] a single int too; Tensor[N] takes a tuple or list of N tensors (an out= tuple); when
// the only positional parameter is an int list, the positional arguments may be its elements
// (`opcore.zeros(2, 3)`, `t.view(2, 3)`); T? takes None too. A call matching no overload
// raises TypeError listing every signature (or, with one overload, saying which argument did
// not fit).
#pragma once

#include <Python.h>

#include <opcore/Tensor.h>
#include <opcore/core/Generator.h>
#include <opcore/core/IValue.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opcore::python {

enum class ParamKind : uint8_t {
  Tensor, Scalar, Int, DeviceIndex, Double, Bool, String, ScalarType, Device, Layout, MemoryFormat,
  Generator, TensorList, OptionalTensorList, IntList, DoubleList, BoolList,
};

struct Param {
  std::string name;             // the Python name (`input` for a function's `self`)
  std::string type_name;        // as shown in errors: "Tensor", "int[]", "Scalar?"
  ParamKind kind;
  bool optional = false;        // accepts None
  bool kwarg_only = false;
  int64_t list_size = 0;        // N of int[N] (a single int is accepted) or Tensor[N], else 0
  PyObject* default_value = nullptr;  // owned (never freed: parsers are static); null: required
  PyObject* interned_name = nullptr;  // for matching keywords by pointer first
};

class PythonArgParser;

// The result of a successful parse: which overload, and its arguments in schema order.
class PythonArgs {
 public:
  static constexpr int kMaxArgs = 32;
  int index() const { return index_; }
  // The Python object of argument i (its default when not given); borrowed.
  PyObject* object(int i) const { return values_[i]; }

  Tensor& toTensor(int i) const;
  std::optional<Tensor> toOptionalTensor(int i) const;
  std::vector<Tensor> toTensorList(int i) const;
  std::vector<std::optional<Tensor>> toOptionalTensorList(int i) const;
  Scalar toScalar(int i) const;
  std::optional<Scalar> toOptionalScalar(int i) const;
  int64_t toInt64(int i) const;
  std::optional<int64_t> toOptionalInt64(int i) const;
  DeviceIndex toDeviceIndex(int i) const;  // throws ValueError outside int8_t's range
  std::optional<DeviceIndex> toOptionalDeviceIndex(int i) const;
  double toDouble(int i) const;
  std::optional<double> toOptionalDouble(int i) const;
  bool toBool(int i) const { return values_[i] == Py_True; }
  std::optional<bool> toOptionalBool(int i) const;
  std::string_view toStringView(int i) const;
  std::optional<std::string_view> toOptionalStringView(int i) const;
  std::vector<int64_t> toIntList(int i) const;
  // An int[]? or float[]? argument: converts to OptionalArrayRef<T> while it lives.
  template <typename T>
  struct OptionalList {
    std::optional<std::vector<T>> values;
    operator OptionalArrayRef<T>() const {  // NOLINT: implicit by design
      return values ? OptionalArrayRef<T>(*values) : OptionalArrayRef<T>();
    }
  };
  OptionalList<int64_t> toOptionalIntList(int i) const;
  std::vector<double> toDoubleList(int i) const;
  OptionalList<double> toOptionalDoubleList(int i) const;
  // bool[N] (output_mask): a list or tuple of bools, its length checked by the kernel's unboxing.
  std::vector<bool> toBoolList(int i) const;
  ScalarType toScalarType(int i) const;
  std::optional<ScalarType> toOptionalScalarType(int i) const;
  Device toDevice(int i) const;
  std::optional<Device> toOptionalDevice(int i) const;
  Layout toLayout(int i) const;
  std::optional<Layout> toOptionalLayout(int i) const;
  MemoryFormat toMemoryFormat(int i) const;
  std::optional<MemoryFormat> toOptionalMemoryFormat(int i) const;
  std::optional<Generator> toOptionalGenerator(int i) const;

  // Argument i as the boxed calling convention's value (the dispatcher's IValue).
  IValue toIValue(int i) const;

  // The Python objects of the given arguments (a tuple for several): what a binding returns
  // for mutable returns, so that `a.add_(b) is a`.
  PyObject* returnArguments(std::initializer_list<int> indices) const;
  // The items of the tensor-list argument i (an out= tuple, Note [Out tuples] in
  // gen/api/python.py) as a tuple, or as a named tuple given `named` (returnType()).
  PyObject* returnItems(int i, PyTypeObject* named = nullptr) const;

 private:
  friend class PythonArgParser;
  const Param& param(int i) const;
  const PythonArgParser* parser_ = nullptr;
  int index_ = -1;
  PyObject* values_[kMaxArgs];  // the first params().size() are set by a successful parse
  // Varargs int list (`zeros(2, 3)`): the parameter they fill, and the arguments.
  int varargs_param_ = -1;
  PyObject* const* varargs_ = nullptr;
  Py_ssize_t num_varargs_ = 0;
};

class PythonArgParser {
 public:
  // `name`: the Python name; `method`: the schemas' `self` is the object the method is
  // called on. Throws opcore::Error for a schema it cannot read (a generator bug).
  PythonArgParser(const char* name, bool method, std::initializer_list<const char*> schemas);
  // The same for schemas known at run time (operators registered from Python or a plugin).
  // With `schema_names`, parameters keep the schema's names, `self` too (as opcore.ops takes
  // them); otherwise a function's `self` is `input`, as in torch's functions.
  PythonArgParser(const char* name, bool method, const std::vector<std::string>& schemas, bool schema_names = false);
  PythonArgParser(const PythonArgParser&) = delete;
  PythonArgParser& operator=(const PythonArgParser&) = delete;
  ~PythonArgParser();
  // Raises (throws) TypeError when no overload matches.
  PythonArgs parse(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) const;

  struct Signature {
    std::string schema;          // "aten::add.Tensor(...) -> Tensor"
    std::vector<Param> params;   // in schema order
    int self_index = -1;         // the method's self, else -1
    int num_positional = 0;      // positional parameters, self excluded
    bool varargs_intlist = false;
    std::string text() const;    // "(Tensor input, Tensor other, *, Scalar alpha=1)"
  };
  const std::vector<Signature>& signatures() const { return signatures_; }

 private:
  // Fills `out` when `sig` accepts the call; else returns false and, when `why` is given,
  // says why.
  bool match(const Signature& sig, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
             PyObject* kwnames, PythonArgs& out, std::string* why) const;
  // Whether `sig` could take a call of `nargs` positional arguments and these keywords, whatever
  // their types: the signature whose error a failed call reports when it is the only one.
  static bool plausible(const Signature& sig, Py_ssize_t nargs, PyObject* kwnames);
  void addSignature(const char* text, bool method);

  std::string name_;
  bool method_;
  bool schema_names_ = false;
  std::vector<Signature> signatures_;
};

// Python values as C++ ones, shared with the hand-written bindings.
bool isScalar(PyObject* obj);      // what a Scalar parameter accepts (complex numbers too)
Scalar toScalar(PyObject* obj);    // precondition: isScalar(obj)
bool isInt(PyObject* obj);         // int, not bool; or an object with __index__ (not a float)
int64_t toInt64(PyObject* obj);    // a Python int; throws on overflow
int64_t indexToInt64(PyObject* obj);  // isInt(obj): an int or an object with __index__
// A dtype object or float/int/bool (float64/int64/bool); a device object, string or CUDA
// index. Both throw TypeError (ValueError for a bad device string) otherwise; a string given
// for a dtype is named with dtypeStringProblem's message.
ScalarType toScalarType(PyObject* obj);
// Why the string `text` is not a dtype (Types.cpp): "a dtype is an object such as
// opcore.float16, not the string 'float16'", or "unknown dtype 'flaot16'; did you mean 'float16'?".
std::string dtypeStringProblem(std::string_view text);
Device toDevice(PyObject* obj);
// The type name Python users know: "Tensor", "int", "str", "tuple of (int, str)".
std::string typeName(PyObject* obj);

}  // namespace opcore::python

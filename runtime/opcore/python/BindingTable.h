// The functions and Tensor methods the generated bindings (build/generated/python/) hand to
// opcore._C's init: each shard's addBindings_<i> appends its entries.
#pragma once

#include <Python.h>

#include <vector>

namespace opcore::python {

// One tag of tags.yaml (the generated kTags in PythonFunctions.h).
struct TagInfo {
  const char* name;
  const char* desc;
};

// A METH_FASTCALL or METH_KEYWORDS function as the PyCFunction a PyMethodDef holds (its flags
// tell Python how to call it).
template <typename Function>
PyCFunction asPyCFunction(Function* f) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f));
}

struct Binding {
  const char* module;  // "" for opcore (and for methods), else the python_module: "nn", "linalg", ...
  PyMethodDef def;
};

struct BindingTable {
  std::vector<Binding> functions;
  std::vector<Binding> methods;
};

}  // namespace opcore::python

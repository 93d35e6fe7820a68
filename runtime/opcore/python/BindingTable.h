// The functions and Tensor methods the generated bindings (build/generated/python/) hand to
// opcore._C's init: each shard's addBindings_<i> appends its entries.
#pragma once

#include <Python.h>

#include <vector>

namespace opcore::python {

struct Binding {
  const char* module;  // "" for opcore (and for methods), else the python_module: "nn", "linalg", ...
  PyMethodDef def;
};

struct BindingTable {
  std::vector<Binding> functions;
  std::vector<Binding> methods;
};

}  // namespace opcore::python

// A plugin shared library, as users would write one: it defines its own operators, adds a
// kernel to a built-in operator, and registers a fallback. PluginTest dlopen()s it, calls
// what it registered, dlclose()s it and checks that every registration is gone.
#include <opcore/Tensor.h>
#include <opcore/library/Library.h>

#include <memory>

namespace {

// A kernel with state whose destructor lives in this library: it must run at dlclose().
struct Multiplier {
  std::shared_ptr<int64_t> factor = std::make_shared<int64_t>(3);
  int64_t operator()(const opcore::TensorBase& t) const { return *factor * t.numel(); }
};

opcore::Tensor negOnPrivateUse1(const opcore::Tensor& self) { return self; }

void privateUse1Fallback(const opcore::OperatorHandle&, opcore::Stack*) {}

}  // namespace

OPCORE_LIBRARY(plugin_ops, m) {
  m.def("triple(Tensor self) -> int");
}

OPCORE_LIBRARY_IMPL(plugin_ops, CPU, m) {
  m.impl("triple", Multiplier{});
}

OPCORE_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("neg", OPCORE_FN(negOnPrivateUse1));
}

OPCORE_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(opcore::KernelFunction::makeFromBoxedFunction<&privateUse1Fallback>());
}

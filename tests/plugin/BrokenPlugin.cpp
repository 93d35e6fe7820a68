// A plugin whose second registration block fails (it defines an operator opcore already has).
// opcore.ops.load_library must raise naming that block, and leave nothing of the plugin
// registered: the first block's operator goes too (Note [Loading an operator library]).
#include <opcore/library/Library.h>

OPCORE_LIBRARY(broken_plugin_ops, m) {
  m.def("ok(Tensor self) -> Tensor");
}

OPCORE_LIBRARY_FRAGMENT(aten, m) {
  m.def("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
}

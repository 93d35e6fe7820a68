// The out-of-line parts of KernelFunction.
#include <opcore/dispatch/KernelFunction.h>

#include <opcore/core/Error.h>

namespace opcore::detail {

void fallthroughKernel(OperatorKernel*, const OperatorHandle&, DispatchKeySet ks, Stack*) {
  OPCORE_INTERNAL_ASSERT(false, "a fallthrough kernel was called (key set ", ks,
                         "): the dispatcher should have masked its key out");
}

}  // namespace opcore::detail

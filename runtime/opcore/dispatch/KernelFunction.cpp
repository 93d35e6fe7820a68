// The out-of-line parts of KernelFunction.
#include <opcore/dispatch/KernelFunction.h>

#include <opcore/core/Error.h>
#include <opcore/dispatch/Dispatcher.h>

#include <algorithm>

namespace opcore::detail {

void reportTooFewValuesForKernel(size_t stack_size, size_t num_args) {
  OPCORE_FAIL("boxed call with ", stack_size, " values on the stack; the kernel takes ", num_args, " arguments");
}

void ownBorrowedArguments(const OperatorHandle& op, Stack& stack) {
  const size_t num_args = op.hasSchema() ? op.schema().arguments().size() : stack.size();
  for (size_t i = stack.size() - std::min(num_args, stack.size()); i < stack.size(); ++i) stack[i].own();
}

void fallthroughKernel(OperatorKernel*, const OperatorHandle&, DispatchKeySet ks, Stack*) {
  OPCORE_INTERNAL_ASSERT(false, "a fallthrough kernel was called (key set ", ks,
                         "): the dispatcher should have masked its key out");
}

}  // namespace opcore::detail

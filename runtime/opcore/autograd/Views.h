// Views and in-place changes.
//
// Note [Views and in-place changes]
// A view (the output of an operator whose return aliases its input, `Tensor(a)`) records its
// base: the tensor it shares memory with, itself never a view (a view of a view records the
// first base). An in-place operation on a view changes the base too, so the base's graph must
// learn about it: rebaseHistory wraps the operation's node in a CopySlices node that becomes
// the base's grad_fn. CopySlices takes the gradient of the whole base, hands the view's part to
// the wrapped node and writes the result back into that part. The view's own grad_fn becomes
// a ViewOfBase node that carries its gradient into the base's graph. Other views of the same
// base notice the change through the version counter and regenerate their grad_fn the same
// way the next time it is read (grad_fn in Variable.h). This is PyTorch's scheme; gradients
// through CopySlices and ViewOfBase are first-order only (create_graph through them is not
// differentiable, as their backward writes into a view).
#pragma once

#include <opcore/autograd/Node.h>

namespace opcore::autograd {

// ADInplaceOrView for a view operator: makes `view` a view of `base` (or of base's base).
// Returns `view`.
Tensor asView(const Tensor& base, Tensor view);

// After an in-place operation on `self` whose node is `fn` (next edge 0 is `self`'s old
// gradient edge): `fn` becomes self's grad_fn, through CopySlices when self is a view.
void rebaseHistory(const Tensor& self, const std::shared_ptr<Node>& fn);

// A ViewOfBase node for view `t` (as of now), next edge the base's gradient edge; null when
// the base does not require grad.
std::shared_ptr<Node> makeViewOfBase(const TensorBase& t);

}  // namespace opcore::autograd

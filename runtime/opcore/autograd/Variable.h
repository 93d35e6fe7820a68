// The autograd state of a tensor (AutogradMeta, attached to its TensorImpl on first use) and
// the functions that read and change it. Tensor's autograd methods (requires_grad(), grad(),
// backward(), ...) are built on these.
//
// Note [Autograd keys on tensors]
// Every tensor's key set has ADInplaceOrView (version counting and view tracking, skipped
// by fallthrough for operators that are neither in-place nor views). The Autograd<Backend> key
// is added only when a tensor requires grad (a leaf with requires_grad_(), or an output with a
// grad_fn) and to views made in grad mode (their base may gain a gradient later): calls on
// tensors that need no gradient never enter the autograd layer, and a call with at least one
// such tensor does, whatever the other arguments are. PyTorch puts the
// autograd key on every tensor and decides inside the kernel; the results are the same.
//
// Note [Version counter]
// In-place operations bump a counter shared by every view of a memory block and by detach():
// it lives in StorageImpl. A SavedVariable compares it with the version it saved.
#pragma once

#include <opcore/Tensor.h>
#include <opcore/autograd/Edge.h>
#include <opcore/autograd/Node.h>

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace opcore::autograd {

struct AutogradMeta final : AutogradMetaInterface {
  Tensor grad;                               // leaves: accumulated by backward()
  std::shared_ptr<Node> grad_fn;             // non-leaves: the node that made this tensor
  std::weak_ptr<Node> grad_accumulator;      // leaves that require grad
  // Note [Concurrent backward] in Engine.h: accumulator_mutex guards grad_accumulator,
  // grad_mutex guards `grad` while AccumulateGrad adds into it, view_mutex guards a view's
  // grad_fn, output_nr and attr_version while grad_fn() regenerates them.
  std::mutex accumulator_mutex;
  std::mutex grad_mutex;
  std::mutex view_mutex;
  uint32_t output_nr = 0;                    // which output of grad_fn this is
  bool requires_grad = false;                // leaves: set by requires_grad_()
  bool retains_grad = false;                 // non-leaves: retain_grad() was called
  std::shared_ptr<Tensor> retained_grad;     // ... and the gradient kept (shared with the hook)
  std::vector<std::pair<unsigned, TensorHook>> hooks;          // leaves: run by AccumulateGrad
  std::vector<std::pair<unsigned, std::weak_ptr<Node>>> hook_nodes;  // non-leaves: where each hook went

  // Views (Note [Views and in-place changes] in Views.h).
  bool is_view = false;
  TensorBase base;             // the tensor this is a view of (never itself a view)
  uint32_t attr_version = 0;   // storage version when grad_fn was last set
};

// The tensor's AutogradMeta, or null when it has none.
AutogradMeta* autogradMeta(const TensorBase& t);
// The tensor's AutogradMeta, created when missing.
AutogradMeta& materializeAutogradMeta(const TensorBase& t);

// The grad_fn of a non-leaf (regenerated for a view whose base changed in place since), null
// for leaves.
std::shared_ptr<Node> grad_fn(const TensorBase& t);
// Where the gradient of `t` goes: {grad_fn, output_nr}, {AccumulateGrad, 0} for a leaf that
// requires grad, invalid otherwise.
Edge gradientEdge(const TensorBase& t);
// The AccumulateGrad node of a leaf that requires grad (created on first use); null otherwise.
std::shared_ptr<Node> gradAccumulator(const TensorBase& t);

// The storage version of `t` (Note [Version counter]).
uint32_t version(const TensorBase& t);
void incrementVersion(const TensorBase& t);

// Adds (or removes) the Autograd key of `t`'s backend (Note [Autograd keys on tensors]).
void setAutogradKey(const TensorBase& t, bool on);

// A tensor sharing `t`'s storage and geometry, with no autograd state and the same keys minus
// autograd (detach(); SavedVariable for outputs).
Tensor shallowAlias(const TensorBase& t);

// Makes `t` an output of `fn`: sets grad_fn/output_nr (output_nr = fn's next input), adds the
// autograd key and records `t`'s metadata on `fn`. Undefined tensors and tensors of
// other than floating and complex dtypes are skipped.
void setHistory(const TensorBase& t, const std::shared_ptr<Node>& fn);

// Whether tensors of this dtype can require grad (floating point or complex).
bool isDifferentiableType(ScalarType t);

}  // namespace opcore::autograd

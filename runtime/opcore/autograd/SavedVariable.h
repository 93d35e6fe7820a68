// SavedVariable: a tensor a backward node keeps for its formulas, with the version it had when
// saved. Unpacking checks that no in-place operation changed it since, and that the graph was
// not freed by an earlier backward().
//
// An output of the node's own forward call (`result` in a formula) is saved without its
// autograd metadata, which would point back at the node (a reference cycle); unpack() rebuilds
// it with the node as grad_fn, so formulas that use `result` stay differentiable
// (create_graph).
#pragma once

#include <opcore/Tensor.h>

#include <cstdint>
#include <memory>

namespace opcore::autograd {

class Node;

class SavedVariable {
 public:
  SavedVariable() = default;
  // `is_output`: `t` is an output of the forward call whose node saves it.
  SavedVariable(const Tensor& t, bool is_output);

  // The saved tensor. `saved_for` is the node that saved it (needed for outputs). Throws when
  // the graph was freed or the tensor was modified in place since it was saved.
  Tensor unpack(const std::shared_ptr<Node>& saved_for = nullptr) const;
  // Frees the tensor (Node::releaseVariables).
  void reset();

 private:
  Tensor data_;
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool was_defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
};

}  // namespace opcore::autograd

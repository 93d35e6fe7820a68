// Node: one step of the backward graph. Its apply() maps the gradients of a forward
// operation's outputs (the node's inputs) to the gradients of that operation's inputs (the
// node's outputs), which flow along its next edges. Generated nodes (one class per
// derivatives.yaml entry, build/generated/opcore/Autograd_<i>.cpp) save what their formulas
// use; the runtime's own nodes are AccumulateGrad (leaves), CopySlices and ViewOfBase (views,
// Views.cpp) and NotImplemented.
//
// Note [Node inputs and outputs]
// Inputs of a node are numbered like the forward outputs it was created for: setHistory gives
// output i of the forward call input i (with its shape, dtype and device as InputMetadata, from
// which the engine makes zeros for an input that received no gradient, and against which it
// checks the gradients flowing in). Outputs are numbered like next edges: output i is the
// gradient for next_edges[i], an invalid edge when that forward input needs no gradient.
#pragma once

#include <opcore/Tensor.h>
#include <opcore/autograd/Edge.h>
#include <opcore/autograd/TensorHook.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace opcore::autograd {

using variable_list = std::vector<Tensor>;

class Node : public std::enable_shared_from_this<Node> {
 public:
  // What the engine knows of a forward output: enough to make zeros for it and to check the
  // gradient flowing in. Sizes of up to kInlineDims dimensions live inline (no allocation).
  class InputMetadata {
   public:
    static constexpr size_t kInlineDims = 5;
    InputMetadata() = default;  // an undefined forward output: it gets no gradient
    explicit InputMetadata(const TensorBase& t);
    bool defined() const { return defined_; }
    IntArrayRef sizes() const { return dim_ <= kInlineDims ? IntArrayRef(inline_, dim_) : IntArrayRef(heap_); }
    ScalarType dtype() const { return dtype_; }
    Device device() const { return device_; }

   private:
    int64_t inline_[kInlineDims] = {};
    std::vector<int64_t> heap_;  // when dim_ > kInlineDims
    size_t dim_ = 0;
    ScalarType dtype_ = ScalarType::Float;
    Device device_;
    bool defined_ = false;
  };

  Node();
  // Frees the graph below iteratively (a long chain would otherwise recurse once per node).
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Gradients for the next edges from the gradients of the inputs, as Note [Node inputs and outputs]
  // numbers them. Every input is defined: the engine fills missing ones with zeros.
  virtual variable_list apply(variable_list&& grads) = 0;
  // "MulBackward0"; shown in errors and by Tensor::grad_fn()->name().
  virtual std::string name() const = 0;
  // Drops what the node saved; called after backward unless retain_graph. Unpacking a
  // released SavedVariable then throws the "backward through the graph a second time" error.
  virtual void releaseVariables() {}

  const edge_list& nextEdges() const { return next_edges_; }
  const Edge& nextEdge(size_t i) const { return next_edges_[i]; }
  size_t numOutputs() const { return next_edges_.size(); }
  void setNextEdges(edge_list edges) { next_edges_ = std::move(edges); }
  void addNextEdge(Edge edge) { next_edges_.push_back(std::move(edge)); }
  // Whether the gradient for next edge `i` is needed (the edge is valid).
  bool shouldComputeOutput(size_t i) const { return i < next_edges_.size() && next_edges_[i].valid(); }

  // Records the metadata of forward output `t` (possibly undefined) as this node's next
  // input; returns its number.
  uint32_t addInputMetadata(const TensorBase& t);
  size_t numInputs() const { return input_metadata_.size(); }
  const InputMetadata& inputMetadata(size_t i) const { return input_metadata_[i]; }

  // Creation order on this thread; the engine runs later nodes first.
  uint64_t sequenceNr() const { return sequence_nr_; }

  // Hooks on input `input_nr` (a non-leaf tensor's Tensor::register_hook lands here). Returns
  // an id for removePreHook.
  unsigned addPreHook(uint32_t input_nr, TensorHook hook);
  bool removePreHook(unsigned id);
  // Runs the pre-hooks on `grads` in registration order (the engine, before apply()).
  void runPreHooks(variable_list& grads) const;

 protected:
  // For AccumulateGrad: runs first among the nodes ready at the same time.
  void setSequenceNr(uint64_t nr) { sequence_nr_ = nr; }

 private:
  struct PreHook {
    uint32_t input_nr;
    unsigned id;
    TensorHook fn;
  };
  edge_list next_edges_;
  std::vector<InputMetadata> input_metadata_;
  std::vector<PreHook> pre_hooks_;
  uint64_t sequence_nr_;
};

// A new hook id, unique in the process.
unsigned nextHookId();

// The node of a forward operation with no derivative formula: its backward throws
// "derivative for <op> is not implemented", with `reason` when one is given (else a pointer to
// derivatives.yaml). Created only when an input requires grad, so calling such an operator
// without gradients works.
class NotImplemented final : public Node {
 public:
  NotImplemented(std::string op, std::string reason = "") : op_(std::move(op)), reason_(std::move(reason)) {}
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "NotImplemented"; }

 private:
  std::string op_;
  std::string reason_;
};

// The node behind a leaf that requires grad: adds the incoming gradient into `leaf.grad()`
// (after the leaf's hooks). Held weakly by the leaf, strongly by the graph.
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(TensorBase leaf);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  const TensorBase& variable() const { return variable_; }

 private:
  TensorBase variable_;
};

}  // namespace opcore::autograd

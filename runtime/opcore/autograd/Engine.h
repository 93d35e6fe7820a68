// The backward engine: runs the graph recorded by the autograd kernels from some outputs back
// to the leaves, on the calling thread.
//
// Note [How backward runs]
// The engine walks the graph once from the roots to count, for every node, how many edges lead
// into it, then runs nodes whose gradients are complete, the most recently created first. It
// sums the gradients arriving at one node input, fills the inputs that received none with
// zeros, runs the node's pre-hooks, then apply(); after apply it releases the node's saved
// tensors unless retain_graph, and fits every output gradient to the metadata of the input it
// flows into (summing broadcast dimensions, casting to its dtype) or throws naming the node.
// AccumulateGrad nodes (leaves) add into `.grad`; grad() instead captures the gradients at the
// requested tensors and runs only the nodes that lead to them. With create_graph the formulas
// run with grad mode on, so the gradients have a graph of their own (higher-order gradients).
//
// Note [Concurrent backward]
// backward() and grad() may run on several threads at once, on independent graphs or on one
// graph kept with retain_graph: each call has its own GraphTask (the per-node buffers and
// counts), nodes only read what they saved, and the places where calls meet are locked per
// tensor: creating a leaf's AccumulateGrad (gradAccumulator: one node per leaf however many
// threads build graphs from it), adding into its `.grad` (AccumulateGrad::apply), and
// regenerating a view's grad_fn after its base changed in place (grad_fn(), which every thread
// using the view calls). So concurrent backward() calls into one leaf sum as serial ones
// would, in some order.
// Freeing a graph (backward without retain_graph) while another thread runs it stays the
// caller's race, as in PyTorch.
#pragma once

#include <opcore/autograd/Node.h>

#include <optional>

namespace opcore::autograd {

// torch.autograd.backward: accumulates d(tensors)/d(leaf) * grad_tensors into every leaf's
// `.grad` (only into `inputs` when given). A missing gradient for a one-element output is 1;
// for any other output it is an error. retain_graph defaults to create_graph.
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const variable_list& inputs = {});

// torch.autograd.grad: the gradients of `outputs` with respect to `inputs`, without touching
// `.grad`. An input the outputs do not depend on is an error unless allow_unused (then its
// gradient is undefined).
variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs = {}, std::optional<bool> retain_graph = std::nullopt,
                   bool create_graph = false, bool allow_unused = false);

}  // namespace opcore::autograd

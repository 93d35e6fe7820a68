// Note [How backward runs] (Engine.h).
#include <opcore/autograd/Engine.h>

#include <opcore/autograd/Formulas.h>
#include <opcore/autograd/GradMode.h>
#include <opcore/autograd/Variable.h>
#include <opcore/ops/add.h>
#include <opcore/ops/empty_like.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/to.h>
#include <opcore/ops/zeros.h>

#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

namespace opcore::autograd {

namespace {

// The node the engine starts from: hands the root gradients to the outputs' grad_fns.
class GraphRoot final : public Node {
 public:
  GraphRoot(edge_list edges, variable_list grads) : grads_(std::move(grads)) { setNextEdges(std::move(edges)); }
  variable_list apply(variable_list&&) override { return std::move(grads_); }
  std::string name() const override { return "GraphRoot"; }

 private:
  variable_list grads_;
};

bool isExpandableTo(IntArrayRef shape, IntArrayRef desired) {
  if (shape.size() > desired.size()) return false;
  const size_t lead = desired.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != desired[lead + i] && shape[i] != 1) return false;
  }
  return true;
}

// Fits the gradient `node` produced at output `index` to the input it flows into.
Tensor fitGradient(Tensor g, const Node& node, size_t index, const Node::InputMetadata& meta) {
  if (!meta.defined()) return Tensor();
  if (!(g.sizes() == meta.sizes())) {
    OPCORE_CHECK(isExpandableTo(meta.sizes(), g.sizes()), "Function ", node.name(),
                 " returned an invalid gradient at index ", index, " - got ", g.sizes(),
                 " but expected shape compatible with ", meta.sizes());
    g = formulas::sum_to(g, meta.sizes());
  }
  if (g.scalar_type() != meta.dtype()) g = g.to(meta.dtype());
  return g;
}

Tensor zerosFor(const Node::InputMetadata& meta) {
  return meta.defined() ? opcore::zeros(meta.sizes(), TensorOptions(meta.dtype()).device(meta.device())) : Tensor();
}

// An empty vector with room for the nodes of a small graph: one allocation, not several.
template <typename T>
std::vector<T> reserved() {
  std::vector<T> v;
  v.reserve(16);
  return v;
}

// Where the gradients of the requested tensors are captured (grad(), backward(inputs=)).
struct Capture {
  Node* node;
  uint32_t input_nr;
  size_t index;  // into the result
};

// Numbers the nodes one backward call reaches (0, 1, ...), so that the engine's per-node
// state lives in plain vectors: open addressing over one array, no allocation per node.
class NodeIndex {
 public:
  static constexpr size_t kNone = ~size_t{0};

  // The number of `n`, and whether `n` was new.
  std::pair<size_t, bool> insert(Node* n) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    Slot& slot = slots_[slotOf(slots_, n)];
    if (slot.node == n) return {slot.index, false};
    slot = {n, count_};
    return {count_++, true};
  }
  size_t find(Node* n) const {
    if (slots_.empty()) return kNone;
    const Slot& slot = slots_[slotOf(slots_, n)];
    return slot.node == n ? slot.index : kNone;
  }
  size_t size() const { return count_; }

 private:
  struct Slot {
    Node* node = nullptr;
    size_t index = 0;
  };
  // The slot holding `n`, or the empty one where it would go (linear probing).
  static size_t slotOf(const std::vector<Slot>& slots, Node* n) {
    const size_t mask = slots.size() - 1;
    size_t i = ((reinterpret_cast<uintptr_t>(n) >> 4) * 0x9E3779B97F4A7C15ull >> 32) & mask;
    while (slots[i].node != nullptr && slots[i].node != n) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<Slot> bigger(slots_.empty() ? 16 : 2 * slots_.size());
    for (const Slot& s : slots_) {
      if (s.node) bigger[slotOf(bigger, s.node)] = s;
    }
    slots_ = std::move(bigger);
  }
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

class GraphTask {
 public:
  GraphTask(bool keep_graph, bool accumulate) : keep_graph_(keep_graph), accumulate_(accumulate) {}

  void addTarget(const Edge& e, size_t index) { targets_.push_back({e.function.get(), e.input_nr, index}); }
  variable_list run(const std::shared_ptr<Node>& root, size_t num_targets);

 private:
  void discover(Node* root);
  bool isTarget(Node* n) const {
    for (const Capture& c : targets_) {
      if (c.node == n) return true;
    }
    return false;
  }
  bool needed(size_t i) const { return targets_.empty() || nodes_[i].needed; }
  bool shouldRun(Node* n, size_t i) const;
  void deliver(Node* from, size_t index, Tensor g, const Edge& edge);

  bool keep_graph_;
  bool accumulate_;  // backward(): AccumulateGrad runs; grad(): it does not
  std::vector<Capture> targets_;
  struct NodeState {
    explicit NodeState(Node* n) : node(n), accumulates(dynamic_cast<AccumulateGrad*>(n) != nullptr) {}
    Node* node;
    bool accumulates;       // an AccumulateGrad (a leaf)
    int dependencies = 0;   // edges into it not yet delivered
    bool needed = false;    // on a path to a target (when there are targets)
    variable_list buffer;   // the gradients delivered so far, one per node input
  };
  NodeIndex index_;
  std::vector<NodeState> nodes_;  // by index_
  // (sequence number, index): the most recently created node first.
  using Ready = std::pair<uint64_t, size_t>;
  std::priority_queue<Ready> ready_{std::less<Ready>(), reserved<Ready>()};
  variable_list captured_;
};

// One iterative depth-first walk: numbers the nodes, counts the edges into each, and marks
// (in post-order) the nodes that lead to a target.
void GraphTask::discover(Node* root) {
  index_.insert(root);
  nodes_.reserve(16);
  nodes_.emplace_back(root);
  std::vector<std::pair<Node*, size_t>> stack = reserved<std::pair<Node*, size_t>>();
  stack.emplace_back(root, 0);
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->numOutputs()) {
      const Edge& e = node->nextEdge(next++);
      if (!e.valid()) continue;
      Node* child = e.function.get();
      const auto [i, is_new] = index_.insert(child);
      if (is_new) {
        nodes_.emplace_back(child);
        stack.emplace_back(child, 0);
      }
      ++nodes_[i].dependencies;
      continue;
    }
    if (!targets_.empty()) {
      bool leads = isTarget(node);
      for (const Edge& e : node->nextEdges()) {
        leads = leads || (e.valid() && nodes_[index_.find(e.function.get())].needed);
      }
      nodes_[index_.find(node)].needed = leads;
    }
    stack.pop_back();
  }
}

bool GraphTask::shouldRun(Node* n, size_t i) const {
  if (nodes_[i].accumulates) return accumulate_ && needed(i);
  if (targets_.empty()) return true;
  for (const Edge& e : n->nextEdges()) {
    if (e.valid() && needed(index_.find(e.function.get()))) return true;
  }
  return false;
}

void GraphTask::deliver(Node* from, size_t index, Tensor g, const Edge& edge) {
  Node* to = edge.function.get();
  const size_t i = index_.find(to);
  if (!needed(i)) return;
  if (g.defined()) {
    g = fitGradient(std::move(g), *from, index, to->inputMetadata(edge.input_nr));
    variable_list& buffer = nodes_[i].buffer;
    buffer.resize(to->numInputs());
    Tensor& slot = buffer[edge.input_nr];
    slot = slot.defined() ? opcore::add(slot, g) : std::move(g);
  }
  if (--nodes_[i].dependencies == 0) ready_.emplace(to->sequenceNr(), i);
}

variable_list GraphTask::run(const std::shared_ptr<Node>& root, size_t num_targets) {
  captured_.resize(num_targets);
  discover(root.get());
  ready_.emplace(root->sequenceNr(), 0);
  while (!ready_.empty()) {
    const size_t i = ready_.top().second;
    ready_.pop();
    Node* node = nodes_[i].node;
    variable_list inputs = std::move(nodes_[i].buffer);
    inputs.resize(node->numInputs());
    for (const Capture& c : targets_) {
      if (c.node == node) captured_[c.index] = inputs[c.input_nr];
    }
    if (!shouldRun(node, i)) continue;
    bool any_defined = i == 0;  // the root
    for (const Tensor& g : inputs) any_defined = any_defined || g.defined();
    variable_list outputs(node->numOutputs());
    if (any_defined) {
      for (size_t k = 0; k < inputs.size(); ++k) {
        if (!inputs[k].defined()) inputs[k] = zerosFor(node->inputMetadata(k));
      }
      node->runPreHooks(inputs);
      outputs = node->apply(std::move(inputs));
      if (!keep_graph_) node->releaseVariables();
      OPCORE_INTERNAL_ASSERT(outputs.size() == node->numOutputs() || nodes_[i].accumulates,
                             "", node->name(), " returned ", outputs.size(), " gradients for ", node->numOutputs(),
                             " inputs");
    }
    for (size_t k = 0; k < node->numOutputs(); ++k) {
      const Edge& edge = node->nextEdge(k);
      if (edge.valid()) deliver(node, k, k < outputs.size() ? std::move(outputs[k]) : Tensor(), edge);
    }
  }
  return std::move(captured_);
}

// The root node for `outputs`, with their gradients (ones for one-element outputs).
std::shared_ptr<Node> makeRoot(const variable_list& outputs, const variable_list& grad_outputs) {
  OPCORE_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), "got ", grad_outputs.size(),
               " gradients for ", outputs.size(), " tensors; pass one per tensor (or none)");
  edge_list edges;
  variable_list grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    Edge edge = gradientEdge(out);
    OPCORE_CHECK(edge.valid(), "element ", i, " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      OPCORE_CHECK(out.numel() == 1, "grad can be implicitly created only for scalar outputs (tensor ", i,
                   " has shape ", out.sizes(), ")");
      // A complex output's gradient needs a direction (Note [Complex gradients] in Formulas.h).
      OPCORE_CHECK(!isComplexType(out.scalar_type()),
                   "grad can be implicitly created only for real scalar outputs (tensor ", i, " is ",
                   toString(out.scalar_type()), ")");
      // Through the output's own keys (not a factory), so that a tensor subclass's
      // __torch_dispatch__ makes its root gradient, as torch.ones_like(output) does.
      g = opcore::empty_like(out);
      g.fill_(1);
    } else {
      OPCORE_CHECK(g.sizes() == out.sizes(), "mismatch in shape: grad_output[", i, "] has a shape of ",
                   g.sizes(), " and output[", i, "] has a shape of ", out.sizes(), ".");
    }
    edges.push_back(std::move(edge));
    grads.push_back(std::move(g));
  }
  return std::make_shared<GraphRoot>(std::move(edges), std::move(grads));
}

variable_list runBackward(const variable_list& outputs, const variable_list& grad_outputs,
                          const variable_list& inputs, bool keep_graph, bool create_graph, bool accumulate) {
  std::shared_ptr<Node> root = makeRoot(outputs, grad_outputs);
  GraphTask task(keep_graph, accumulate);
  for (size_t i = 0; i < inputs.size(); ++i) {
    Edge edge = gradientEdge(inputs[i]);
    OPCORE_CHECK(edge.valid(), "one of the differentiated Tensors (input ", i, ") does not require grad");
    task.addTarget(edge, i);
  }
  AutoGradMode mode(create_graph);
  return task.run(root, inputs.size());
}

}  // namespace

void backward(const variable_list& tensors, const variable_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph, const variable_list& inputs) {
  const variable_list captured =
      runBackward(tensors, grad_tensors, inputs, retain_graph.value_or(create_graph), create_graph, true);
  // Non-leaf inputs were captured rather than accumulated by an AccumulateGrad: add them to
  // their .grad here, as PyTorch does.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].is_leaf() || !captured[i].defined()) continue;
    Tensor& slot = inputs[i].mutable_grad();
    slot = slot.defined() ? opcore::add(slot, captured[i]) : captured[i];
  }
}

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  OPCORE_CHECK(!inputs.empty(), "grad requires at least one input");
  variable_list result =
      runBackward(outputs, grad_outputs, inputs, retain_graph.value_or(create_graph), create_graph, false);
  for (size_t i = 0; i < result.size(); ++i) {
    OPCORE_CHECK(allow_unused || result[i].defined(), "one of the differentiated Tensors (input ", i,
                 ") appears to not have been used in the graph. Set allow_unused=true if this is the "
                 "desired behavior.");
  }
  return result;
}

}  // namespace opcore::autograd

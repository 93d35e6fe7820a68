// Note [How backward runs] (Engine.h).
#include <opcore/autograd/Engine.h>

#include <opcore/autograd/Formulas.h>
#include <opcore/autograd/GradMode.h>
#include <opcore/autograd/Variable.h>
#include <opcore/ops/add.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/to.h>
#include <opcore/ops/zeros.h>

#include <queue>
#include <unordered_map>
#include <unordered_set>

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

bool isExpandableTo(IntArrayRef shape, const std::vector<int64_t>& desired) {
  if (shape.size() > desired.size()) return false;
  const size_t lead = desired.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != desired[lead + i] && shape[i] != 1) return false;
  }
  return true;
}

// Fits the gradient `node` produced at output `index` to the input it flows into.
Tensor fitGradient(Tensor g, const Node& node, size_t index, const Node::InputMetadata& meta) {
  if (!meta.defined) return Tensor();
  if (!(g.sizes() == IntArrayRef(meta.sizes))) {
    OPCORE_CHECK(isExpandableTo(meta.sizes, std::vector<int64_t>(g.sizes().begin(), g.sizes().end())),
                 "Function ", node.name(), " returned an invalid gradient at index ", index, " - got ",
                 g.sizes(), " but expected shape compatible with ", IntArrayRef(meta.sizes));
    g = formulas::sum_to(g, meta.sizes);
  }
  if (g.scalarType() != meta.dtype) g = g.to(meta.dtype);
  return g;
}

Tensor zerosFor(const Node::InputMetadata& meta) {
  return meta.defined ? opcore::zeros(meta.sizes, meta.dtype, meta.device) : Tensor();
}

// Where the gradients of the requested tensors are captured (grad(), backward(inputs=)).
struct Capture {
  uint32_t input_nr;
  size_t index;  // into the result
};

class GraphTask {
 public:
  GraphTask(bool keep_graph, bool accumulate) : keep_graph_(keep_graph), accumulate_(accumulate) {}

  void addTarget(const Edge& e, size_t index) { targets_[e.function.get()].push_back({e.input_nr, index}); }
  variable_list run(const std::shared_ptr<Node>& root, size_t num_targets);

 private:
  void discover(Node* root);
  bool needed(Node* n) const { return targets_.empty() || needed_.count(n) != 0; }
  bool shouldRun(Node* n) const;
  void deliver(Node* from, size_t index, Tensor g, const Edge& edge);

  bool keep_graph_;
  bool accumulate_;  // backward(): AccumulateGrad runs; grad(): it does not
  std::unordered_map<Node*, std::vector<Capture>> targets_;
  std::unordered_set<Node*> needed_;  // nodes on a path to a target (targets only)
  std::unordered_map<Node*, int> dependencies_;
  std::unordered_map<Node*, variable_list> buffers_;
  std::priority_queue<std::pair<uint64_t, Node*>> ready_;
  variable_list captured_;
};

// One iterative depth-first walk: dependency counts, and which nodes lead to a target.
void GraphTask::discover(Node* root) {
  std::vector<std::pair<Node*, size_t>> stack{{root, 0}};
  std::unordered_set<Node*> seen{root};
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->numOutputs()) {
      const Edge& e = node->nextEdge(next++);
      if (!e.valid()) continue;
      Node* child = e.function.get();
      ++dependencies_[child];
      if (seen.insert(child).second) stack.emplace_back(child, 0);
      continue;
    }
    if (!targets_.empty()) {
      bool leads = targets_.count(node) != 0;
      for (const Edge& e : node->nextEdges()) leads = leads || (e.valid() && needed_.count(e.function.get()));
      if (leads) needed_.insert(node);
    }
    stack.pop_back();
  }
}

bool GraphTask::shouldRun(Node* n) const {
  if (dynamic_cast<AccumulateGrad*>(n)) return accumulate_ && needed(n);
  if (targets_.empty()) return true;
  for (const Edge& e : n->nextEdges()) {
    if (e.valid() && needed(e.function.get())) return true;
  }
  return false;
}

void GraphTask::deliver(Node* from, size_t index, Tensor g, const Edge& edge) {
  Node* to = edge.function.get();
  if (!needed(to)) return;
  if (g.defined()) {
    g = fitGradient(std::move(g), *from, index, to->inputMetadata(edge.input_nr));
    variable_list& buffer = buffers_[to];
    buffer.resize(to->numInputs());
    Tensor& slot = buffer[edge.input_nr];
    slot = slot.defined() ? opcore::add(slot, g) : std::move(g);
  }
  if (--dependencies_[to] == 0) ready_.emplace(to->sequenceNr(), to);
}

variable_list GraphTask::run(const std::shared_ptr<Node>& root, size_t num_targets) {
  captured_.resize(num_targets);
  discover(root.get());
  ready_.emplace(root->sequenceNr(), root.get());
  while (!ready_.empty()) {
    Node* node = ready_.top().second;
    ready_.pop();
    variable_list inputs = std::move(buffers_[node]);
    buffers_.erase(node);
    inputs.resize(node->numInputs());
    if (auto it = targets_.find(node); it != targets_.end()) {
      for (const Capture& c : it->second) captured_[c.index] = inputs[c.input_nr];
    }
    if (!shouldRun(node)) continue;
    bool any_defined = node == root.get();
    for (const Tensor& g : inputs) any_defined = any_defined || g.defined();
    variable_list outputs(node->numOutputs());
    if (any_defined) {
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (!inputs[i].defined()) inputs[i] = zerosFor(node->inputMetadata(i));
      }
      node->runPreHooks(inputs);
      outputs = node->apply(std::move(inputs));
      if (!keep_graph_) node->releaseVariables();
      OPCORE_INTERNAL_ASSERT(outputs.size() == node->numOutputs() || dynamic_cast<AccumulateGrad*>(node),
                             "", node->name(), " returned ", outputs.size(), " gradients for ", node->numOutputs(),
                             " inputs");
    }
    for (size_t i = 0; i < node->numOutputs(); ++i) {
      const Edge& edge = node->nextEdge(i);
      if (edge.valid()) deliver(node, i, i < outputs.size() ? std::move(outputs[i]) : Tensor(), edge);
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
      g = opcore::ones(out.sizes(), out.scalarType(), out.device());
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
    if (inputs[i].isLeaf() || !captured[i].defined()) continue;
    Tensor& slot = inputs[i].mutableGrad();
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

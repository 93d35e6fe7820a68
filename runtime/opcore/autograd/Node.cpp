#include <opcore/autograd/Node.h>

#include <opcore/autograd/GradMode.h>
#include <opcore/autograd/Variable.h>
#include <opcore/ops/add.h>
#include <opcore/ops/clone.h>

#include <algorithm>
#include <atomic>
#include <limits>

namespace opcore::autograd {

namespace {
thread_local uint64_t tls_next_sequence_nr = 0;
}  // namespace

Node::Node() : sequence_nr_(tls_next_sequence_nr++) {}

Node::~Node() {
  // The nodes only this one keeps alive are moved to a stack and destroyed one by one, each
  // after dropping its saved tensors (which may hold the nodes before it) and handing over the
  // nodes only it keeps alive: no node's destructor runs inside another's. A destructor that
  // runs while the stack is being drained (from a saved tensor released there) adds to it.
  thread_local std::vector<std::shared_ptr<Node>>* draining = nullptr;
  auto adopt = [](std::vector<std::shared_ptr<Node>>& orphans, edge_list& edges) {
    for (Edge& e : edges) {
      if (e.function && e.function.use_count() == 1) orphans.push_back(std::move(e.function));
    }
  };
  if (draining) {
    adopt(*draining, next_edges_);
    return;
  }
  std::vector<std::shared_ptr<Node>> orphans;
  adopt(orphans, next_edges_);
  if (orphans.empty()) return;
  draining = &orphans;
  while (!orphans.empty()) {
    std::shared_ptr<Node> node = std::move(orphans.back());
    orphans.pop_back();
    node->releaseVariables();
    adopt(orphans, node->next_edges_);
  }
  draining = nullptr;
}

Node::InputMetadata::InputMetadata(const TensorBase& t)
    : dim_(static_cast<size_t>(t.dim())), dtype_(t.scalar_type()), device_(t.device()), defined_(true) {
  if (dim_ <= kInlineDims) {
    std::copy(t.sizes().begin(), t.sizes().end(), inline_);
  } else {
    heap_.assign(t.sizes().begin(), t.sizes().end());
  }
}

uint32_t Node::addInputMetadata(const TensorBase& t) {
  input_metadata_.push_back(t.defined() ? InputMetadata(t) : InputMetadata());
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

unsigned nextHookId() {
  static std::atomic<unsigned> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

unsigned Node::addPreHook(uint32_t input_nr, TensorHook hook) {
  const unsigned id = nextHookId();
  pre_hooks_.push_back(PreHook{input_nr, id, std::move(hook)});
  return id;
}

bool Node::removePreHook(unsigned id) {
  for (auto it = pre_hooks_.begin(); it != pre_hooks_.end(); ++it) {
    if (it->id == id) {
      pre_hooks_.erase(it);
      return true;
    }
  }
  return false;
}

void Node::runPreHooks(variable_list& grads) const {
  for (const PreHook& h : pre_hooks_) {
    Tensor replaced = h.fn(grads[h.input_nr]);
    if (replaced.defined()) grads[h.input_nr] = std::move(replaced);
  }
}

variable_list NotImplemented::apply(variable_list&&) {
  OPCORE_FAIL("derivative for ", op_, " is not implemented",
              reason_.empty() ? "; add a formula for it to yaml/derivatives.yaml" : " (" + reason_ + ")");
}

AccumulateGrad::AccumulateGrad(TensorBase leaf) : variable_(std::move(leaf)) {
  addInputMetadata(variable_);
  // Accumulating is cheap and frees the incoming gradient early: run before other ready nodes.
  setSequenceNr(std::numeric_limits<uint64_t>::max());
}

namespace {
// Whether `g` can become `.grad` itself: nothing else holds it or its memory, and it is dense
// (an expanded gradient would make later in-place accumulation write one element many times).
bool canSteal(const Tensor& g) {
  return g.use_count() == 1 && g.storage().use_count() == 1 && g.is_contiguous() && !g.requires_grad();
}
}  // namespace

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor g = std::move(grads[0]);
  AutogradMeta* meta = autogradMeta(variable_);
  for (const auto& [id, hook] : meta->hooks) {
    Tensor replaced = hook(g);
    if (replaced.defined()) g = std::move(replaced);
  }
  if (!meta->requires_grad || !g.defined()) return {};
  // Backward calls on other threads may add into the same leaf (Note [Concurrent backward]).
  std::lock_guard<std::mutex> lock(meta->grad_mutex);
  Tensor& acc = meta->grad;
  if (GradMode::is_enabled()) {  // create_graph: the accumulated gradient keeps its graph
    acc = acc.defined() ? opcore::add(acc, g) : g;
  } else if (!acc.defined()) {
    acc = canSteal(g) ? std::move(g) : opcore::clone(g);
  } else {
    acc.add_(g);
  }
  return {};
}

}  // namespace opcore::autograd

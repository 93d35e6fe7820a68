#include <opcore/autograd/SavedVariable.h>

#include <opcore/autograd/Variable.h>

#include <sstream>

namespace opcore::autograd {

namespace {

// "[Double [2, 3]]": how errors name a tensor.
std::string describe(const TensorBase& t) {
  std::ostringstream os;
  os << "[" << toString(t.scalar_type()) << " " << t.sizes() << "]";
  return os.str();
}

}  // namespace

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  was_defined_ = true;
  is_output_ = is_output;
  saved_version_ = version(t);
  requires_grad_ = t.requires_grad();
  if (AutogradMeta* meta = autogradMeta(t)) output_nr_ = meta->output_nr;
  // An output's metadata points at the node saving it: keep the data only (see the header).
  data_ = is_output ? shallowAlias(t) : t;
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& saved_for) const {
  if (!was_defined_) return Tensor();
  OPCORE_CHECK(!released_,
               "Trying to backward through the graph a second time (or directly access saved tensors "
               "after they have already been freed). Saved intermediate values of the graph are freed "
               "when you call backward() or autograd::grad(). Specify retain_graph=true if you need to "
               "backward through the graph a second time or if you need to access saved tensors after "
               "calling backward.");
  const uint32_t now = version(data_);
  if (now != saved_version_) {
    // Which operation made it ("output 0 of MulBackward0"): the node it was saved for (an
    // output) or its own grad_fn (an input).
    const std::shared_ptr<Node> producer = is_output_ ? saved_for : grad_fn(data_);
    OPCORE_FAIL("one of the variables needed for gradient computation has been modified by an inplace "
                "operation: ", describe(data_),
                producer ? ", which is output " + std::to_string(output_nr_) + " of " + producer->name() : "",
                ", is at version ", now, "; expected version ", saved_version_, " instead.");
  }
  if (!is_output_) return data_;
  Tensor t = shallowAlias(data_);
  if (requires_grad_ && saved_for) {
    // The output again, as the node's output: differentiable when create_graph.
    AutogradMeta& meta = materializeAutogradMeta(t);
    meta.grad_fn = saved_for;
    meta.output_nr = output_nr_;
    setAutogradKey(t, true);
  }
  return t;
}

void SavedVariable::reset() {
  data_ = Tensor();
  released_ = true;
}

}  // namespace opcore::autograd

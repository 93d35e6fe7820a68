// What the generated backward nodes call (build/generated/opcore/Autograd_<i>.cpp) beyond
// Node and SavedVariable: saving and unpacking Tensor? arguments and tensor lists, and the
// gradient ranges of Tensor[] arguments. For `cat(Tensor[] tensors, int dim)` a node holds
// `std::vector<SavedVariable> tensors_ = saveList(tensors, false);` and its apply() reads
// `const std::vector<Tensor> tensors = unpackList(tensors_);` (Note [What a node saves] in
// gen/api/autograd.py).
#pragma once

#include <opcore/Tensor.h>
#include <opcore/autograd/Node.h>
#include <opcore/autograd/SavedVariable.h>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace opcore::autograd {

// A saved Tensor? argument, as the formula sees it.
inline std::optional<Tensor> unpackOptional(const SavedVariable& saved) {
  Tensor t = saved.unpack();
  return t.defined() ? std::optional<Tensor>(std::move(t)) : std::nullopt;
}

// Tensor lists: one SavedVariable per element (an undefined one for a null element).
inline std::vector<SavedVariable> saveList(ArrayRef<Tensor> ts, bool is_output) {
  std::vector<SavedVariable> saved;
  for (const Tensor& t : ts) saved.emplace_back(t, is_output);
  return saved;
}
inline std::vector<SavedVariable> saveOptionalList(ArrayRef<std::optional<Tensor>> ts, bool is_output) {
  std::vector<SavedVariable> saved;
  for (const auto& t : ts) saved.emplace_back(t.value_or(Tensor()), is_output);
  return saved;
}
inline std::vector<Tensor> unpackList(const std::vector<SavedVariable>& saved,
                                      const std::shared_ptr<Node>& saved_for = nullptr) {
  std::vector<Tensor> ts;
  for (const SavedVariable& s : saved) ts.push_back(s.unpack(saved_for));
  return ts;
}
inline std::vector<std::optional<Tensor>> unpackOptionalList(const std::vector<SavedVariable>& saved) {
  std::vector<std::optional<Tensor>> ts;
  for (const SavedVariable& s : saved) ts.push_back(unpackOptional(s));
  return ts;
}
inline void resetAll(std::vector<SavedVariable>& saved) {
  for (SavedVariable& s : saved) s.reset();
}

// The next edges of a Tensor[] argument are [begin, begin + n): whether any gradient among
// them is needed, and where the formula's gradients (one per element) go.
inline bool shouldComputeAny(const Node& node, size_t begin, size_t n) {
  for (size_t i = begin; i < begin + n; ++i) {
    if (node.shouldComputeOutput(i)) return true;
  }
  return false;
}
inline void copyRange(variable_list& grad_inputs, size_t begin, const variable_list& grads) {
  for (size_t i = 0; i < grads.size() && begin + i < grad_inputs.size(); ++i) grad_inputs[begin + i] = grads[i];
}

}  // namespace opcore::autograd

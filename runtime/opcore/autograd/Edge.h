// Edge: where a gradient goes: input `input_nr` of the backward Node `function`.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace opcore::autograd {

class Node;

struct Edge {
  Edge() = default;
  Edge(std::shared_ptr<Node> fn, uint32_t nr) : function(std::move(fn)), input_nr(nr) {}

  // An invalid edge: the input does not require grad; its gradient is not computed.
  bool valid() const { return function != nullptr; }

  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
};

using edge_list = std::vector<Edge>;

}  // namespace opcore::autograd

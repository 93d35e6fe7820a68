// Uses the installed opcore: its generated API, a Tensor method, autograd and the threads.
#include <opcore/opcore.h>

#include <iostream>

int main() {
  opcore::Tensor a = opcore::arange(4, opcore::kFloat).requires_grad_();
  opcore::Tensor b = opcore::ones({4});
  opcore::Tensor loss = (a * b + a).sum();
  loss.backward();
  std::cout << "sum = " << loss.item<float>() << ", grad = " << a.grad() << ", threads >= 1: "
            << (opcore::get_num_threads() >= 1) << "\n";
  return 0;
}

// Finite-difference checks of the gradients autograd computes (torch.autograd.gradcheck and
// gradgradcheck). The generated gradcheck tests (one per derivatives.yaml entry) call these.
//
//   auto fn = [](const variable_list& x) -> variable_list { return {opcore::mul(x[0], x[1])}; };
//   autograd::gradcheck(fn, {randomDouble({2, 3}), randomDouble({3})});
//   autograd::gradgradcheck(fn, {randomDouble({2, 3}), randomDouble({3})});
#pragma once

#include <opcore/autograd/Node.h>

#include <functional>

namespace opcore::autograd {

struct GradcheckOptions {
  double eps = 1e-6;   // finite-difference step
  double atol = 1e-5;  // |analytical - numerical| <= atol + rtol * |numerical|
  double rtol = 1e-3;
};

// Maps differentiable float64 inputs to outputs; non-differentiable outputs (integer, bool)
// are ignored by the checks.
using DifferentiableFn = std::function<variable_list(const variable_list&)>;

// Compares the Jacobian computed by backward (one vector-Jacobian product per output element)
// with central differences, for every input that is a floating-point tensor. The inputs are
// copied and made to require grad. Throws opcore::Error naming the output, input, element and
// both values at the first mismatch.
void gradcheck(const DifferentiableFn& fn, const variable_list& inputs, const GradcheckOptions& options = {});

// gradcheck of the function (inputs, grad_outputs) -> grad(fn(inputs), inputs, grad_outputs,
// create_graph=true): checks the second derivatives (the derivative formulas' own backward).
void gradgradcheck(const DifferentiableFn& fn, const variable_list& inputs,
                   const GradcheckOptions& options = {});

}  // namespace opcore::autograd

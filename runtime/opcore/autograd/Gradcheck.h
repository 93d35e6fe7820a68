// Finite-difference checks of the gradients autograd computes (torch.autograd.gradcheck and
// gradgradcheck). The generated gradcheck tests (one per derivatives.yaml entry) call these.
//
//   auto fn = [](const variable_list& x) -> variable_list { return {opcore::mul(x[0], x[1])}; };
//   autograd::gradcheck(fn, {randomDouble({2, 3}), randomDouble({3})});
//   autograd::gradgradcheck(fn, {randomDouble({2, 3}), randomDouble({3})});
#pragma once

#include <opcore/autograd/Node.h>
#include <opcore/core/Empty.h>
#include <opcore/core/Generator.h>

#include <functional>
#include <string>
#include <vector>

namespace opcore::autograd {

struct GradcheckOptions {
  double eps = 1e-6;   // finite-difference step
  double atol = 1e-5;  // |analytical - numerical| <= atol + rtol * |numerical|
  double rtol = 1e-3;
};

// Maps differentiable float64 and complex128 inputs to outputs; non-differentiable outputs
// (integer, bool) are ignored by the checks.
using DifferentiableFn = std::function<variable_list(const variable_list&)>;

// Compares the Jacobian computed by backward (one vector-Jacobian product per output element)
// with central differences, for every input that is a floating-point or complex tensor; a
// complex element counts as two reals, its real and imaginary parts (Note [Gradcheck over real
// components] in Gradcheck.cpp). The inputs are copied and made to require grad. Throws
// opcore::Error naming the output, input, element (and part) and both values at the first
// mismatch.
void gradcheck(const DifferentiableFn& fn, const variable_list& inputs, const GradcheckOptions& options = {});

// gradcheck of the function (inputs, grad_outputs) -> grad(fn(inputs), inputs, grad_outputs,
// create_graph=true): checks the second derivatives (the derivative formulas' own backward).
void gradgradcheck(const DifferentiableFn& fn, const variable_list& inputs,
                   const GradcheckOptions& options = {});

// --- what the generated gradcheck tests (build/generated/tests/Gradcheck.cpp) build on ---

// A float64 (or complex128: real and imaginary parts each) tensor of `sizes`, uniform in
// [low, high), drawn from `g`.
Tensor uniformInput(IntArrayRef sizes, double low, double high, Generator& g,
                    ScalarType dtype = ScalarType::Double);
// A CPU tensor of `sizes` holding `values` in row-major order.
//   inputFromValues<int64_t>({0, 2}, {2})
template <typename T>
Tensor inputFromValues(const std::vector<T>& values, IntArrayRef sizes) {
  Tensor t(detail::emptyCpu(sizes, CppTypeToScalarType<T>::value));
  OPCORE_CHECK(static_cast<size_t>(t.numel()) == values.size(), "inputFromValues: ", values.size(),
               " values for sizes ", sizes);
  T* data = t.data_ptr<T>();
  for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  return t;
}
// Makes every floating-point and complex input require grad.
void requireGrad(variable_list& inputs);
// Whether an in-place overload can run on these inputs: fn's result has the shape and dtype
// of the first input, `self` (broadcasting may make the functional result larger).
bool inplaceApplies(const DifferentiableFn& fn, const variable_list& inputs);
// For an operator with no differentiable output: "" when none of fn's outputs requires grad
// though its inputs do, else what went wrong.
std::string checkNoGradients(const DifferentiableFn& fn, variable_list inputs);
// For an operator whose formulas are all not_implemented: "" when backward through its first
// output throws "... is not implemented ...", else what happened instead.
std::string checkNotImplemented(const DifferentiableFn& fn, variable_list inputs);
// For an entry with `supports_gradgrad: false`: "" when backward through the first derivatives
// (gradgradcheck's function) throws "... is not implemented ...", else what happened instead.
std::string checkDoubleBackwardNotImplemented(const DifferentiableFn& fn, const variable_list& inputs);

}  // namespace opcore::autograd

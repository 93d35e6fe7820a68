#include <opcore/autograd/Gradcheck.h>

#include <opcore/TensorOperators.h>
#include <opcore/autograd/Engine.h>
#include <opcore/autograd/GradMode.h>
#include <opcore/autograd/Variable.h>
#include <opcore/ops/clone.h>
#include <opcore/ops/rand.h>
#include <opcore/ops/zeros.h>

#include <cmath>
#include <vector>

namespace opcore::autograd {

namespace {

bool isFloating(const Tensor& t) { return t.defined() && isDifferentiableType(t.scalar_type()); }

// Fresh leaves: floating inputs as float64 tensors that require grad, others as they are.
variable_list prepareInputs(const variable_list& inputs) {
  variable_list x;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!isFloating(inputs[i])) {
      x.push_back(inputs[i]);
      continue;
    }
    OPCORE_CHECK(inputs[i].scalar_type() == ScalarType::Double, "gradcheck: input ", i, " is ",
                 toString(inputs[i].scalar_type()), "; finite differences need Double inputs");
    Tensor leaf = opcore::clone(inputs[i].detach());
    leaf.requires_grad_();
    x.push_back(leaf);
  }
  return x;
}

// The outputs of fn the checks compare: floating ones (as values, by row-major index).
std::vector<Tensor> floatingOutputs(const variable_list& outputs) {
  std::vector<Tensor> result;
  for (const Tensor& t : outputs) {
    if (isFloating(t)) result.push_back(t);
  }
  return result;
}

// d outputs[o] / d x[i], by central differences: one column per element of x[i].
std::vector<std::vector<double>> numericalJacobian(const DifferentiableFn& fn, const variable_list& x, size_t i,
                                                   size_t o, double eps) {
  // Grad mode stays on: fn may itself compute gradients (gradgradcheck's function does).
  double* data = x[i].data_ptr<double>();  // x[i] is a contiguous clone (prepareInputs)
  std::vector<std::vector<double>> columns;
  for (int64_t k = 0; k < x[i].numel(); ++k) {
    const double saved = data[k];
    // Copies: an output may share memory with the input being nudged (a view, or a
    // gradient passed through unchanged).
    data[k] = saved + eps;
    const Tensor plus = opcore::clone(floatingOutputs(fn(x))[o]);
    data[k] = saved - eps;
    const Tensor minus = opcore::clone(floatingOutputs(fn(x))[o]);
    data[k] = saved;
    std::vector<double> column(static_cast<size_t>(plus.numel()));
    for (int64_t j = 0; j < plus.numel(); ++j) {
      column[j] = (detail::elementAsDouble(plus, j) - detail::elementAsDouble(minus, j)) / (2 * eps);
    }
    columns.push_back(std::move(column));
  }
  return columns;
}

void checkOutput(const DifferentiableFn& fn, const variable_list& x, const Tensor& out, size_t o,
                 const GradcheckOptions& options) {
  std::vector<size_t> diff_inputs;
  variable_list wrt;
  for (size_t i = 0; i < x.size(); ++i) {
    if (isFloating(x[i])) {
      diff_inputs.push_back(i);
      wrt.push_back(x[i]);
    }
  }
  // Row j of the analytical Jacobian: the gradients for a one-hot grad_output at element j.
  std::vector<variable_list> rows;
  for (int64_t j = 0; j < out.numel(); ++j) {
    Tensor onehot = opcore::zeros(out.sizes(), out.scalar_type());
    onehot.data_ptr<double>()[j] = 1.0;  // zeros() is contiguous
    if (out.requires_grad()) {
      rows.push_back(grad({out}, wrt, {onehot}, /*retain_graph=*/true, false, /*allow_unused=*/true));
    } else {
      rows.emplace_back(wrt.size());
    }
  }
  for (size_t w = 0; w < wrt.size(); ++w) {
    const auto numerical = numericalJacobian(fn, x, diff_inputs[w], o, options.eps);
    for (size_t k = 0; k < numerical.size(); ++k) {
      for (size_t j = 0; j < numerical[k].size(); ++j) {
        const Tensor& g = rows[j][w];
        const double a = g.defined() ? detail::elementAsDouble(g, static_cast<int64_t>(k)) : 0.0;
        const double n = numerical[k][j];
        OPCORE_CHECK(std::abs(a - n) <= options.atol + options.rtol * std::abs(n),
                     "gradcheck: Jacobian mismatch for output ", o, " with respect to input ", diff_inputs[w],
                     ", d output[", j, "] / d input[", k, "]: analytical ", a, ", numerical ", n);
      }
    }
  }
}

}  // namespace

void gradcheck(const DifferentiableFn& fn, const variable_list& inputs, const GradcheckOptions& options) {
  const variable_list x = prepareInputs(inputs);
  const std::vector<Tensor> outputs = floatingOutputs(fn(x));
  for (size_t o = 0; o < outputs.size(); ++o) checkOutput(fn, x, outputs[o], o, options);
}

void gradgradcheck(const DifferentiableFn& fn, const variable_list& inputs, const GradcheckOptions& options) {
  const variable_list x = prepareInputs(inputs);
  // Random (seeded) gradients for the outputs: inputs of the function checked.
  Generator gen = Generator::create(Device(DeviceType::CPU), 20261123);
  variable_list all = x;
  const size_t num_x = x.size();
  for (const Tensor& out : floatingOutputs(fn(x))) {
    all.push_back(opcore::rand(out.sizes(), gen, ScalarType::Double) * 2.0 - 1.0);
  }
  auto first_derivatives = [&fn, num_x](const variable_list& args) -> variable_list {
    const variable_list xs(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(num_x));
    const variable_list grad_outputs(args.begin() + static_cast<std::ptrdiff_t>(num_x), args.end());
    variable_list outs;
    variable_list gos;
    const std::vector<Tensor> floating = floatingOutputs(fn(xs));
    for (size_t o = 0; o < floating.size(); ++o) {
      if (!floating[o].requires_grad()) continue;
      outs.push_back(floating[o]);
      gos.push_back(grad_outputs[o]);
    }
    variable_list wrt;
    for (const Tensor& t : xs) {
      if (t.requires_grad()) wrt.push_back(t);
    }
    variable_list grads(wrt.size());
    if (!outs.empty() && !wrt.empty()) {
      grads = grad(outs, wrt, gos, /*retain_graph=*/true, /*create_graph=*/true, /*allow_unused=*/true);
    }
    for (size_t i = 0; i < grads.size(); ++i) {
      if (!grads[i].defined()) grads[i] = opcore::zeros(wrt[i].sizes(), wrt[i].scalar_type());
    }
    return grads;
  };
  gradcheck(first_derivatives, all, options);
}

Tensor uniformInput(IntArrayRef sizes, double low, double high, Generator& g) {
  Tensor t(detail::emptyCpu(sizes, ScalarType::Double));
  t.uniform_(low, high, g);
  return t;
}

void requireGrad(variable_list& inputs) {
  for (Tensor& input : inputs) {
    if (isFloating(input)) input.requires_grad_();
  }
}

bool inplaceApplies(const DifferentiableFn& fn, const variable_list& inputs) {
  NoGradGuard no_grad;
  const variable_list outputs = fn(inputs);
  return outputs.size() == 1 && outputs[0].sizes() == inputs[0].sizes() &&
         outputs[0].scalar_type() == inputs[0].scalar_type();
}

std::string checkNoGradients(const DifferentiableFn& fn, variable_list inputs) {
  requireGrad(inputs);
  const variable_list outputs = fn(inputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].requires_grad()) return detail::strCat("output ", i, " requires grad");
  }
  return "";
}

std::string checkNotImplemented(const DifferentiableFn& fn, variable_list inputs) {
  requireGrad(inputs);
  const variable_list outputs = fn(inputs);
  if (outputs.empty()) return "the function returned no output";
  try {
    outputs[0].backward(outputs[0].detach());
  } catch (const Error& e) {
    const std::string what = e.what();
    return what.find("is not implemented") != std::string::npos ? "" : "backward threw: " + what;
  }
  return "backward did not throw";
}

}  // namespace opcore::autograd

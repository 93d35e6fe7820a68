#include <opcore/autograd/Gradcheck.h>

#include <opcore/TensorOperators.h>
#include <opcore/autograd/Engine.h>
#include <opcore/autograd/GradMode.h>
#include <opcore/autograd/Variable.h>
#include <opcore/ops/clone.h>
#include <opcore/ops/rand.h>
#include <opcore/ops/view_as_complex.h>
#include <opcore/ops/view_as_real.h>
#include <opcore/ops/zeros.h>

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace opcore::autograd {

namespace {

bool isFloating(const Tensor& t) { return t.defined() && isDifferentiableType(t.scalar_type()); }
bool isComplex(const Tensor& t) { return isComplexType(t.scalar_type()); }

// Note [Gradcheck over real components]
// A complex number is checked as the pair of reals (real part, imaginary part), as PyTorch's
// gradcheck does: the finite differences perturb each part of an input element separately,
// and each part of an output element gets its own one-hot grad_output (1 for the real part,
// 1j for the imaginary part). With the gradient convention of Note [Complex gradients]
// (Formulas.h), the gradient backward returns for that grad_output holds, at input element
// k, d part / d real(x[k]) as its real part and d part / d imag(x[k]) as its imaginary part:
// exactly the row of the real Jacobian central differences estimate. A real tensor has one
// component per element, a complex one two (its layout: real, imaginary).

int64_t numComponents(const Tensor& t) { return t.numel() * (isComplex(t) ? 2 : 1); }

// Component `c` of `t` (any layout, CPU).
double component(const Tensor& t, int64_t c) {
  if (!isComplex(t)) return detail::elementAsDouble(t, c);
  const complex<double> z = detail::elementAt(t, c / 2).toComplexDouble();
  return c % 2 == 0 ? z.real() : z.imag();
}

// The components of a contiguous Double or ComplexDouble tensor, in place.
double* components(const Tensor& t) {
  if (isComplex(t)) return reinterpret_cast<double*>(t.data_ptr<complex<double>>());
  return t.data_ptr<double>();
}

// "[k]" for a real tensor, "real([k])" or "imag([k])" for a complex one: where a mismatch is.
std::string componentName(const Tensor& t, std::string_view what, int64_t c) {
  if (!isComplex(t)) return detail::strCat(what, "[", c, "]");
  return detail::strCat(c % 2 == 0 ? "real(" : "imag(", what, "[", c / 2, "])");
}

// Fresh leaves: floating and complex inputs as Double or ComplexDouble tensors that require
// grad, others as they are.
variable_list prepareInputs(const variable_list& inputs) {
  variable_list x;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!isFloating(inputs[i])) {
      x.push_back(inputs[i]);
      continue;
    }
    const ScalarType t = inputs[i].scalar_type();
    OPCORE_CHECK(t == ScalarType::Double || t == ScalarType::ComplexDouble, "gradcheck: input ", i, " is ",
                 toString(t), "; finite differences need Double or ComplexDouble inputs");
    Tensor leaf = opcore::clone(inputs[i].detach());
    leaf.requires_grad_();
    x.push_back(leaf);
  }
  return x;
}

// The outputs of fn the checks compare: floating and complex ones.
std::vector<Tensor> floatingOutputs(const variable_list& outputs) {
  std::vector<Tensor> result;
  for (const Tensor& t : outputs) {
    if (isFloating(t)) result.push_back(t);
  }
  return result;
}

// d outputs[o] / d x[i], by central differences: one column per component of x[i], one entry
// per component of the output (Note [Gradcheck over real components]).
std::vector<std::vector<double>> numericalJacobian(const DifferentiableFn& fn, const variable_list& x, size_t i,
                                                   size_t o, double eps) {
  // Grad mode stays on: fn may itself compute gradients (gradgradcheck's function does).
  double* data = components(x[i]);  // x[i] is a contiguous clone (prepareInputs)
  std::vector<std::vector<double>> columns;
  for (int64_t k = 0; k < numComponents(x[i]); ++k) {
    const double saved = data[k];
    // Copies: an output may share memory with the input being nudged (a view, or a
    // gradient passed through unchanged).
    data[k] = saved + eps;
    const Tensor plus = opcore::clone(floatingOutputs(fn(x))[o]);
    data[k] = saved - eps;
    const Tensor minus = opcore::clone(floatingOutputs(fn(x))[o]);
    data[k] = saved;
    std::vector<double> column(static_cast<size_t>(numComponents(plus)));
    for (int64_t j = 0; j < numComponents(plus); ++j) {
      column[j] = (component(plus, j) - component(minus, j)) / (2 * eps);
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
  // Row j of the analytical Jacobian: the gradients for a one-hot grad_output at component j.
  std::vector<variable_list> rows;
  for (int64_t j = 0; j < numComponents(out); ++j) {
    Tensor onehot = opcore::zeros(out.sizes(), out.scalar_type());
    components(onehot)[j] = 1.0;  // zeros() is contiguous
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
        const double a = g.defined() ? component(g, static_cast<int64_t>(k)) : 0.0;
        const double n = numerical[k][j];
        OPCORE_CHECK(std::abs(a - n) <= options.atol + options.rtol * std::abs(n),
                     "gradcheck: Jacobian mismatch for output ", o, " with respect to input ", diff_inputs[w],
                     ", d ", componentName(out, "output", static_cast<int64_t>(j)), " / d ",
                     componentName(wrt[w], "input", static_cast<int64_t>(k)), ": analytical ", a, ", numerical ", n);
      }
    }
  }
}

// A seeded random grad_output for `out`: uniform in [-1, 1), both parts for a complex one.
Tensor randomGradOutput(const Tensor& out, Generator& gen) {
  if (!isComplex(out)) return opcore::rand(out.sizes(), gen, ScalarType::Double) * 2.0 - 1.0;
  std::vector<int64_t> sizes(out.sizes().begin(), out.sizes().end());
  sizes.push_back(2);
  return opcore::view_as_complex(opcore::rand(sizes, gen, ScalarType::Double) * 2.0 - 1.0);
}

}  // namespace

void gradcheck(const DifferentiableFn& fn, const variable_list& inputs, const GradcheckOptions& options) {
  const variable_list x = prepareInputs(inputs);
  const std::vector<Tensor> outputs = floatingOutputs(fn(x));
  for (size_t o = 0; o < outputs.size(); ++o) checkOutput(fn, x, outputs[o], o, options);
}

namespace {

// gradgradcheck's function, (inputs, grad_outputs) -> the first derivatives (made with
// create_graph), and its arguments: the prepared inputs and seeded random grad_outputs.
std::pair<DifferentiableFn, variable_list> firstDerivatives(const DifferentiableFn& fn, const variable_list& inputs) {
  const variable_list x = prepareInputs(inputs);
  // Random (seeded) gradients for the outputs: inputs of the function checked.
  Generator gen = Generator::create(Device(DeviceType::CPU), 20261123);
  variable_list all = x;
  const size_t num_x = x.size();
  for (const Tensor& out : floatingOutputs(fn(x))) {
    all.push_back(randomGradOutput(out, gen));
  }
  DifferentiableFn first_derivatives = [fn, num_x](const variable_list& args) -> variable_list {
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
  return {std::move(first_derivatives), std::move(all)};
}

}  // namespace

void gradgradcheck(const DifferentiableFn& fn, const variable_list& inputs, const GradcheckOptions& options) {
  const auto [first_derivatives, all] = firstDerivatives(fn, inputs);
  gradcheck(first_derivatives, all, options);
}

Tensor uniformInput(IntArrayRef sizes, double low, double high, Generator& g, ScalarType dtype) {
  OPCORE_CHECK(dtype == ScalarType::Double || dtype == ScalarType::ComplexDouble,
               "uniformInput: dtype must be Double or ComplexDouble, not ", toString(dtype));
  Tensor t(detail::emptyCpu(sizes, dtype));
  NoGradGuard no_grad;
  // Both parts of a complex element, through a real view of the same memory.
  Tensor parts = isComplexType(dtype) ? opcore::view_as_real(t) : t;
  parts.uniform_(low, high, g);
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

std::string checkDoubleBackwardNotImplemented(const DifferentiableFn& fn, const variable_list& inputs) {
  const auto [first_derivatives, all] = firstDerivatives(fn, inputs);
  return checkNotImplemented(first_derivatives, all);
}

}  // namespace opcore::autograd

// A program linked to libmyops: calls myops' generated C++ API (functional, in-place, out=),
// and differentiates through it with opcore's autograd. Exits 1 when a value is wrong.
#include <myops/Functions.h>
#include <opcore/opcore.h>

#include <cmath>
#include <iostream>

namespace {

double gelu(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

bool near(double a, double b) { return std::fabs(a - b) <= 1e-5 * (1 + std::fabs(b)); }

}  // namespace

int main() {
  const opcore::Tensor x = (opcore::arange(4, opcore::kDouble) - 1.5).requires_grad_();  // -1.5 ... 1.5
  const opcore::Tensor y = myops::fused_gelu(x);
  y.sum().backward();
  opcore::Tensor z = x.detach().clone();
  myops::fused_gelu_(z);
  opcore::Tensor out = opcore::empty({4}, opcore::kDouble);
  myops::fused_gelu_out(out, x.detach());
  const opcore::Tensor r = myops::scaled_residual(x.detach(), opcore::ones({4}, opcore::kDouble), 2.0);
  opcore::Tensor r_out = opcore::empty({0}, opcore::kDouble);
  myops::scaled_residual_out(r_out, x.detach(), opcore::ones({4}, opcore::kDouble), 2.0);
  bool ok = true;
  for (int64_t i = 0; i < 4; ++i) {
    const double v = -1.5 + static_cast<double>(i), h = 1e-6;
    const double slope = (gelu(v + h) - gelu(v - h)) / (2 * h);
    const auto at = [i](const opcore::Tensor& t) { return t.select(0, i).item<double>(); };
    ok = ok && near(at(y), gelu(v)) && near(at(z), gelu(v)) && near(at(out), gelu(v)) &&
         near(at(x.grad()), slope) && near(at(r), v + 2.0) && near(at(r_out), v + 2.0);
  }
  std::cout << "use_myops: fused_gelu(" << x.detach() << ") = " << y.detach() << ", grad " << x.grad() << ": "
            << (ok ? "ok" : "WRONG") << "\n";
  return ok ? 0 : 1;
}

#include <opcore/autograd/GradMode.h>

namespace opcore::autograd {

namespace {
thread_local bool tls_grad_enabled = true;
}  // namespace

bool GradMode::is_enabled() { return tls_grad_enabled; }
void GradMode::set_enabled(bool enabled) { tls_grad_enabled = enabled; }

bool InferenceMode::is_enabled() {
  return !GradMode::is_enabled() &&
         tlsLocalDispatchKeySet().excluded.has(DispatchKey::ADInplaceOrView);
}

}  // namespace opcore::autograd

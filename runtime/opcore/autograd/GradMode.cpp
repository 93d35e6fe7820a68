#include <opcore/autograd/GradMode.h>

namespace opcore::autograd {

namespace {
thread_local bool tls_grad_enabled = true;
}  // namespace

bool GradMode::isEnabled() { return tls_grad_enabled; }
void GradMode::setEnabled(bool enabled) { tls_grad_enabled = enabled; }

bool InferenceMode::isEnabled() {
  return !GradMode::isEnabled() &&
         tlsLocalDispatchKeySet().excluded.has(DispatchKey::ADInplaceOrView);
}

}  // namespace opcore::autograd

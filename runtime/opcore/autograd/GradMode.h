// Grad mode and the guards built on it and on the dispatcher's thread-local key sets.
//
//   { NoGradGuard g; auto y = w * 2; }           // y.requires_grad() == false
//   { InferenceMode g; ... }                     // no graph, no version counting, no view tracking
//   { AutoDispatchBelowADInplaceOrView g; ... }  // what generated autograd kernels redispatch under
#pragma once

#include <opcore/dispatch/LocalDispatchKeySet.h>

namespace opcore::autograd {

// Whether operations record the graph on this thread (default true).
struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Sets grad mode for the guard's lifetime and restores the previous mode.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

// torch.no_grad(): results of operations in scope do not require grad.
struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};
// torch.enable_grad(): records the graph again inside a NoGradGuard.
struct EnableGradGuard : AutoGradMode {
  EnableGradGuard() : AutoGradMode(true) {}
};

// The autograd and ADInplaceOrView layers: every Autograd<Backend> key, AutogradOther and
// ADInplaceOrView.
inline constexpr DispatchKeySet kAutogradAndADInplaceOrViewKeySet =
    kAutogradKeySet | DispatchKeySet(DispatchKey::ADInplaceOrView);

// Calls in scope skip the autograd layer (they go straight to ADInplaceOrView or the backend).
struct AutoDispatchBelowAutograd : ExcludeDispatchKeyGuard {
  AutoDispatchBelowAutograd() : ExcludeDispatchKeyGuard(kAutogradKeySet) {}
};
// Calls in scope skip autograd and ADInplaceOrView: a generated autograd kernel redispatches
// under this guard, so the kernels below it (composite ones included) record nothing.
struct AutoDispatchBelowADInplaceOrView : ExcludeDispatchKeyGuard {
  AutoDispatchBelowADInplaceOrView() : ExcludeDispatchKeyGuard(kAutogradAndADInplaceOrViewKeySet) {}
};

// torch.inference_mode(): grad mode off and the autograd and ADInplaceOrView layers skipped,
// so calls pay for neither graph recording nor version counting nor view tracking. Unlike
// PyTorch, tensors created inside are ordinary tensors afterwards (there are no "inference
// tensors"): their versions simply did not count the in-place changes made inside.
class InferenceMode {
 public:
  InferenceMode() : grad_(false), below_() {}
  static bool is_enabled();

 private:
  AutoGradMode grad_;
  AutoDispatchBelowADInplaceOrView below_;
};

}  // namespace opcore::autograd

namespace opcore {
// The guards under ATen's names too (at::NoGradGuard, at::AutoGradMode, at::InferenceMode).
using autograd::AutoGradMode;
using autograd::InferenceMode;
using autograd::NoGradGuard;
}  // namespace opcore

// RegistrationHandleRAII: returned by every registration; destroying it undoes exactly what
// that registration added.
#pragma once

#include <functional>
#include <utility>

namespace opcore {

class RegistrationHandleRAII {
 public:
  RegistrationHandleRAII() = default;
  explicit RegistrationHandleRAII(std::function<void()> on_destroy) : on_destroy_(std::move(on_destroy)) {}
  RegistrationHandleRAII(RegistrationHandleRAII&& o) noexcept : on_destroy_(std::exchange(o.on_destroy_, nullptr)) {}
  RegistrationHandleRAII& operator=(RegistrationHandleRAII&& o) noexcept {
    if (this != &o) {
      reset();
      on_destroy_ = std::exchange(o.on_destroy_, nullptr);
    }
    return *this;
  }
  RegistrationHandleRAII(const RegistrationHandleRAII&) = delete;
  RegistrationHandleRAII& operator=(const RegistrationHandleRAII&) = delete;
  ~RegistrationHandleRAII() { reset(); }

  // Undoes the registration now.
  void reset() {
    if (on_destroy_) std::exchange(on_destroy_, nullptr)();
  }

 private:
  std::function<void()> on_destroy_;
};

}  // namespace opcore

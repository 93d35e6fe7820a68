// IntrusivePtr<T>: a reference-counted pointer whose count lives in the object
// (T derives from IntrusiveTarget). One pointer wide; copying is one atomic increment.
//   auto impl = makeIntrusive<TensorImpl>(...);  impl->use_count() == 1
#pragma once

#include <atomic>
#include <cstddef>
#include <utility>

namespace opcore {

class IntrusiveTarget {
 public:
  IntrusiveTarget() = default;
  IntrusiveTarget(const IntrusiveTarget&) = delete;
  IntrusiveTarget& operator=(const IntrusiveTarget&) = delete;
  virtual ~IntrusiveTarget() = default;
  size_t use_count() const { return refcount_.load(std::memory_order_relaxed); }

 private:
  template <typename T>
  friend class IntrusivePtr;
  mutable std::atomic<size_t> refcount_{0};
};

template <typename T>
class IntrusivePtr {
 public:
  IntrusivePtr() = default;
  explicit IntrusivePtr(T* p) : p_(p) { retain(); }
  IntrusivePtr(const IntrusivePtr& o) : p_(o.p_) { retain(); }
  IntrusivePtr(IntrusivePtr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  ~IntrusivePtr() { release(); }
  IntrusivePtr& operator=(IntrusivePtr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  size_t use_count() const { return p_ ? p_->use_count() : 0; }

  // Borrowing (see Note [Borrowed IValues]): a pointer to `p` that holds no reference, and
  // letting go of such a pointer without dropping one. Unsafe: a borrowed pointer must be let
  // go with unsafeForgetBorrow() (never destroyed or assigned to) before `p` can die.
  static IntrusivePtr unsafeBorrow(T* p) {
    IntrusivePtr borrowed;
    borrowed.p_ = p;
    return borrowed;
  }
  void unsafeForgetBorrow() { p_ = nullptr; }

 private:
  void retain() {
    if (p_) p_->refcount_.fetch_add(1, std::memory_order_relaxed);
  }
  void release() {
    if (p_ && p_->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p_;
  }
  T* p_ = nullptr;
};

template <typename T, typename... Args>
IntrusivePtr<T> makeIntrusive(Args&&... args) {
  return IntrusivePtr<T>(new T(std::forward<Args>(args)...));
}

}  // namespace opcore

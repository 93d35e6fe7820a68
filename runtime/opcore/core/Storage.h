// StorageImpl: the reference-counted memory block behind one or more tensors (views share
// it). A Meta storage has a size but no data.
#pragma once

#include <opcore/core/Allocator.h>
#include <opcore/core/IntrusivePtr.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace opcore {

class StorageImpl final : public IntrusiveTarget {
 public:
  StorageImpl(DataPtr data, size_t nbytes) : data_(std::move(data)), nbytes_(nbytes) {}

  void* data() const { return data_.get(); }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return data_.device(); }

  // Note [Version counter] (opcore/autograd/Variable.h): bumped by every in-place operation on
  // a tensor over this storage, so shared by all views of it.
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bumpVersion() { version_.fetch_add(1, std::memory_order_relaxed); }
  void setVersion(uint32_t v) { version_.store(v, std::memory_order_relaxed); }

 private:
  std::atomic<uint32_t> version_{0};
  DataPtr data_;
  size_t nbytes_;
};

using Storage = IntrusivePtr<StorageImpl>;

}  // namespace opcore

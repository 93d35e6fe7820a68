// StorageImpl: the reference-counted memory block behind one or more tensors (views share
// it). A Meta storage has a size but no data.
#pragma once

#include <opcore/core/Allocator.h>
#include <opcore/core/IntrusivePtr.h>

#include <cstddef>
#include <utility>

namespace opcore {

class StorageImpl final : public IntrusiveTarget {
 public:
  StorageImpl(DataPtr data, size_t nbytes) : data_(std::move(data)), nbytes_(nbytes) {}

  void* data() const { return data_.get(); }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return data_.device(); }

 private:
  DataPtr data_;
  size_t nbytes_;
};

using Storage = IntrusivePtr<StorageImpl>;

}  // namespace opcore

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

  // Note [Small storages inline]
  // A CPU storage of 1 to kInlineBytes bytes whose data lives in the StorageImpl's own
  // allocation, kCpuAlignment-aligned, instead of a block of the CPU allocator: one
  // allocation and no allocator lock for the many one-element and small tensors (scalars,
  // loss values, shapes). detail::empty makes them while opcore's own CPU allocator is in use
  // (detail::cpuAllocatorIsBuiltin()), caching or not: the memory comes from the C library
  // and opcore never reuses it, so the sanitizers see it as any heap block (under ASan the
  // padding around the bytes is poisoned). The allocator's counters do not see these storages.
  static constexpr size_t kInlineBytes = 256;
  static IntrusivePtr<StorageImpl> makeInline(size_t nbytes);
  // Every StorageImpl, inline or not, comes from the global operator new.
  static void operator delete(void* p) { ::operator delete(p); }

  void* data() const { return data_.get(); }
  const DataPtr& data_ptr() const { return data_; }
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

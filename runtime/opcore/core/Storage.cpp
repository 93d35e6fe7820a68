// StorageImpl's inline storages (Note [Small storages inline] in Storage.h).
#include <opcore/core/Storage.h>

#include <opcore/core/Error.h>

#include <cstdint>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace opcore {

IntrusivePtr<StorageImpl> StorageImpl::makeInline(size_t nbytes) {
  OPCORE_INTERNAL_ASSERT(nbytes > 0 && nbytes <= kInlineBytes);
  // The StorageImpl, then padding up to the alignment, then the bytes. The global operator
  // new (malloc's fast per-thread path) aligns to 16 bytes only, so the block has room to
  // round up; aligned new would be slower than the allocator this replaces.
  // The padding is never empty, so that under ASan a byte before the data is always poisoned.
  const size_t size = sizeof(StorageImpl) + kCpuAlignment + nbytes;
  char* block = static_cast<char*>(::operator new(size));
  char* after = block + sizeof(StorageImpl);
  const size_t pad = kCpuAlignment - reinterpret_cast<uintptr_t>(after) % kCpuAlignment;
  char* data = after + pad;
#if defined(__SANITIZE_ADDRESS__)
  // Reading or writing past the bytes, or before them, is reported as for any heap block.
  ASAN_POISON_MEMORY_REGION(after, pad);
  ASAN_POISON_MEMORY_REGION(data + nbytes, block + size - data - nbytes);
#endif
  // No deleter: the bytes go with the StorageImpl.
  return IntrusivePtr<StorageImpl>(new (block) StorageImpl(DataPtr(data, nullptr, nullptr, Device(DeviceType::CPU)), nbytes));
}

}  // namespace opcore

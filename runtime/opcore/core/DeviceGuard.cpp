// DeviceGuard: one DeviceGuardImpl slot per device type. See DeviceGuard.h.
#include <opcore/core/DeviceGuard.h>

#include <opcore/core/Error.h>

#include <array>
#include <exception>
#include <atomic>

namespace opcore {

namespace {

std::array<std::atomic<const DeviceGuardImpl*>, kNumDeviceTypes> g_impls{};

}  // namespace

const DeviceGuardImpl* setDeviceGuardImpl(DeviceType type, const DeviceGuardImpl* impl) {
  return g_impls[static_cast<size_t>(type)].exchange(impl);
}

const DeviceGuardImpl* deviceGuardImpl(DeviceType type) {
  return g_impls[static_cast<size_t>(type)].load(std::memory_order_acquire);
}

Stream DeviceGuardImpl::newStream(Device device) const {
  OPCORE_FAIL(device.type(), " devices have only their default stream; new streams cannot be made");
}

namespace {
[[noreturn]] void noEvents(const char* what) {
  OPCORE_FAIL(what, ": this device type has no events");
}
}  // namespace

void* DeviceGuardImpl::recordEvent(void*, Stream, bool) const { noEvents("Event.record"); }
void DeviceGuardImpl::waitEvent(void*, Stream) const { noEvents("Event.wait"); }
bool DeviceGuardImpl::queryEvent(void*) const { noEvents("Event.query"); }
void DeviceGuardImpl::synchronizeEvent(void*) const { noEvents("Event.synchronize"); }
double DeviceGuardImpl::elapsedTime(void*, void*) const { noEvents("Event.elapsed_time"); }

Stream currentStream(Device device) {
  const DeviceGuardImpl* impl = deviceGuardImpl(device.type());
  if (impl == nullptr) return Stream(device);
  if (!device.has_index()) device = Device(device.type(), impl->currentDevice());
  return impl->currentStream(device);
}

DeviceGuard::DeviceGuard(Device device) {
  const DeviceGuardImpl* impl = device.index() >= 0 ? deviceGuardImpl(device.type()) : nullptr;
  if (impl == nullptr) return;
  previous_ = impl->currentDevice();
  if (previous_ == device.index()) return;
  impl->setDevice(device.index());
  impl_ = impl;
}

DeviceGuard::~DeviceGuard() {
  if (impl_ == nullptr) return;
  // A destructor must not throw (it may run while an exception unwinds): after a device error
  // that sticks (an illegal address), restoring the device fails too, and the next call on the
  // device reports that error.
  try {
    impl_->setDevice(previous_);
  } catch (const std::exception&) {
  }
}

namespace detail {

void checkSameDevice(const char* op, std::initializer_list<std::pair<const char*, const TensorBase*>> tensors) {
  const std::pair<const char*, const TensorBase*>* first = nullptr;
  for (const auto& entry : tensors) {
    if (!entry.second->defined()) continue;
    if (first == nullptr) {
      first = &entry;
      continue;
    }
    OPCORE_CHECK(entry.second->device() == first->second->device(), op,
                 ": expected all tensors to be on the same device, but found at least two devices, ",
                 first->second->device(), " (argument '", first->first, "') and ", entry.second->device(),
                 " (argument '", entry.first, "')");
  }
}

}  // namespace detail
}  // namespace opcore

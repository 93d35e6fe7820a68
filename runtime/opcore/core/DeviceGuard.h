// The current device of a device type, switched for the duration of a kernel. The generated
// wrappers of CUDA (and PrivateUse1) kernels open a DeviceGuard on their first tensor's device
// unless the entry says `device_guard: False`, and check that all tensors share one device
// unless it says `device_check: NoCheck`. Wrappers of structured kernels instead run the meta
// function first, which checks the devices, and guard the device of its result (Note
// [Devices of structured kernels] in gen/emit/structured.py).
//   { DeviceGuard guard(t.device());  /* cuda:1 is current here */ }  // previous one restored
// A backend provides a DeviceGuardImpl for its device type (kernels/cuda/CudaOps.cpp does for
// CUDA); types without one (CPU, Meta) have no current device and the guard does nothing.
#pragma once

#include <opcore/core/Device.h>
#include <opcore/core/Stream.h>
#include <opcore/core/TensorBase.h>

#include <initializer_list>
#include <utility>

namespace opcore {

class DeviceGuardImpl {
 public:
  virtual ~DeviceGuardImpl() = default;
  virtual DeviceIndex currentDevice() const = 0;
  virtual void setDevice(DeviceIndex index) const = 0;
  // The current stream of `device` (Stream.h), and making `stream` current on its device,
  // returning the one it replaces. A backend without streams keeps these: every device has
  // only its default stream.
  virtual Stream currentStream(Device device) const { return Stream(device); }
  virtual Stream exchangeStream(Stream stream) const { return Stream(stream.device); }
  // A stream for new work on `device` (opcore.cuda.Stream()); the default refuses, for a
  // backend with only the default stream.
  virtual Stream newStream(Device device) const;
  // Waiting for the work queued on a stream, or on a whole device. A backend whose work is
  // done when its calls return keeps these, which return at once.
  virtual void synchronizeStream(Stream stream) const {}
  virtual void synchronizeDevice(DeviceIndex index) const {}
  // Whether the work queued on `stream` has finished.
  virtual bool queryStream(Stream stream) const { return true; }
  // Events (opcore.cuda.Event), opaque handles of the backend's: recordEvent records `event`
  // after the work queued on `stream` so far, making it first when null (with timing when
  // asked), and returns it; waitEvent makes `stream`'s later work wait for it; elapsedTime is in
  // milliseconds between two timed events. The defaults refuse, for a backend without events.
  virtual void* recordEvent(void* event, Stream stream, bool timing) const;
  virtual void waitEvent(void* event, Stream stream) const;
  virtual bool queryEvent(void* event) const;
  virtual void synchronizeEvent(void* event) const;
  virtual double elapsedTime(void* start, void* end) const;
  virtual void destroyEvent(void* event) const {}
};

// Installs `impl` for `type` (nullptr: none) and returns the previous one. `impl` must outlive
// its installation. Not thread-safe against running guards: call at load time.
const DeviceGuardImpl* setDeviceGuardImpl(DeviceType type, const DeviceGuardImpl* impl);
const DeviceGuardImpl* deviceGuardImpl(DeviceType type);

// The current stream of `device` (its device index resolved): its type's DeviceGuardImpl's
// answer, or the default stream for a type without one.
Stream currentStream(Device device);

class DeviceGuard {
 public:
  // Makes `device` current if it has an index and its type a DeviceGuardImpl.
  explicit DeviceGuard(Device device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  const DeviceGuardImpl* impl_ = nullptr;  // set only when the device was switched
  DeviceIndex previous_ = -1;
};

namespace detail {

// Throws unless every defined tensor is on the same device, naming the operator and the two
// arguments that differ:
//   checkSameDevice("aten::add.out", {{"self", &self}, {"other", &other}, {"out", &out}});
void checkSameDevice(const char* op, std::initializer_list<std::pair<const char*, const TensorBase*>> tensors);

}  // namespace detail
}  // namespace opcore

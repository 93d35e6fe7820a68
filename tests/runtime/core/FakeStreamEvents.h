// The events of a pretend device for the caching allocators' tests: an event finishes when the
// test says the work on its stream has (finishWorkOn) or when waited for (synchronizeEvent).
//   class FakeDeviceMemory final : public FakeStreamEvents { ...allocate, free, ... };
#pragma once

#include <opcore/core/CachingDeviceAllocator.h>
#include <opcore/core/Error.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace opcore {

class FakeStreamEvents : public DeviceMemory {
 public:
  Event recordEvent(Stream stream) override {
    OPCORE_CHECK(!failed, "recordEvent: the pretend device has failed");
    events_.push_back(std::make_unique<FakeEvent>(FakeEvent{stream.id}));
    return events_.back().get();
  }
  bool eventDone(Event event) override { return static_cast<FakeEvent*>(event)->done; }
  void synchronizeEvent(Event event) override {
    static_cast<FakeEvent*>(event)->done = true;
    ++synchronized;
  }
  void releaseEvent(Event) override { ++released_events; }

  // Marks every event recorded on stream `id` so far as passed.
  void finishWorkOn(int32_t id) {
    for (auto& e : events_) {
      if (e->stream_id == id) e->done = true;
    }
  }
  size_t recordedEvents() const { return events_.size(); }

  int synchronized = 0, released_events = 0;
  bool failed = false;  // recordEvent throws, as CUDA's after a sticky error

 private:
  struct FakeEvent {
    int32_t stream_id;
    bool done = false;
  };
  std::vector<std::unique_ptr<FakeEvent>> events_;
};

}  // namespace opcore

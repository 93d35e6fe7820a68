// What a caching allocator needs to reuse a block that work on other streams used
// (Note [Caching device allocator], Note [Caching host allocator]): the streams it was used on,
// and after its free an event on each, all of which must pass before it is handed out again.
// Shared by CachingDeviceAllocator and CachingHostAllocator; callers hold their allocator's lock.
//   block->uses.add(side_stream);                    // recordStream
//   if (pending.free(memory, block)) makeFree(block); // at its free: no other stream used it
//   pending.process(memory, /*wait=*/false, makeFree);
#pragma once

#include <opcore/core/CachingDeviceAllocator.h>

#include <algorithm>
#include <deque>
#include <utility>
#include <vector>

namespace opcore::detail {

// The streams a block was used on since it was handed out (besides the one it was made for,
// for the device allocator), and how many events it waits for after its free.
struct StreamUses {
  std::vector<Stream> streams;
  int pending_events = 0;

  void add(Stream stream) {
    if (std::find(streams.begin(), streams.end(), stream) == streams.end()) streams.push_back(stream);
  }
};

// The freed blocks that wait for events. `Block` has a member `StreamUses uses`.
template <typename Block>
class PendingFrees {
 public:
  // At `block`'s free: an event on each stream it was used on. True when it waits for none, and
  // so is free at once. An event that cannot be recorded (the device has failed: a sticky
  // error) is kept as none, which never passes: nothing can tell when that stream is done with
  // the block, so it is never handed out again. Nothing is thrown from here, which a tensor's
  // deleter calls.
  bool free(DeviceMemory& memory, Block* block) noexcept {
    for (const Stream& use : block->uses.streams) {
      DeviceMemory::Event event = nullptr;
      try {
        event = memory.recordEvent(use);
      } catch (...) {
      }
      pending_.emplace_back(event, block);
      ++block->uses.pending_events;
    }
    block->uses.streams.clear();
    return block->uses.pending_events == 0;
  }

  // Hands `ready` each block whose events have all passed (waiting for every event when `wait`).
  template <typename Ready>
  void process(DeviceMemory& memory, bool wait, Ready&& ready) {
    for (auto it = pending_.begin(); it != pending_.end();) {
      auto [event, block] = *it;
      if (event == nullptr) {  // never recorded: never passes
        ++it;
        continue;
      }
      if (wait) {
        memory.synchronizeEvent(event);
      } else if (!memory.eventDone(event)) {
        ++it;
        continue;
      }
      memory.releaseEvent(event);
      it = pending_.erase(it);
      if (--block->uses.pending_events == 0) ready(block);
    }
  }

 private:
  std::deque<std::pair<DeviceMemory::Event, Block*>> pending_;
};

}  // namespace opcore::detail

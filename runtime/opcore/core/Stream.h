// Stream: an ordered queue of work on one device (`Stream s` in schemas): the device and a
// stream id, where id 0 is the device's default stream (the only one a CPU has). A plain
// 8-byte value; opcore does not create streams itself, a backend hands out the ids.
//   Stream s(Device(DeviceType::CUDA, 0), 3);  s.str() == "stream 3 on cuda:0"
#pragma once

#include <opcore/core/Device.h>

#include <cstdint>
#include <iosfwd>
#include <string>

namespace opcore {

struct Stream {
  Device device;
  int32_t id = 0;  // 0: the default stream of `device`

  constexpr Stream() = default;
  constexpr explicit Stream(Device d, int32_t stream_id = 0) : device(d), id(stream_id) {}

  constexpr bool isDefault() const { return id == 0; }
  constexpr bool operator==(const Stream& o) const { return device == o.device && id == o.id; }
  constexpr bool operator!=(const Stream& o) const { return !(*this == o); }
  std::string str() const;
};

std::ostream& operator<<(std::ostream& os, const Stream& s);

}  // namespace opcore

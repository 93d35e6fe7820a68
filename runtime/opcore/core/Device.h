// Device: where a tensor's data lives (CPU, a CUDA device, or Meta: shapes only, no data).
//   Device d(DeviceType::CUDA, 0);  std::cout << d;  // "cuda:0"
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace opcore {

enum class DeviceType : int8_t { CPU = 0, CUDA, Meta };
// ATen's names for the device types:  opcore::Device(opcore::kCUDA, 0)
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kMeta = DeviceType::Meta;

// A device's number within its type (cuda:1 has index 1); -1 means the current one.
using DeviceIndex = int8_t;

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: the current device of that type

  constexpr Device() = default;
  constexpr Device(DeviceType t, int8_t i = -1) : type(t), index(i) {}  // NOLINT: implicit by design

  constexpr bool is_cpu() const { return type == DeviceType::CPU; }
  constexpr bool is_cuda() const { return type == DeviceType::CUDA; }
  constexpr bool is_meta() const { return type == DeviceType::Meta; }
  constexpr bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  std::string str() const;
};

const char* toString(DeviceType t);
std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace opcore

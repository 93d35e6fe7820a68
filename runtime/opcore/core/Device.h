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

class Device {
 public:
  constexpr Device() = default;
  constexpr Device(DeviceType type, DeviceIndex index = -1) : type_(type), index_(index) {}  // NOLINT: implicit

  constexpr DeviceType type() const { return type_; }
  // -1: the current device of that type.
  constexpr DeviceIndex index() const { return index_; }
  constexpr bool has_index() const { return index_ >= 0; }
  constexpr bool is_cpu() const { return type_ == DeviceType::CPU; }
  constexpr bool is_cuda() const { return type_ == DeviceType::CUDA; }
  constexpr bool is_meta() const { return type_ == DeviceType::Meta; }
  constexpr bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  std::string str() const;

 private:
  DeviceType type_ = DeviceType::CPU;
  DeviceIndex index_ = -1;
};

const char* toString(DeviceType t);
std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace opcore

// Device: where a tensor's data lives (CPU, a CUDA device, Meta: shapes only, no data, or
// PrivateUse1: a device of an out-of-tree backend, docs/backends.md).
//   Device d(DeviceType::CUDA, 0);  std::cout << d;  // "cuda:0"
//   register_privateuse1_backend("npu");  Device(DeviceType::PrivateUse1, 0).str() == "npu:0"
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace opcore {

enum class DeviceType : int8_t { CPU = 0, CUDA, Meta, PrivateUse1 };
constexpr int kNumDeviceTypes = static_cast<int>(DeviceType::PrivateUse1) + 1;
// ATen's names for the device types:  opcore::Device(opcore::kCUDA, 0)
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kMeta = DeviceType::Meta;
constexpr DeviceType kPrivateUse1 = DeviceType::PrivateUse1;

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
  constexpr bool is_privateuseone() const { return type_ == DeviceType::PrivateUse1; }
  // Whether devices of this type are numbered (CUDA, PrivateUse1): a tensor's device then
  // always has an index.
  constexpr bool has_device_index_type() const { return type_ == DeviceType::CUDA || type_ == DeviceType::PrivateUse1; }
  constexpr bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  std::string str() const;

 private:
  DeviceType type_ = DeviceType::CPU;
  DeviceIndex index_ = -1;
};

// "cpu", "cuda", "meta", and PrivateUse1's name: "privateuseone" until a backend renames it.
const char* toString(DeviceType t);
std::ostream& operator<<(std::ostream& os, const Device& d);

// Names PrivateUse1's devices (c10's register_privateuse1_backend): "npu:0" then parses and
// prints as "privateuseone:0" did. Once per process: renaming again to another name, or to
// a built-in device type's name, throws; the same name again is accepted (a backend library
// loaded twice). `name` must be lowercase letters, digits and '_', starting with a letter.
void register_privateuse1_backend(const std::string& name);
// PrivateUse1's current name ("privateuseone" when no backend renamed it).
std::string get_privateuse1_backend();
// Whether a backend renamed PrivateUse1.
bool is_privateuse1_backend_registered();
// The device type a name stands for ("cuda", the renamed PrivateUse1's name or
// "privateuseone"); nullopt for other text.
std::optional<DeviceType> parseDeviceType(std::string_view name);

}  // namespace opcore

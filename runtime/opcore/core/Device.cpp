// Printing and parsing of devices, and PrivateUse1's name.
#include <opcore/core/Device.h>

#include <opcore/core/Error.h>

#include <atomic>
#include <mutex>

namespace opcore {

namespace {

constexpr const char* kPrivateUse1DefaultName = "privateuseone";

// PrivateUse1's name once a backend renamed it; null before. Published once and never freed,
// so that toString can hand out its characters to any thread at any time.
std::atomic<const std::string*> g_privateuse1_name{nullptr};

bool isValidBackendName(const std::string& name) {
  if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

}  // namespace

const char* toString(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::CUDA: return "cuda";
    case DeviceType::Meta: return "meta";
    case DeviceType::PrivateUse1: {
      const std::string* name = g_privateuse1_name.load(std::memory_order_acquire);
      return name ? name->c_str() : kPrivateUse1DefaultName;
    }
  }
  return "unknown";
}

void register_privateuse1_backend(const std::string& name) {
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  const std::string* current = g_privateuse1_name.load(std::memory_order_acquire);
  if (current && *current == name) return;
  OPCORE_CHECK(current == nullptr, "register_privateuse1_backend('", name, "'): PrivateUse1 is already named '",
               *current, "'; a process has one PrivateUse1 backend, named once");
  OPCORE_CHECK(isValidBackendName(name), "register_privateuse1_backend('", name,
               "'): a backend name is lowercase letters, digits and '_', starting with a letter");
  const std::optional<DeviceType> taken = parseDeviceType(name);
  OPCORE_CHECK(!taken, "register_privateuse1_backend('", name, "'): '", name,
               "' is the name of a built-in device type");
  g_privateuse1_name.store(new std::string(name), std::memory_order_release);
}

std::string get_privateuse1_backend() { return toString(DeviceType::PrivateUse1); }

bool is_privateuse1_backend_registered() { return g_privateuse1_name.load(std::memory_order_acquire) != nullptr; }

std::optional<DeviceType> parseDeviceType(std::string_view name) {
  for (const DeviceType t : {DeviceType::CPU, DeviceType::CUDA, DeviceType::Meta}) {
    if (name == toString(t)) return t;
  }
  if (name == kPrivateUse1DefaultName || name == toString(DeviceType::PrivateUse1)) return DeviceType::PrivateUse1;
  return std::nullopt;
}

std::string Device::str() const {
  std::string s = toString(type_);
  if (index_ >= 0) s += ":" + std::to_string(index_);
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace opcore

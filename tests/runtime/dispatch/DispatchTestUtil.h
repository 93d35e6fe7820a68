// Helpers shared by the dispatcher tests. Kernels take TensorBase so the tests do not depend
// on generated code; every test uses its own operator namespace.
#pragma once

#include <opcore/core/Empty.h>
#include <opcore/core/Error.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/library/Library.h>

#include <functional>
#include <string>

namespace opcore::dispatch_test {

using UnaryFn = int64_t(const TensorBase&);

inline TensorBase cpuTensor() { return detail::emptyCpu({1}, ScalarType::Float); }
inline TensorBase metaTensor() { return detail::empty({1}, ScalarType::Float, Device(DeviceType::Meta)); }

inline int64_t returnsOne(const TensorBase&) { return 1; }
inline int64_t returnsTwo(const TensorBase&) { return 2; }
inline int64_t returnsThree(const TensorBase&) { return 3; }

// Libraries registered "at" the calling line (or `line`), as the macros would be.
inline Library defLib(const char* ns, uint32_t line = __builtin_LINE(), const char* file = __builtin_FILE()) {
  return Library(Library::FRAGMENT, ns, std::nullopt, file, line);
}
inline Library implLib(const char* ns, DispatchKey k, uint32_t line = __builtin_LINE(),
                       const char* file = __builtin_FILE()) {
  return Library(Library::IMPL, ns, k, file, line);
}

inline OperatorHandle opNamed(const char* name, const char* overload = "") {
  return Dispatcher::singleton().findSchemaOrThrow(name, overload);
}
inline int64_t callOp(const char* name, const TensorBase& t) { return opNamed(name).typed<UnaryFn>().call(t); }

// The message of the opcore::Error `f` throws, or "(no error)".
inline std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace opcore::dispatch_test

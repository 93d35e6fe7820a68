// Readable names for kernel signatures in error messages.
#include <opcore/dispatch/CppSignature.h>

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace opcore {

std::string CppSignature::name() const {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(index_.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && demangled ? demangled.get() : index_.name();
}

}  // namespace opcore

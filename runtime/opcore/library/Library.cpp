// Library registration calls, forwarded to the Dispatcher with their source location.
#include <opcore/library/Library.h>

#include <opcore/core/Error.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/dispatch/FunctionSchema.h>

#include <cstring>

namespace opcore {

Library::Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file, uint32_t line)
    : kind_(kind), ns_(std::move(ns)), key_(key), file_(file), line_(line) {
  if (kind_ == DEF) registrations_.push_back(Dispatcher::singleton().registerLibrary(ns_, debug()));
}

std::string Library::debug() const {
  const char* slash = std::strrchr(file_, '/');
  return detail::strCat("registered at ", slash ? slash + 1 : file_, ":", line_);
}

Library& Library::def(const char* schema_text) {
  OPCORE_CHECK(kind_ != IMPL, "def(\"", schema_text, "\") in an OPCORE_LIBRARY_IMPL block (",
               debug(), "): define operators in OPCORE_LIBRARY or OPCORE_LIBRARY_FRAGMENT");
  FunctionSchema schema = FunctionSchema::parse(schema_text);
  schema.setNamespaceIfNotSet(ns_);
  const std::string& name = schema.operatorName().name;
  OPCORE_CHECK(name.compare(0, ns_.size() + 2, ns_ + "::") == 0, "def(\"", schema_text,
               "\"): operator namespace differs from the library's namespace '", ns_, "' (", debug(), ")");
  registrations_.push_back(Dispatcher::singleton().registerDef(std::move(schema), debug()));
  return *this;
}

Library& Library::implKernel(const char* name, KernelFunction kernel) {
  OperatorName op = OperatorName::parse(name);
  if (op.name.find("::") == std::string::npos) op.name = ns_ + "::" + op.name;
  OPCORE_CHECK(op.name.compare(0, ns_.size() + 2, ns_ + "::") == 0, "impl(\"", name,
               "\"): operator namespace differs from the library's namespace '", ns_, "' (", debug(), ")");
  const DispatchKey key = key_.value_or(DispatchKey::CompositeImplicitAutograd);
  registrations_.push_back(
      Dispatcher::singleton().registerImpl(std::move(op), key, std::move(kernel), debug()));
  return *this;
}

}  // namespace opcore

// Library registration calls, forwarded to the Dispatcher with their source location.
#include <opcore/library/Library.h>

#include <opcore/core/Error.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/dispatch/FunctionSchema.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

namespace opcore {

// The namespace of OPCORE_LIBRARY_IMPL(_, Key, m): fallbacks for every operator.
static constexpr const char* kAnyNamespace = "_";

Library::Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file, uint32_t line)
    : kind_(kind), ns_(std::move(ns)), key_(key), file_(file), line_(line) {
  OPCORE_CHECK(ns_ != kAnyNamespace || kind_ == IMPL, "namespace '_' (", debug(),
               ") is for OPCORE_LIBRARY_IMPL(_, Key, m) fallback blocks only");
  if (kind_ == DEF) registrations_.push_back(Dispatcher::singleton().registerLibrary(ns_, debug()));
}

namespace detail {

LibraryInit::LibraryInit(Library::Kind kind, void (*init)(Library&), const char* ns,
                         std::optional<DispatchKey> key, const char* file, uint32_t line) try
    : lib_(kind, ns, key, file, line) {
  init(lib_);
} catch (const std::exception& e) {
  std::fprintf(stderr, "opcore: the registration block at %s:%u failed during static initialization: %s\n",
               file, line, e.what());
  std::abort();
}

}  // namespace detail

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

void Library::defInferred(const char* name, const std::optional<std::string>& inferred) {
  OPCORE_CHECK(inferred.has_value(), "def(\"", name, "\", kernel) (", debug(),
               "): a boxed kernel has no C++ types to infer a schema from; write the schema");
  const std::string schema = detail::strCat(name, *inferred);
  def(schema.c_str());
}

Library& Library::fallback(KernelFunction kernel) {
  OPCORE_CHECK(kind_ == IMPL && ns_ == kAnyNamespace, "fallback() outside an OPCORE_LIBRARY_IMPL(_, Key, m) block (",
               debug(), "): fallbacks serve every namespace");
  registrations_.push_back(Dispatcher::singleton().registerFallback(*key_, std::move(kernel), debug()));
  return *this;
}

Library& Library::implKernel(const char* name, KernelFunction kernel, std::optional<DispatchKey> key) {
  OPCORE_CHECK(ns_ != kAnyNamespace, "impl(\"", name, "\") in an OPCORE_LIBRARY_IMPL(_, ...) block (", debug(),
               "): such blocks register fallbacks only");
  OPCORE_CHECK(kind_ != IMPL || key == key_, "impl(\"", name, "\") at dispatch key ", *key,
               " in an OPCORE_LIBRARY_IMPL block for ", *key_, " (", debug(), ")");
  OperatorName op = OperatorName::parse(name);
  if (op.name.find("::") == std::string::npos) op.name = ns_ + "::" + op.name;
  OPCORE_CHECK(op.name.compare(0, ns_.size() + 2, ns_ + "::") == 0, "impl(\"", name,
               "\"): operator namespace differs from the library's namespace '", ns_, "' (", debug(), ")");
  registrations_.push_back(Dispatcher::singleton().registerImpl(
      std::move(op), key.value_or(DispatchKey::CompositeImplicitAutograd), std::move(kernel), debug()));
  return *this;
}

}  // namespace opcore

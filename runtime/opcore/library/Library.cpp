// Library registration calls, forwarded to the Dispatcher with their source location.
#include <opcore/library/Library.h>

#include <opcore/core/Error.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/dispatch/FunctionSchema.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <utility>

namespace opcore {

// The namespace of OPCORE_LIBRARY_IMPL(_, Key, m): fallbacks for every operator.
static constexpr const char* kAnyNamespace = "_";

namespace {
thread_local LibraryLoadScope* tls_load_scope = nullptr;

// "Library.cpp:42" for __FILE__ and __LINE__.
std::string siteOf(const char* file, uint32_t line) {
  const char* slash = std::strrchr(file, '/');
  return detail::strCat(slash ? slash + 1 : file, ":", line);
}
}  // namespace

Library::Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file, uint32_t line)
    : Library(kind, std::move(ns), key, siteOf(file, line)) {}

Library::Library(Kind kind, std::string ns, std::optional<DispatchKey> key, std::string site)
    : kind_(kind), ns_(std::move(ns)), key_(key), site_(std::move(site)) {
  OPCORE_CHECK(ns_ != kAnyNamespace || kind_ == IMPL, "namespace '_' (", debug(site_),
               ") is for OPCORE_LIBRARY_IMPL(_, Key, m) fallback blocks only");
  if (kind_ == DEF) registrations_.push_back(Dispatcher::singleton().registerLibrary(ns_, debug(site_)));
}

LibraryLoadScope::LibraryLoadScope() : previous_(std::exchange(tls_load_scope, this)) {}
LibraryLoadScope::~LibraryLoadScope() { tls_load_scope = previous_; }

namespace detail {

LibraryInit::LibraryInit(Library::Kind kind, void (*init)(Library&), const char* ns,
                         std::optional<DispatchKey> key, const char* file, uint32_t line) {
  try {
    lib_.emplace(kind, ns, key, file, line);
    init(*lib_);
  } catch (const std::exception& e) {
    lib_.reset();  // what the block registered before it threw goes
    if (tls_load_scope == nullptr) {
      std::fprintf(stderr, "opcore: the registration block at %s:%u failed during static initialization: %s\n",
                   file, line, e.what());
      std::abort();
    }
    if (tls_load_scope->error_.empty()) {
      tls_load_scope->error_ = detail::strCat("the registration block at ", siteOf(file, line), " failed: ", e.what());
    }
  }
}

}  // namespace detail

Library& Library::def(const char* schema_text, std::vector<std::string> tags) {
  return def(schema_text, std::move(tags), site_);
}

Library& Library::def(const char* schema_text, std::vector<std::string> tags, const std::string& site) {
  OPCORE_CHECK(kind_ != IMPL, "def(\"", schema_text, "\") in an OPCORE_LIBRARY_IMPL block (",
               debug(site), "): define operators in OPCORE_LIBRARY or OPCORE_LIBRARY_FRAGMENT");
  FunctionSchema schema = FunctionSchema::parse(schema_text);
  schema.setNamespaceIfNotSet(ns_);
  const std::string& name = schema.operatorName().name;
  OPCORE_CHECK(name.compare(0, ns_.size() + 2, ns_ + "::") == 0, "def(\"", schema_text,
               "\"): operator namespace differs from the library's namespace '", ns_, "' (", debug(site), ")");
  registrations_.push_back(Dispatcher::singleton().registerDef(std::move(schema), debug(site), std::move(tags)));
  return *this;
}

void Library::defInferred(const char* name, const std::optional<std::string>& inferred) {
  OPCORE_CHECK(inferred.has_value(), "def(\"", name, "\", kernel) (", debug(site_),
               "): a boxed kernel has no C++ types to infer a schema from; write the schema");
  const std::string schema = detail::strCat(name, *inferred);
  def(schema.c_str());
}

Library& Library::fallback(KernelFunction kernel) {
  OPCORE_CHECK(key_.has_value(), "fallback() in a library without a dispatch key (", debug(site_), ")");
  return fallback(*key_, std::move(kernel), site_);
}

Library& Library::fallback(DispatchKey key, KernelFunction kernel, const std::string& site) {
  OPCORE_CHECK(kind_ == IMPL && ns_ == kAnyNamespace, "fallback() outside an OPCORE_LIBRARY_IMPL(_, Key, m) block (",
               debug(site), "): fallbacks serve every namespace");
  registrations_.push_back(Dispatcher::singleton().registerFallback(key, std::move(kernel), debug(site)));
  return *this;
}

Library& Library::impl(const char* name, std::optional<DispatchKey> key, KernelFunction kernel,
                       const std::string& site) {
  OPCORE_CHECK(ns_ != kAnyNamespace, "impl(\"", name, "\") in an OPCORE_LIBRARY_IMPL(_, ...) block (", debug(site),
               "): such blocks register fallbacks only");
  OPCORE_CHECK(kind_ != IMPL || key == key_, "impl(\"", name, "\") at dispatch key ", key.value_or(DispatchKey::CompositeImplicitAutograd),
               " in an OPCORE_LIBRARY_IMPL block for ", *key_, " (", debug(site), ")");
  OperatorName op = OperatorName::parse(name);
  if (op.name.find("::") == std::string::npos) op.name = ns_ + "::" + op.name;
  OPCORE_CHECK(op.name.compare(0, ns_.size() + 2, ns_ + "::") == 0, "impl(\"", name,
               "\"): operator namespace differs from the library's namespace '", ns_, "' (", debug(site), ")");
  registrations_.push_back(Dispatcher::singleton().registerImpl(
      std::move(op), key.value_or(DispatchKey::CompositeImplicitAutograd), std::move(kernel), debug(site)));
  return *this;
}

}  // namespace opcore

// Out-of-line construction of error messages, so that the checking macros stay small.
#include <opcore/core/Error.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace opcore::detail {

MessageBuilder::MessageBuilder() : os_(std::make_unique<std::ostringstream>()) {}
MessageBuilder::~MessageBuilder() = default;
std::ostream& MessageBuilder::stream() { return *os_; }
std::string MessageBuilder::str() const { return os_->str(); }

static const char* baseName(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

namespace {

void printWarning(const std::string& msg) { std::fprintf(stderr, "opcore warning: %s\n", msg.c_str()); }

std::atomic<WarningHandler> g_warning_handler{&printWarning};

}  // namespace

WarningHandler setWarningHandler(WarningHandler handler) {
  return g_warning_handler.exchange(handler ? handler : &printWarning);
}

void warn(const std::string& msg) { g_warning_handler.load(std::memory_order_acquire)(msg); }

void throwError(const char* file, int line, const std::string& msg) {
  throw Error(strCat(msg, " (raised at ", baseName(file), ":", line, ")"));
}

void throwIndexError(const char* file, int line, const std::string& msg) {
  throw IndexError(strCat(msg, " (raised at ", baseName(file), ":", line, ")"));
}

void throwNotImplementedError(const char* file, int line, const std::string& msg) {
  throw NotImplementedError(strCat(msg, " (raised at ", baseName(file), ":", line, ")"));
}

void throwOutOfMemoryError(const char* file, int line, const std::string& msg) {
  throw OutOfMemoryError(strCat(msg, " (raised at ", baseName(file), ":", line, ")"));
}

void throwInternalError(const char* file, int line, const char* cond, const std::string& msg) {
  throw Error(strCat("internal error: ", cond, " failed at ", baseName(file), ":", line,
                     msg.empty() ? "" : ": ", msg,
                     ". This is a bug in opcore; please report it."));
}

}  // namespace opcore::detail

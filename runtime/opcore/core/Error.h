// opcore::Error and the checking macros. User mistakes throw Error (never abort); our own
// bugs are caught by OPCORE_INTERNAL_ASSERT, whose message says so.
#pragma once

#include <opcore/core/Macros.h>

#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>

namespace opcore {

// Thrown for every user-facing error. what() is the full message, including where it was
// raised ("(raised at file.cpp:42)").
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

// An index or a dimension out of range (Python's IndexError; opcore._C raises it as one).
class IndexError : public Error {
 public:
  using Error::Error;
};

// What opcore does not do (yet), such as an operator with no kernel for the call's keys
// (Python's NotImplementedError; opcore._C raises it as one).
class NotImplementedError : public Error {
 public:
  using Error::Error;
};

// A device allocator with no room left for a request, after returning its cached memory and
// trying again (CachingDeviceAllocator.h; opcore._C raises opcore.cuda.OutOfMemoryError, a
// RuntimeError, as torch raises torch.cuda.OutOfMemoryError).
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

namespace detail {

// The stream strCat writes to. Its std::ostringstream lives in Error.cpp, so that this header,
// which every translation unit includes, does not pull in <sstream> (bench/README.md, "Compile
// cost").
class MessageBuilder {
 public:
  MessageBuilder();
  ~MessageBuilder();
  MessageBuilder(const MessageBuilder&) = delete;
  MessageBuilder& operator=(const MessageBuilder&) = delete;
  std::ostream& stream();
  std::string str() const;

 private:
  std::unique_ptr<std::ostringstream> os_;
};

template <typename... Args>
std::string strCat(const Args&... args) {
  MessageBuilder message;
  (message.stream() << ... << args);
  return message.str();
}

// What a warning becomes (c10's WarningHandler): printed to stderr as "opcore warning: ..."
// unless a handler is installed (opcore._C installs one that issues a Python UserWarning and
// throws when the warnings filter makes it an error). Returns the previous handler.
using WarningHandler = void (*)(const std::string& msg);
WarningHandler setWarningHandler(WarningHandler handler);
void warn(const std::string& msg);

[[noreturn]] void throwError(const char* file, int line, const std::string& msg);
[[noreturn]] void throwIndexError(const char* file, int line, const std::string& msg);
[[noreturn]] void throwNotImplementedError(const char* file, int line, const std::string& msg);
[[noreturn]] void throwOutOfMemoryError(const char* file, int line, const std::string& msg);
[[noreturn]] void throwInternalError(const char* file, int line, const char* cond,
                                     const std::string& msg);

}  // namespace detail
}  // namespace opcore

// OPCORE_CHECK(x.dim() == 2, "mm: expected a 2-D tensor, got ", x.dim(), "-D");
#define OPCORE_CHECK(cond, ...) OPCORE_CHECK_THROWING(throwError, cond, __VA_ARGS__)
// Like OPCORE_CHECK, throwing IndexError: for an index or a dimension out of range.
#define OPCORE_CHECK_INDEX(cond, ...) OPCORE_CHECK_THROWING(throwIndexError, cond, __VA_ARGS__)
// Like OPCORE_CHECK, throwing NotImplementedError: for what opcore does not do.
#define OPCORE_CHECK_NOT_IMPLEMENTED(cond, ...) \
  OPCORE_CHECK_THROWING(throwNotImplementedError, cond, __VA_ARGS__)

// The three above: the message is built only when `cond` fails; `thrower` is one of
// detail::throw*Error, which records __FILE__ and __LINE__.
#define OPCORE_CHECK_THROWING(thrower, cond, ...)                                            \
  do {                                                                                       \
    if (OPCORE_UNLIKELY(!(cond))) {                                                          \
      ::opcore::detail::thrower(__FILE__, __LINE__, ::opcore::detail::strCat(__VA_ARGS__));  \
    }                                                                                        \
  } while (false)

#define OPCORE_FAIL(...) \
  ::opcore::detail::throwError(__FILE__, __LINE__, ::opcore::detail::strCat(__VA_ARGS__))

// For invariants of opcore itself; a failure is an opcore bug, not a user mistake.
#define OPCORE_INTERNAL_ASSERT(cond, ...)                                                \
  do {                                                                                   \
    if (OPCORE_UNLIKELY(!(cond))) {                                                      \
      ::opcore::detail::throwInternalError(__FILE__, __LINE__, #cond,                    \
                                           ::opcore::detail::strCat("" __VA_ARGS__));    \
    }                                                                                    \
  } while (false)

// Interning of dimension names: one immortal string per distinct name.
#include <opcore/core/Dimname.h>

#include <opcore/core/Error.h>

#include <mutex>
#include <ostream>
#include <unordered_set>

namespace opcore {

namespace {

bool isIdentifier(std::string_view s) {
  auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  auto inner = [&](char c) { return start(c) || (c >= '0' && c <= '9'); };
  if (s.empty() || !start(s[0])) return false;
  for (const char c : s) {
    if (!inner(c)) return false;
  }
  return true;
}

// Returns the interned copy of `name`. The table is never destroyed, so names stay valid
// during static destruction too.
const std::string* intern(std::string_view name) {
  static std::mutex* mutex = new std::mutex;
  static auto* table = new std::unordered_set<std::string>;
  const std::lock_guard<std::mutex> guard(*mutex);
  return &*table->emplace(name).first;  // node-based: element addresses never change
}

}  // namespace

Dimname Dimname::fromString(std::string_view name) {
  OPCORE_CHECK(name == "*" || isIdentifier(name), "invalid dimension name '", name,
               "': a name is an identifier (letters, digits and _, not starting with a digit) or '*'");
  return Dimname(intern(name));
}

Dimname Dimname::wildcard() {
  static const std::string* const star = intern("*");
  return Dimname(star);
}

bool Dimname::isWildcard() const { return *this == wildcard(); }

std::ostream& operator<<(std::ostream& os, Dimname n) { return os << n.name(); }

}  // namespace opcore

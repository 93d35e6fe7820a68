// Dimname: the name of a tensor dimension (`Dimname dim` in schemas, as in PyTorch's named
// tensors): an interned identifier, or the wildcard `*` that matches any name. One pointer
// wide and trivially copyable; equal names are the same interned string, so == is a pointer
// comparison.
//   Dimname n = Dimname::fromString("N");  n.name() == "N";  Dimname::wildcard().matches(n)
#pragma once

#include <opcore/core/ArrayRef.h>

#include <iosfwd>
#include <string>
#include <string_view>

namespace opcore {

class Dimname {
 public:
  // `name` must be an identifier ([A-Za-z_][A-Za-z0-9_]*) or "*" (the wildcard); anything
  // else throws opcore::Error naming it. Interning takes a lock; copies do not.
  static Dimname fromString(std::string_view name);
  static Dimname wildcard();

  bool isWildcard() const;
  // "N", or "*" for the wildcard. Valid for the life of the process.
  std::string_view name() const { return *name_; }
  // Equal names, or either one the wildcard.
  bool matches(Dimname other) const { return isWildcard() || other.isWildcard() || *this == other; }
  bool operator==(Dimname other) const { return name_ == other.name_; }
  bool operator!=(Dimname other) const { return name_ != other.name_; }

 private:
  explicit Dimname(const std::string* name) : name_(name) {}
  const std::string* name_;  // interned, never freed
};

using DimnameList = ArrayRef<Dimname>;

std::ostream& operator<<(std::ostream& os, Dimname n);

}  // namespace opcore

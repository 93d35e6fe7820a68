// Names of layouts.
#include <opcore/core/Layout.h>

#include <ostream>

namespace opcore {

const char* toString(Layout l) {
  switch (l) {
    case Layout::Strided: return "Strided";
    case Layout::Sparse: return "Sparse";
    case Layout::SparseCsr: return "SparseCsr";
  }
  return "UnknownLayout";
}

std::ostream& operator<<(std::ostream& os, Layout l) { return os << toString(l); }

}  // namespace opcore

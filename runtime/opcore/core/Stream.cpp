// Printing of streams.
#include <opcore/core/Stream.h>

#include <ostream>

namespace opcore {

std::string Stream::str() const { return "stream " + std::to_string(id) + " on " + device.str(); }

std::ostream& operator<<(std::ostream& os, const Stream& s) { return os << s.str(); }

}  // namespace opcore

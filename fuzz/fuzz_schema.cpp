// libFuzzer target: the C++ schema parser (runtime/opcore/dispatch/FunctionSchema.cpp).
// Properties, for any bytes:
//   - FunctionSchema::parse either returns or throws opcore::Error (any other exception, a
//     sanitizer report or a crash is a defect);
//   - a parsed schema prints as the text it was parsed from (FunctionSchema.h: parse() and
//     str() round-trip), and that text parses again to an equal schema;
//   - the same holds once the schema has a namespace (setNamespaceIfNotSet), and for the
//     operator name alone (OperatorName::parse of its str()).
#include <opcore/core/Error.h>
#include <opcore/dispatch/FunctionSchema.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using opcore::Argument;
using opcore::FunctionSchema;
using opcore::Return;
using opcore::SchemaType;

[[noreturn]] void failure(const char* what, const std::string& a, const std::string& b) {
  std::fprintf(stderr, "fuzz_schema: %s\n  first:  '%s'\n  second: '%s'\n", what, a.c_str(), b.c_str());
  std::abort();
}

bool sameType(const SchemaType& a, const SchemaType& b) {
  return a.base == b.base && a.alias == b.alias && a.suffix == b.suffix;
}

bool sameSchema(const FunctionSchema& a, const FunctionSchema& b) {
  if (!(a.operatorName() == b.operatorName())) return false;
  if (a.arguments().size() != b.arguments().size() || a.returns().size() != b.returns().size()) return false;
  for (size_t i = 0; i < a.arguments().size(); ++i) {
    const Argument& x = a.arguments()[i];
    const Argument& y = b.arguments()[i];
    if (!sameType(x.type, y.type) || x.name != y.name || x.default_value != y.default_value ||
        x.kwarg_only != y.kwarg_only) {
      return false;
    }
  }
  for (size_t i = 0; i < a.returns().size(); ++i) {
    const Return& x = a.returns()[i];
    const Return& y = b.returns()[i];
    if (!sameType(x.type, y.type) || x.name != y.name) return false;
  }
  return true;
}

// Parses the printing of `schema` and checks that it is the same schema, printed the same.
void checkReparses(const FunctionSchema& schema) {
  const std::string printed = schema.str();
  FunctionSchema again;
  try {
    again = FunctionSchema::parse(printed);
  } catch (const opcore::Error& e) {
    failure("a printed schema does not parse again", printed, e.what());
  }
  if (!sameSchema(schema, again)) failure("a printed schema parses to a different schema", printed, again.str());
  if (again.str() != printed) failure("a printed schema prints differently once re-parsed", printed, again.str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  FunctionSchema schema;
  try {
    schema = FunctionSchema::parse(text);
  } catch (const opcore::Error&) {
    return 0;  // rejected: fine, as long as it is opcore's error
  }
  if (schema.str() != text) failure("parse(s).str() != s", std::string(text), schema.str());
  checkReparses(schema);

  const opcore::OperatorName& name = schema.operatorName();
  if (!(opcore::OperatorName::parse(name.str()) == name)) {
    failure("OperatorName::parse(name.str()) != name", name.str(), opcore::OperatorName::parse(name.str()).str());
  }
  FunctionSchema namespaced = schema;
  namespaced.setNamespaceIfNotSet("fuzz");
  checkReparses(namespaced);
  return 0;
}

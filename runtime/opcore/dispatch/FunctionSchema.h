// FunctionSchema: an operator's signature in the schema language shared with the generator
// (gen/model/schema.py), e.g.
//   add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
// parse() and str() round-trip: FunctionSchema::parse(s).str() == s.
// The grammar is checked against the same corpus (tests/schemas/) by pytest and GoogleTest.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opcore {

struct OperatorName {
  std::string name;           // "aten::add" (namespace included once registered)
  std::string overload_name;  // "Tensor", or "" for the default overload

  // "aten::add.Tensor"
  std::string str() const { return overload_name.empty() ? name : name + "." + overload_name; }
  // Parses "aten::add.Tensor" or "add".
  static OperatorName parse(std::string_view text);
  bool operator==(const OperatorName& o) const {
    return name == o.name && overload_name == o.overload_name;
  }
};

// A schema type such as `Tensor(a!)`, `int[2]`, `Tensor?[]` or `ScalarType?`.
struct SchemaType {
  std::string base;                // "Tensor", "int", ...
  std::optional<std::string> alias;  // "a!", "a", "a -> *", "a|b"
  std::string suffix;              // "?", "[]", "[2]?", "?[]": list and optional markers in order

  bool isOptional() const { return !suffix.empty() && suffix.back() == '?'; }
  bool isList() const { return suffix.find('[') != std::string::npos; }
  bool isTensor() const { return base == "Tensor"; }
  bool isMutable() const { return alias && alias->find('!') != std::string::npos; }
  std::string str() const;
};

struct Argument {
  SchemaType type;
  std::string name;
  std::optional<std::string> default_value;  // the literal text, e.g. "1", "None", "[0,1]"
  bool kwarg_only = false;
};

struct Return {
  SchemaType type;
  std::string name;  // empty when unnamed
};

class FunctionSchema {
 public:
  // Throws opcore::Error naming the schema, the column and the problem.
  static FunctionSchema parse(std::string_view text);

  const OperatorName& operatorName() const { return name_; }
  const std::vector<Argument>& arguments() const { return arguments_; }
  const std::vector<Return>& returns() const { return returns_; }
  // Prefixes the operator name with "ns::" unless it already has a namespace.
  void setNamespaceIfNotSet(std::string_view ns);
  std::string str() const;

 private:
  friend class SchemaParser;
  OperatorName name_;
  std::vector<Argument> arguments_;
  std::vector<Return> returns_;
  bool parenthesized_returns_ = false;
};

}  // namespace opcore

// A recursive-descent parser for the schema language. See Note [Schema grammar].
#include <opcore/dispatch/FunctionSchema.h>

#include <opcore/core/Error.h>

#include <algorithm>
#include <array>

namespace opcore {

// Note [Schema grammar]
//   schema   := name ['.' overload] '(' [args] ')' ' -> ' returns
//   name     := [ns '::'] ident          (ident: [A-Za-z_][A-Za-z0-9_]*)
//   args     := arg (', ' arg)*           with at most one bare '*' marking keyword-only
//   arg      := type ' ' ident ['=' default]
//   type     := base ['(' alias ')'] ('[' [digits] ']' | '?')*
//   returns  := type [' ' ident] | '(' [type [' ' ident] (', ' ...)*] ')'
//   default  := number | ident | '[' ... ']' | string
//   string   := '"' ... '"' | "'" ... "'"  with the escapes \\ \' \" only; kept as written
// An `int` default may be Mean or Sum (PyTorch's at::Reduction values; not None, which is
// an optional's default). The types ScalarType, Layout, MemoryFormat and Device take a name.
// Spacing is canonical (", " and " -> "), which is what makes str(parse(s)) == s hold.
// The generator's parser (gen/model/schema.py) implements the same grammar.

namespace {

constexpr std::array<std::string_view, 18> kBaseTypes = {
    "Tensor", "Scalar", "int", "float", "bool", "str", "ScalarType", "Device", "SymInt",
    "Layout", "MemoryFormat", "Dimname", "Generator", "Storage", "Stream", "QScheme",
    "DeviceIndex", "SymBool"};

// ASCII only, as the generator's IDENT: std::isalpha would follow the C locale (in Latin-1,
// the bytes of a UTF-8 character such as 'é' are letters).
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }

// -?(inf|nan|D+[.D*][(e|E)[+-]D+]), D a digit: the generator's _NUMBER (not `1.2.3`, `1e`, `1-`).
bool isNumber(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  if (s == "inf" || s == "nan") return true;
  size_t i = 0;
  const auto digits = [&] {
    const size_t start = i;
    while (i < s.size() && isDigit(s[i])) ++i;
    return i > start;
  };
  if (!digits()) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    digits();
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

bool isInteger(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), isDigit);
}

// A whole quoted string default: "..." or '...', a backslash escaping only \\, ' or ".
bool isStringLiteral(std::string_view s) {
  if (s.size() < 2 || (s.front() != '"' && s.front() != '\'') || s.back() != s.front()) return false;
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    if (s[i] == s.front()) return false;
    if (s[i] == '\\') {
      if (i + 2 >= s.size() || (s[i + 1] != '\\' && s[i + 1] != '\'' && s[i + 1] != '"')) return false;
      ++i;
    }
  }
  return true;
}

bool isIdent(std::string_view s) {
  return !s.empty() && isIdentStart(s[0]) && std::all_of(s.begin(), s.end(), isIdentChar);
}

// One element of a list default: what a scalar of the list's base type takes, numbers only.
bool listItemFits(const std::string& base, std::string_view item) {
  if (base == "int" || base == "SymInt") return isInteger(item);
  if (base == "float" || base == "Scalar") return isNumber(item);
  if (base == "bool") return item == "True" || item == "False";
  return false;
}

// The inside of a list default `[0,1]`: empty, or comma-separated elements that fit.
bool listDefaultFits(const std::string& base, std::string_view inner) {
  if (inner.empty()) return true;
  size_t start = 0;
  while (true) {
    const size_t comma = inner.find(',', start);
    if (!listItemFits(base, inner.substr(start, comma == std::string_view::npos ? comma : comma - start))) return false;
    if (comma == std::string_view::npos) return true;
    start = comma + 1;
  }
}

}  // namespace

class SchemaParser {
 public:
  explicit SchemaParser(std::string_view text) : s_(text) {}

  FunctionSchema parse() {
    FunctionSchema schema;
    schema.name_ = parseName();
    expect('(');
    parseArguments(schema);
    expect(')');
    expectText(" -> ");
    parseReturns(schema);
    if (pos_ != s_.size()) fail("unexpected text after the returns");
    return schema;
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const {
    OPCORE_FAIL("invalid schema '", s_, "': ", msg, " at column ", column());
  }
  // 1-based and in characters, as the generator counts (a UTF-8 character is one column):
  // the bytes before pos_ that start a character, plus one.
  size_t column() const {
    return 1 + std::count_if(s_.begin(), s_.begin() + pos_,
                             [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  bool consumeText(std::string_view t) {
    if (s_.substr(pos_, t.size()) != t) return false;
    pos_ += t.size();
    return true;
  }
  void expect(char c) {
    if (!consume(c)) fail(std::string("expected '") + c + "'");
  }
  void expectText(std::string_view t) {
    if (!consumeText(t)) fail("expected '" + std::string(t) + "'");
  }
  std::string ident(const char* what) {
    const size_t start = pos_;
    if (!isIdentStart(peek())) fail(std::string("empty ") + what);
    while (isIdentChar(peek())) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }

  OperatorName parseName() {
    OperatorName name;
    name.name = ident("operator name");
    if (consumeText("::")) name.name += "::" + ident("operator name");
    if (consume('.')) name.overload_name = ident("overload name");
    return name;
  }

  SchemaType parseType() {
    SchemaType t;
    const size_t start = pos_;
    t.base = ident("type");
    if (std::find(kBaseTypes.begin(), kBaseTypes.end(), t.base) == kBaseTypes.end()) {
      pos_ = start;
      fail("unknown type '" + t.base + "'");
    }
    if (consume('(')) {
      const size_t close = s_.find(')', pos_);
      if (close == std::string_view::npos) fail("expected ')'");
      t.alias = std::string(s_.substr(pos_, close - pos_));
      if (!validAlias(*t.alias)) fail("bad alias annotation '" + *t.alias + "'");
      pos_ = close + 1;
    }
    while (peek() == '[' || peek() == '?') {
      const size_t mark = pos_;
      if (consume('?')) {
        if (t.isOptional()) fail("duplicate '?'");
        t.suffix += '?';
        continue;
      }
      ++pos_;
      while (isDigit(peek())) ++pos_;
      expect(']');
      if (t.isList()) fail("nested lists are not supported");
      t.suffix += std::string(s_.substr(mark, pos_ - mark));
    }
    return t;
  }

  static bool validAlias(const std::string& a) {
    // a, a!, a -> *, a! -> *, a|b, a|b!
    std::string_view v = a;
    if (v.size() > 5 && v.substr(v.size() - 5) == " -> *") v.remove_suffix(5);
    if (!v.empty() && v.back() == '!') v.remove_suffix(1);
    size_t start = 0;
    while (true) {
      const size_t bar = v.find('|', start);
      if (!isIdent(v.substr(start, bar - start))) return false;
      if (bar == std::string_view::npos) return true;
      start = bar + 1;
    }
  }

  void parseArguments(FunctionSchema& schema) {
    if (peek() == ')') return;
    bool kwarg_only = false;
    while (true) {
      if (consume('*')) {
        if (kwarg_only) fail("duplicate '*'");
        kwarg_only = true;
      } else {
        Argument arg;
        arg.type = parseType();
        expect(' ');
        arg.name = ident("argument name");
        arg.kwarg_only = kwarg_only;
        if (consume('=')) arg.default_value = parseDefault(arg.type);
        for (const Argument& other : schema.arguments_) {
          if (other.name == arg.name) fail("duplicate argument name '" + arg.name + "'");
        }
        schema.arguments_.push_back(std::move(arg));
      }
      if (!consumeText(", ")) break;
    }
    if (kwarg_only && (schema.arguments_.empty() || !schema.arguments_.back().kwarg_only)) {
      fail("'*' must be followed by a keyword-only argument");
    }
  }

  std::string parseDefault(const SchemaType& type) {
    const size_t start = pos_;
    if (peek() == '"' || peek() == '\'') {
      pos_ = stringEnd();
    } else if (peek() == '[') {
      const size_t close = s_.find(']', pos_);
      if (close == std::string_view::npos) fail("bad default: expected ']'");
      pos_ = close + 1;
    } else {
      while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != ')') ++pos_;
    }
    std::string value(s_.substr(start, pos_ - start));
    if (!defaultFits(type, value)) {
      pos_ = start;
      fail("bad default '" + value + "' for type " + type.str());
    }
    return value;
  }

  // Just past the quote closing the string starting at pos_; a backslash escapes the next character.
  size_t stringEnd() const {
    const char quote = s_[pos_];
    size_t i = pos_ + 1;
    while (i < s_.size() && s_[i] != quote) i += s_[i] == '\\' ? 2 : 1;
    if (i >= s_.size()) fail("bad default: unterminated string");
    return i + 1;
  }

  // See default_fits in gen/model/schema.py: the same rules.
  static bool defaultFits(const SchemaType& t, std::string_view v) {
    if (v.empty()) return false;  // `int[] x=)`: nothing to read (front() below needs a character)
    if (v == "None") return t.isOptional();
    if (t.isList() && v.front() == '[') {
      return v.size() >= 2 && v.back() == ']' && listDefaultFits(t.base, v.substr(1, v.size() - 2));
    }
    const std::string& b = t.base;
    if (t.isList()) return (b == "int" || b == "SymInt") && isInteger(v);  // int[2] x=1
    if (b == "bool" || b == "SymBool") return v == "True" || v == "False";
    if (b == "int") return isInteger(v) || v == "Mean" || v == "Sum";
    if (b == "SymInt" || b == "DeviceIndex") return isInteger(v);
    if (b == "float") return isNumber(v);
    if (b == "Scalar") return isNumber(v) || v == "True" || v == "False";
    if (b == "str") return isStringLiteral(v);
    if (b == "ScalarType" || b == "Layout" || b == "MemoryFormat" || b == "Device") return isIdent(v);
    return false;
  }

  void parseReturns(FunctionSchema& schema) {
    if (!consume('(')) {
      schema.returns_.push_back(parseReturn());
      return;
    }
    schema.parenthesized_returns_ = true;
    if (consume(')')) return;
    do {
      schema.returns_.push_back(parseReturn());
    } while (consumeText(", "));
    expect(')');
  }

  Return parseReturn() {
    Return r;
    r.type = parseType();
    if (consume(' ')) r.name = ident("return name");
    return r;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

OperatorName OperatorName::parse(std::string_view text) {
  const size_t dot = text.find('.', text.find("::") == std::string_view::npos ? 0 : text.find("::") + 2);
  OperatorName n;
  n.name = std::string(text.substr(0, dot));
  if (dot != std::string_view::npos) n.overload_name = std::string(text.substr(dot + 1));
  return n;
}

FunctionSchema FunctionSchema::parse(std::string_view text) { return SchemaParser(text).parse(); }

void FunctionSchema::setNamespaceIfNotSet(std::string_view ns) {
  if (name_.name.find("::") == std::string::npos) name_.name = std::string(ns) + "::" + name_.name;
}

std::string SchemaType::str() const {
  std::string s = base;
  if (alias) s += "(" + *alias + ")";
  return s + suffix;
}

std::string FunctionSchema::str() const {
  std::string s = name_.str() + "(";
  bool kwarg_only = false;
  for (size_t i = 0; i < arguments_.size(); ++i) {
    const Argument& a = arguments_[i];
    if (i) s += ", ";
    if (a.kwarg_only && !kwarg_only) {
      s += "*, ";
      kwarg_only = true;
    }
    s += a.type.str() + " " + a.name;
    if (a.default_value) s += "=" + *a.default_value;
  }
  s += ") -> ";
  if (parenthesized_returns_) s += "(";
  for (size_t i = 0; i < returns_.size(); ++i) {
    if (i) s += ", ";
    s += returns_[i].type.str();
    if (!returns_[i].name.empty()) s += " " + returns_[i].name;
  }
  if (parenthesized_returns_) s += ")";
  return s;
}

}  // namespace opcore

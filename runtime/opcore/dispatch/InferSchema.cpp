// Comparing a declared schema with the schema inferred from a kernel's C++ types.
#include <opcore/dispatch/InferSchema.h>

#include <opcore/core/Error.h>

namespace opcore {

namespace {

// The part of a schema type C++ can express: "int[]" for `SymInt[2]`, "bool" for `SymBool`,
// "Tensor" for `Tensor(a!)`.
std::string cppVisibleType(const SchemaType& t) {
  std::string base = t.base == "SymInt" ? "int" : t.base == "SymBool" ? "bool" : t.base;
  std::string suffix = t.suffix;
  if (base != "bool") {
    // int[2] and float[3] are ArrayRefs in C++: the size is not part of the type.
    for (size_t open = suffix.find('['); open != std::string::npos; open = suffix.find('[', open + 1)) {
      const size_t close = suffix.find(']', open);
      suffix.erase(open + 1, close - open - 1);
    }
  }
  return base + suffix;
}

template <typename T>
std::optional<std::string> compareTypes(const char* what, const std::vector<T>& declared,
                                        const std::vector<T>& kernel) {
  if (declared.size() != kernel.size()) {
    return detail::strCat("the schema has ", declared.size(), " ", what, "s, the kernel ", kernel.size());
  }
  for (size_t i = 0; i < declared.size(); ++i) {
    const std::string d = cppVisibleType(declared[i].type);
    const std::string k = cppVisibleType(kernel[i].type);
    if (d != k) return detail::strCat(what, " ", i, " is '", d, "' in the schema but '", k, "' in the kernel");
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> schemaMismatch(const FunctionSchema& declared, const FunctionSchema& kernel) {
  if (auto args = compareTypes("argument", declared.arguments(), kernel.arguments())) return args;
  return compareTypes("return", declared.returns(), kernel.returns());
}

}  // namespace opcore

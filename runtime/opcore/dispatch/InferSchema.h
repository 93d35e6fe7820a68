// Inferring an operator schema from a kernel's C++ function type, to define operators from
// a function (m.def("scale", fn)) and to reject a kernel whose C++ types do not match the
// operator's declared schema.
//   inferSchemaText<Tensor(const Tensor&, int64_t)>() == "(Tensor _0, int _1) -> Tensor"
// Aliasing cannot be seen in C++ types: `Tensor&` infers `Tensor`, and the comparison
// (schemaMismatch) ignores alias annotations, argument names and defaults.
#pragma once

#include <opcore/core/ArrayRef.h>
#include <opcore/core/Device.h>
#include <opcore/core/Dimname.h>
#include <opcore/core/Generator.h>
#include <opcore/core/Layout.h>
#include <opcore/core/MemoryFormat.h>
#include <opcore/core/OptionalArrayRef.h>
#include <opcore/core/QScheme.h>
#include <opcore/core/Scalar.h>
#include <opcore/core/ScalarType.h>
#include <opcore/core/Storage.h>
#include <opcore/core/Stream.h>
#include <opcore/core/TensorBase.h>
#include <opcore/dispatch/FunctionSchema.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace opcore {

namespace detail {

template <typename T>
struct AlwaysFalse : std::false_type {};

// The schema spelling of a C++ parameter or return type (cv and references removed).
template <typename T, typename = void>
struct SchemaTypeName {
  static_assert(AlwaysFalse<T>::value,
                "this C++ type has no schema type: use Tensor, int64_t, double, bool, Scalar, ScalarType, "
                "Device, Layout, MemoryFormat, QScheme, Dimname, Generator, Storage, Stream, std::string_view "
                "(std::string as a return), ArrayRef<T> or OptionalArrayRef<T> of one (std::vector<T> as a "
                "return), std::array<bool, N>, or std::optional of one");
};
template <typename T>
struct SchemaTypeName<T, std::enable_if_t<std::is_base_of_v<TensorBase, T>>> {
  static std::string get() { return "Tensor"; }
};
#define OPCORE_SCHEMA_TYPE_NAME_(cpp, schema) \
  template <>                                 \
  struct SchemaTypeName<cpp> {                \
    static std::string get() { return schema; } \
  }
OPCORE_SCHEMA_TYPE_NAME_(int64_t, "int");
OPCORE_SCHEMA_TYPE_NAME_(DeviceIndex, "DeviceIndex");  // int8_t
OPCORE_SCHEMA_TYPE_NAME_(double, "float");
OPCORE_SCHEMA_TYPE_NAME_(bool, "bool");
OPCORE_SCHEMA_TYPE_NAME_(Scalar, "Scalar");
OPCORE_SCHEMA_TYPE_NAME_(ScalarType, "ScalarType");
OPCORE_SCHEMA_TYPE_NAME_(Device, "Device");
OPCORE_SCHEMA_TYPE_NAME_(Layout, "Layout");
OPCORE_SCHEMA_TYPE_NAME_(MemoryFormat, "MemoryFormat");
OPCORE_SCHEMA_TYPE_NAME_(QScheme, "QScheme");
OPCORE_SCHEMA_TYPE_NAME_(Dimname, "Dimname");
OPCORE_SCHEMA_TYPE_NAME_(Generator, "Generator");
OPCORE_SCHEMA_TYPE_NAME_(Storage, "Storage");
OPCORE_SCHEMA_TYPE_NAME_(Stream, "Stream");
OPCORE_SCHEMA_TYPE_NAME_(std::string_view, "str");
OPCORE_SCHEMA_TYPE_NAME_(std::string, "str");
#undef OPCORE_SCHEMA_TYPE_NAME_
// Lists: `int[]` for IntArrayRef, `Tensor?[]` for OptionalTensorList, `Dimname[]`, ...
template <typename T>
struct SchemaTypeName<ArrayRef<T>> {
  static std::string get() { return SchemaTypeName<T>::get() + "[]"; }
};
template <typename T>
struct SchemaTypeName<OptionalArrayRef<T>> {
  static std::string get() { return SchemaTypeName<T>::get() + "[]?"; }
};
template <typename T>
struct SchemaTypeName<std::vector<T>> {
  static std::string get() { return SchemaTypeName<T>::get() + "[]"; }
};
template <size_t N>
struct SchemaTypeName<std::array<bool, N>> {
  static std::string get() { return "bool[" + std::to_string(N) + "]"; }
};
template <typename T>
struct SchemaTypeName<std::optional<T>> {
  static std::string get() { return SchemaTypeName<T>::get() + "?"; }
};

template <typename T>
std::string schemaTypeName() {
  return SchemaTypeName<std::remove_cvref_t<T>>::get();
}

template <typename Ret>
struct SchemaReturns {
  static std::string get() { return schemaTypeName<Ret>(); }
};
template <>
struct SchemaReturns<void> {
  static std::string get() { return "()"; }
};
template <typename... Ts>
struct SchemaReturns<std::tuple<Ts...>> {
  static std::string get() {
    std::string out = "(";
    const char* sep = "";
    ((out += sep, out += schemaTypeName<Ts>(), sep = ", "), ...);
    return out + ")";
  }
};

}  // namespace detail

// "(Tensor _0, int _1) -> Tensor" for Tensor(const Tensor&, int64_t).
template <typename Sig>
struct InferSchema;
template <typename Ret, typename... Args>
struct InferSchema<Ret(Args...)> {
  static std::string text() {
    std::string out = "(";
    int i = 0;
    ((out += (i ? ", " : ""), out += detail::schemaTypeName<Args>(), out += " _" + std::to_string(i++)), ...);
    return out + ") -> " + detail::SchemaReturns<Ret>::get();
  }
};
template <typename Sig>
std::string inferSchemaText() {
  return InferSchema<Sig>::text();
}

// Why `kernel` (an inferred schema) cannot serve `declared`, or nullopt when it can: the
// argument and return counts and types must agree, up to alias annotations, names, defaults,
// SymInt (= int) and fixed list sizes of int lists.
std::optional<std::string> schemaMismatch(const FunctionSchema& declared, const FunctionSchema& kernel);

}  // namespace opcore

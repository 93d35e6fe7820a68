// Forward declarations for headers that name Tensor in signatures without needing its
// definition (the generated Operators.h): the C++ types of every schema type.
#pragma once

#include <opcore/core/ArrayRef.h>
#include <opcore/core/Device.h>
#include <opcore/core/Dimname.h>
#include <opcore/core/DispatchKeySet.h>
#include <opcore/core/Generator.h>
#include <opcore/core/Layout.h>
#include <opcore/core/MemoryFormat.h>
#include <opcore/core/OptionalArrayRef.h>
#include <opcore/core/QScheme.h>
#include <opcore/core/Reduction.h>
#include <opcore/core/Scalar.h>
#include <opcore/core/ScalarType.h>
#include <opcore/core/Storage.h>
#include <opcore/core/Stream.h>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

namespace opcore {

class Tensor;
using TensorList = ArrayRef<Tensor>;
// `Tensor?[]`: a list whose elements may be None (index.Tensor's indices).
//   opcore::index(t, {idx, std::nullopt});
using OptionalTensorList = ArrayRef<std::optional<Tensor>>;
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

}  // namespace opcore

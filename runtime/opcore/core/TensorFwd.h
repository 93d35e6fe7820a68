// Forward declarations for headers that name Tensor in signatures without needing its
// definition (the generated Operators.h): the C++ types of every schema type.
#pragma once

#include <opcore/core/ArrayRef.h>
#include <opcore/core/Device.h>
#include <opcore/core/DispatchKeySet.h>
#include <opcore/core/OptionalArrayRef.h>
#include <opcore/core/Scalar.h>
#include <opcore/core/ScalarType.h>

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
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

}  // namespace opcore

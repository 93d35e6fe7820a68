// An element of a dtype known only at run time, read as a C++ type: the loads of an
// elementwise loop whose operands have different dtypes (ATen's dynamic casting), with the
// conversion copy_ and .to() make (convertValue in ScalarType.h). Written for both compilers
// (Note [nvcc-clean pointwise headers] in pointwise/Binary.h): the CUDA loops use it on the
// device.
//   float x = fetchAs<float>(ptr, ScalarType::Half);  // the half at ptr, as a float
//   storeAs(ptr, ScalarType::Long, 2.5f);             // 2, stored as an int64_t at ptr
#pragma once

#include <opcore/core/ScalarType.h>

namespace opcore::native {

template <typename To>
OPCORE_HOST_DEVICE inline To fetchAs(const char* p, ScalarType from) {
  switch (from) {
#define OPCORE_FETCH_CASE_(T, name) \
  case ScalarType::name:            \
    return convertValue<To>(*reinterpret_cast<const T*>(p));
    OPCORE_FORALL_SCALAR_TYPES(OPCORE_FETCH_CASE_)
#undef OPCORE_FETCH_CASE_
    default:
      return To{};  // no other dtype reaches a kernel: the host checked it
  }
}

template <typename From>
OPCORE_HOST_DEVICE inline void storeAs(char* p, ScalarType to, From value) {
  switch (to) {
#define OPCORE_STORE_CASE_(T, name)                           \
  case ScalarType::name:                                      \
    *reinterpret_cast<T*>(p) = convertValue<T>(value);        \
    return;
    OPCORE_FORALL_SCALAR_TYPES(OPCORE_STORE_CASE_)
#undef OPCORE_STORE_CASE_
    default:
      return;  // as fetchAs
  }
}

}  // namespace opcore::native

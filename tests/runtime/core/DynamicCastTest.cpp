// fetchAs and storeAs (kernels/common/DynamicCast.h), the loads and stores of the CUDA loops
// over operands of mixed dtypes, run on the host: from every dtype to every dtype they give the
// bits the CPU's conversion (Tensor.to) gives.
#include <common/DynamicCast.h>

#include <opcore/ops/full.h>

#include <gtest/gtest.h>

#include <cstring>

namespace opcore::native {
namespace {

constexpr ScalarType kEveryDtype[] = {kByte, kChar,          kShort,          kInt,  kLong,    kHalf,
                                      kFloat, kDouble, kComplexFloat, kComplexDouble, kBool, kBFloat16};

TEST(DynamicCastTest, EveryDtypeIsReadAsEveryOtherAsTheCpuConvertsIt) {
  for (ScalarType from : kEveryDtype) {
    const bool integral = from == kByte || from == kChar || from == kShort || from == kInt || from == kLong || from == kBool;
    const Tensor value = opcore::full({1}, integral ? 3.0 : 2.75, TensorOptions().dtype(from));
    const char* bytes = static_cast<const char*>(value.data_ptr());
    for (ScalarType to : kEveryDtype) {
      const Tensor expected = value.to(to);
      OPCORE_DISPATCH_EVERY_TYPE(to, "fetchAs", [&] {
        const scalar_t got = fetchAs<scalar_t>(bytes, from);
        EXPECT_EQ(std::memcmp(&got, expected.data_ptr(), sizeof(scalar_t)), 0) << from << " as " << to;
      });
    }
  }
}

TEST(DynamicCastTest, EveryDtypeIsStoredAsEveryOtherAsTheCpuConvertsIt) {
  for (ScalarType from : kEveryDtype) {
    const bool integral = from == kByte || from == kChar || from == kShort || from == kInt || from == kLong || from == kBool;
    const Tensor value = opcore::full({1}, integral ? 3.0 : 2.75, TensorOptions().dtype(from));
    for (ScalarType to : kEveryDtype) {
      const Tensor expected = value.to(to);
      alignas(16) char stored[16] = {};
      OPCORE_DISPATCH_EVERY_TYPE(from, "storeAs", [&] { storeAs(stored, to, *value.data_ptr<scalar_t>()); });
      EXPECT_EQ(std::memcmp(stored, expected.data_ptr(), expected.element_size()), 0) << from << " stored as " << to;
    }
  }
}

}  // namespace
}  // namespace opcore::native

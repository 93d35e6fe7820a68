// Run by tests/build/test_selective.sh against a selective build of opcore (starter_operators.yaml:
// mm, add.Tensor, relu): the selected operators work, and one the build left out says so, whether
// called through the C++ API or looked up by name. Exits 1 when anything differs.
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/opcore.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "selective_check: %s\n", what.c_str());
  return 1;
}

template <typename F>
std::string errorOf(F call) {
  try {
    call();
  } catch (const opcore::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

int main() {
  const opcore::Tensor x = opcore::ones({2, 3});
  const opcore::Tensor w = opcore::ones({3, 4});
  const opcore::Tensor y = opcore::relu(opcore::add(opcore::mm(x, w), opcore::zeros({4})));
  if (y.select(0, 1).select(0, 3).item<float>() != 3.0f) return fail("relu(x @ w + b) computed a wrong value");

  const std::string expected = "was excluded from this build: it is not in the operator list of this selective "
                               "build (starter_operators.yaml";
  const std::string by_api = errorOf([&] { opcore::mse_loss(y, y); });
  const std::string by_name = errorOf([] { opcore::Dispatcher::singleton().findSchemaOrThrow("aten::matmul", ""); });
  if (by_api.find("operator 'aten::mse_loss' " + expected) == std::string::npos ||
      by_name.find("operator 'aten::matmul' " + expected) == std::string::npos) {
    return fail("unexpected errors: '" + by_api + "' and '" + by_name + "'");
  }
  const std::vector<std::string> names = opcore::Dispatcher::singleton().allOperatorNames();
  if (std::find(names.begin(), names.end(), "aten::mse_loss") != names.end()) return fail("mse_loss is registered");
  std::printf("selective_check: %zu operators registered; the excluded ones say so\n", names.size());
  return 0;
}

// A program that links opcore only and loads libmyops at run time, as a Python process does with
// opcore.ops.load_library: myops' operators exist while the library is loaded, are called
// through the dispatcher (typed and boxed), and unloading removes exactly them. Exits 1 when
// anything differs.
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/library/Library.h>
#include <opcore/opcore.h>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstdio>
#include <string>
#include <vector>

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "load_myops: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main() {
  opcore::Dispatcher& dispatcher = opcore::Dispatcher::singleton();
  const std::vector<std::string> before = dispatcher.allOperatorNames();
  void* handle = nullptr;
  {
    opcore::LibraryLoadScope scope;  // a failing registration block is reported, not fatal
    handle = dlopen(MYOPS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return fail(std::string("dlopen: ") + dlerror());
    if (!scope.error().empty()) return fail(scope.error());
  }
  const std::vector<std::string> loaded = dispatcher.allOperatorNames();
  std::vector<std::string> added;
  std::set_difference(loaded.begin(), loaded.end(), before.begin(), before.end(), std::back_inserter(added));
  const bool all_myops = std::all_of(added.begin(), added.end(),
                                     [](const std::string& name) { return name.rfind("myops::", 0) == 0; });
  if (added.empty() || !all_myops || loaded.size() != before.size() + added.size()) {
    return fail("loading added operators other than myops' (or none)");
  }

  const opcore::Tensor x = opcore::zeros({3}, opcore::kFloat) + 1.0;
  const auto gelu = dispatcher.findSchemaOrThrow("myops::fused_gelu", "").typed<opcore::Tensor(const opcore::Tensor&)>();
  const double typed = gelu.call(x).select(0, 0).item<double>();
  opcore::Stack stack{x, opcore::ones({3}), 0.5};
  dispatcher.findSchemaOrThrow("myops::scaled_residual", "").callBoxed(stack);
  const double boxed = opcore::Tensor(stack.at(0).toTensorBase()).select(0, 0).item<double>();
  if (std::fabs(typed - 0.841192) > 1e-5 || boxed != 1.5) return fail("wrong values from myops' operators");

  if (dlclose(handle) != 0) return fail(std::string("dlclose: ") + dlerror());
  if (dispatcher.allOperatorNames() != before) return fail("unloading did not restore the operator registry");
  if (opcore::add(x, x).select(0, 0).item<float>() != 2.0f) return fail("opcore's own operators broke");
  std::printf("load_myops: loaded %zu operators of myops (fused_gelu(1) = %.6f, scaled_residual = %.1f), "
              "unloaded them all\n", added.size(), typed, boxed);
  return 0;
}

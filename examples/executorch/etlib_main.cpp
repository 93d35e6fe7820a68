// Calls etlib, the kernel library in ExecuTorch's format: the kernel chosen by each call's
// dtypes and dim order, the error of a call no kernel key matches, and etlib's kernels for
// opcore's neg.out (at CPU and at PrivateUse1). Exits 1 when anything differs.
#include <etlib/Functions.h>
#include <opcore/opcore.h>
#include <opcore/ops/neg_native.h>

#include <atomic>
#include <cstdio>
#include <string>

namespace etlib {
extern std::atomic<int64_t> neg_out_calls;
extern std::atomic<int64_t> neg_out_privateuse1_calls;
}

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "etlib_main: %s\n", what.c_str());
  return 1;
}

// The message of the error `call` throws, or "" when it throws none.
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
  const opcore::Tensor a = opcore::arange(6, opcore::kDouble).reshape({2, 3});
  const opcore::Tensor b = opcore::ones({2, 3}, opcore::kDouble);
  opcore::Tensor out = opcore::empty({2, 3}, opcore::kDouble);
  etlib::add_scaled_out(out, a, b, 0.5);  // the floating kernel
  if (out.select(0, 1).select(0, 2).item<double>() != 5.5) return fail("wrong double result");
  opcore::Tensor out_long = opcore::empty({2, 3}, opcore::kLong);
  etlib::add_scaled_out(out_long, a.to(opcore::kLong), b.to(opcore::kLong), 2.0);  // the int64 kernel
  if (out_long.select(0, 1).select(0, 2).item<int64_t>() != 7) return fail("wrong int64 result");
  opcore::Tensor out_byte = opcore::empty({2, 3}, opcore::kByte);
  etlib::add_scaled_out(out_byte, a.to(opcore::kByte).mul(50), b.to(opcore::kByte), 3.0);  // the uint8 kernel
  if (out_byte.select(0, 1).select(0, 2).item<int64_t>() != (250 + 3) % 256) return fail("wrong uint8 result");

  const std::string transposed = errorOf([&] { etlib::add_scaled_out(out, a, b.t().contiguous().t(), 1.0); });
  const std::string ints = errorOf([&] {
    opcore::Tensor o = opcore::empty({2, 3}, opcore::kInt);
    etlib::add_scaled_out(o, a.to(opcore::kInt), b.to(opcore::kInt), 1.0);
  });
  if (transposed.find("etlib::add_scaled.out: no kernel for self Double (dim order 0, 1), other Double (dim "
                      "order 1, 0)") == std::string::npos ||
      ints.find("no kernel for self Int (dim order 0, 1)") == std::string::npos) {
    return fail("unexpected errors: '" + transposed + "' and '" + ints + "'");
  }

  opcore::Tensor negated = opcore::empty({2, 3}, opcore::kDouble);
  opcore::neg_out(negated, a);
  if (etlib::neg_out_calls != 1 || negated.select(0, 1).select(0, 2).item<double>() != -5.0) {
    return fail("opcore::neg_out did not run etlib's kernel");
  }
  // Its kernel at the backend it adds, reached as a PrivateUse1 tensor's call would be.
  opcore::redispatch::neg_out(opcore::DispatchKeySet(opcore::DispatchKey::PrivateUse1), a, negated);
  if (etlib::neg_out_privateuse1_calls != 1 || etlib::neg_out_calls != 1) {
    return fail("the PrivateUse1 kernel of neg.out did not run");
  }
  std::printf("etlib_main: kernels chosen by dtype (float/double, int64, uint8) and dim order, no-match errors, neg.out at CPU and PrivateUse1: ok\n");
  return 0;
}

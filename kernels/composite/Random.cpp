// Composite random operators: rand, randn and randint (and their out= and *_like forms), an
// empty tensor filled by uniform_ / normal_ / random_ on whatever backend it lives on; bernoulli
// and multinomial, a new result filled by their out= kernels.
#include <opcore/ops/bernoulli.h>
#include <opcore/ops/bernoulli_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/empty_like.h>
#include <opcore/ops/rand_like_native.h>
#include <opcore/ops/randint_like_native.h>
#include <opcore/ops/randn_like_native.h>
#include <opcore/ops/multinomial.h>
#include <opcore/ops/multinomial_native.h>
#include <opcore/ops/normal.h>
#include <opcore/ops/rand_native.h>
#include <opcore/ops/randint_native.h>
#include <opcore/ops/randn_native.h>
#include <opcore/ops/random.h>
#include <opcore/ops/uniform.h>
#include <opcore/core/Empty.h>

namespace opcore::native {

Tensor rand(IntArrayRef size, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
            std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  detail::checkStridedLayout("rand", layout);
  Tensor out = opcore::empty(size, dtype.value_or(kDefaultFloat), layout, device, pin_memory);
  out.uniform_(0, 1, generator);
  return out;
}

Tensor randn(IntArrayRef size, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
             std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  detail::checkStridedLayout("randn", layout);
  Tensor out = opcore::empty(size, dtype.value_or(kDefaultFloat), layout, device, pin_memory);
  out.normal_(0, 1, generator);
  return out;
}

Tensor& rand_out(IntArrayRef size, const std::optional<Generator>& generator, Tensor& out) {
  detail::resizeOutput(out, size);
  return out.uniform_(0, 1, generator);
}

Tensor& randn_out(IntArrayRef size, const std::optional<Generator>& generator, Tensor& out) {
  detail::resizeOutput(out, size);
  return out.normal_(0, 1, generator);
}

Tensor randint_low(int64_t low, int64_t high, IntArrayRef size, const std::optional<Generator>& generator,
                   std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
                   std::optional<bool> pin_memory) {
  detail::checkStridedLayout("randint", layout);
  Tensor out = opcore::empty(size, dtype.value_or(kLong), layout, device, pin_memory);
  out.random_(low, high, generator);
  return out;
}

Tensor randint(int64_t high, IntArrayRef size, const std::optional<Generator>& generator,
               std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
               std::optional<bool> pin_memory) {
  return randint_low(0, high, size, generator, dtype, layout, device, pin_memory);
}

Tensor& randint_low_out(int64_t low, int64_t high, IntArrayRef size, const std::optional<Generator>& generator,
                        Tensor& out) {
  detail::resizeOutput(out, size);
  return out.random_(low, high, generator);
}

Tensor& randint_out(int64_t high, IntArrayRef size, const std::optional<Generator>& generator, Tensor& out) {
  return randint_low_out(0, high, size, generator, out);
}

// The *_like forms with a generator (PyTorch's .generator overloads) and those without it (the
// default generator).
Tensor rand_like(const Tensor& self, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                 std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  Tensor out = opcore::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  return out.uniform_(0, 1, generator);
}

Tensor rand_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return native::rand_like(self, std::nullopt, dtype, layout, device, pin_memory, memory_format);
}

Tensor randn_like(const Tensor& self, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                  std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  Tensor out = opcore::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  return out.normal_(0, 1, generator);
}

Tensor randn_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return native::randn_like(self, std::nullopt, dtype, layout, device, pin_memory, memory_format);
}

Tensor randint_like(const Tensor& self, int64_t low, int64_t high, const std::optional<Generator>& generator,
                    std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
                    std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  Tensor out = opcore::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  return out.random_(low, high, generator);
}

Tensor randint_like(const Tensor& self, int64_t low, int64_t high, std::optional<ScalarType> dtype,
                    std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                    std::optional<MemoryFormat> memory_format) {
  return native::randint_like(self, low, high, std::nullopt, dtype, layout, device, pin_memory, memory_format);
}

Tensor randint_like(const Tensor& self, int64_t high, const std::optional<Generator>& generator,
                    std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
                    std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  return native::randint_like(self, 0, high, generator, dtype, layout, device, pin_memory, memory_format);
}

Tensor randint_like(const Tensor& self, int64_t high, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                    std::optional<Device> device, std::optional<bool> pin_memory,
                    std::optional<MemoryFormat> memory_format) {
  return native::randint_like(self, 0, high, std::nullopt, dtype, layout, device, pin_memory, memory_format);
}

Tensor bernoulli(const Tensor& self, const std::optional<Generator>& generator) {
  Tensor out = opcore::empty(self.sizes(), self.scalar_type(), std::nullopt, self.device());
  return opcore::bernoulli_outf(self, generator, out);
}

Tensor bernoulli_p(const Tensor& self, double p, const std::optional<Generator>& generator) {
  Tensor out = opcore::empty(self.sizes(), self.scalar_type(), std::nullopt, self.device());
  return out.bernoulli_(p, generator);
}

Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement,
                   const std::optional<Generator>& generator) {
  Tensor out = opcore::empty({0}, kLong, std::nullopt, self.device());
  return opcore::multinomial_outf(self, num_samples, replacement, generator, out);
}

}  // namespace opcore::native

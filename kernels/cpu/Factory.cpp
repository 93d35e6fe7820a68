// CPU factory and filling kernels: empty_cpu, arange_out, fill_ and copy_ (broadcasting,
// dtype-converting, safe when source and destination overlap).
#include <opcore/ops/arange.h>
#include <opcore/ops/arange_native.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/copy_native.h>
#include <opcore/ops/empty_native.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/fill_native.h>
#include <opcore/ops/_local_scalar_dense_native.h>
#include <opcore/ops/eye_native.h>
#include <opcore/ops/linspace_native.h>
#include <opcore/ops/repeat_interleave_native.h>
#include <opcore/ops/resize_native.h>

#include "common/Shape.h"
#include "common/pointwise/Shape.h"
#include "cpu/Loops.h"
#include "cpu/ScalarConvert.h"

#include <cstring>

namespace opcore::native {

using cpu::LoopPlan;

Tensor empty_cpu(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  OPCORE_CHECK(!device || device->is_cpu(), "empty_cpu: asked for a tensor on ", *device);
  detail::checkStridedLayout("empty", layout);
  return detail::empty(size, dtype.value_or(kDefaultFloat), Device(DeviceType::CPU),
                       memory_format.value_or(MemoryFormat::Contiguous), pin_memory.value_or(false));
}

Tensor& resize_(Tensor& self, IntArrayRef size, std::optional<MemoryFormat> memory_format) {
  cpu::checkCpu("resize_", {&self});
  checkResizable(self, size, memory_format);
  detail::resizeKeepingData(self, size, memory_format.value_or(MemoryFormat::Contiguous),
                            [](void* dst, const void* src, size_t nbytes) { std::memcpy(dst, src, nbytes); });
  return self;
}

Tensor& arange_out(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  cpu::checkCpu("arange", {&out});
  const int64_t n = arangeLength(start, end, step);
  const bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  detail::resizeOutput(out, {n});
  if (n == 0) return out;
  const int64_t stride = out.stride(0);
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, out.scalar_type(), "arange", [&] {
    scalar_t* p = out.data_ptr<scalar_t>();
    if (integral) {
      const int64_t s = start.toLong(), st = step.toLong();
      for (int64_t i = 0; i < n; ++i) p[i * stride] = static_cast<scalar_t>(s + i * st);
    } else {
      // Each value from the start (not by repeated addition), so errors do not accumulate.
      const double s = start.toDouble(), st = step.toDouble();
      for (int64_t i = 0; i < n; ++i) p[i * stride] = static_cast<scalar_t>(s + static_cast<double>(i) * st);
    }
  });
  return out;
}

Tensor& fill_(Tensor& self, const Scalar& value) {
  cpu::checkCpu("fill_", {&self});
  const LoopPlan plan(self.sizes(), {&self});
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "fill_", [&] {
    const scalar_t v = cpu::checkedConvert<scalar_t>(value);
    cpu::runElementwise<scalar_t>(plan, [v]() { return v; });
  });
  return self;
}

Tensor& copy_(Tensor& self, const Tensor& src, bool non_blocking) {
  cpu::checkCpu("copy_", {&self, &src});
  const DimVector shape = broadcastShapes(self.sizes(), src.sizes());
  OPCORE_CHECK(IntArrayRef(shape) == self.sizes(), "output with shape ", self.sizes(),
               " doesn't match the broadcast shape ", IntArrayRef(shape));
  if (self.numel() == 0 || cpu::sameLayout(self, src)) return self;
  cpu::checkNoInternalOverlap(self);
  if (cpu::sharesStorage(self, src)) {
    // Reading src while writing self would see half-updated values: go through a copy.
    TensorBase tmp = detail::emptyCpu(src.sizes(), src.scalar_type());
    cpu::copyInto(tmp, src);
    cpu::copyInto(self, tmp);
  } else {
    cpu::copyInto(self, src);
  }
  return self;
}

// Core ATen part 1 (issue #33): eye, linspace and _local_scalar_dense.

Tensor& eye_out_cpu(int64_t n, int64_t m, Tensor& out) {
  cpu::checkCpu("eye", {&out});
  OPCORE_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  OPCORE_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  detail::resizeOutput(out, {n, m});
  out.fill_(0);
  const int64_t diagonal = std::min(n, m);
  const int64_t step = out.stride(0) + out.stride(1);
  OPCORE_DISPATCH_EVERY_TYPE(out.scalar_type(), "eye", [&] {
    scalar_t* p = out.data_ptr<scalar_t>();
    const scalar_t one = cpu::checkedConvert<scalar_t>(Scalar(1));
    for (int64_t i = 0; i < diagonal; ++i) p[i * step] = one;
  });
  return out;
}

Tensor& eye_out_cpu(int64_t n, Tensor& out) { return eye_out_cpu(n, n, out); }

namespace {

// As PyTorch's: the first half of the values counted from start, the second half back from end,
// so that both ends are exact. Integral dtypes convert start and end to the dtype first (wrapping:
// linspace(-3, 3, 7, dtype=uint8) runs from 253 down to 3) and truncate values computed in double,
// which then lie between the two and convert without overflow.
template <typename T>
void linspaceFill(T* p, int64_t stride, int64_t steps, const Scalar& start, const Scalar& end) {
  if constexpr (is_complex_v<T>) {
    using V = typename T::value_type;
    const complex<double> a = start.toComplexDouble(), b = end.toComplexDouble();
    const complex<double> step = (b - a) / static_cast<double>(steps - 1);
    for (int64_t i = 0; i < steps; ++i) {
      const complex<double> v = pointwise::linspaceValue(i, steps, a, b, step);
      p[i * stride] = T(static_cast<V>(v.real()), static_cast<V>(v.imag()));
    }
  } else if constexpr (std::is_integral_v<T>) {
    const double a = static_cast<double>(static_cast<T>(start.toLong()));
    const double b = static_cast<double>(static_cast<T>(end.toLong()));
    const double step = (b - a) / static_cast<double>(steps - 1);
    for (int64_t i = 0; i < steps; ++i) {
      p[i * stride] = static_cast<T>(pointwise::linspaceValue(i, steps, a, b, step));
    }
  } else {
    using M = opmath_t<T>;
    const M a = static_cast<M>(start.toDouble()), b = static_cast<M>(end.toDouble());
    const M step = (b - a) / static_cast<M>(steps - 1);
    for (int64_t i = 0; i < steps; ++i) {
      p[i * stride] = static_cast<T>(pointwise::linspaceValue(i, steps, a, b, step));
    }
  }
}

}  // namespace

Tensor& linspace_out(const Scalar& start, const Scalar& end, int64_t steps, Tensor& out) {
  cpu::checkCpu("linspace", {&out});
  OPCORE_CHECK(steps >= 0, "number of steps must be non-negative");
  detail::resizeOutput(out, {steps});
  if (steps == 0) return out;
  if (steps == 1) {
    out.fill_(start);
    return out;
  }
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, out.scalar_type(), "linspace", [&] {
    linspaceFill<scalar_t>(out.data_ptr<scalar_t>(), out.stride(0), steps, start, end);
  });
  return out;
}

Scalar _local_scalar_dense_cpu(const Tensor& self) {
  cpu::checkCpu("_local_scalar_dense", {&self});
  OPCORE_CHECK(self.numel() == 1, "a Tensor with ", self.numel(), " elements cannot be converted to Scalar");
  Scalar result;
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "_local_scalar_dense", [&] {
    result = Scalar(*self.data_ptr<scalar_t>());
  });
  return result;
}


// repeat_interleave(repeats): i repeated repeats[i] times, in repeats' dtype; the indices that
// repeat_interleave(self, repeats, dim) selects along dim.
Tensor repeat_interleave_cpu(const Tensor& repeats, std::optional<int64_t> output_size) {
  cpu::checkCpu("repeat_interleave", {&repeats});
  OPCORE_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  const ScalarType type = repeats.scalar_type();
  OPCORE_CHECK(type == ScalarType::Long || type == ScalarType::Int, "repeats has to be Long or Int tensor, got ",
               toString(type));
  const TensorBase counts = cpu::contiguousCopy(repeats.to(ScalarType::Long));
  const int64_t* c = counts.data_ptr<int64_t>();
  int64_t total = 0;
  for (int64_t i = 0; i < counts.numel(); ++i) {
    OPCORE_CHECK(c[i] >= 0, "repeats can not be negative");
    OPCORE_CHECK(!__builtin_add_overflow(total, c[i], &total), "repeat_interleave: the repeats' sum overflows int64_t");
  }
  OPCORE_CHECK(!output_size || *output_size == total, "allocated size does not match required size: output_size is ",
               *output_size, " but the repeats sum to ", total);
  Tensor out = detail::emptyCpu({total}, type);
  const auto fill = [&](auto* p) {
    for (int64_t i = 0, k = 0; i < counts.numel(); ++i) {
      for (int64_t r = 0; r < c[i]; ++r) p[k++] = static_cast<std::remove_pointer_t<decltype(p)>>(i);
    }
  };
  if (type == ScalarType::Long) {
    fill(out.data_ptr<int64_t>());
  } else {
    fill(out.data_ptr<int32_t>());
  }
  return out;
}

}  // namespace opcore::native

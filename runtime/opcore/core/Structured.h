// What the generated wrappers of structured kernels use (Note [Structured kernels] in
// gen/api/structured.py): the TensorSpec a meta function computes for each output, and the
// three ways an output is prepared from it before the impl kernel runs.
//   meta::add_out m = meta::add(self, other, alpha);   // m.out: sizes, dtype, device
//   Tensor out = detail::makeOutput(m.out);            // functional
//   detail::prepareOut("aten::add.out", out, m.out, {&self, &other});   // out=
//   detail::checkInplace("aten::add_.Tensor", self, m.out);
#pragma once

#include <opcore/core/Device.h>
#include <opcore/core/ScalarType.h>
#include <opcore/core/TensorBase.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace opcore {

// One output of a structured kernel, as its meta function computes it.
struct TensorSpec {
  std::vector<int64_t> sizes;
  ScalarType dtype = ScalarType::Float;
  Device device;
  // Whether an out= (or in-place) tensor must have exactly `dtype`. Elementwise kernels
  // convert as they write, so any dtype the result can be cast to will do (false); others,
  // such as mm and max.dim, write `dtype` values directly and need exactly it (true), as in
  // PyTorch.
  bool exact_dtype = false;
};

namespace detail {

// A new contiguous tensor with the spec's sizes, dtype and device (no data on Meta).
TensorBase makeOutput(const TensorSpec& spec);
// An out= argument made ready: on the spec's device, with a dtype the result can be cast to
// (the impl writes converted values; the spec's dtype exactly if it says so), resized to the spec's sizes when they differ. One
// exception: when `out` needs a new shape and shares memory with one of `inputs`, resizing it
// now would lose that input's values, so the resize is left to the impl, which reads its
// inputs first (cpu::ElementwiseOp does: `add_out(a, a, b, out=a)` works).
void prepareOut(const char* op, const TensorBase& out, const TensorSpec& spec,
                std::initializer_list<const TensorBase*> inputs);
// The spec of an existing tensor (its sizes, dtype and device): what the kernels generated for
// `autogen:` overloads make copies and size out= arguments from (Note [Generated overloads] in
// gen/model/autogen.py).
TensorSpec specOf(const TensorBase& t);
// An out= tensor list of a generated overload must hold one tensor per result.
void checkOutListSize(const char* op, const char* what, size_t size, size_t expected);
// The self of an in-place overload: it must already have the result's sizes (it is never
// resized), be on the spec's device, and have a dtype the result can be cast to (or the
// spec's dtype exactly).
void checkInplace(const char* op, const TensorBase& self, const TensorSpec& spec);

}  // namespace detail
}  // namespace opcore

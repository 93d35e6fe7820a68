// Arithmetic and comparison operators on Tensor (a + b, a * 2.0, -a, a < b), each a thin
// alias of the generated operator of the same meaning.
//   Tensor c = (a - b.mean()) / 2.0;
#pragma once

#include <opcore/ops/add.h>
#include <opcore/ops/div.h>
#include <opcore/ops/eq.h>
#include <opcore/ops/full.h>
#include <opcore/ops/gt.h>
#include <opcore/ops/lt.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/sub.h>

namespace opcore {

inline Tensor operator-(const Tensor& a) { return a.neg(); }

#define OPCORE_BINARY_OPERATOR_(op, fn)                                                    \
  inline Tensor operator op(const Tensor& a, const Tensor& b) { return fn(a, b); }        \
  inline Tensor operator op(const Tensor& a, const Scalar& b) { return fn(a, b); }        \
  inline Tensor operator op(const Scalar& a, const Tensor& b) {                           \
    return fn(opcore::full({}, a, b.device()), b);                                        \
  }
OPCORE_BINARY_OPERATOR_(+, opcore::add)
OPCORE_BINARY_OPERATOR_(-, opcore::sub)
OPCORE_BINARY_OPERATOR_(*, opcore::mul)
OPCORE_BINARY_OPERATOR_(/, opcore::div)
OPCORE_BINARY_OPERATOR_(==, opcore::eq)
OPCORE_BINARY_OPERATOR_(<, opcore::lt)
OPCORE_BINARY_OPERATOR_(>, opcore::gt)
#undef OPCORE_BINARY_OPERATOR_

inline Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
inline Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
inline Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
inline Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }

}  // namespace opcore

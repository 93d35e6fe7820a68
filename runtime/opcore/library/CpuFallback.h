// The CPU fallback: a boxed fallback with which a backend runs the operators it has no kernel
// for on the CPU (PyTorch's at::native::cpu_fallback). A backend installs it with one line:
//   OPCORE_LIBRARY_IMPL(_, PrivateUse1, m) { m.fallback(opcore::cpuFallback()); }
// See Note [CPU fallback] in kernels/composite/CpuFallback.cpp for what it copies and what it
// refuses. It is defined with the kernels, as it calls operators (Tensor::to, copy_), which the
// runtime's core, dispatch and library layers do not.
#pragma once

#include <opcore/dispatch/KernelFunction.h>
#include <opcore/core/IValue.h>

namespace opcore {

class OperatorHandle;

// Copies the call's tensors on another device to the CPU, runs the operator's CPU kernel, and
// copies the results (and the arguments it mutated) back; warns once per operator.
void cpu_fallback(const OperatorHandle& op, Stack* stack);
// cpu_fallback as a kernel, for Library::fallback (or Library::impl of a single operator).
KernelFunction cpuFallback();

}  // namespace opcore

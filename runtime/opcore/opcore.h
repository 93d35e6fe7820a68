// The one header users include: the generated operator API (opcore::add, Tensor methods)
// plus Tensor operators (a + b), the grad-mode guards (NoGradGuard) and the thread count
// (set_num_threads).
#pragma once

#include <opcore/Functions.h>
#include <opcore/TensorOperators.h>
#include <opcore/autograd/GradMode.h>
#include <opcore/core/Parallel.h>

// The one header users include: the generated operator API (opcore::add, Tensor methods)
// plus Tensor operators (a + b) and the grad-mode guards (NoGradGuard).
#pragma once

#include <opcore/Functions.h>
#include <opcore/TensorOperators.h>
#include <opcore/autograd/GradMode.h>

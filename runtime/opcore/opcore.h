// The one header users include: the generated operator API (opcore::add, Tensor methods)
// plus Tensor operators (a + b).
#pragma once

#include <opcore/Functions.h>
#include <opcore/TensorOperators.h>

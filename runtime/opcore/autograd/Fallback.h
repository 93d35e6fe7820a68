// The Autograd fallback (Fallback.cpp) runs the operators that have no Autograd kernel of their
// own. What a build tells it about such operators, so that backward() through one says why it
// has no derivative.
#pragma once

#include <opcore/dispatch/RegistrationHandle.h>

#include <string>
#include <vector>

namespace opcore::autograd {

// Records operators that a selective build keeps for inference only (`names` as "aten::mm",
// Note [Selective builds] in gen/emit/selection.py): backward() through one throws
// "derivative for aten::mm is not implemented (<reason>)" rather than asking for a formula
// that derivatives.yaml already has.
RegistrationHandleRAII registerInferenceOnly(std::vector<std::string> names, std::string reason);

}  // namespace opcore::autograd

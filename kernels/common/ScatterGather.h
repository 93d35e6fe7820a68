// Checks shared by the meta functions and the kernels of scatter, gather and index_select
// (kernels/common/IndexingMeta.cpp), with PyTorch's messages.
#pragma once

#include <opcore/core/Structured.h>
#include <opcore/core/TensorBase.h>

#include <cstdint>
#include <string_view>

namespace opcore::native {

// How a scatter combines an element with the one already at its place.
enum class ScatterReduce { Assign, Add, Multiply, Mean, Max, Min };

// Throws unless `index` is Long: "<op>(): Expected dtype int64 for index".
void checkIndexDtype(const char* op, const TensorBase& index);
// gather: index has self's rank (0-dim counting as 1-dim) and is no larger apart from `dim`.
void gatherShapeCheck(const TensorBase& self, int64_t dim, const TensorBase& index);
// scatter: index has self's (and src's) rank, is no larger than src, nor than self apart
// from `dim`. Nothing is checked when index is empty. `src` may be null (a Scalar value).
void scatterShapeCheck(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase* src);
// The result of every scatter: self's sizes, dtype and device; an out= tensor must have the
// dtype exactly (the kernels write self's elements directly), as PyTorch's.
TensorSpec scatterSpec(const TensorBase& self);
// scatter.reduce's `reduce`: "add" or "multiply".
ScatterReduce parseScatterReduce(std::string_view reduce);
// scatter_reduce.two's `reduce`: "sum", "prod", "mean", "amax" or "amin".
ScatterReduce parseScatterReduceTwo(std::string_view reduce);

}  // namespace opcore::native

// Index.h: what the index family's aten kernels share (Index.cpp: gathers and scatters along one dim, take / put,
// embedding backward; IndexAdvanced.cpp: advanced indexing, masks, nonzero).
//
// Every kernel builds the iteration space the index family takes (families.h): dst, src and the index tensors
// viewed with one shape, the indexed tensor restrided with stride 0 along its indexed dims (the family adds
// index * stride there), as torch's own TensorIterator-based index kernels do.
#pragma once

#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>

#include <vector>

#include "Family.h"

namespace infini_torch::aten {

// An iterator over dst (the output operand: written, or read and written by the accumulating scatters), src and
// the index tensors, all of one shape; no overlap, dtype or resize handling (the callers did it).
at::TensorIterator indexIterator(const at::Tensor &dst, const at::Tensor &src, const std::vector<at::Tensor> &indices);

// Queues one index call over iter (operands dst, src, indices...): index k ranges over [0, sizes[k]) and moves
// the indexed operand by strides[k] elements a step. wrap_negative: an index -s .. -1 counts from the end.
void runIndex(const char *name, infiniopIndexOp_t op, at::TensorIteratorBase &iter, c10::ArrayRef<int64_t> sizes,
              c10::ArrayRef<int64_t> strides, bool wrap_negative);

// `index` (a vector or a 0-d tensor) selecting positions along `dim` of `indexed` while `dense` runs over its
// whole shape (dense.size(dim) == index.numel()): GATHER reads indexed into dense (dst = dense), the scatters write
// dense into indexed (dst = indexed). Tensors of 0 dims count as 1-d of one element.
void alongDim(const char *name, infiniopIndexOp_t op, const at::Tensor &indexed, const at::Tensor &dense, int64_t dim,
              const at::Tensor &index, bool wrap_negative);

// The number of nonzero elements of t (synchronizes: the caller sizes an output with it).
int64_t countNonzero(const char *name, const at::Tensor &t);

}  // namespace infini_torch::aten

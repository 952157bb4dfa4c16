// Window.h: what the image ops' glue (Conv.cpp, Pool.cpp, BatchNorm.cpp) shares: the window family's arguments
// for an NCHW image, and dense copies and casts on the pointwise family (so the kernels' contiguous operands are
// made on the device, queued like every other kernel).
#pragma once

#include <ATen/core/Tensor.h>

#include "Family.h"

namespace infini_torch::aten {

// True for the dtypes the window family takes (float16, bfloat16, float32, float64).
bool isWindowDtype(at::ScalarType t);

// True when the backend of `device` has window op `op` (asked once per device and op with an empty call; false
// makes the aten op take its CPU fallback, as for a backend without the family).
bool windowSupports(c10::Device device, infiniopWindowOp_t op);

// Arguments of a window op over images [n, c, h, w] of `dtype` and a grid oh x ow (kernel 1x1, stride 1, no
// padding, dilation 1 until the caller sets them; data pointers NULL).
infiniopWindowArgs_t windowArgs(infiniopWindowOp_t op, at::ScalarType dtype, int64_t n, int64_t c, int64_t h, int64_t w,
                                int64_t oh, int64_t ow);

// dst = src, converted to dst's dtype (same sizes; any strides), on the pointwise family.
void copyInto(const char *op, const at::Tensor &dst, const at::Tensor &src);

// t when it is contiguous and of `dtype` (default: its own), else a contiguous copy made by copyInto.
at::Tensor contiguousAs(const char *op, const at::Tensor &t, std::optional<at::ScalarType> dtype = std::nullopt);

}  // namespace infini_torch::aten

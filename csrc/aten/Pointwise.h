// Pointwise.h: the pointwise family's call builder, shared by the aten kernels that run element-wise work
// (Pointwise.cpp, and copies, fills and optimizer steps elsewhere).
#pragma once

#include <ATen/TensorIterator.h>

#include "Family.h"

namespace infini_torch::aten {

// Builds one infiniopPointwise call: Pw(op).scalar(0, alpha).run("aten::add.out", iter).
struct Pw {
    infiniopPointwiseArgs_t a{};

    explicit Pw(infiniopPointwiseOp_t op, int noutputs = 1) {
        a.op = op;
        a.noutputs = noutputs;
    }
    // Scalar k as both its float and its integer value (the kernel reads the one of its compute dtype).
    Pw &scalar(int k, const at::Scalar &s);
    // Runs over a TensorIterator: its operands (CPU scalars become constants); compute dtype: the iterator's
    // common dtype's (F32 / F64 / I64) unless given.
    void run(const char *name, at::TensorIteratorBase &iter, infiniDtype_t compute = INFINI_DTYPE_INVALID);
    // Runs with a.iter and a.compute already filled in.
    void runIter(const char *name, c10::Device device);
};

// The iterator's common dtype where it computed one, else its first output's dtype.
at::ScalarType commonDtype(const at::TensorIteratorBase &it);

// Inserts a constant operand (every element f / i) at `position`, shifting later operands up.
void insertConstant(infiniopPointwiseArgs_t &a, int position, double f, int64_t i);

}  // namespace infini_torch::aten

// Linalg.cpp: matrix products on the gemm operator (infiniop op GEMM through csrc/ops/OpRunner.h:
// c = alpha * a @ b + beta * c_in, 2-D or batched 3-D, float32 / float16 / bfloat16 with float32 accumulation):
// mm, bmm, addmm, baddbmm, addmv (and so mv), addbmm, dot and vdot; matmul, linear and einsum decompose into these.
// The structured ops run torch's meta (shape and dtype checks, the output), then one gemm. An operand goes to the
// gemm as it lies when the gemm can read it (stride 1 along one of its last two dims: a transposed view costs no
// copy); any other is copied first. The output is written in place when its rows are contiguous and it overlaps no
// input (c_in may be the output itself: the in-place forms), else through a fresh tensor. beta == 0 never reads
// c_in (NaN in it is ignored, as torch). Integer, float64 and complex products run on the CPU fallback: torch has
// integer matrix products on the CPU only.
#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/addbmm_ops.h>
#include <ATen/ops/addmm_meta.h>
#include <ATen/ops/addmm_ops.h>
#include <ATen/ops/addmv_meta.h>
#include <ATen/ops/addmv_ops.h>
#include <ATen/ops/baddbmm_meta.h>
#include <ATen/ops/baddbmm_ops.h>
#include <ATen/ops/bmm_meta.h>
#include <ATen/ops/bmm_ops.h>
#include <ATen/ops/dot_ops.h>
#include <ATen/ops/mm_meta.h>
#include <ATen/ops/mm_ops.h>
#include <ATen/ops/vdot_ops.h>
#include <torch/library.h>

#include "../ops/OpRunner.h"
#include "Route.h"

namespace infini_torch::aten {
namespace {

using at::Scalar;
using at::Tensor;

using GemmArgs = AllTensors<&isFloat32Or16>;

// The gemm reads a matrix (the last two dims) in place when one dim has stride 1 and the other steps over whole
// rows (columns) of it; dims of one element have no stride that matters.
bool gemmReadable(const Tensor &t) {
    const int64_t r = t.size(-2), c = t.size(-1);
    int64_t sr = t.stride(-2), sc = t.stride(-1);
    if (c <= 1) sc = 1;
    if (r <= 1) sr = std::max<int64_t>(c, 1);
    return (sc == 1 && sr >= std::max<int64_t>(c, 1)) || (sr == 1 && sc >= std::max<int64_t>(r, 1));
}

// The gemm writes c with stride 1 along its rows, rows (and batches) not overlapping.
bool gemmWritable(const Tensor &c) {
    const int64_t m = c.size(-2), n = c.size(-1);
    if (n > 1 && c.stride(-1) != 1) return false;
    if (m > 1 && c.stride(-2) < n) return false;
    if (c.dim() == 3 && c.size(0) > 1 && c.stride(0) < (m > 1 ? (m - 1) * c.stride(-2) : 0) + n) return false;
    return true;
}

// True unless a and b certainly share no element (a layout too complex to tell counts as sharing).
bool mayOverlap(const Tensor &a, const Tensor &b) { return at::get_overlap_status(a, b) != at::MemOverlapStatus::No; }

void runGemm(const Tensor &c, const Tensor &a, const Tensor &b, const Tensor &cin, double alpha, double beta) {
    ops::runOp(INFINIOP_OP_GEMM, {&c, &a, &b, &cin}, {alpha, beta});
}

// out = alpha * a @ b + beta * c, c broadcast to out's shape (c undefined or beta == 0: c is not read).
// a, b, out: 2-D, or 3-D with one batch dim.
void gemm(const Tensor &out, const Tensor &a, const Tensor &b, const Tensor &c, double alpha, double beta) {
    // torch's CPU and CUDA kernels check these (their meta functions do not)
    TORCH_CHECK(a.scalar_type() == b.scalar_type(), "expected m1 and m2 to have the same dtype, but got: ", a.dtype(),
                " != ", b.dtype());
    TORCH_CHECK(!c.defined() || c.scalar_type() == b.scalar_type(), "self and mat2 must have the same dtype, but got ",
                c.dtype(), " and ", b.dtype());
    TORCH_CHECK(out.scalar_type() == a.scalar_type(), "expected out to have dtype ", a.dtype(), ", but got ",
                out.dtype());
    if (out.numel() == 0) return;
    const Tensor ab = gemmReadable(a) ? a : a.contiguous();
    const Tensor bb = gemmReadable(b) ? b : b.contiguous();
    Tensor cin;
    if (c.defined() && beta != 0.0) cin = c.expand(out.sizes());
    const bool in_place =
        gemmWritable(out) && !mayOverlap(out, ab) && !mayOverlap(out, bb) &&
        (!cin.defined() || at::get_overlap_status(out, cin) == at::MemOverlapStatus::Full || !mayOverlap(out, cin));
    if (in_place) {
        runGemm(out, ab, bb, cin, alpha, beta);
        return;
    }
    Tensor tmp = at::empty(out.sizes(), out.options());
    runGemm(tmp, ab, bb, cin, alpha, beta);
    out.copy_(tmp);
}

// ---- structured ops: impls (name, meta object, meta args...) ----

void mmImpl(const char *name, at::meta::structured_mm &op, const Tensor &self, const Tensor &mat2) {
    const Tensor &out = op.maybe_get_output(0);
    checkSameDevice(name, out.device(), {&self, &mat2});
    gemm(out, self, mat2, Tensor(), 1.0, 0.0);
}

void bmmImpl(const char *name, at::meta::structured_bmm &op, const Tensor &self, const Tensor &mat2) {
    const Tensor &out = op.maybe_get_output(0);
    checkSameDevice(name, out.device(), {&self, &mat2});
    gemm(out, self, mat2, Tensor(), 1.0, 0.0);
}

void addmmImpl(const char *name, at::meta::structured_addmm &op, const Tensor &self, const Tensor &mat1,
               const Tensor &mat2, const Scalar &beta, const Scalar &alpha) {
    const Tensor &out = op.maybe_get_output(0);
    checkSameDevice(name, out.device(), {&self, &mat1, &mat2});
    gemm(out, mat1, mat2, self, alpha.toDouble(), beta.toDouble());
}

void baddbmmImpl(const char *name, at::meta::structured_baddbmm &op, const Tensor &self, const Tensor &batch1,
                 const Tensor &batch2, const Scalar &beta, const Scalar &alpha) {
    const Tensor &out = op.maybe_get_output(0);
    checkSameDevice(name, out.device(), {&self, &batch1, &batch2});
    gemm(out, batch1, batch2, self, alpha.toDouble(), beta.toDouble());
}

// out [m] = beta * self + alpha * mat [m, k] @ vec [k]: a gemm of one column.
void addmvImpl(const char *name, at::meta::structured_addmv &op, const Tensor &self, const Tensor &mat,
               const Tensor &vec, const Scalar &beta, const Scalar &alpha) {
    const Tensor &out = op.maybe_get_output(0);
    checkSameDevice(name, out.device(), {&self, &mat, &vec});
    const double b = beta.toDouble();
    gemm(out.unsqueeze(1), mat, vec.unsqueeze(1), b != 0.0 ? self.expand({mat.size(0)}).unsqueeze(1) : Tensor(),
         alpha.toDouble(), b);
}

// ---- non-structured ops ----

// addbmm: out = beta * self + alpha * sum_i batch1[i] @ batch2[i], as torch's CPU kernel: one addmm per batch,
// the first with beta, the rest accumulating into out.
Tensor &addbmmOut(const Tensor &self, const Tensor &batch1, const Tensor &batch2, const Scalar &beta,
                  const Scalar &alpha, Tensor &out) {
    const char *name = "aten::addbmm.out";
    TORCH_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
    TORCH_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
    TORCH_CHECK(batch1.size(0) == batch2.size(0), "batch1 and batch2 must have same number of batches, got ",
                batch1.size(0), " and ", batch2.size(0));
    TORCH_CHECK(batch1.size(2) == batch2.size(1), "Incompatible matrix sizes for bmm (", batch1.size(1), "x",
                batch1.size(2), " and ", batch2.size(1), "x", batch2.size(2), ")");
    TORCH_CHECK(batch1.scalar_type() == batch2.scalar_type() && self.scalar_type() == batch1.scalar_type(),
                "addbmm: expected self, batch1 and batch2 to have the same dtype, but got ", self.scalar_type(), ", ",
                batch1.scalar_type(), " and ", batch2.scalar_type());
    TORCH_CHECK(out.scalar_type() == self.scalar_type(), "addbmm: expected out to have dtype ", self.scalar_type(),
                ", got ", out.scalar_type());
    checkSameDevice(name, out.device(), {&self, &batch1, &batch2});
    const int64_t m = batch1.size(1), n = batch2.size(2);
    const Tensor self_e = self.expand({m, n});
    const double b = beta.toDouble(), a = alpha.toDouble();
    const bool self_is_out = self.is_same(out);
    at::native::resize_output(out, {m, n});
    const int64_t batches = batch1.size(0);
    if (batches == 0 || batch1.size(2) == 0) {  // no product: beta * self
        if (b == 0.0) {
            out.zero_();
        } else {
            if (!self_is_out) out.copy_(self_e);
            out.mul_(beta);
        }
        return out;
    }
    const bool direct = gemmWritable(out) && !mayOverlap(out, batch1) && !mayOverlap(out, batch2);
    Tensor acc = direct ? out : at::empty({m, n}, out.options());
    for (int64_t i = 0; i < batches; ++i) {
        if (i == 0) {
            gemm(acc, batch1[0], batch2[0], self_e, a, b);
        } else {
            gemm(acc, batch1[i], batch2[i], acc, a, 1.0);
        }
    }
    if (!direct) out.copy_(acc);
    return out;
}

Tensor addbmm(const Tensor &self, const Tensor &batch1, const Tensor &batch2, const Scalar &beta, const Scalar &alpha) {
    Tensor out = at::empty({0}, self.options());
    return addbmmOut(self, batch1, batch2, beta, alpha, out);
}

Tensor &addbmmInplace(Tensor &self, const Tensor &batch1, const Tensor &batch2, const Scalar &beta,
                      const Scalar &alpha) {
    return addbmmOut(self, batch1, batch2, beta, alpha, self);
}

// dot(self [n], other [n]) -> 0-d: a [1, n] @ [n, 1] gemm. Torch's checks and messages.
Tensor dotImpl(const char *name, const Tensor &self, const Tensor &other) {
    TORCH_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ", other.dim(),
                "D tensors");
    TORCH_CHECK(self.scalar_type() == other.scalar_type(), "dot : expected both vectors to have same dtype, but found ",
                self.scalar_type(), " and ", other.scalar_type());
    TORCH_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [", self.numel(),
                "] and src [", other.numel(), "] to have the same number of elements, but got ", self.numel(), " and ",
                other.numel(), " elements respectively");
    checkSameDevice(name, self.device(), {&other});
    Tensor out = at::empty({}, self.options());
    gemm(out.view({1, 1}), self.unsqueeze(0), other.unsqueeze(1), Tensor(), 1.0, 0.0);
    return out;
}

Tensor dot(const Tensor &self, const Tensor &other) { return dotImpl("aten::dot", self, other); }
Tensor vdot(const Tensor &self, const Tensor &other) { return dotImpl("aten::vdot", self, other); }  // real: dot

}  // namespace
}  // namespace infini_torch::aten

using namespace infini_torch::aten;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    // gemm dtypes natively; integers, float64 and complex on the CPU fallback
    INFINI_ROUTED_FUNCTIONAL(m, "mm", mm, GemmArgs, structured_mm, &mmImpl);
    INFINI_ROUTED_OUT(m, "mm.out", mm_out, GemmArgs, structured_mm, &mmImpl);
    INFINI_ROUTED_FUNCTIONAL(m, "bmm", bmm, GemmArgs, structured_bmm, &bmmImpl);
    INFINI_ROUTED_OUT(m, "bmm.out", bmm_out, GemmArgs, structured_bmm, &bmmImpl);
    INFINI_ROUTED_FUNCTIONAL(m, "addmm", addmm, GemmArgs, structured_addmm, &addmmImpl);
    INFINI_ROUTED_INPLACE(m, "addmm_", addmm_, GemmArgs, structured_addmm, &addmmImpl);
    INFINI_ROUTED_OUT(m, "addmm.out", addmm_out, GemmArgs, structured_addmm, &addmmImpl);
    INFINI_ROUTED_FUNCTIONAL(m, "baddbmm", baddbmm, GemmArgs, structured_baddbmm, &baddbmmImpl);
    INFINI_ROUTED_INPLACE(m, "baddbmm_", baddbmm_, GemmArgs, structured_baddbmm, &baddbmmImpl);
    INFINI_ROUTED_OUT(m, "baddbmm.out", baddbmm_out, GemmArgs, structured_baddbmm, &baddbmmImpl);
    INFINI_ROUTED_FUNCTIONAL(m, "addmv", addmv, GemmArgs, structured_addmv, &addmvImpl);
    INFINI_ROUTED_INPLACE(m, "addmv_", addmv_, GemmArgs, structured_addmv, &addmvImpl);
    INFINI_ROUTED_OUT(m, "addmv.out", addmv_out, GemmArgs, structured_addmv, &addmvImpl);
    INFINI_ROUTED(m, "addbmm", addbmm, GemmArgs, addbmm);
    INFINI_ROUTED(m, "addbmm_", addbmm_, GemmArgs, addbmmInplace);
    INFINI_ROUTED(m, "addbmm.out", addbmm_out, GemmArgs, addbmmOut);
    INFINI_ROUTED(m, "dot", dot, GemmArgs, dot);
    INFINI_ROUTED(m, "vdot", vdot, GemmArgs, vdot);
}

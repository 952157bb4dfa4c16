// Scan.cpp: the cumulative ops on the scan family (infiniopScan): cumsum and cumprod (structured: functional,
// in-place and out= forms), cummax / cummin (torch's _cummax_helper / _cummin_helper, under its composite
// cummax / cummin, which size the outputs), logcumsumexp (_logcumsumexp and its out= form, under the composite
// logcumsumexp). The kernel scans in place of torch's self.to(result dtype) where its loads convert alike.
#include <ATen/ATen.h>
#include <ATen/Operators.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/cumprod_meta.h>
#include <ATen/ops/cumsum_meta.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "Family.h"
#include "Reduce.h"
#include "Structured.h"

namespace infini_torch::aten {
namespace {

using at::ScalarType;
using at::Tensor;
using at::impl::MetaBase;

// Scans self along dim into out (and indices), reading self as in_dtype and computing in its compute dtype.
void scanInto(const char *name, infiniopScanOp_t op, const Tensor &self, int64_t dim, ScalarType in_dtype,
              const Tensor &out, const Tensor *indices = nullptr) {
    if (self.numel() == 0) return;
    TORCH_CHECK(isFamilyDtype(in_dtype) && isFamilyDtype(out.scalar_type()), name, ": dtype ", out.scalar_type(),
                " is not supported on the infini device");
    const Tensor in = familyInput(self, in_dtype);
    const int64_t ndim = self.dim();
    const int64_t d = at::maybe_wrap_dim(dim, ndim);
    infiniopScanArgs_t a{};
    a.op = op;
    a.compute = computeDtype(in_dtype);
    a.noutputs = indices != nullptr ? 2 : 1;
    a.iter = indices != nullptr ? iterOfTensors({&out, indices, &in}) : iterOfTensors({&out, &in});
    a.dim = ndim > 0 ? static_cast<int32_t>(ndim - 1 - d) : 0;  // iter dims run from the tensors' last
    const c10::DeviceGuard guard(self.device());                // the family queues on the current device's stream
    runFamily(name, infiniopScan, self.device(), a);
}

template <infiniopScanOp_t OP>
void cumImpl(const char *name, MetaBase &m, const Tensor &self, int64_t dim, std::optional<ScalarType>) {
    const Tensor &out = m.maybe_get_output(0);
    scanInto(name, OP, self, dim, out.scalar_type(), out);
}

template <infiniopScanOp_t OP>
void cumExtremeHelper(const Tensor &self, Tensor &values, Tensor &indices, int64_t dim) {
    using Op = std::conditional_t<OP == INFINIOP_SCAN_CUMMAX, at::_ops::_cummax_helper, at::_ops::_cummin_helper>;
    if (!detail::familyArgs(self, values, indices)) {
        return detail::fallback<Op, void, const Tensor &, Tensor &, Tensor &, int64_t>(self, values, indices, dim);
    }
    scanInto(Op::name, OP, self, dim, self.scalar_type(), values, &indices);
}

Tensor &logcumsumexpOut(const Tensor &self, int64_t dim, Tensor &out) {
    if (!detail::familyArgs(self, out)) {
        return detail::fallback<at::_ops::_logcumsumexp_out, Tensor &, const Tensor &, int64_t, Tensor &>(self, dim,
                                                                                                          out);
    }
    TORCH_CHECK(at::isFloatingType(self.scalar_type()), "\"logcumsumexp\" not implemented for '",
                toString(self.scalar_type()), "'");
    dim = at::maybe_wrap_dim(dim, self.dim());
    at::native::resize_output(out, self.sizes());
    scanInto("aten::_logcumsumexp.out", INFINIOP_SCAN_LOGCUMSUMEXP, self, dim, out.scalar_type(), out);
    return out;
}

Tensor logcumsumexp(const Tensor &self, int64_t dim) {
    if (!detail::familyArgs(self)) {
        return detail::fallback<at::_ops::_logcumsumexp, Tensor, const Tensor &, int64_t>(self, dim);
    }
    Tensor out = at::empty_like(self, at::MemoryFormat::Contiguous);
    return logcumsumexpOut(self, dim, out);
}

}  // namespace
}  // namespace infini_torch::aten

using namespace infini_torch::aten;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    INFINI_STRUCTURED3(m, "cumsum", "cumsum_", "cumsum.out", cumsum, cumsum_, cumsum_out, structured_cumsum,
                       &cumImpl<INFINIOP_SCAN_CUMSUM>);
    INFINI_STRUCTURED3(m, "cumprod", "cumprod_", "cumprod.out", cumprod, cumprod_, cumprod_out, structured_cumprod,
                       &cumImpl<INFINIOP_SCAN_CUMPROD>);
    m.impl("_cummax_helper", TORCH_FN(cumExtremeHelper<INFINIOP_SCAN_CUMMAX>));
    m.impl("_cummin_helper", TORCH_FN(cumExtremeHelper<INFINIOP_SCAN_CUMMIN>));
    m.impl("_logcumsumexp", TORCH_FN(logcumsumexp));
    m.impl("_logcumsumexp.out", TORCH_FN(logcumsumexpOut));
}

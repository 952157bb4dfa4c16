// Sort.cpp: sorting on the sort family (infiniopSort): sort (structured sort.stable; torch's composite sort,
// argsort and msort reach it), topk, and on top of top-k: kthvalue and median (the lower median; a slice holding
// NaN gives NaN at its first NaN, as torch's CPU kernel). The kernel orders equal values by index, so torch's
// unstable sort gets the stable order too.
#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/Operators.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/native/SortingUtils.h>
#include <ATen/ops/sort_meta.h>
#include <ATen/ops/topk_meta.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <limits>

#include "Family.h"
#include "Reduce.h"
#include "Structured.h"

namespace infini_torch::aten {
namespace {

using at::Tensor;
using at::impl::MetaBase;
using Pair = std::tuple<Tensor &, Tensor &>;

// Sorts (SORT) or selects the k first (TOPK) of self along dim into values (may be undefined) and indices.
void sortInto(const char *name, infiniopSortOp_t op, const Tensor &self, int64_t dim, bool descending, int64_t k,
              const Tensor &values, const Tensor &indices) {
    if (self.numel() == 0) return;
    infiniopSortArgs_t a{};
    a.op = op;
    a.dim = static_cast<int32_t>(at::maybe_wrap_dim(dim, self.dim(), /*wrap_scalar=*/true));
    a.descending = descending ? 1 : 0;
    a.stable = 1;
    a.sorted = 1;
    a.k = k;
    a.in = tensorOf(self);
    if (values.defined()) a.values = tensorOf(values);
    a.indices = tensorOf(indices);
    const c10::DeviceGuard guard(self.device());  // the family queues on the current device's stream
    runFamily(name, infiniopSort, self.device(), a);
}

void sortImpl(const char *name, MetaBase &m, const Tensor &self, std::optional<bool>, int64_t dim, bool descending) {
    const int64_t n = self.dim() > 0 ? self.size(at::maybe_wrap_dim(dim, self.dim())) : 1;
    sortInto(name, INFINIOP_SORT_SORT, self, dim, descending, n, m.maybe_get_output(0), m.maybe_get_output(1));
}

void topkImpl(const char *name, MetaBase &m, const Tensor &self, int64_t k, int64_t dim, bool largest, bool) {
    if (self.dim() == 0) {  // torch: a 0-d output holds self for k = 0 too
        m.maybe_get_output(0).copy_(self);
        m.maybe_get_output(1).zero_();
        return;
    }
    sortInto(name, INFINIOP_SORT_TOPK, self, dim, largest, k, m.maybe_get_output(0), m.maybe_get_output(1));
}

// The k-th smallest along dim (NaN above every number; ties: the lowest index) into values / indices of self's
// shape with dim of extent 1.
void kthInto(const char *name, const Tensor &self, int64_t dim, int64_t k, const Tensor &values,
             const Tensor &indices) {
    auto sizes = self.sizes().vec();
    sizes[dim] = k;
    Tensor v = at::empty(sizes, self.options()), i = at::empty(sizes, self.options().dtype(at::kLong));
    sortInto(name, INFINIOP_SORT_TOPK, self, dim, false, k, v, i);
    values.copy_(v.narrow(dim, k - 1, 1));
    indices.copy_(i.narrow(dim, k - 1, 1));
}

Pair kthvalueOut(const Tensor &self, c10::SymInt k_sym, int64_t dim_, bool keepdim, Tensor &values, Tensor &indices) {
    if (!detail::familyArgs(self, values, indices)) {
        return detail::fallback<at::_ops::kthvalue_values, Pair, const Tensor &, c10::SymInt, int64_t, bool, Tensor &,
                                Tensor &>(self, std::move(k_sym), dim_, keepdim, values, indices);
    }
    const c10::DeviceGuard guard(self.device());  // the ops below queue on the current device's stream
    const int64_t k = k_sym.guard_int(__FILE__, __LINE__);
    const int64_t dim = at::maybe_wrap_dim(dim_, self.dim(), /*wrap_scalar=*/true);
    const int64_t slicesize = self.dim() == 0 ? 1 : self.size(dim);
    at::native::zero_numel_check_dims(self, dim, "kthvalue()");
    TORCH_CHECK(k >= 1 && k <= slicesize, "kthvalue(): selected number k out of range for dimension ", dim);
    at::assert_no_overlap(self, values);
    at::native::_reduction_with_indices_allocate_or_resize_output(values, indices, self, dim_, keepdim);
    if (self.dim() == 0) {
        values.copy_(self);
        indices.zero_();
        return Pair(values, indices);
    }
    if (self.numel() > 0) kthInto("aten::kthvalue.values", self, dim, k, values, indices);
    if (!keepdim) {
        values.squeeze_(dim);
        indices.squeeze_(dim);
    }
    return Pair(values, indices);
}

// median along dim: the ((n - 1) / 2 + 1)-th smallest; where a slice holds NaN, NaN and its first index.
void medianInto(const Tensor &self, int64_t dim, bool keepdim, const Tensor &values, const Tensor &indices) {
    const Tensor in = self.dim() > 0 ? self : self.unsqueeze(0);
    const Tensor vals = keepdim && self.dim() > 0 ? values : values.unsqueeze(dim);
    const Tensor inds = keepdim && self.dim() > 0 ? indices : indices.unsqueeze(dim);
    if (in.numel() == 0) return;
    kthInto("aten::median.dim_values", in, dim, (in.size(dim) - 1) / 2 + 1, vals, inds);
    if (at::isFloatingType(in.scalar_type())) {
        const Tensor nan = in.ne(in);
        const Tensor has_nan = nan.any(dim, /*keepdim=*/true);
        vals.masked_fill_(has_nan, std::numeric_limits<double>::quiet_NaN());
        inds.copy_(at::where(has_nan, nan.to(at::kByte).argmax(dim, /*keepdim=*/true), inds));
    }
}

Pair medianDimOut(const Tensor &self, int64_t dim, bool keepdim, Tensor &values, Tensor &indices) {
    if (!detail::familyArgs(self, values, indices)) {
        return detail::fallback<at::_ops::median_dim_values, Pair, const Tensor &, int64_t, bool, Tensor &, Tensor &>(
            self, dim, keepdim, values, indices);
    }
    const c10::DeviceGuard guard(self.device());  // the ops below queue on the current device's stream
    dim = at::maybe_wrap_dim(dim, self.dim());
    at::native::zero_numel_check_dims(self, dim, "median()");
    TORCH_CHECK(indices.scalar_type() == at::kLong, "median(): expected indices of dtype Long, got ",
                indices.scalar_type());
    TORCH_CHECK(values.scalar_type() == self.scalar_type(), "median(): expected values of dtype ", self.scalar_type(),
                ", got ", values.scalar_type());
    std::vector<int64_t> out_shape = self.sizes().vec();
    if (self.dim() > 0) {
        if (keepdim) {
            out_shape[dim] = 1;
        } else {
            out_shape.erase(out_shape.begin() + dim);
        }
    }
    at::native::resize_output(values, out_shape);
    at::native::resize_output(indices, out_shape);
    medianInto(self, dim, keepdim, values, indices);
    return Pair(values, indices);
}

Tensor medianAll(const Tensor &self) {
    if (!detail::familyArgs(self)) return detail::fallback<at::_ops::median, Tensor, const Tensor &>(self);
    const c10::DeviceGuard guard(self.device());  // the ops below queue on the current device's stream
    if (self.numel() == 0) return at::full({}, std::numeric_limits<double>::quiet_NaN()).to(self.options());
    Tensor values = at::empty({}, self.options()), indices = at::empty({}, self.options().dtype(at::kLong));
    medianInto(self.reshape({-1}), 0, false, values, indices);
    return values;
}

}  // namespace
}  // namespace infini_torch::aten

using namespace infini_torch::aten;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    INFINI_STRUCTURED_PAIR(m, "sort.stable", "sort.values_stable", sort_stable, sort_values_stable,
                           structured_sort_stable, &sortImpl);
    INFINI_STRUCTURED_PAIR(m, "topk", "topk.values", topk, topk_values, structured_topk, &topkImpl);
    m.impl("kthvalue.values", TORCH_FN(kthvalueOut));
    m.impl("median", TORCH_FN(medianAll));
    m.impl("median.dim_values", TORCH_FN(medianDimOut));
}

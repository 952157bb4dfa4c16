// Index.cpp: the gathers and scatters along one dim on the index family (infiniopIndex): gather, scatter (src,
// value, reduce, value_reduce), scatter_add, scatter_reduce.two, index_select, index_add, index_copy, index_fill_,
// take, put_, embedding_dense_backward. Structured ops run torch's meta (checks, output shape) and then build the
// family's iteration space as torch's CPU kernels build theirs; the others check their arguments as torch does.
//
// Index checks follow torch's kernels: gather / scatter / index_select / index_add / index_copy take indices in
// [0, size); index_fill_, take and put_ also count negative ones from the end. An index out of range is reported
// by the next synchronization (the device finds it).
#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/TensorUtils.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/gather_meta.h>
#include <ATen/ops/index_add_meta.h>
#include <ATen/ops/index_copy_meta.h>
#include <ATen/ops/scatter_add_meta.h>
#include <ATen/ops/scatter_meta.h>
#include <ATen/ops/scatter_reduce_meta.h>
#include <torch/library.h>

#include <limits>

#include "Index.h"
#include "Structured.h"

namespace infini_torch::aten {

at::TensorIterator indexIterator(const at::Tensor &dst, const at::Tensor &src, const std::vector<at::Tensor> &indices) {
    at::TensorIteratorConfig config;
    config.set_check_mem_overlap(false).check_all_same_dtype(false).resize_outputs(false);
    config.add_output(dst).add_const_input(src);
    for (const at::Tensor &idx : indices) config.add_const_input(idx);
    return config.build();
}

void runIndex(const char *name, infiniopIndexOp_t op, at::TensorIteratorBase &iter, c10::ArrayRef<int64_t> sizes,
              c10::ArrayRef<int64_t> strides, bool wrap_negative) {
    if (iter.numel() == 0) return;
    infiniopIndexArgs_t a{};
    a.op = op;
    a.wrap_negative = wrap_negative ? 1 : 0;
    a.nindices = static_cast<int32_t>(iter.ntensors()) - 2;
    TORCH_CHECK(a.nindices <= INFINIOP_MAX_INDICES, name, ": ", a.nindices, " index tensors exceed the index family's ",
                INFINIOP_MAX_INDICES);
    TORCH_INTERNAL_ASSERT(sizes.size() == static_cast<size_t>(a.nindices) && strides.size() == sizes.size());
    for (int k = 0; k < a.nindices; ++k) {
        a.index_size[k] = sizes[k];
        a.index_stride[k] = strides[k];
    }
    a.iter = iterOf(iter);
    runFamily(name, infiniopIndex, iter.device(0), a);
}

namespace {

using at::Scalar;
using at::Tensor;

Tensor atLeast1d(const Tensor &t) { return t.dim() == 0 ? t.unsqueeze(0) : t; }

// A 0-d tensor of value in t's dtype and device, viewed with `shape` (every stride 0).
Tensor scalarLike(const Scalar &value, const Tensor &t, at::IntArrayRef shape) {
    return at::full({}, value, t.options()).expand(shape);
}

// scatter-style: positions index[i] along dim of out receive src[i] (index and src viewed with index's shape).
void scatterInto(const char *name, infiniopIndexOp_t op, const Tensor &out, int64_t dim, const Tensor &index,
                 const Tensor &src) {
    if (index.numel() == 0) return;
    Tensor o = atLeast1d(out), ix = atLeast1d(index), s = atLeast1d(src);
    at::DimVector os(o.strides());
    os[dim] = 0;
    Tensor dst = o.as_strided(ix.sizes(), os);
    Tensor from = s.as_strided(ix.sizes(), s.strides());
    auto iter = indexIterator(dst, from, {ix});
    runIndex(name, op, iter, {o.size(dim)}, {o.stride(dim)}, false);
}

}  // namespace

void alongDim(const char *name, infiniopIndexOp_t op, const at::Tensor &indexed, const at::Tensor &dense, int64_t dim,
              const at::Tensor &index, bool wrap_negative) {
    Tensor x = atLeast1d(indexed), d = atLeast1d(dense);
    if (d.numel() == 0) return;
    const auto shape = d.sizes();
    at::DimVector xs(x.strides());
    xs[dim] = 0;
    Tensor xr = x.as_strided(shape, xs);
    at::DimVector is(shape.size(), 0);
    is[dim] = index.dim() > 0 ? index.stride(0) : 1;
    Tensor ir = index.as_strided(shape, is);
    auto iter = op == INFINIOP_INDEX_GATHER ? indexIterator(d, xr, {ir}) : indexIterator(xr, d, {ir});
    runIndex(name, op, iter, {x.size(dim)}, {x.stride(dim)}, wrap_negative);
}

namespace {

// ---- structured impls: (name, the meta object, the meta's arguments) ----

void gatherImpl(const char *name, at::impl::MetaBase &op, const Tensor &self, int64_t dim, const Tensor &index, bool) {
    const Tensor &result = op.maybe_get_output(0);
    at::assert_no_internal_overlap(result);
    at::assert_no_overlap(result, self);
    at::assert_no_partial_overlap(result, index);
    if (index.numel() == 0) return;
    dim = at::maybe_wrap_dim(dim, self.dim());
    Tensor x = atLeast1d(self), r = atLeast1d(result), ix = atLeast1d(index);
    at::DimVector xs(x.strides());
    xs[dim] = 0;
    auto iter = indexIterator(r, x.as_strided(ix.sizes(), xs), {ix});
    runIndex(name, INFINIOP_INDEX_GATHER, iter, {x.size(dim)}, {x.stride(dim)}, false);
}

// The scatter ops write into out, which holds self first.
const Tensor &scatterOut(at::impl::MetaBase &op, const Tensor &self, int64_t *dim) {
    const Tensor &out = op.maybe_get_output(0);
    *dim = at::maybe_wrap_dim(*dim, self.dim());
    if (!out.is_same(self)) out.copy_(self);
    return out;
}

infiniopIndexOp_t reduceOp(c10::string_view reduce) {
    if (reduce == "add" || reduce == "sum" || reduce == "mean") return INFINIOP_INDEX_SCATTER_ADD;
    if (reduce == "multiply" || reduce == "prod") return INFINIOP_INDEX_SCATTER_MUL;
    if (reduce == "amax") return INFINIOP_INDEX_SCATTER_AMAX;
    return INFINIOP_INDEX_SCATTER_AMIN;  // the meta has rejected any other name
}

void scatterSrc(const char *name, at::impl::MetaBase &op, const Tensor &self, int64_t dim, const Tensor &index,
                const Tensor &src) {
    const Tensor &out = scatterOut(op, self, &dim);
    scatterInto(name, INFINIOP_INDEX_SCATTER, out, dim, index, src);
}

void scatterValue(const char *name, at::impl::MetaBase &op, const Tensor &self, int64_t dim, const Tensor &index,
                  const Scalar &value) {
    const Tensor &out = scatterOut(op, self, &dim);
    if (index.numel() == 0) return;
    scatterInto(name, INFINIOP_INDEX_SCATTER, out, dim, index, scalarLike(value, out, atLeast1d(index).sizes()));
}

void scatterReduce(const char *name, at::impl::MetaBase &op, const Tensor &self, int64_t dim, const Tensor &index,
                   const Tensor &src, c10::string_view reduce) {
    const Tensor &out = scatterOut(op, self, &dim);
    scatterInto(name, reduceOp(reduce), out, dim, index, src);
}

void scatterValueReduce(const char *name, at::impl::MetaBase &op, const Tensor &self, int64_t dim, const Tensor &index,
                        const Scalar &value, c10::string_view reduce) {
    const Tensor &out = scatterOut(op, self, &dim);
    if (index.numel() == 0) return;
    scatterInto(name, reduceOp(reduce), out, dim, index, scalarLike(value, out, atLeast1d(index).sizes()));
}

void scatterAdd(const char *name, at::impl::MetaBase &op, const Tensor &self, int64_t dim, const Tensor &index,
                const Tensor &src) {
    const Tensor &out = scatterOut(op, self, &dim);
    scatterInto(name, INFINIOP_INDEX_SCATTER_ADD, out, dim, index, src);
}

// scatter_reduce.two as torch's: without include_self the scattered positions start from the reduction's
// identity; mean is a sum divided by the number of values each position received (itself included).
void scatterReduceTwo(const char *name, at::impl::MetaBase &op, const Tensor &self, int64_t dim, const Tensor &index,
                      const Tensor &src, c10::string_view reduce, bool include_self) {
    const Tensor &out = scatterOut(op, self, &dim);
    if (index.numel() == 0) return;
    const infiniopIndexOp_t kind = reduceOp(reduce);
    if (!include_self) {
        Scalar identity;
        AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, out.scalar_type(), "scatter_reduce", [&] {
            using lim = std::numeric_limits<scalar_t>;
            scalar_t v = static_cast<scalar_t>(0);
            if (kind == INFINIOP_INDEX_SCATTER_MUL) {
                v = static_cast<scalar_t>(1);
            } else if (kind == INFINIOP_INDEX_SCATTER_AMAX) {
                v = lim::has_infinity ? -lim::infinity() : lim::lowest();
            } else if (kind == INFINIOP_INDEX_SCATTER_AMIN) {
                v = lim::has_infinity ? lim::infinity() : lim::max();
            }
            identity = Scalar(v);
        });
        scatterInto(name, INFINIOP_INDEX_SCATTER, out, dim, index, scalarLike(identity, out, atLeast1d(index).sizes()));
    }
    scatterInto(name, kind, out, dim, index, src);
    if (reduce == "mean") {
        Tensor count = include_self ? at::ones_like(out) : at::zeros_like(out);
        count.scatter_add_(dim, index, at::ones_like(src));
        count.masked_fill_(count == 0, 1);
        if (out.is_floating_point()) {
            out.div_(count);
        } else {
            out.div_(count, "floor");
        }
    }
}

void indexAdd(const char *name, at::impl::MetaBase &op, const Tensor &self, int64_t dim, const Tensor &index,
              const Tensor &source, const Scalar &alpha) {
    const Tensor &result = op.maybe_get_output(0);
    dim = at::maybe_wrap_dim(dim, self.dim());
    if (!result.is_same(self)) result.copy_(self);
    if (index.numel() == 0) return;
    Tensor src = alpha.equal(1) ? source : source.mul(alpha);
    alongDim(name, INFINIOP_INDEX_SCATTER_ADD, result, src, dim, index, false);
}

void indexCopy(const char *name, at::impl::MetaBase &op, const Tensor &self, int64_t dim, const Tensor &index,
               const Tensor &source) {
    const Tensor &result = op.maybe_get_output(0);
    dim = at::maybe_wrap_dim(dim, self.dim());
    if (!result.is_same(self)) result.copy_(self);
    if (index.numel() == 0) return;
    alongDim(name, INFINIOP_INDEX_SCATTER, result, source, dim, index, false);
}

// ---- index_select ----

void checkSameDevice(const char *op, const Tensor &self, const Tensor &other, const char *what) {
    TORCH_CHECK(other.device() == self.device(), op, "(): expected ", what, " on ", self.device(), ", but got ",
                other.device());
}

Tensor &indexSelectImpl(const Tensor &self, int64_t dim, const Tensor &index, Tensor &result) {
    dim = at::maybe_wrap_dim(dim, self.dim());
    const int64_t numel = index.numel();
    TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
    TORCH_CHECK(index.scalar_type() == at::kLong || index.scalar_type() == at::kInt,
                "index_select(): Expected dtype int32 or int64 for index");
    TORCH_CHECK(self.scalar_type() == result.scalar_type(),
                "index_select(): self and result must have the same scalar type");
    checkSameDevice("index_select", self, index, "index");
    at::assert_no_internal_overlap(result);
    at::assert_no_overlap(result, self);
    at::assert_no_overlap(result, index);
    auto result_size = self.sizes().vec();
    if (self.dim() > 0) result_size[dim] = numel;
    at::native::resize_output(result, result_size);
    if (numel == 0 || result.numel() == 0) return result;
    TORCH_CHECK_INDEX(atLeast1d(self).size(dim) > 0, "index_select(): index out of range in self");
    alongDim("aten::index_select", INFINIOP_INDEX_GATHER, self, result, dim, index, false);
    return result;
}

Tensor indexSelect(const Tensor &self, int64_t dim, const Tensor &index) {
    if (!isFamilyDtype(self.scalar_type())) {
        return detail::fallback<at::_ops::index_select, Tensor, const Tensor &, int64_t, const Tensor &>(self, dim,
                                                                                                         index);
    }
    Tensor result = at::empty({0}, self.options());
    return indexSelectImpl(self, dim, index, result);
}

Tensor &indexSelectOut(const Tensor &self, int64_t dim, const Tensor &index, Tensor &out) {
    if (!isFamilyDtype(self.scalar_type()) || !isFamilyDtype(out.scalar_type())) {
        return detail::fallback<at::_ops::index_select_out, Tensor &, const Tensor &, int64_t, const Tensor &,
                                Tensor &>(self, dim, index, out);
    }
    return indexSelectImpl(self, dim, index, out);
}

// ---- index_fill_ ----

Tensor &indexFillImpl(Tensor &self, int64_t dim, const Tensor &index, const Tensor &value) {
    TORCH_CHECK_INDEX(index.scalar_type() == at::kLong, "index_fill_(): Expected dtype int64 for index.");
    checkSameDevice("index_fill_", self, index, "index");
    at::assert_no_overlap(self, index);
    if (at::has_internal_overlap(self) == at::MemOverlap::Yes) {
        TORCH_WARN(
            "Use of index_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
            "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar");
    }
    Tensor s = atLeast1d(self);
    dim = at::maybe_wrap_dim(dim, s.dim());
    TORCH_CHECK(index.dim() <= 1, "Index has to be a vector/scalar");
    if (index.numel() == 0 || s.numel() == 0) return self;
    auto shape = s.sizes().vec();
    shape[dim] = index.numel();
    alongDim("aten::index_fill_", INFINIOP_INDEX_SCATTER, s, value.expand(shape), dim, index, true);
    return self;
}

Tensor &indexFillScalar(Tensor &self, int64_t dim, const Tensor &index, const Scalar &value) {
    if (!isFamilyDtype(self.scalar_type()) || value.isComplex()) {
        TORCH_CHECK(self.is_complex() || !value.isComplex(),
                    "index_fill_(): Converting complex Scalar to non-complex type is not supported");
        return detail::fallback<at::_ops::index_fill__int_Scalar, Tensor &, Tensor &, int64_t, const Tensor &,
                                const Scalar &>(self, dim, index, value);
    }
    return indexFillImpl(self, dim, index, at::full({}, value, self.options()));
}

Tensor &indexFillTensor(Tensor &self, int64_t dim, const Tensor &index, const Tensor &value) {
    TORCH_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
                value.dim(), " dimension(s).");
    if (!isFamilyDtype(self.scalar_type()) || !isFamilyDtype(value.scalar_type())) {
        return detail::fallback<at::_ops::index_fill__int_Tensor, Tensor &, Tensor &, int64_t, const Tensor &,
                                const Tensor &>(self, dim, index, value);
    }
    return indexFillImpl(self, dim, index, value.to(self.options()));
}

// ---- take / put_: a flat index into self in row-major order (a contiguous self, or a contiguous copy) ----

Tensor &takeImpl(const Tensor &self, const Tensor &index, Tensor &out) {
    TORCH_CHECK(index.scalar_type() == at::kLong, "take(): Expected a long tensor for index, but got ",
                index.scalar_type());
    TORCH_CHECK(self.scalar_type() == out.scalar_type(),
                "take(): self and out expected to have the same dtype, but got self.dtype = ", self.scalar_type(),
                " and out.dtype = ", out.scalar_type());
    TORCH_CHECK(self.device() == out.device() && self.device() == index.device(),
                "take(): self, index and out expected to be in the same device, but got self.device = ", self.device(),
                ", index.device = ", index.device(), ", and out.device = ", out.device());
    TORCH_CHECK_INDEX(!(self.numel() == 0 && index.numel() != 0), "take(): tried to take from an empty tensor");
    at::assert_no_internal_overlap(out);
    at::assert_no_overlap(out, index);
    at::assert_no_overlap(out, self);
    at::native::resize_output(out, index.sizes());
    if (index.numel() == 0) return out;
    Tensor flat = self.contiguous();
    auto iter = indexIterator(out, flat.as_strided(index.sizes(), at::DimVector(index.dim(), 0)), {index});
    runIndex("aten::take", INFINIOP_INDEX_GATHER, iter, {self.numel()}, {1}, true);
    return out;
}

Tensor take(const Tensor &self, const Tensor &index) {
    if (!isFamilyDtype(self.scalar_type())) {
        return detail::fallback<at::_ops::take, Tensor, const Tensor &, const Tensor &>(self, index);
    }
    Tensor out = at::empty(index.sizes(), self.options());
    return takeImpl(self, index, out);
}

Tensor &takeOut(const Tensor &self, const Tensor &index, Tensor &out) {
    if (!isFamilyDtype(self.scalar_type()) || !isFamilyDtype(out.scalar_type())) {
        return detail::fallback<at::_ops::take_out, Tensor &, const Tensor &, const Tensor &, Tensor &>(self, index,
                                                                                                        out);
    }
    return takeImpl(self, index, out);
}

Tensor &put_(Tensor &self, const Tensor &index, const Tensor &source, bool accumulate) {
    if (!isFamilyDtype(self.scalar_type())) {
        return detail::fallback<at::_ops::put_, Tensor &, Tensor &, const Tensor &, const Tensor &, bool>(
            self, index, source, accumulate);
    }
    if (!accumulate) at::globalContext().alertNotDeterministic("put_");
    TORCH_CHECK(index.scalar_type() == at::kLong, "put_(): Expected a long tensor for index, but got ",
                index.scalar_type());
    TORCH_CHECK(self.scalar_type() == source.scalar_type(),
                "put_(): self and source expected to have the same dtype, but got self.dtype = ", self.scalar_type(),
                " and source.dtype = ", source.scalar_type());
    TORCH_CHECK(self.device() == source.device() && self.device() == index.device(),
                "put_(): self, index and source expected to be in the same device, but got self.device = ",
                self.device(), ", index.device = ", index.device(), ", and source.device = ", source.device());
    TORCH_CHECK_INDEX(source.numel() == index.numel(),
                      "put_(): Expected source and index to have the same number of elements, but got "
                      "source.numel() = ",
                      source.numel(), ", index.numel() = ", index.numel());
    TORCH_CHECK_INDEX(!(self.numel() == 0 && index.numel() != 0), "put_(): Tried to put elements into an empty tensor");
    at::assert_no_internal_overlap(self);
    at::assert_no_overlap(self, index);
    at::assert_no_overlap(self, source);
    if (index.numel() == 0) return self;
    Tensor flat = self.is_contiguous() ? self : self.contiguous();
    Tensor idx = index.reshape(source.sizes());
    auto iter = indexIterator(flat.as_strided(source.sizes(), at::DimVector(source.dim(), 0)), source, {idx});
    runIndex("aten::put_", accumulate ? INFINIOP_INDEX_SCATTER_ADD : INFINIOP_INDEX_SCATTER, iter, {self.numel()}, {1},
             true);
    if (!flat.is_same(self)) self.copy_(flat);
    return self;
}

// ---- embedding_dense_backward: grad rows added into the weight rows their indices name ----
// padding_idx rows get nothing: their indices are redirected to one extra row, dropped at the end.
// scale_grad_by_freq divides each row of grad by how often its index occurs.
Tensor embeddingDenseBackward(const Tensor &grad, const Tensor &indices, c10::SymInt num_weights_sym,
                              c10::SymInt padding_idx_sym, bool scale_grad_by_freq) {
    const int64_t num_weights = num_weights_sym.expect_int();
    const int64_t padding_idx = padding_idx_sym.expect_int();
    if (!isFamilyDtype(grad.scalar_type())) {
        return detail::fallback<at::_ops::embedding_dense_backward, Tensor, const Tensor &, const Tensor &, int64_t,
                                int64_t, bool>(grad, indices, num_weights, padding_idx, scale_grad_by_freq);
    }
    at::checkScalarTypes("embedding_backward", at::TensorArg(indices, "indices", 2), {at::kLong, at::kInt});
    const int64_t n = indices.numel(), features = grad.size(-1);
    const bool padded = padding_idx >= 0 && padding_idx < num_weights;
    const int64_t rows = num_weights + (padded ? 1 : 0);
    Tensor grad_weight = at::zeros({rows, features}, grad.options());
    if (n > 0 && features > 0) {
        Tensor idx = indices.reshape({n});
        if (padded) idx = at::where(idx == padding_idx, at::full({}, num_weights, idx.options()), idx);
        Tensor g = grad.reshape({n, features});
        if (scale_grad_by_freq) {
            Tensor counts = at::zeros({rows}, indices.options().dtype(at::kLong));
            counts.index_add_(0, idx, at::ones({n}, counts.options()));
            g = g / counts.index_select(0, idx).unsqueeze(1).to(g.scalar_type());
        }
        alongDim("aten::embedding_dense_backward", INFINIOP_INDEX_SCATTER_ADD, grad_weight, g, 0, idx, false);
    }
    return padded ? grad_weight.narrow(0, 0, num_weights) : grad_weight;
}

}  // namespace
}  // namespace infini_torch::aten

using namespace infini_torch::aten;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    INFINI_STRUCTURED2(m, "gather", "gather.out", gather, gather_out, structured_gather, &gatherImpl);
    INFINI_STRUCTURED3(m, "scatter.src", "scatter_.src", "scatter.src_out", scatter_src, scatter__src, scatter_src_out,
                       structured_scatter_src, &scatterSrc);
    INFINI_STRUCTURED3(m, "scatter.value", "scatter_.value", "scatter.value_out", scatter_value, scatter__value,
                       scatter_value_out, structured_scatter_value, &scatterValue);
    INFINI_STRUCTURED3(m, "scatter.reduce", "scatter_.reduce", "scatter.reduce_out", scatter_reduce, scatter__reduce,
                       scatter_reduce_out, structured_scatter_reduce, &scatterReduce);
    INFINI_STRUCTURED3(m, "scatter.value_reduce", "scatter_.value_reduce", "scatter.value_reduce_out",
                       scatter_value_reduce, scatter__value_reduce, scatter_value_reduce_out,
                       structured_scatter_value_reduce, &scatterValueReduce);
    INFINI_STRUCTURED3(m, "scatter_add", "scatter_add_", "scatter_add.out", scatter_add, scatter_add_, scatter_add_out,
                       structured_scatter_add, &scatterAdd);
    INFINI_STRUCTURED3(m, "scatter_reduce.two", "scatter_reduce_.two", "scatter_reduce.two_out", scatter_reduce_two,
                       scatter_reduce__two, scatter_reduce_two_out, structured_scatter_reduce_two, &scatterReduceTwo);
    INFINI_STRUCTURED3(m, "index_add", "index_add_", "index_add.out", index_add, index_add_, index_add_out,
                       structured_index_add, &indexAdd);
    INFINI_STRUCTURED3(m, "index_copy", "index_copy_", "index_copy.out", index_copy, index_copy_, index_copy_out,
                       structured_index_copy, &indexCopy);
    m.impl("index_select", TORCH_FN(indexSelect));
    m.impl("index_select.out", TORCH_FN(indexSelectOut));
    m.impl("index_fill_.int_Scalar", TORCH_FN(indexFillScalar));
    m.impl("index_fill_.int_Tensor", TORCH_FN(indexFillTensor));
    m.impl("take", TORCH_FN(take));
    m.impl("take.out", TORCH_FN(takeOut));
    m.impl("put_", TORCH_FN(put_));
    m.impl("embedding_dense_backward", TORCH_FN(embeddingDenseBackward));
}

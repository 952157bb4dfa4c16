// IndexAdvanced.cpp: advanced indexing and masks on the index and nonzero families: index.Tensor (x[idx]),
// _index_put_impl_ (x[idx] = v, and += with accumulate), masked_select, masked_scatter_, nonzero.
//
// Advanced indexing follows torch's AdvancedIndex: boolean masks become their nonzero coordinates, the index
// tensors broadcast together, self's indexed dims are replaced by the indices' shape with stride 0, and the family
// adds index * stride for each indexed dim (negative indices count from the end). index.Tensor runs torch's
// structured meta, which builds exactly that iterator; index_put builds it here the same way.
#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/native/IndexingUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/native/TensorAdvancedIndexingUtils.h>
#include <ATen/ops/index_meta.h>
#include <torch/library.h>

#include <sstream>

#include "Index.h"
#include "Structured.h"

namespace infini_torch::aten {

int64_t countNonzero(const char *name, const at::Tensor &t) {
    if (t.numel() == 0) return 0;
    TORCH_CHECK(t.dim() <= INFINIOP_MAX_DIMS, name, ": ", t.dim(), " dims exceed the kernel families' ",
                INFINIOP_MAX_DIMS);
    at::Tensor count = at::empty({}, t.options().dtype(at::kLong));
    infiniopReduceArgs_t r{};
    r.op = INFINIOP_REDUCE_COUNT_NONZERO;
    r.compute = computeDtype(t.scalar_type());
    r.noutputs = 1;
    infiniopIter_t &it = r.iter;
    it.ndim = static_cast<int32_t>(t.dim());
    it.noperands = 2;
    it.data[0] = count.data_ptr();
    it.dtype[0] = INFINI_DTYPE_I64;
    it.data[1] = t.data_ptr();
    it.dtype[1] = familyDtype(t.scalar_type());
    for (int d = 0; d < it.ndim; ++d) {
        it.shape[d] = t.size(it.ndim - 1 - d);
        it.strides[0][d] = 0;
        it.strides[1][d] = t.stride(it.ndim - 1 - d);
    }
    if (callFamily(name, infiniopReduce, t.device(), r) == INFINI_STATUS_SUCCESS) return count.item<int64_t>();
    // A backend without the reduce family: a nonzero mask made on the device, counted on the host.
    at::Tensor mask = t.scalar_type() == at::kBool ? t : t.ne(0);
    return mask.cpu().sum().item<int64_t>();
}

namespace {

using at::Tensor;
using IndexList = c10::List<std::optional<Tensor>>;

// ---- nonzero ----

Tensor &nonzeroImpl(const Tensor &self, Tensor &result) {
    TORCH_CHECK(result.scalar_type() == at::kLong,
                "nonzero: Expected out tensor to have scalar type Long but got scalar type", result.scalar_type());
    TORCH_CHECK(result.device() == self.device(), "nonzero: Expected out tensor on ", self.device(), ", but got ",
                result.device());
    at::assert_no_internal_overlap(result);
    at::assert_no_overlap(result, self);
    const int64_t count = countNonzero("aten::nonzero", self);
    const int64_t ndim = self.dim();
    at::native::resize_output(result, {count, ndim});
    if (count == 0 || ndim == 0) return result;
    Tensor rows = result.is_contiguous() ? result : at::empty({count, ndim}, result.options());
    infiniopNonzeroArgs_t a{};
    a.in = tensorOf(self);
    a.out = rows.data_ptr<int64_t>();
    a.count = count;
    runFamily("aten::nonzero", infiniopNonzero, self.device(), a);
    if (!rows.is_same(result)) result.copy_(rows);
    return result;
}

Tensor nonzero(const Tensor &self) {
    if (!isFamilyDtype(self.scalar_type())) return detail::fallback<at::_ops::nonzero, Tensor, const Tensor &>(self);
    Tensor result = at::empty({0}, self.options().dtype(at::kLong));
    return nonzeroImpl(self, result);
}

Tensor &nonzeroOut(const Tensor &self, Tensor &out) {
    if (!isFamilyDtype(self.scalar_type())) {
        return detail::fallback<at::_ops::nonzero_out, Tensor &, const Tensor &, Tensor &>(self, out);
    }
    return nonzeroImpl(self, out);
}

// ---- index.Tensor: torch's meta builds the iterator (out, restrided self, indices); sizes / strides (bytes) ----

bool indexFits(const at::TensorIteratorBase &iter) {
    return fitsFamilies(iter) && iter.ntensors() - 2 <= INFINIOP_MAX_INDICES;
}

void runIndexed(const char *name, at::TensorIteratorBase &iter, const at::DimVector &sizes,
                const at::DimVector &strides, int64_t element_size) {
    std::vector<int64_t> elems(strides.size());
    for (size_t k = 0; k < strides.size(); ++k) elems[k] = strides[k] / element_size;
    runIndex(name, INFINIOP_INDEX_GATHER, iter, sizes, elems, true);
}

Tensor indexTensor(const Tensor &self, const IndexList &indices) {
    if (!isFamilyDtype(self.scalar_type())) {
        return detail::fallback<at::_ops::index_Tensor, Tensor, const Tensor &, const IndexList &>(self, indices);
    }
    Functional<at::meta::structured_index_Tensor> op;
    auto pre = op.meta(self, at::IOptTensorListRef(indices));
    if (!indexFits(op)) {
        return detail::fallback<at::_ops::index_Tensor, Tensor, const Tensor &, const IndexList &>(self, indices);
    }
    runIndexed("aten::index.Tensor", op, pre.sizes, pre.strides, self.element_size());
    return std::move(op.outputs_[0]);
}

Tensor &indexTensorOut(const Tensor &self, const IndexList &indices, Tensor &out) {
    if (!isFamilyDtype(self.scalar_type()) || !isFamilyDtype(out.scalar_type())) {
        return detail::fallback<at::_ops::index_Tensor_out, Tensor &, const Tensor &, const IndexList &, Tensor &>(
            self, indices, out);
    }
    Out<at::meta::structured_index_Tensor> op(out);
    auto pre = op.meta(self, at::IOptTensorListRef(indices));
    if (!indexFits(op)) {
        return detail::fallback<at::_ops::index_Tensor_out, Tensor &, const Tensor &, const IndexList &, Tensor &>(
            self, indices, out);
    }
    runIndexed("aten::index.Tensor_out", op, pre.sizes, pre.strides, self.element_size());
    op.finish();
    return out;
}

// ---- index_put: torch's AdvancedIndex, built here (its constructor is not exported) ----

struct AdvancedIndex {
    Tensor src;                    // self with the indexed dims replaced by the indices' shape, stride 0
    std::vector<Tensor> indices;   // broadcast to src's shape
    at::DimVector sizes, strides;  // of the indexed dims (strides in elements)
};

// The index tensors on self's device, each boolean (or uint8) mask replaced by its nonzero coordinates, one
// index a dim it covers (as torch's expandTensors, written here because its signature differs across versions).
std::vector<Tensor> expandIndices(const Tensor &self, const IndexList &orig) {
    for (const std::optional<Tensor> &index : orig) {
        if (!index.has_value() || !index->defined()) continue;
        const at::ScalarType t = index->scalar_type();
        TORCH_CHECK_INDEX(t == at::kLong || t == at::kInt || t == at::kByte || t == at::kBool,
                          "tensors used as indices must be long, int, byte or bool tensors");
    }
    std::vector<Tensor> result;
    for (const std::optional<Tensor> &opt : orig) {
        if (!opt.has_value() || !opt->defined()) {
            result.emplace_back();
            continue;
        }
        Tensor index = opt->device() == self.device() ? *opt : opt->to(self.device());
        if (index.scalar_type() != at::kByte && index.scalar_type() != at::kBool) {
            result.push_back(std::move(index));
            continue;
        }
        if (index.scalar_type() == at::kByte) {
            TORCH_WARN("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.");
        }
        for (int64_t j = 0; j < index.dim(); ++j) {
            const int64_t dim = static_cast<int64_t>(result.size()) + j;
            TORCH_CHECK_INDEX(index.size(j) == self.size(dim), "The shape of the mask ", index.sizes(), " at index ", j,
                              " does not match the shape of the indexed tensor ", self.sizes(), " at index ", dim);
        }
        Tensor coords = index.nonzero();
        for (int64_t j = 0; j < index.dim(); ++j) result.push_back(coords.select(1, j));
    }
    return result;
}

AdvancedIndex makeAdvancedIndex(Tensor self, const IndexList &orig) {
    std::vector<Tensor> indices = expandIndices(self, orig);
    try {
        indices = at::expand_outplace(indices);
    } catch (std::exception &) {
        std::ostringstream shapes;
        bool first = true;
        for (const Tensor &t : indices) {
            if (!t.defined()) continue;
            shapes << (first ? "" : ", ") << t.sizes();
            first = false;
        }
        TORCH_CHECK_INDEX(false, "shape mismatch: indexing tensors could not be broadcast together with shapes ",
                          shapes.str());
    }
    while (indices.size() < static_cast<size_t>(self.dim())) indices.emplace_back();
    if (!at::native::hasContiguousSubspace(indices)) {
        std::tie(self, indices) = at::native::transposeToFront(self, indices);
    }
    AdvancedIndex info;
    int64_t before = 0, after = 0, indexed = 0;
    at::IntArrayRef replacement;
    for (size_t d = 0; d < indices.size(); ++d) {
        if (!indices[d].defined()) {
            (indexed == 0 ? before : after) += 1;
            continue;
        }
        ++indexed;
        replacement = indices[d].sizes();
        info.sizes.push_back(self.size(static_cast<int64_t>(d)));
        info.strides.push_back(self.stride(static_cast<int64_t>(d)));
    }
    if (std::find(info.sizes.begin(), info.sizes.end(), 0) != info.sizes.end() &&
        std::find(replacement.begin(), replacement.end(), 0) == replacement.end()) {
        TORCH_CHECK_INDEX(false, "index is out of bounds for dimension with size 0");
    }
    at::DimVector shape(self.sizes()), strides(self.strides());
    shape.erase(shape.begin() + before, shape.begin() + before + indexed);
    strides.erase(strides.begin() + before, strides.begin() + before + indexed);
    shape.insert(shape.begin() + before, replacement.begin(), replacement.end());
    strides.insert(strides.begin() + before, replacement.size(), 0);
    info.src = self.as_strided(shape, strides);
    for (const Tensor &index : indices) {
        if (!index.defined()) continue;
        at::DimVector s(before, 1);
        s.append(index.sizes().begin(), index.sizes().end());
        s.append(after, 1);
        info.indices.push_back(index.reshape(s));
    }
    return info;
}

Tensor &indexPutImpl(Tensor &self, const IndexList &indices, const Tensor &values, bool accumulate, bool unsafe) {
    auto fallback = [&]() -> Tensor & {
        return detail::fallback<at::_ops::_index_put_impl_, Tensor &, Tensor &, const IndexList &, const Tensor &, bool,
                                bool>(self, indices, values, accumulate, unsafe);
    };
    if (!isFamilyDtype(self.scalar_type())) return fallback();
    TORCH_CHECK_INDEX(indices.size() <= static_cast<size_t>(self.dim()), "too many indices for tensor of dimension ",
                      self.dim(), " (got ", indices.size(), ")");
    if (at::has_internal_overlap(self) == at::MemOverlap::Yes) {
        TORCH_WARN(
            "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before performing "
            "this operation. This also applies to advanced indexing e.g. tensor[indices] = tensor");
    }
    if (!accumulate) {
        auto [fill, mask] = at::native::canDispatchToMaskedFill(self, indices, values);
        if (fill) return self.masked_fill_(mask, values.item());
    }
    Tensor value = values;
    if (values.device() != self.device() && values.numel() == 1 && values.dim() == 0) {
        value = values.to(self.device());
    }
    at::assert_no_overlap(self, value);
    for (const std::optional<Tensor> &index : indices) {
        if (index.has_value()) at::assert_no_overlap(self, *index);
    }
    AdvancedIndex info = makeAdvancedIndex(self, indices);
    TORCH_CHECK(at::is_expandable_to(value.sizes(), info.src.sizes()), "shape mismatch: value tensor of shape ",
                value.sizes(), " cannot be broadcast to indexing result of shape ", info.src.sizes());
    TORCH_CHECK(value.scalar_type() == info.src.scalar_type(),
                "Index put requires the source and destination dtypes match, got ", info.src.scalar_type(),
                " for the destination and ", value.scalar_type(), " for the source.");
    if (info.indices.size() > INFINIOP_MAX_INDICES) return fallback();
    auto iter = indexIterator(info.src, value.expand(info.src.sizes()), info.indices);
    if (!fitsFamilies(iter)) return fallback();
    runIndex("aten::_index_put_impl_", accumulate ? INFINIOP_INDEX_SCATTER_ADD : INFINIOP_INDEX_SCATTER, iter,
             info.sizes, info.strides, true);
    return self;
}

// ---- masks ----

Tensor &maskedSelectImpl(const Tensor &self, const Tensor &mask, Tensor &result) {
    TORCH_CHECK(mask.scalar_type() == at::kByte || mask.scalar_type() == at::kBool,
                "masked_select: expected BoolTensor or ByteTensor for mask");
    TORCH_CHECK(self.scalar_type() == result.scalar_type(),
                "masked_select(): self and result must have the same scalar type");
    at::assert_no_internal_overlap(result);
    at::assert_no_overlap(result, self);
    at::assert_no_overlap(result, mask);
    auto [m, s] = at::expand_outplace(mask, self);
    // a 0-d pair selects from a 1-element view (indexing a 0-d tensor with a mask takes no dims)
    const Tensor mask1 = m->dim() == 0 ? m->unsqueeze(0) : *m;
    const Tensor self1 = s->dim() == 0 ? s->unsqueeze(0) : *s;
    IndexList index;
    index.push_back(std::optional<Tensor>(mask1));
    return at::index_out(result, self1, index);
}

Tensor maskedSelect(const Tensor &self, const Tensor &mask) {
    if (!isFamilyDtype(self.scalar_type())) {
        return detail::fallback<at::_ops::masked_select, Tensor, const Tensor &, const Tensor &>(self, mask);
    }
    Tensor result = at::empty({0}, self.options());
    return maskedSelectImpl(self, mask, result);
}

Tensor &maskedSelectOut(const Tensor &self, const Tensor &mask, Tensor &out) {
    if (!isFamilyDtype(self.scalar_type()) || !isFamilyDtype(out.scalar_type())) {
        return detail::fallback<at::_ops::masked_select_out, Tensor &, const Tensor &, const Tensor &, Tensor &>(
            self, mask, out);
    }
    return maskedSelectImpl(self, mask, out);
}

// masked_scatter_: the k-th true position of mask (row-major) takes source's k-th element (row-major).
Tensor &maskedScatter_(Tensor &self, const Tensor &mask, const Tensor &source) {
    auto fallback = [&]() -> Tensor & {
        return detail::fallback<at::_ops::masked_scatter_, Tensor &, Tensor &, const Tensor &, const Tensor &>(
            self, mask, source);
    };
    TORCH_CHECK(mask.scalar_type() == at::kBool,
                "masked_scatter_ only supports boolean masks, but got mask with dtype ", mask.scalar_type());
    if (!isFamilyDtype(self.scalar_type())) return fallback();
    at::assert_no_internal_overlap(self);
    TORCH_CHECK(self.scalar_type() == source.scalar_type(),
                "masked_scatter: expected self and source to have same dtypes but got", self.scalar_type(), " and ",
                source.scalar_type());
    TORCH_CHECK(mask.scalar_type() == at::kBool || mask.scalar_type() == at::kByte,
                "masked_scatter_ only supports boolean masks, but got mask with dtype ", mask.scalar_type());
    TORCH_CHECK(mask.device() == self.device() && source.device() == self.device(),
                "masked_scatter_: expected self, mask and source on one device, but got ", self.device(), ", ",
                mask.device(), " and ", source.device());
    if (self.dim() > INFINIOP_MAX_INDICES) return fallback();
    c10::MaybeOwned<Tensor> b_mask = at::expand_inplace(self, mask, "masked_scatter_");
    Tensor coords = at::nonzero(*b_mask);  // [count, ndim]
    const int64_t count = coords.size(0);
    if (count == 0) return self;
    TORCH_CHECK(source.numel() >= count, "masked_scatter: expected source to have at least ", count,
                " elements (the true elements of mask), but it has ", source.numel());
    Tensor src = source.contiguous().view(-1).narrow(0, 0, count);
    std::vector<Tensor> idx;
    at::DimVector sizes, strides;
    for (int64_t d = 0; d < self.dim(); ++d) {
        idx.push_back(coords.select(1, d));
        sizes.push_back(self.size(d));
        strides.push_back(self.stride(d));
    }
    auto iter = indexIterator(self.as_strided({count}, {0}), src, idx);
    runIndex("aten::masked_scatter_", INFINIOP_INDEX_SCATTER, iter, sizes, strides, false);
    return self;
}

}  // namespace
}  // namespace infini_torch::aten

using namespace infini_torch::aten;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    m.impl("nonzero", TORCH_FN(nonzero));
    m.impl("nonzero.out", TORCH_FN(nonzeroOut));
    m.impl("index.Tensor", TORCH_FN(indexTensor));
    m.impl("index.Tensor_out", TORCH_FN(indexTensorOut));
    m.impl("_index_put_impl_", TORCH_FN(indexPutImpl));
    m.impl("masked_select", TORCH_FN(maskedSelect));
    m.impl("masked_select.out", TORCH_FN(maskedSelectOut));
    m.impl("masked_scatter_", TORCH_FN(maskedScatter_));
}

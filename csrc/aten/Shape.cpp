// Shape.cpp: ops that move elements without arithmetic, on the pointwise family's COPY / FILL / IOTA: cat (stack
// and the padding / repeat composites reach it or copy_), flip, roll, triu / tril, arange.
#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/Operators.h>
#include <ATen/native/RangeUtils.h>
#include <ATen/ops/cat_meta.h>
#include <ATen/ops/tril_meta.h>
#include <ATen/ops/triu_meta.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "Pointwise.h"
#include "Structured.h"
#include "Window.h"

namespace infini_torch::aten {
namespace {

using at::Tensor;

// A legacy empty tensor ([0], whatever the other inputs' shape) that cat skips, as torch does.
bool skipInCat(const Tensor &t) { return t.numel() == 0 && t.dim() == 1; }

void catInto(const at::ITensorListRef &tensors, int64_t dim, const Tensor &result) {
    if (result.numel() == 0) return;
    at::assert_no_internal_overlap(result);
    for (const Tensor &t : tensors) at::assert_no_overlap(result, t);  // (as torch's cat)
    c10::DeviceGuard guard(result.device());
    int64_t offset = 0;
    for (const Tensor &t : tensors) {
        if (skipInCat(t)) continue;
        const int64_t n = t.size(dim);
        if (n > 0) {
            Tensor piece = result.narrow(dim, offset, n);
            if (t.scalar_type() == result.scalar_type() && t.device() == result.device() && !t.is_neg() &&
                t.dim() <= INFINIOP_MAX_DIMS) {
                copyInto("aten::cat", piece, t);  // without copy_'s dispatch: the pieces' kernels queue back to back
            } else {
                piece.copy_(t);
            }
        }
        offset += n;
    }
}

template <bool kOut>
struct Cat final : at::meta::structured_cat {
    Tensor out_;
    Tensor *given_ = nullptr;
    void set_output_raw_strided(int64_t, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options) {
        setOutput(sizes, strides, options);
    }
    void set_output_strided(int64_t, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options) {
        setOutput(sizes, strides, options);
    }
#ifdef INFINI_SET_OUTPUT_NAMES
    void set_output_raw_strided(int64_t, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options,
                                at::DimnameList) {
        setOutput(sizes, strides, options);
    }
    void set_output_strided(int64_t, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options,
                            at::DimnameList) {
        setOutput(sizes, strides, options);
    }
#endif
    void setOutput(at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options) {
        if constexpr (kOut) {
            detail::resizeOut(*given_, sizes, strides, options);
        } else {
            out_ = newOutput(sizes, strides, options);
        }
    }
    const Tensor &maybe_get_output(int64_t) override { return kOut ? *given_ : out_; }
};

bool familyList(const at::ITensorListRef &tensors) {
    for (const Tensor &t : tensors) {
        if (!isFamilyDtype(t.scalar_type())) return false;
    }
    return true;
}

Tensor cat(const at::ITensorListRef &tensors, int64_t dim) {
    if (!familyList(tensors))
        return detail::fallback<at::_ops::cat, Tensor, const at::ITensorListRef &, int64_t>(tensors, dim);
    Cat<false> op;
    auto pre = op.meta(tensors, dim);
    catInto(tensors, pre.dim, op.out_);
    return op.out_;
}

Tensor &catOut(const at::ITensorListRef &tensors, int64_t dim, Tensor &out) {
    if (!familyList(tensors) || !isFamilyDtype(out.scalar_type())) {
        return detail::fallback<at::_ops::cat_out, Tensor &, const at::ITensorListRef &, int64_t, Tensor &>(tensors,
                                                                                                            dim, out);
    }
    Cat<true> op;
    op.given_ = &out;
    auto pre = op.meta(tensors, dim);
    catInto(tensors, pre.dim, out);
    return out;
}

// flip: a copy from a view whose flipped dims walk backwards (the families take negative strides).
Tensor flip(const Tensor &self, at::IntArrayRef dims) {
    if (!isFamilyDtype(self.scalar_type()) || self.dim() > INFINIOP_MAX_DIMS) {
        return detail::fallback<at::_ops::flip, Tensor, const Tensor &, at::IntArrayRef>(self, dims);
    }
    const int64_t nd = self.dim();
    std::vector<bool> flipped(std::max<int64_t>(nd, 1), false);
    for (int64_t d : dims) {
        const int64_t w = c10::maybe_wrap_dim(d, nd);
        TORCH_CHECK(!flipped[w], "dims has duplicates, original flip dims size=", dims.size(),
                    ", but unique flip dims size=", dims.size() - 1);
        flipped[w] = true;
    }
    Tensor out = at::empty_like(self, at::MemoryFormat::Preserve);
    if (self.numel() == 0) return out;
    infiniopPointwiseArgs_t a{};
    a.op = INFINIOP_PW_COPY;
    a.noutputs = 1;
    a.compute = computeDtype(self.scalar_type());
    a.iter = iterOfTensors({&out, &self});
    const int64_t esize = static_cast<int64_t>(self.element_size());
    char *base = static_cast<char *>(a.iter.data[1]);
    for (int64_t d = 0; d < nd; ++d) {
        if (!flipped[d]) continue;
        const int k = static_cast<int>(nd - 1 - d);  // iter dims are the tensor's reversed
        base += (self.size(d) - 1) * self.stride(d) * esize;
        a.iter.strides[1][k] = -self.stride(d);
    }
    a.iter.data[1] = base;
    c10::DeviceGuard guard(self.device());
    runFamily("aten::flip", infiniopPointwise, self.device(), a);
    return out;
}

// roll: each rolled dim is two slice copies; several dims roll one after another.
Tensor rollOne(const Tensor &self, int64_t shift, int64_t dim) {
    const int64_t n = self.size(dim);
    Tensor out = at::empty_like(self, at::MemoryFormat::Contiguous);
    if (n == 0 || self.numel() == 0) return out;
    int64_t s = ((shift % n) + n) % n;
    if (s == 0) {
        out.copy_(self);
        return out;
    }
    out.narrow(dim, 0, s).copy_(self.narrow(dim, n - s, s));
    out.narrow(dim, s, n - s).copy_(self.narrow(dim, 0, n - s));
    return out;
}

Tensor roll(const Tensor &self, c10::SymIntArrayRef shifts_sym, at::IntArrayRef dims) {
    auto shifts = C10_AS_INTARRAYREF_SLOW(shifts_sym);
    if (!isFamilyDtype(self.scalar_type())) {
        return detail::fallback<at::_ops::roll, Tensor, const Tensor &, c10::SymIntArrayRef, at::IntArrayRef>(
            self, shifts_sym, dims);
    }
    TORCH_CHECK(!shifts.empty(), "`shifts` required");
    if (dims.empty() && shifts.size() == 1) {
        return rollOne(self.flatten(), shifts[0], 0).view(self.sizes());
    }
    TORCH_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
                ", dims:", dims.size());
    Tensor out = self;
    for (size_t i = 0; i < dims.size(); ++i) {
        out = rollOne(out, shifts[i], c10::maybe_wrap_dim(dims[i], self.dim()));
    }
    if (out.is_same(self)) out = self.clone();
    return out;
}

// triu / tril: where(mask, self, 0) with the mask built from two aranges.
void triangle(const Tensor &self, int64_t k, bool upper, const Tensor &result) {
    if (self.numel() == 0) return;
    const int64_t m = self.size(-2), n = self.size(-1);
    c10::DeviceGuard guard(self.device());
    Tensor rows = at::arange(m, self.options().dtype(at::kLong)).unsqueeze(1);
    Tensor cols = at::arange(n, self.options().dtype(at::kLong)).unsqueeze(0);
    Tensor diff = cols - rows;  // j - i
    Tensor keep = upper ? diff.ge(k) : diff.le(k);
    at::where_out(const_cast<Tensor &>(result), keep, self, at::zeros({}, self.options()));
}

void triuImpl(const char *, at::impl::MetaBase &op, const Tensor &self, int64_t k) {
    triangle(self, k, true, op.maybe_get_output(0));
}
void trilImpl(const char *, at::impl::MetaBase &op, const Tensor &self, int64_t k) {
    triangle(self, k, false, op.maybe_get_output(0));
}

// arange: IOTA over the output's one dim, in F64 for floats (as torch's CPU kernel accumulates) and I64 for ints.
Tensor &arangeOut(const at::Scalar &start, const at::Scalar &end, const at::Scalar &step, Tensor &out) {
    if (!isFamilyDtype(out.scalar_type())) {
        return detail::fallback<at::_ops::arange_start_out, Tensor &, const at::Scalar &, const at::Scalar &,
                                const at::Scalar &, Tensor &>(start, end, step, out);
    }
    int64_t size = 0;
    AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, out.scalar_type(), "arange",
                               [&] { size = at::native::compute_arange_size<scalar_t>(start, end, step); });
    if (out.numel() != size) {
        if (out.numel() > 0) {
            TORCH_WARN("The number of elements in the out tensor of shape ", out.sizes(), " is ", out.numel(),
                       " which does not match the computed number of elements ", size,
                       ". Note that this may occur as a result of rounding error. "
                       "The out tensor will be resized to a tensor of shape (",
                       size, ",).");
        }
        out.resize_({size});
    }
    if (size == 0) return out;
    Pw p(INFINIOP_PW_IOTA);
    p.scalar(0, start).scalar(1, step);
    p.a.compute = at::isFloatingType(out.scalar_type()) ? INFINI_DTYPE_F64 : INFINI_DTYPE_I64;
    p.a.iter = iterOfTensors({&out});
    c10::DeviceGuard guard(out.device());
    p.runIter("aten::arange.start_out", out.device());
    return out;
}

}  // namespace
}  // namespace infini_torch::aten

using namespace infini_torch::aten;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    m.impl("cat", TORCH_FN(cat));
    m.impl("cat.out", TORCH_FN(catOut));
    m.impl("flip", TORCH_FN(flip));
    m.impl("roll", TORCH_FN(roll));
    INFINI_STRUCTURED3(m, "triu", "triu_", "triu.out", triu, triu_, triu_out, structured_triu, &triuImpl);
    INFINI_STRUCTURED3(m, "tril", "tril_", "tril.out", tril, tril_, tril_out, structured_tril, &trilImpl);
    m.impl("arange.start_out", TORCH_FN(arangeOut));
}

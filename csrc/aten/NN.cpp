// NN.cpp: softmax and log_softmax with their backward forms on the rows family (infiniopRows), layer_norm and
// rms_norm with their backward forms on the norm family (infiniopNorm). The families take contiguous rows: inputs
// are made contiguous (a copy only where they are not), outputs are written in place when contiguous, else through
// a fresh tensor. F16 / BF16 / F32 / F64 run natively; other dtypes go to the CPU fallback (which raises torch's
// own error for them).
//
// native_layer_norm is registered directly: its CompositeExplicitAutograd kernel would reach native_batch_norm.
// rms_norm reaches _fused_rms_norm (torch's rms_norm calls it for every device); its statistics follow torch's:
// rstd in the computation dtype (float32 for 16-bit inputs, float64 for float64), keepdim-shaped. layer_norm's
// mean / rstd likewise are float32 (float64 for float64 inputs), as torch's CUDA kernels and meta functions give.
#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/TensorMeta.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/layer_norm.h>
#include <ATen/ops/_log_softmax_backward_data_meta.h>
#include <ATen/ops/_log_softmax_backward_data_ops.h>
#include <ATen/ops/_log_softmax_meta.h>
#include <ATen/ops/_log_softmax_ops.h>
#include <ATen/ops/_softmax_backward_data_meta.h>
#include <ATen/ops/_softmax_backward_data_ops.h>
#include <ATen/ops/_softmax_meta.h>
#include <ATen/ops/_softmax_ops.h>
#include <ATen/ops/native_layer_norm_backward_ops.h>
#include <ATen/ops/native_layer_norm_ops.h>
#include <c10/util/StringUtil.h>
#include <torch/library.h>

#include <limits>
#include <type_traits>

#if __has_include(<ATen/ops/_fused_rms_norm_ops.h>)
#include <ATen/ops/_fused_rms_norm_backward_ops.h>
#include <ATen/ops/_fused_rms_norm_ops.h>
#define INFINI_HAS_FUSED_RMS_NORM 1
#endif

#include "Family.h"
#include "Route.h"

namespace infini_torch::aten {
namespace {

using at::Tensor;

using RowsArgs = OnFamily<INFINIOP_FAMILY_ROWS, AllTensors<&isRowsFloat>>;

void *dataOf(const Tensor &t) { return t.defined() && t.numel() > 0 ? t.data_ptr() : nullptr; }

// True when a kernel may write `out` while reading `in`: no shared element, or exactly the same elements in the same
// order (every family kernel here reads an element before it writes it).
bool writableOver(const Tensor &out, const Tensor &in) {
    if (!in.defined()) return true;
    const auto s = at::get_overlap_status(out, in);
    return s == at::MemOverlapStatus::No || s == at::MemOverlapStatus::Full;
}

// ---- softmax family ----

// op over dim `dim` of x (and y, the forward output for the backward forms) into out.
void runRows(const char *name, infiniopRowsOp_t op, const Tensor &out, const Tensor &x, const Tensor &y, int64_t dim) {
    checkSameDevice(name, out.device(), {&x, &y});
    if (out.numel() == 0) return;
    const Tensor xc = x.contiguous(), yc = y.defined() ? y.contiguous() : y;
    const bool direct = out.is_contiguous() && writableOver(out, xc) && writableOver(out, yc);
    const Tensor target = direct ? out : at::empty(out.sizes(), out.options());
    const int64_t d = at::maybe_wrap_dim(dim, xc.dim());
    infiniopRowsArgs_t a{};
    a.op = op;
    a.outer = 1;
    a.inner = 1;
    for (int64_t k = 0; k < d; ++k) a.outer *= xc.size(k);
    a.n = xc.dim() == 0 ? 1 : xc.size(d);
    for (int64_t k = d + 1; k < xc.dim(); ++k) a.inner *= xc.size(k);
    a.out_dtype = familyDtype(target.scalar_type());
    a.x_dtype = familyDtype(xc.scalar_type());
    a.y_dtype = yc.defined() ? familyDtype(yc.scalar_type()) : INFINI_DTYPE_INVALID;
    a.out = dataOf(target);
    a.x = dataOf(xc);
    a.y = dataOf(yc);
    runFamily(name, infiniopRows, out.device(), a);
    if (!direct) out.copy_(target);
}

template <infiniopRowsOp_t OP>
void softmaxImpl(const char *name, at::impl::MetaBase &op, const Tensor &self, int64_t dim, bool) {
    runRows(name, OP, op.maybe_get_output(0), self, Tensor(), dim);
}

template <infiniopRowsOp_t OP>
void softmaxBackwardImpl(const char *name, at::impl::MetaBase &op, const Tensor &grad_output, const Tensor &output,
                         int64_t dim, at::ScalarType) {
    runRows(name, OP, op.maybe_get_output(0), grad_output, output, dim);
}

// ---- norm family ----

// The dtype of mean / rstd for rows of dtype t.
at::ScalarType statType(at::ScalarType t) { return t == at::kDouble ? at::kDouble : at::kFloat; }

// [*input.shape[:axis], 1, ...]: the statistics' shape, keepdim over the normalized dims.
std::vector<int64_t> statShape(const Tensor &input, size_t normalized_ndim) {
    std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
    for (size_t k = shape.size() - normalized_ndim; k < shape.size(); ++k) shape[k] = 1;
    return shape;
}

Tensor contiguousOrNone(const std::optional<Tensor> &t) {
    return t.has_value() && t->defined() ? t->contiguous() : Tensor();
}

// Statistics as the kernel reads them: contiguous, in statType of the rows.
Tensor statOf(const Tensor &s, at::ScalarType rows) { return s.to(statType(rows)).contiguous(); }

// The dtype of w / b / dw / db: the first defined of them.
infiniDtype_t paramDtype(std::initializer_list<const Tensor *> params) {
    for (const Tensor *t : params) {
        if (t->defined()) return familyDtype(t->scalar_type());
    }
    return INFINI_DTYPE_INVALID;
}

// Weight and bias of one dtype (the family's w_dtype) when both are given.
struct NormParams {
    static bool params(const std::optional<Tensor> &w, const std::optional<Tensor> &b) {
        return !(w.has_value() && w->defined() && b.has_value() && b->defined()) ||
               w->scalar_type() == b->scalar_type();
    }
    template <class... A>
    static bool ok(const A &...a) {
        return AllTensors<&isRowsFloat>::ok(a...) && paramsOf(a...);
    }
    // native_layer_norm (input, shape, weight, bias, eps) and its backward (..., weight, bias, mask)
    static bool paramsOf(const Tensor &, c10::SymIntArrayRef, const std::optional<Tensor> &w,
                         const std::optional<Tensor> &b, double) {
        return params(w, b);
    }
    static bool paramsOf(const Tensor &, const Tensor &, c10::SymIntArrayRef, const Tensor &, const Tensor &,
                         const std::optional<Tensor> &w, const std::optional<Tensor> &b, std::array<bool, 3>) {
        return params(w, b);
    }
    template <class... A>
    static bool paramsOf(const A &...) {
        return true;
    }
};

using NormArgs = OnFamily<INFINIOP_FAMILY_NORM, NormParams>;

std::tuple<Tensor, Tensor, Tensor> layerNorm(const Tensor &input, c10::SymIntArrayRef normalized_shape,
                                             const std::optional<Tensor> &weight, const std::optional<Tensor> &bias,
                                             double eps) {
    const char *name = "aten::native_layer_norm";
    const Tensor w = contiguousOrNone(weight), b = contiguousOrNone(bias);
    const auto shape = C10_AS_INTARRAYREF_SLOW(normalized_shape);
    const auto [rows, cols] = at::native::_check_layer_norm_inputs(input, shape, w, b);
    checkSameDevice(name, input.device(), {&w, &b});
    const Tensor x = input.contiguous();
    Tensor y = at::empty(input.sizes(), input.options().memory_format(at::MemoryFormat::Contiguous));
    const auto stat = input.options().dtype(statType(input.scalar_type()));
    Tensor mean = at::empty({rows}, stat), rstd = at::empty({rows}, stat);
    if (rows > 0) {
        infiniopNormArgs_t a{};
        a.op = INFINIOP_NORM_LAYER_NORM;
        a.rows = rows;
        a.cols = cols;
        a.eps = eps;
        a.dtype = familyDtype(x.scalar_type());
        a.w_dtype = paramDtype({&w, &b});
        a.y = dataOf(y);
        a.mean = dataOf(mean);
        a.rstd = dataOf(rstd);
        a.x = dataOf(x);
        a.w = dataOf(w);
        a.b = dataOf(b);
        runFamily(name, infiniopNorm, input.device(), a);
    }
    const auto st = statShape(input, shape.size());
    return {std::move(y), mean.view(st), rstd.view(st)};
}

std::tuple<Tensor, Tensor, Tensor> layerNormBackward(const Tensor &grad_out, const Tensor &input,
                                                     c10::SymIntArrayRef normalized_shape, const Tensor &mean,
                                                     const Tensor &rstd, const std::optional<Tensor> &weight,
                                                     const std::optional<Tensor> &bias, std::array<bool, 3> mask) {
    const char *name = "aten::native_layer_norm_backward";
    const Tensor w = contiguousOrNone(weight), b = contiguousOrNone(bias);
    const auto shape = C10_AS_INTARRAYREF_SLOW(normalized_shape);
    const auto [rows, cols] = at::native::_check_layer_norm_inputs(input, shape, w, b);
    checkSameDevice(name, input.device(), {&grad_out, &mean, &rstd, &w, &b});
    const auto contiguous = at::MemoryFormat::Contiguous;
    Tensor dx, dw, db;
    if (mask[0]) dx = at::empty(input.sizes(), input.options().memory_format(contiguous));
    if (mask[1] && w.defined()) dw = at::empty(w.sizes(), w.options().memory_format(contiguous));
    if (mask[2] && b.defined()) db = at::empty(b.sizes(), b.options().memory_format(contiguous));
    if ((dx.defined() || dw.defined() || db.defined()) && cols > 0) {
        const Tensor x = input.contiguous(), dy = grad_out.to(input.scalar_type()).contiguous();
        const Tensor m = statOf(mean, input.scalar_type()), r = statOf(rstd, input.scalar_type());
        infiniopNormArgs_t a{};
        a.op = INFINIOP_NORM_LAYER_NORM_BWD;
        a.rows = rows;
        a.cols = cols;
        a.dtype = familyDtype(x.scalar_type());
        a.w_dtype = paramDtype({&w, &b});
        a.y = dataOf(dx);
        a.dw = dataOf(dw);
        a.db = dataOf(db);
        a.mean = dataOf(m);
        a.rstd = dataOf(r);
        a.x = dataOf(x);
        a.w = dataOf(w);
        a.dy = dataOf(dy);
        runFamily(name, infiniopNorm, input.device(), a);
    }
    return {std::move(dx), std::move(dw), std::move(db)};
}

#ifdef INFINI_HAS_FUSED_RMS_NORM
// rows x cols of the input over the normalized dims, after torch's checks (its messages; the helper that has
// them is not in every torch's headers).
std::pair<int64_t, int64_t> rmsGeometry(const Tensor &input, at::IntArrayRef shape, const Tensor &w) {
    TORCH_CHECK(!shape.empty(),
                "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                "element, but got normalized_shape = ",
                shape);
    TORCH_CHECK(!w.defined() || w.sizes().equals(shape),
                "Expected weight to be of same shape as normalized_shape, but "
                "got weight of shape ",
                w.sizes(), " and normalized_shape = ", shape);
    TORCH_CHECK_VALUE(input.dim() >= static_cast<int64_t>(shape.size()), "Input tensor must have at least ",
                      shape.size(), " dimensions, but got ", input.dim());
    TORCH_CHECK(input.sizes().slice(input.dim() - shape.size()).equals(shape), "Given normalized_shape=", shape,
                ", expected input with shape [*, ", c10::Join(", ", shape), "], but got input of size", input.sizes());
    const size_t axis = static_cast<size_t>(input.dim()) - shape.size();
    const auto sizes = input.sizes();
    return {c10::multiply_integers(sizes.begin(), sizes.begin() + axis),
            c10::multiply_integers(sizes.begin() + axis, sizes.end())};
}

std::tuple<Tensor, Tensor> rmsNorm(const Tensor &input, at::IntArrayRef normalized_shape,
                                   const std::optional<Tensor> &weight, std::optional<double> eps) {
    const char *name = "aten::_fused_rms_norm";
    const Tensor w = contiguousOrNone(weight);
    const auto [rows, cols] = rmsGeometry(input, normalized_shape, w);
    checkSameDevice(name, input.device(), {&w});
    const Tensor x = input.contiguous();
    Tensor y = at::empty(input.sizes(), input.options().memory_format(at::MemoryFormat::Contiguous));
    const at::ScalarType stat = statType(input.scalar_type());
    Tensor rstd = at::empty({rows}, input.options().dtype(stat));
    if (rows > 0) {
        infiniopNormArgs_t a{};
        a.op = INFINIOP_NORM_RMS_NORM;
        a.rows = rows;
        a.cols = cols;
        // torch's default: the machine epsilon of the computation dtype
        a.eps = eps.has_value() ? *eps
                                : (stat == at::kDouble ? std::numeric_limits<double>::epsilon()
                                                       : static_cast<double>(std::numeric_limits<float>::epsilon()));
        a.dtype = familyDtype(x.scalar_type());
        a.w_dtype = paramDtype({&w});
        a.y = dataOf(y);
        a.rstd = dataOf(rstd);
        a.x = dataOf(x);
        a.w = dataOf(w);
        runFamily(name, infiniopNorm, input.device(), a);
    }
    return {std::move(y), rstd.view(statShape(input, normalized_shape.size()))};
}

std::tuple<Tensor, Tensor> rmsNormBackward(const Tensor &grad_out, const Tensor &input,
                                           at::IntArrayRef normalized_shape, const Tensor &rstd,
                                           const std::optional<Tensor> &weight, std::array<bool, 2> mask) {
    const char *name = "aten::_fused_rms_norm_backward";
    const Tensor w = contiguousOrNone(weight);
    const auto [rows, cols] = rmsGeometry(input, normalized_shape, w);
    checkSameDevice(name, input.device(), {&grad_out, &rstd, &w});
    const auto contiguous = at::MemoryFormat::Contiguous;
    Tensor dx, dw;
    if (mask[0]) dx = at::empty(input.sizes(), input.options().memory_format(contiguous));
    if (mask[1] && w.defined()) dw = at::empty(w.sizes(), w.options().memory_format(contiguous));
    if ((dx.defined() || dw.defined()) && cols > 0) {
        const Tensor x = input.contiguous(), dy = grad_out.to(input.scalar_type()).contiguous();
        const Tensor r = statOf(rstd, input.scalar_type());
        infiniopNormArgs_t a{};
        a.op = INFINIOP_NORM_RMS_NORM_BWD;
        a.rows = rows;
        a.cols = cols;
        a.dtype = familyDtype(x.scalar_type());
        a.w_dtype = paramDtype({&w});
        a.y = dataOf(dx);
        a.dw = dataOf(dw);
        a.rstd = dataOf(r);
        a.x = dataOf(x);
        a.w = dataOf(w);
        a.dy = dataOf(dy);
        runFamily(name, infiniopNorm, input.device(), a);
    }
    return {std::move(dx), std::move(dw)};
}

// Registers Fn for Op when Op's schema is the one Fn is written for; another torch leaves the op on its default
// kernel (rms_norm on its composite).
template <class Op, auto Fn>
void implIfSchema(torch::Library &m, const char *name) {
    if constexpr (std::is_same_v<typename Op::schema, std::remove_pointer_t<decltype(Fn)>>) {
        m.impl(name, TORCH_FN((Route<Op, OnFamily<INFINIOP_FAMILY_NORM, AllTensors<&isRowsFloat>>, Fn>::call)));
    }
}
#endif

}  // namespace
}  // namespace infini_torch::aten

using namespace infini_torch::aten;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    INFINI_ROUTED_FUNCTIONAL(m, "_softmax", _softmax, RowsArgs, structured__softmax,
                             &softmaxImpl<INFINIOP_ROWS_SOFTMAX>);
    INFINI_ROUTED_OUT(m, "_softmax.out", _softmax_out, RowsArgs, structured__softmax,
                      &softmaxImpl<INFINIOP_ROWS_SOFTMAX>);
    INFINI_ROUTED_FUNCTIONAL(m, "_log_softmax", _log_softmax, RowsArgs, structured__log_softmax,
                             &softmaxImpl<INFINIOP_ROWS_LOG_SOFTMAX>);
    INFINI_ROUTED_OUT(m, "_log_softmax.out", _log_softmax_out, RowsArgs, structured__log_softmax,
                      &softmaxImpl<INFINIOP_ROWS_LOG_SOFTMAX>);
    INFINI_ROUTED_FUNCTIONAL(m, "_softmax_backward_data", _softmax_backward_data, RowsArgs,
                             structured__softmax_backward_data, &softmaxBackwardImpl<INFINIOP_ROWS_SOFTMAX_BWD>);
    INFINI_ROUTED_OUT(m, "_softmax_backward_data.out", _softmax_backward_data_out, RowsArgs,
                      structured__softmax_backward_data, &softmaxBackwardImpl<INFINIOP_ROWS_SOFTMAX_BWD>);
    INFINI_ROUTED_FUNCTIONAL(m, "_log_softmax_backward_data", _log_softmax_backward_data, RowsArgs,
                             structured__log_softmax_backward_data,
                             &softmaxBackwardImpl<INFINIOP_ROWS_LOG_SOFTMAX_BWD>);
    INFINI_ROUTED_OUT(m, "_log_softmax_backward_data.out", _log_softmax_backward_data_out, RowsArgs,
                      structured__log_softmax_backward_data, &softmaxBackwardImpl<INFINIOP_ROWS_LOG_SOFTMAX_BWD>);
    INFINI_ROUTED(m, "native_layer_norm", native_layer_norm, NormArgs, layerNorm);
    INFINI_ROUTED(m, "native_layer_norm_backward", native_layer_norm_backward, NormArgs, layerNormBackward);
#ifdef INFINI_HAS_FUSED_RMS_NORM
    implIfSchema<at::_ops::_fused_rms_norm, &rmsNorm>(m, "_fused_rms_norm");
    implIfSchema<at::_ops::_fused_rms_norm_backward, &rmsNormBackward>(m, "_fused_rms_norm_backward");
#endif
}

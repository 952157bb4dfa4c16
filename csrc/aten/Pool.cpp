// Pool.cpp: pooling and interpolation on the window family: max_pool2d_with_indices, avg_pool2d, adaptive average
// pooling (average pooling where the adaptive windows are regular, else the family's adaptive op), nearest and
// bilinear upsampling in 2-d and 1-d (h = 1), each with its backward. The structured ops run torch's own meta
// (argument checks, output shape and memory format), then the kernel writes a contiguous NCHW result (in place
// when the output is contiguous, else through a temporary copied into it). Dtypes other than the family's
// (integers) run on the CPU fallback.
#include <ATen/ATen.h>
#include <ATen/native/AdaptivePooling.h>
#include <ATen/ops/_adaptive_avg_pool2d_backward_ops.h>
#include <ATen/ops/_adaptive_avg_pool2d_ops.h>
#include <ATen/ops/avg_pool2d_backward_meta.h>
#include <ATen/ops/avg_pool2d_backward_ops.h>
#include <ATen/ops/avg_pool2d_meta.h>
#include <ATen/ops/avg_pool2d_ops.h>
#include <ATen/ops/max_pool2d_with_indices_backward_meta.h>
#include <ATen/ops/max_pool2d_with_indices_backward_ops.h>
#include <ATen/ops/max_pool2d_with_indices_meta.h>
#include <ATen/ops/max_pool2d_with_indices_ops.h>
#include <ATen/ops/upsample_bilinear2d_backward_meta.h>
#include <ATen/ops/upsample_bilinear2d_backward_ops.h>
#include <ATen/ops/upsample_bilinear2d_meta.h>
#include <ATen/ops/upsample_bilinear2d_ops.h>
#include <ATen/ops/upsample_linear1d_backward_meta.h>
#include <ATen/ops/upsample_linear1d_backward_ops.h>
#include <ATen/ops/upsample_linear1d_meta.h>
#include <ATen/ops/upsample_linear1d_ops.h>
#include <ATen/ops/upsample_nearest1d_backward_meta.h>
#include <ATen/ops/upsample_nearest1d_backward_ops.h>
#include <ATen/ops/upsample_nearest1d_meta.h>
#include <ATen/ops/upsample_nearest1d_ops.h>
#include <ATen/ops/upsample_nearest2d_backward_meta.h>
#include <ATen/ops/upsample_nearest2d_backward_ops.h>
#include <ATen/ops/upsample_nearest2d_meta.h>
#include <ATen/ops/upsample_nearest2d_ops.h>
#include <torch/library.h>

#include "Structured.h"
#include "Window.h"

namespace infini_torch::aten {
namespace {

using at::IntArrayRef;
using at::Tensor;

// ---- the kernels' operands

// The contiguous tensor a kernel writes for `out`: out itself, or a temporary that finish() copies into out.
struct Target {
    Tensor out, dense;
    explicit Target(const Tensor &o) : out(o), dense(o.is_contiguous() ? o : at::empty(o.sizes(), o.options())) {}
    void finish(const char *op) const {
        if (!dense.is_same(out)) copyInto(op, out, dense);
    }
};

// An image tensor [n, c, h, w], [c, h, w] (one sample) or, for the 1-d ops, [n, c, w] (h = 1).
struct Image {
    int64_t n, c, h, w;
};
Image imageOf(IntArrayRef sizes, bool one_d = false) {
    const int64_t d = static_cast<int64_t>(sizes.size());
    if (one_d) return {d == 3 ? sizes[0] : 1, sizes[d - 2], 1, sizes[d - 1]};
    return {d == 4 ? sizes[0] : 1, sizes[d - 3], sizes[d - 2], sizes[d - 1]};
}

// Runs one window op: `in` is read as given (made contiguous first), `out` written (in place when contiguous).
void runWindow(const char *op, infiniopWindowArgs_t a, const Tensor &in, const Tensor &out,
               const Tensor &indices = Tensor()) {
    TORCH_CHECK(in.scalar_type() == out.scalar_type(), op, ": expected ", in.scalar_type(), " for the output, got ",
                out.scalar_type());
    const Tensor x = contiguousAs(op, in);
    Target y(out);
    std::optional<Target> ind;
    if (indices.defined()) {
        if (a.op == INFINIOP_WINDOW_MAX_POOL) {
            ind.emplace(indices);
        } else {
            TORCH_CHECK(indices.scalar_type() == at::kLong, op, ": expected indices of dtype Long, got ",
                        indices.scalar_type());
        }
    }
    const Tensor ind_in = indices.defined() && !ind.has_value() ? contiguousAs(op, indices) : Tensor();
    if (y.dense.numel() == 0) return;
    a.in = x.numel() > 0 ? x.data_ptr() : nullptr;
    a.out = y.dense.data_ptr();
    if (ind.has_value()) a.indices = ind->dense.numel() > 0 ? ind->dense.data_ptr() : nullptr;
    if (ind_in.defined()) a.indices = ind_in.numel() > 0 ? ind_in.data_ptr() : nullptr;
    runFamily(op, infiniopWindow, out.device(), a);
    y.finish(op);
    if (ind.has_value()) ind->finish(op);
}

// torch's reading of a pooling argument: one value for both dims, or two (`fallback` where empty: the stride).
int firstOf(IntArrayRef v) { return static_cast<int>(v[0]); }
int secondOf(IntArrayRef v) { return static_cast<int>(v.size() == 1 ? v[0] : v[1]); }

struct Pool2d {
    int kh, kw, sh, sw, ph, pw, dh, dw;
};
Pool2d poolOf(IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation) {
    Pool2d p{};
    p.kh = firstOf(kernel);
    p.kw = secondOf(kernel);
    p.sh = stride.empty() ? p.kh : firstOf(stride);
    p.sw = stride.empty() ? p.kw : secondOf(stride);
    p.ph = firstOf(padding);
    p.pw = secondOf(padding);
    p.dh = dilation.empty() ? 1 : firstOf(dilation);
    p.dw = dilation.empty() ? 1 : secondOf(dilation);
    return p;
}
void setPool(infiniopWindowArgs_t &a, const Pool2d &p) {
    a.kh = p.kh;
    a.kw = p.kw;
    a.sh = p.sh;
    a.sw = p.sw;
    a.ph = p.ph;
    a.pw = p.pw;
    a.dh = p.dh;
    a.dw = p.dw;
}

// ---- forms of the structured ops with one output: torch's meta, then Impl(name, output, meta args...)

using detail::metaArg;

// True when the data operand (the first tensor argument: self or grad_output) has a window dtype and the device's
// backend has window op OP; else the op runs on the CPU fallback. (Index operands are int64; runWindow checks that
// the output's dtype is the data's.)
inline bool windowReady(infiniopWindowOp_t op, const Tensor &t, bool &seen) {
    if (seen) return true;
    seen = true;
    return isWindowDtype(t.scalar_type()) && windowSupports(t.device(), op);
}
template <class T>
bool windowReady(infiniopWindowOp_t, const T &, bool &) {
    return true;
}
template <class... A>
bool windowReady(infiniopWindowOp_t op, const A &...a) {
    bool seen = false;
    return (windowReady(op, a, seen) && ...);
}

template <class Meta, class Op, auto Impl, infiniopWindowOp_t OP, class Sig = typename Op::schema>
struct Functional1;
template <class Meta, class Op, auto Impl, infiniopWindowOp_t OP, class... A>
struct Functional1<Meta, Op, Impl, OP, Tensor(A...)> {
    static Tensor call(A... a) {
        if (!windowReady(OP, a...)) return detail::fallback<Op, Tensor, A...>(std::forward<A>(a)...);
        Functional<Meta> op;
        op.meta(metaArg(a)...);
        Impl(Op::name, op.outputs_[0], metaArg(a)...);
        return std::move(op.outputs_[0]);
    }
};

template <class Meta, class Op, auto Impl, infiniopWindowOp_t OP, class Sig = typename Op::schema>
struct Out1;
template <class Meta, class Op, auto Impl, infiniopWindowOp_t OP, class... A>
struct Out1<Meta, Op, Impl, OP, Tensor &(A...)> {
    static Tensor &call(A... a) {
        return split(std::forward_as_tuple(a...), std::make_index_sequence<sizeof...(A) - 1>{});
    }
    template <class Tuple, size_t... K>
    static Tensor &split(Tuple t, std::index_sequence<K...>) {
        Tensor &out = std::get<sizeof...(K)>(t);
        if (!windowReady(OP, std::get<K>(t)..., out))
            return detail::fallback<Op, Tensor &, A...>(std::get<K>(t)..., out);
        Out<Meta> op(out);
        op.meta(metaArg(std::get<K>(t))...);
        Impl(Op::name, op.maybe_get_output(0), metaArg(std::get<K>(t))...);
        op.finish();
        return out;
    }
};

// ---- max pooling

void maxPoolImpl(const char *name, const Tensor &self, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
                 IntArrayRef dilation, const Tensor &out, const Tensor &indices) {
    const Image im = imageOf(self.sizes());
    infiniopWindowArgs_t a =
        windowArgs(INFINIOP_WINDOW_MAX_POOL, self.scalar_type(), im.n, im.c, im.h, im.w, out.size(-2), out.size(-1));
    setPool(a, poolOf(kernel, stride, padding, dilation));
    runWindow(name, a, self, out, indices);
}

using MaxPoolMeta = at::meta::structured_max_pool2d_with_indices;

std::tuple<Tensor, Tensor> maxPool2d(const Tensor &self, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
                                     IntArrayRef dilation, bool ceil_mode) {
    if (!isWindowDtype(self.scalar_type()) || !windowSupports(self.device(), INFINIOP_WINDOW_MAX_POOL)) {
        return detail::fallback<at::_ops::max_pool2d_with_indices, std::tuple<Tensor, Tensor>, const Tensor &,
                                IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool>(self, kernel, stride, padding,
                                                                                          dilation, ceil_mode);
    }
    Functional<MaxPoolMeta, 2> op;
    op.meta(self, kernel, stride, padding, dilation, ceil_mode);
    maxPoolImpl("aten::max_pool2d_with_indices", self, kernel, stride, padding, dilation, op.outputs_[0],
                op.outputs_[1]);
    return {std::move(op.outputs_[0]), std::move(op.outputs_[1])};
}

std::tuple<Tensor &, Tensor &> maxPool2dOut(const Tensor &self, IntArrayRef kernel, IntArrayRef stride,
                                            IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, Tensor &out,
                                            Tensor &indices) {
    if (!isWindowDtype(self.scalar_type()) || !isWindowDtype(out.scalar_type()) ||
        !windowSupports(self.device(), INFINIOP_WINDOW_MAX_POOL)) {
        return detail::fallback<at::_ops::max_pool2d_with_indices_out, std::tuple<Tensor &, Tensor &>, const Tensor &,
                                IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool, Tensor &, Tensor &>(
            self, kernel, stride, padding, dilation, ceil_mode, out, indices);
    }
    Out<MaxPoolMeta, 2> op(out, indices);
    op.meta(self, kernel, stride, padding, dilation, ceil_mode);
    maxPoolImpl("aten::max_pool2d_with_indices.out", self, kernel, stride, padding, dilation, op.maybe_get_output(0),
                op.maybe_get_output(1));
    op.finish();
    return {out, indices};
}

void maxPoolBackward(const char *name, const Tensor &grad_input, const Tensor &grad_output, const Tensor &self,
                     IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool,
                     const Tensor &indices) {
    const Image im = imageOf(self.sizes());
    infiniopWindowArgs_t a = windowArgs(INFINIOP_WINDOW_MAX_POOL_BWD, self.scalar_type(), im.n, im.c, im.h, im.w,
                                        grad_output.size(-2), grad_output.size(-1));
    setPool(a, poolOf(kernel, stride, padding, dilation));
    runWindow(name, a, grad_output, grad_input, indices);
}

// ---- average pooling

void avgPool(const char *name, const Tensor &out, const Tensor &self, IntArrayRef kernel, IntArrayRef stride,
             IntArrayRef padding, bool, bool count_include_pad, std::optional<int64_t> divisor_override) {
    const Image im = imageOf(self.sizes());
    infiniopWindowArgs_t a =
        windowArgs(INFINIOP_WINDOW_AVG_POOL, self.scalar_type(), im.n, im.c, im.h, im.w, out.size(-2), out.size(-1));
    setPool(a, poolOf(kernel, stride, padding, {}));
    a.count_include_pad = count_include_pad;
    a.divisor_override = divisor_override.value_or(0);
    runWindow(name, a, self, out);
}

void avgPoolBackward(const char *name, const Tensor &grad_input, const Tensor &grad_output, const Tensor &self,
                     IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, bool, bool count_include_pad,
                     std::optional<int64_t> divisor_override) {
    const Image im = imageOf(self.sizes());
    infiniopWindowArgs_t a = windowArgs(INFINIOP_WINDOW_AVG_POOL_BWD, self.scalar_type(), im.n, im.c, im.h, im.w,
                                        grad_output.size(-2), grad_output.size(-1));
    setPool(a, poolOf(kernel, stride, padding, {}));
    a.count_include_pad = count_include_pad;
    a.divisor_override = divisor_override.value_or(0);
    runWindow(name, a, grad_output, grad_input);
}

// ---- adaptive average pooling: regular windows (the input a multiple of the output) are average pooling with
// kernel = stride = input / output; other sizes use the family's adaptive op, or the CPU fallback where the backend
// has none.

void setAdaptive(infiniopWindowArgs_t &a) {
    if (a.oh > 0 && a.ow > 0 && a.h % a.oh == 0 && a.w % a.ow == 0) {
        a.op = a.op == INFINIOP_WINDOW_ADAPTIVE_AVG_POOL ? INFINIOP_WINDOW_AVG_POOL : INFINIOP_WINDOW_AVG_POOL_BWD;
        a.kh = a.sh = static_cast<int>(a.h / a.oh);
        a.kw = a.sw = static_cast<int>(a.w / a.ow);
    }
}

// Runs an adaptive op: false when the backend has no such op (nothing was written).
bool runAdaptive(const char *op, infiniopWindowArgs_t a, const Tensor &in, const Tensor &out) {
    setAdaptive(a);
    const Tensor x = contiguousAs(op, in);
    Target y(out);
    if (y.dense.numel() == 0) return true;
    a.in = x.data_ptr();
    a.out = y.dense.data_ptr();
    if (callFamily(op, infiniopWindow, out.device(), a) == INFINI_STATUS_NOT_IMPLEMENTED) return false;
    y.finish(op);
    return true;
}

Tensor adaptiveAvgPool2d(const Tensor &self, c10::SymIntArrayRef output_size_s) {
    const char *op = "aten::_adaptive_avg_pool2d";
    auto fallback = [&] {
        return detail::fallback<at::_ops::_adaptive_avg_pool2d, Tensor, const Tensor &, c10::SymIntArrayRef>(
            self, output_size_s);
    };
    if (!isWindowDtype(self.scalar_type())) return fallback();
    IntArrayRef output_size = C10_AS_INTARRAYREF_SLOW(output_size_s);
    TORCH_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
    const int64_t ndim = self.dim();
    TORCH_CHECK(ndim == 3 || ndim == 4, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ", self.sizes());
    for (const int64_t i : {-2, -1}) {
        TORCH_CHECK(self.size(i) > 0,
                    "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input "
                    "has sizes ",
                    self.sizes(), " with dimension ", i + ndim, " being empty");
    }
    TORCH_CHECK(output_size[0] >= 0 && output_size[1] >= 0,
                "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {",
                output_size[0], ", ", output_size[1], "}");
    std::vector<int64_t> sizes = self.sizes().vec();
    sizes[ndim - 2] = output_size[0];
    sizes[ndim - 1] = output_size[1];
    Tensor out = at::empty(sizes, self.options());
    const Image im = imageOf(self.sizes());
    infiniopWindowArgs_t a = windowArgs(INFINIOP_WINDOW_ADAPTIVE_AVG_POOL, self.scalar_type(), im.n, im.c, im.h, im.w,
                                        output_size[0], output_size[1]);
    if (!runAdaptive(op, a, self, out)) return fallback();
    return out;
}

Tensor adaptiveAvgPool2dBackward(const Tensor &grad_output, const Tensor &self) {
    const char *op = "aten::_adaptive_avg_pool2d_backward";
    auto fallback = [&] {
        return detail::fallback<at::_ops::_adaptive_avg_pool2d_backward, Tensor, const Tensor &, const Tensor &>(
            grad_output, self);
    };
    if (!isWindowDtype(self.scalar_type()) || grad_output.scalar_type() != self.scalar_type()) return fallback();
    const int64_t ndim = grad_output.dim();
    TORCH_CHECK(ndim == 3 || ndim == 4, "adaptive_avg_pool2d_backward(): Expected 3D or 4D grad_output, but got ",
                grad_output.sizes());
    TORCH_CHECK(self.dim() == ndim, "adaptive_avg_pool2d_backward(): grad_output ", grad_output.sizes(), " and input ",
                self.sizes(), " differ in dimensions");
    at::native::adaptive_pool_empty_output_check(grad_output, "adaptive_avg_pool2d_backward");
    for (int64_t d = 0; d < ndim - 2; ++d) {
        TORCH_CHECK(grad_output.size(d) == self.size(d), "adaptive_avg_pool2d_backward(): grad_output ",
                    grad_output.sizes(), " does not match input ", self.sizes());
    }
    Tensor grad_input = at::empty(self.sizes(), self.options());
    const Image im = imageOf(self.sizes());
    infiniopWindowArgs_t a = windowArgs(INFINIOP_WINDOW_ADAPTIVE_AVG_POOL_BWD, self.scalar_type(), im.n, im.c, im.h,
                                        im.w, grad_output.size(-2), grad_output.size(-1));
    if (!runAdaptive(op, a, grad_output, grad_input)) return fallback();
    return grad_input;
}

// ---- upsampling: the ratio the kernel uses is 1 / scale where a scale is given, else derived from the sizes

double ratioOf(std::optional<double> scale) { return scale.has_value() && *scale > 0 ? 1.0 / *scale : 0.0; }

void upsample(const char *name, infiniopWindowOp_t op, const Tensor &in, const Tensor &out, IntArrayRef image,
              bool one_d, std::optional<double> scale_h, std::optional<double> scale_w, bool align_corners) {
    const Image im = imageOf(image, one_d);
    const bool backward = op == INFINIOP_WINDOW_UPSAMPLE_NEAREST_BWD || op == INFINIOP_WINDOW_UPSAMPLE_BILINEAR_BWD;
    const Tensor &grid = backward ? in : out;
    infiniopWindowArgs_t a =
        windowArgs(op, in.scalar_type(), im.n, im.c, im.h, im.w, one_d ? 1 : grid.size(-2), grid.size(-1));
    a.scale_h = ratioOf(scale_h);
    a.scale_w = ratioOf(scale_w);
    a.align_corners = align_corners;
    runWindow(name, a, in, out);
}

void nearest2d(const char *name, const Tensor &out, const Tensor &self, IntArrayRef, std::optional<double> sh,
               std::optional<double> sw) {
    upsample(name, INFINIOP_WINDOW_UPSAMPLE_NEAREST, self, out, self.sizes(), false, sh, sw, false);
}
void nearest2dBackward(const char *name, const Tensor &grad_input, const Tensor &grad_output, IntArrayRef,
                       IntArrayRef input_size, std::optional<double> sh, std::optional<double> sw) {
    upsample(name, INFINIOP_WINDOW_UPSAMPLE_NEAREST_BWD, grad_output, grad_input, input_size, false, sh, sw, false);
}
void bilinear2d(const char *name, const Tensor &out, const Tensor &self, IntArrayRef, bool align_corners,
                std::optional<double> sh, std::optional<double> sw) {
    upsample(name, INFINIOP_WINDOW_UPSAMPLE_BILINEAR, self, out, self.sizes(), false, sh, sw, align_corners);
}
void bilinear2dBackward(const char *name, const Tensor &grad_input, const Tensor &grad_output, IntArrayRef,
                        IntArrayRef input_size, bool align_corners, std::optional<double> sh,
                        std::optional<double> sw) {
    upsample(name, INFINIOP_WINDOW_UPSAMPLE_BILINEAR_BWD, grad_output, grad_input, input_size, false, sh, sw,
             align_corners);
}
void nearest1d(const char *name, const Tensor &out, const Tensor &self, IntArrayRef, std::optional<double> s) {
    upsample(name, INFINIOP_WINDOW_UPSAMPLE_NEAREST, self, out, self.sizes(), true, std::nullopt, s, false);
}
void nearest1dBackward(const char *name, const Tensor &grad_input, const Tensor &grad_output, IntArrayRef,
                       IntArrayRef input_size, std::optional<double> s) {
    upsample(name, INFINIOP_WINDOW_UPSAMPLE_NEAREST_BWD, grad_output, grad_input, input_size, true, std::nullopt, s,
             false);
}
void linear1d(const char *name, const Tensor &out, const Tensor &self, IntArrayRef, bool align_corners,
              std::optional<double> s) {
    upsample(name, INFINIOP_WINDOW_UPSAMPLE_BILINEAR, self, out, self.sizes(), true, std::nullopt, s, align_corners);
}
void linear1dBackward(const char *name, const Tensor &grad_input, const Tensor &grad_output, IntArrayRef,
                      IntArrayRef input_size, bool align_corners, std::optional<double> s) {
    upsample(name, INFINIOP_WINDOW_UPSAMPLE_BILINEAR_BWD, grad_output, grad_input, input_size, true, std::nullopt, s,
             align_corners);
}

}  // namespace
}  // namespace infini_torch::aten

using namespace infini_torch::aten;

// Registers the functional and out= forms of a structured window op: aten NAME and NAME.OUT, window op WOP.
#define INFINI_WINDOW_OP(m, NAME, OUT, IMPL, WOP)                                                                    \
    m.impl(#NAME,                                                                                                    \
           TORCH_FN((Functional1<at::meta::structured_##NAME, at::_ops::NAME, IMPL, INFINIOP_WINDOW_##WOP>::call))); \
    m.impl(#NAME "." #OUT,                                                                                           \
           TORCH_FN((Out1<at::meta::structured_##NAME, at::_ops::NAME##_##OUT, IMPL, INFINIOP_WINDOW_##WOP>::call)))

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    m.impl("max_pool2d_with_indices", TORCH_FN(maxPool2d));
    m.impl("max_pool2d_with_indices.out", TORCH_FN(maxPool2dOut));
    INFINI_WINDOW_OP(m, max_pool2d_with_indices_backward, grad_input, &maxPoolBackward, MAX_POOL_BWD);
    INFINI_WINDOW_OP(m, avg_pool2d, out, &avgPool, AVG_POOL);
    INFINI_WINDOW_OP(m, avg_pool2d_backward, grad_input, &avgPoolBackward, AVG_POOL_BWD);
    m.impl("_adaptive_avg_pool2d", TORCH_FN(adaptiveAvgPool2d));
    m.impl("_adaptive_avg_pool2d_backward", TORCH_FN(adaptiveAvgPool2dBackward));
    INFINI_WINDOW_OP(m, upsample_nearest2d, out, &nearest2d, UPSAMPLE_NEAREST);
    INFINI_WINDOW_OP(m, upsample_nearest2d_backward, grad_input, &nearest2dBackward, UPSAMPLE_NEAREST_BWD);
    INFINI_WINDOW_OP(m, upsample_bilinear2d, out, &bilinear2d, UPSAMPLE_BILINEAR);
    INFINI_WINDOW_OP(m, upsample_bilinear2d_backward, grad_input, &bilinear2dBackward, UPSAMPLE_BILINEAR_BWD);
    INFINI_WINDOW_OP(m, upsample_nearest1d, out, &nearest1d, UPSAMPLE_NEAREST);
    INFINI_WINDOW_OP(m, upsample_nearest1d_backward, grad_input, &nearest1dBackward, UPSAMPLE_NEAREST_BWD);
    INFINI_WINDOW_OP(m, upsample_linear1d, out, &linear1d, UPSAMPLE_BILINEAR);
    INFINI_WINDOW_OP(m, upsample_linear1d_backward, grad_input, &linear1dBackward, UPSAMPLE_BILINEAR_BWD);
}

// Conv.cpp: convolution on infini. torch's convolution picks the "overrideable" backend for a PrivateUse1 tensor
// and calls convolution_overrideable / convolution_backward_overrideable with 2-d geometry (a 1-d convolution
// arrives viewed as 2-d with h = 1, and empty batches or channels never arrive). Both are im2col / col2im (the
// window family) around the gemm operator, grouped, for normal and transposed convolutions alike:
//   normal:     y[n, g] = W[g] @ cols(x)[n, g]       dx = col2im(W[g]^T @ dy[n, g])   dW[g] = sum_n dy @ cols(x)^T
//   transposed: y = col2im(W[g]^T @ x[n, g])         dx[n, g] = W[g] @ cols(dy)[n, g] dW[g] = sum_n x @ cols(dy)^T
// where the "image" is x for a normal convolution and y for a transposed one, and W[g] is the weight's group g as a
// [rows, channels/groups * kh * kw] matrix. The bias gradient is dy summed per channel, as a gemm with a ones
// vector. Columns are made for a bounded number of samples at a time. 3-d convolutions and the dtypes the gemm
// does not take (float64) run on the CPU fallback (aten::convolution there). F.unfold / F.fold (im2col, col2im)
// are the window family's own ops.
#include <ATen/ATen.h>
#include <ATen/native/im2col_shape_check.h>
#include <ATen/ops/col2im_ops.h>
#include <ATen/ops/convolution_backward_ops.h>
#include <ATen/ops/convolution_ops.h>
#include <ATen/ops/im2col_ops.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "../ops/OpRunner.h"
#include "Structured.h"
#include "Window.h"

namespace infini_torch::aten {
namespace {

using at::Tensor;
using c10::SymIntArrayRef;

constexpr const char *kForward = "aten::convolution_overrideable";
constexpr const char *kBackward = "aten::convolution_backward_overrideable";

// Bytes of im2col columns made at once: a large batch is processed in slices of samples within this.
constexpr int64_t kColumnBytes = int64_t(32) << 20;

// The geometry of one convolution seen from its image side: `image` [n, c, h, w] is unfolded over a grid oh x ow
// of kh x kw windows; the weight is g matrices of [m, c / g * kh * kw].
struct Plan {
    int64_t n = 0, g = 1, c = 0, h = 0, w = 0, oh = 0, ow = 0, m = 0;
    int kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;

    int64_t k() const { return c / g * kh * kw; }
    int64_t l() const { return oh * ow; }
    // 1x1 windows over every pixel: the image is its own columns.
    bool identity() const {
        return kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 && oh == h && ow == w;
    }
    // Samples per slice of columns.
    int64_t slice(int64_t element_size) const {
        const int64_t per_sample = std::max<int64_t>(c * kh * kw * l() * element_size, 1);
        return std::max<int64_t>(1, std::min<int64_t>(n, kColumnBytes / per_sample));
    }
};

int64_t toInt(const c10::SymInt &s) { return s.guard_int(__FILE__, __LINE__); }

// The plan of a 4-d convolution: `image` is x (normal) or y (transposed), `grid` the other side's spatial size.
Plan planOf(const Tensor &weight, at::IntArrayRef image, at::IntArrayRef grid, at::IntArrayRef stride,
            at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups) {
    Plan p;
    p.n = image[0];
    p.g = groups;
    p.c = image[1];
    p.h = image[2];
    p.w = image[3];
    p.oh = grid[0];
    p.ow = grid[1];
    p.m = weight.size(0) / groups;  // the weight is [g * m, c / g, kh, kw] in both directions
    p.kh = static_cast<int>(weight.size(2));
    p.kw = static_cast<int>(weight.size(3));
    p.sh = static_cast<int>(stride[0]);
    p.sw = static_cast<int>(stride[1]);
    p.ph = static_cast<int>(padding[0]);
    p.pw = static_cast<int>(padding[1]);
    p.dh = static_cast<int>(dilation[0]);
    p.dw = static_cast<int>(dilation[1]);
    return p;
}

infiniopWindowArgs_t windowOf(const Plan &p, infiniopWindowOp_t op, at::ScalarType dtype, int64_t samples) {
    infiniopWindowArgs_t a = windowArgs(op, dtype, samples, p.c, p.h, p.w, p.oh, p.ow);
    a.kh = p.kh;
    a.kw = p.kw;
    a.sh = p.sh;
    a.sw = p.sw;
    a.ph = p.ph;
    a.pw = p.pw;
    a.dh = p.dh;
    a.dw = p.dw;
    return a;
}

// The columns [samples, c * kh * kw, l] of image samples [samples, c, h, w] (contiguous).
Tensor columns(const char *op, const Plan &p, const Tensor &image) {
    const int64_t samples = image.size(0);
    if (p.identity()) return image.view({samples, p.c, p.l()});
    Tensor cols = at::empty({samples, p.c * p.kh * p.kw, p.l()}, image.options());
    infiniopWindowArgs_t a = windowOf(p, INFINIOP_WINDOW_IM2COL, image.scalar_type(), samples);
    a.in = image.data_ptr();
    a.out = cols.data_ptr();
    runFamily(op, infiniopWindow, image.device(), a);
    return cols;
}

// image [samples, c, h, w] (contiguous) = col2im(cols [samples, c * kh * kw, l]).
void fold(const char *op, const Plan &p, const Tensor &cols, const Tensor &image) {
    infiniopWindowArgs_t a = windowOf(p, INFINIOP_WINDOW_COL2IM, image.scalar_type(), image.size(0));
    a.in = cols.data_ptr();
    a.out = image.data_ptr();
    runFamily(op, infiniopWindow, image.device(), a);
}

// c = a @ b (+ c_in), through the gemm operator.
void gemm(const Tensor &c, const Tensor &a, const Tensor &b, const Tensor &c_in = Tensor()) {
    c10::OptionalDeviceGuard guard(c.device());
    ops::runOp(INFINIOP_OP_GEMM, {&c, &a, &b, &c_in}, {1.0, c_in.defined() ? 1.0 : 0.0});
}

// out[s, g] = W[g] @ in[s, g] per sample s and group g (W^T when `transpose`), plus bias[g] per row when defined.
// wm [g, r, q] (r x q per group; q x r transposed), in [samples, g * q', l], out [samples, g * r', l].
void groupedProduct(const Tensor &wm, bool transpose, const Tensor &in, const Tensor &out, const Tensor &bias) {
    const Tensor a = transpose ? wm.transpose(1, 2) : wm;
    const int64_t g = a.size(0), r = a.size(1), q = a.size(2), samples = in.size(0), l = in.size(2);
    if (g == 1 || samples > g) {  // one batched gemm per group, over the samples (the weight broadcast)
        for (int64_t j = 0; j < g; ++j) {
            Tensor c_in;
            if (bias.defined()) c_in = bias.narrow(0, j * r, r).view({1, r, 1}).expand({samples, r, l});
            gemm(out.narrow(1, j * r, r), a[j].expand({samples, r, q}), in.narrow(1, j * q, q), c_in);
        }
        return;
    }
    for (int64_t s = 0; s < samples; ++s) {  // one batched gemm per sample, over the groups
        Tensor c_in;
        if (bias.defined()) c_in = bias.view({g, r, 1}).expand({g, r, l});
        gemm(out[s].view({g, r, l}), a, in[s].view({g, q, l}), c_in);
    }
}

// t [samples, channels, l] as [channels, samples * l] (a copy unless one sample).
Tensor channelsFirst(const char *op, const Tensor &t) {
    const int64_t samples = t.size(0), channels = t.size(1), l = t.size(2);
    if (samples == 1) return t[0];
    Tensor out = at::empty({channels, samples, l}, t.options());
    copyInto(op, out, t.permute({1, 0, 2}));
    return out.view({channels, samples * l});
}

// A sum over slices of samples: the first slice's gemm writes `total`; later slices' partial sums are added in
// float32 (16-bit totals round once, at the end).
struct SliceSum {
    Tensor total, acc;
    void add(const Tensor &part) {
        if (!acc.defined()) acc = contiguousAs(kBackward, total, at::kFloat);
        acc.add_(part);
    }
    void finish() {
        if (acc.defined() && !acc.is_same(total)) copyInto(kBackward, total, acc);
    }
};

struct Sides {
    Tensor image;  // [n, c, h, w], contiguous
    Tensor rows;   // [n, g * m, l], contiguous: the side the weight's rows act on (y for normal, x for transposed)
};

// The normal direction over slices: rows = W @ cols(image) (+ bias).
void unfoldProduct(const char *op, const Plan &p, const Tensor &wm, const Sides &s, const Tensor &bias) {
    const int64_t step = p.slice(s.image.element_size());
    for (int64_t n0 = 0; n0 < p.n; n0 += step) {
        const int64_t nb = std::min(step, p.n - n0);
        Tensor cols = columns(op, p, s.image.narrow(0, n0, nb));
        groupedProduct(wm, false, cols, s.rows.narrow(0, n0, nb), bias);
    }
}

// The adjoint direction over slices: image = col2im(W^T @ rows).
void foldProduct(const char *op, const Plan &p, const Tensor &wm, const Sides &s) {
    const int64_t step = p.slice(s.image.element_size());
    for (int64_t n0 = 0; n0 < p.n; n0 += step) {
        const int64_t nb = std::min(step, p.n - n0);
        Tensor image = s.image.narrow(0, n0, nb);
        if (p.identity()) {  // 1x1 windows over every pixel: the product is the image
            groupedProduct(wm, true, s.rows.narrow(0, n0, nb), image.view({nb, p.c, p.l()}), Tensor());
            continue;
        }
        Tensor cols = at::empty({nb, p.c * p.kh * p.kw, p.l()}, s.image.options());
        groupedProduct(wm, true, s.rows.narrow(0, n0, nb), cols, Tensor());
        fold(op, p, cols, image);
    }
}

// Adds the per-channel sums of rows [channels, span] (rows @ ones) into sum.total [channels]: the first slice
// writes it.
void addRowSums(const Tensor &rows, const Tensor &ones, bool first, SliceSum &sum) {
    const int64_t channels = rows.size(0);
    const Tensor column = ones.narrow(0, 0, rows.size(1));
    if (first) {
        gemm(sum.total.view({channels, 1}), rows, column);
        return;
    }
    Tensor part = at::empty({channels, 1}, rows.options());
    gemm(part, rows, column);
    sum.add(part.view({channels}));
}

Tensor onesColumn(int64_t n, const at::TensorOptions &options) { return at::empty({n, 1}, options).fill_(1); }

// dW[g] = sum over samples of rows[s, g] @ cols(image)[s, g]^T into dw [g, m, k] (contiguous), and, when db is
// defined, db[ch] = the sum of rows' channel ch over samples and pixels (the bias gradient when rows is dy).
void weightGrad(const char *op, const Plan &p, const Sides &s, const Tensor &dw, const Tensor &db) {
    const int64_t step = p.slice(s.image.element_size());
    SliceSum wsum{dw}, bsum{db};
    const Tensor ones = db.defined() ? onesColumn(step * p.l(), s.rows.options()) : Tensor();
    for (int64_t n0 = 0; n0 < p.n; n0 += step) {
        const int64_t nb = std::min(step, p.n - n0), span = nb * p.l();
        const Tensor rows = channelsFirst(op, s.rows.narrow(0, n0, nb));  // [g * m, nb * l]
        if (db.defined()) addRowSums(rows, ones, n0 == 0, bsum);
        if (!dw.defined()) continue;
        const Tensor cols = channelsFirst(op, columns(op, p, s.image.narrow(0, n0, nb)));  // [c * kh * kw, nb * l]
        const Tensor a = rows.view({p.g, p.m, span}), b = cols.view({p.g, p.k(), span}).transpose(1, 2);
        if (n0 == 0) {
            gemm(dw, a, b);
            continue;
        }
        Tensor part = at::empty(dw.sizes(), dw.options());
        gemm(part, a, b);
        wsum.add(part);
    }
    if (dw.defined()) wsum.finish();
    if (db.defined()) bsum.finish();
}

// db[ch] = sum over samples and pixels of dy[s, ch] (dy [n, channels, l] contiguous).
void biasGrad(const char *op, const Tensor &dy, const Tensor &db) {
    const int64_t n = dy.size(0), channels = dy.size(1), l = dy.size(2);
    const int64_t per_sample = std::max<int64_t>(channels * l * dy.element_size(), 1);
    const int64_t step = std::max<int64_t>(1, std::min<int64_t>(n, kColumnBytes / per_sample));
    const Tensor ones = onesColumn(step * l, dy.options());
    SliceSum sum{db};
    for (int64_t n0 = 0; n0 < n; n0 += step) {
        const int64_t nb = std::min(step, n - n0);
        addRowSums(channelsFirst(op, dy.narrow(0, n0, nb)), ones, n0 == 0, sum);
    }
    sum.finish();
}

// Operands of one dtype, as torch's CPU convolution requires.
void checkDtypes(const Tensor &input, const Tensor &weight, const Tensor &bias) {
    TORCH_CHECK(input.scalar_type() == weight.scalar_type(), "Input type (", input.scalar_type(), ") and weight type (",
                weight.scalar_type(), ") should be the same");
    TORCH_CHECK(!bias.defined() || bias.scalar_type() == input.scalar_type(), "Input type (", input.scalar_type(),
                ") and bias type (", bias.scalar_type(), ") should be the same");
}

// Where the native path takes the call: 4-d operands of a dtype the gemm and the window family both take, on a
// backend with im2col and col2im.
bool nativeConv(const Tensor &input, const Tensor &weight) {
    const auto t = input.scalar_type();
    return input.dim() == 4 && weight.dim() == 4 && (t == at::kFloat || t == at::kHalf || t == at::kBFloat16) &&
           windowSupports(input.device(), INFINIOP_WINDOW_IM2COL) &&
           windowSupports(input.device(), INFINIOP_WINDOW_COL2IM);
}

void checkArgs(const char *op, const Tensor &input, const Tensor &weight, at::IntArrayRef stride,
               at::IntArrayRef padding, at::IntArrayRef dilation, at::IntArrayRef output_padding, int64_t groups,
               bool transposed) {
    TORCH_CHECK(stride.size() == 2 && padding.size() == 2 && dilation.size() == 2 && output_padding.size() == 2, op,
                ": expected 2 values each of stride, padding, dilation and output_padding for a 4-d input");
    TORCH_CHECK(groups > 0, op, ": non-positive groups is not supported");
    for (int d = 0; d < 2; ++d) {
        TORCH_CHECK(stride[d] > 0 && dilation[d] > 0 && padding[d] >= 0 && output_padding[d] >= 0, op,
                    ": stride and dilation must be positive, padding and output_padding not negative");
    }
    const int64_t channels = transposed ? weight.size(0) : weight.size(1) * groups;
    TORCH_CHECK(input.size(1) == channels, op, ": expected input ", input.sizes(), " to have ", channels,
                " channels for weight ", weight.sizes(), " and groups ", groups);
    TORCH_CHECK(weight.size(0) % groups == 0, op, ": weight ", weight.sizes(), " does not split into ", groups,
                " groups");
}

// Output size of a normal (transposed: input size from the output) convolution along one dim.
int64_t convOut(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
    return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}
int64_t convIn(int64_t out, int64_t k, int64_t s, int64_t p, int64_t d, int64_t op) {
    return (out - 1) * s - 2 * p + d * (k - 1) + op + 1;
}

Tensor convolution(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias_opt,
                   SymIntArrayRef stride_s, SymIntArrayRef padding_s, SymIntArrayRef dilation_s, bool transposed,
                   SymIntArrayRef output_padding_s, c10::SymInt groups_s) {
    checkDtypes(input, weight, bias_opt.has_value() ? *bias_opt : Tensor());
    if (!nativeConv(input, weight)) {
        return detail::fallback<at::_ops::convolution, Tensor, const Tensor &, const Tensor &,
                                const std::optional<Tensor> &, SymIntArrayRef, SymIntArrayRef, SymIntArrayRef, bool,
                                SymIntArrayRef, c10::SymInt>(input, weight, bias_opt, stride_s, padding_s, dilation_s,
                                                             transposed, output_padding_s, std::move(groups_s));
    }
    const char *op = kForward;
    auto stride = C10_AS_INTARRAYREF_SLOW(stride_s), padding = C10_AS_INTARRAYREF_SLOW(padding_s),
         dilation = C10_AS_INTARRAYREF_SLOW(dilation_s), output_padding = C10_AS_INTARRAYREF_SLOW(output_padding_s);
    const int64_t groups = toInt(groups_s);
    checkArgs(op, input, weight, stride, padding, dilation, output_padding, groups, transposed);
    const Tensor bias = bias_opt.has_value() ? *bias_opt : Tensor();
    const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
    if (bias.defined()) {
        TORCH_CHECK(bias.dim() == 1 && bias.size(0) == out_channels, op, ": expected bias of shape [", out_channels,
                    "], got ", bias.sizes());
    }
    std::vector<int64_t> out_size{input.size(0), out_channels, 0, 0};
    for (int d = 0; d < 2; ++d) {
        const int64_t in = input.size(2 + d), k = weight.size(2 + d);
        out_size[2 + d] = transposed ? convIn(in, k, stride[d], padding[d], dilation[d], output_padding[d])
                                     : convOut(in, k, stride[d], padding[d], dilation[d]);
        TORCH_CHECK(out_size[2 + d] > 0, op, ": the output of input ", input.sizes(), " and weight ", weight.sizes(),
                    " would be empty");
    }
    Tensor out = at::empty(out_size, input.options());
    if (out.numel() == 0) return out;
    const Tensor x = contiguousAs(op, input), wt = contiguousAs(op, weight);
    const Tensor b = bias.defined() ? contiguousAs(op, bias) : Tensor();
    if (!transposed) {
        Plan p = planOf(wt, x.sizes(), {out_size[2], out_size[3]}, stride, padding, dilation, groups);
        Tensor wm = wt.view({groups, p.m, p.k()});
        unfoldProduct(op, p, wm, Sides{x, out.view({p.n, out_channels, p.l()})}, b);
        return out;
    }
    Plan p = planOf(wt, out.sizes(), {x.size(2), x.size(3)}, stride, padding, dilation, groups);
    Tensor wm = wt.view({groups, p.m, p.k()});
    foldProduct(op, p, wm, Sides{out, x.view({p.n, x.size(1), p.l()})});
    if (b.defined()) out.add_(b.view({1, out_channels, 1, 1}));
    return out;
}

std::tuple<Tensor, Tensor, Tensor> convolutionBackward(const Tensor &grad_output, const Tensor &input,
                                                       const Tensor &weight, SymIntArrayRef stride_s,
                                                       SymIntArrayRef padding_s, SymIntArrayRef dilation_s,
                                                       bool transposed, SymIntArrayRef output_padding_s,
                                                       c10::SymInt groups_s, std::array<bool, 3> mask) {
    const int64_t groups = toInt(groups_s);
    checkDtypes(input, weight, Tensor());
    TORCH_CHECK(grad_output.scalar_type() == input.scalar_type(), "grad_output type (", grad_output.scalar_type(),
                ") and input type (", input.scalar_type(), ") should be the same");
    if (!nativeConv(input, weight)) {
        std::optional<std::vector<c10::SymInt>> bias_sizes;
        const int64_t bias_channels = transposed ? weight.size(1) * groups : weight.size(0);
        if (mask[2]) bias_sizes = std::vector<c10::SymInt>{c10::SymInt(bias_channels)};
        at::OptionalSymIntArrayRef bias_ref =
            bias_sizes.has_value() ? at::OptionalSymIntArrayRef(*bias_sizes) : at::OptionalSymIntArrayRef();
        return detail::fallback<at::_ops::convolution_backward, std::tuple<Tensor, Tensor, Tensor>, const Tensor &,
                                const Tensor &, const Tensor &, at::OptionalSymIntArrayRef, SymIntArrayRef,
                                SymIntArrayRef, SymIntArrayRef, bool, SymIntArrayRef, c10::SymInt, std::array<bool, 3>>(
            grad_output, input, weight, bias_ref, stride_s, padding_s, dilation_s, transposed, output_padding_s,
            std::move(groups_s), mask);
    }
    const char *op = kBackward;
    auto stride = C10_AS_INTARRAYREF_SLOW(stride_s), padding = C10_AS_INTARRAYREF_SLOW(padding_s),
         dilation = C10_AS_INTARRAYREF_SLOW(dilation_s), output_padding = C10_AS_INTARRAYREF_SLOW(output_padding_s);
    checkArgs(op, input, weight, stride, padding, dilation, output_padding, groups, transposed);
    const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
    TORCH_CHECK(grad_output.dim() == 4 && grad_output.size(0) == input.size(0) && grad_output.size(1) == out_channels,
                op, ": grad_output ", grad_output.sizes(), " does not match input ", input.sizes(), " and weight ",
                weight.sizes());
    Tensor dx = mask[0] ? at::empty(input.sizes(), input.options()) : Tensor();
    Tensor dw = mask[1] ? at::empty(weight.sizes(), weight.options()) : Tensor();
    Tensor db = mask[2] ? at::empty({out_channels}, weight.options()) : Tensor();
    if (input.numel() == 0 || grad_output.numel() == 0 || weight.numel() == 0) {
        for (Tensor *t : {&dx, &dw, &db}) {
            if (t->defined()) t->zero_();
        }
        return {dx, dw, db};
    }
    const Tensor x = contiguousAs(op, input), dy = contiguousAs(op, grad_output), wt = contiguousAs(op, weight);
    // the image side and the rows side: (x, dy) for a normal convolution, (dy, x) for a transposed one
    const Tensor &image = transposed ? dy : x;
    const Tensor &rows = transposed ? x : dy;
    const Tensor &grid = transposed ? x : dy;
    Plan p = planOf(wt, image.sizes(), {grid.size(2), grid.size(3)}, stride, padding, dilation, groups);
    Tensor wm = wt.view({groups, p.m, p.k()});
    const Tensor rows3 = rows.view({p.n, rows.size(1), p.l()});
    if (dx.defined()) {
        if (!transposed) {
            foldProduct(op, p, wm, Sides{dx, rows3});
        } else {
            unfoldProduct(op, p, wm, Sides{dy, dx.view({p.n, dx.size(1), p.l()})}, Tensor());
        }
    }
    // a normal convolution's rows are dy: its bias gradient comes from the same slices as the weight's
    const Tensor dw3 = dw.defined() ? dw.view({groups, p.m, p.k()}) : Tensor();
    if (!transposed && (dw.defined() || db.defined())) {
        weightGrad(op, p, Sides{image, rows3}, dw3, db);
    } else {
        if (dw.defined()) weightGrad(op, p, Sides{image, rows3}, dw3, Tensor());
        if (db.defined()) biasGrad(op, dy.view({dy.size(0), out_channels, -1}), db);
    }
    return {dx, dw, db};
}

// ---- F.unfold / F.fold: the window family's im2col and col2im themselves

struct Unfold {
    int64_t kh, kw, dh, dw, ph, pw, sh, sw;
};
Unfold unfoldOf(at::IntArrayRef kernel, at::IntArrayRef dilation, at::IntArrayRef padding, at::IntArrayRef stride) {
    TORCH_CHECK(kernel.size() == 2, "It is expected kernel_size equals to 2, but got size ", kernel.size());
    TORCH_CHECK(dilation.size() == 2, "It is expected dilation equals to 2, but got size ", dilation.size());
    TORCH_CHECK(padding.size() == 2, "It is expected padding equals to 2, but got size ", padding.size());
    TORCH_CHECK(stride.size() == 2, "It is expected stride equals to 2, but got size ", stride.size());
    return {kernel[0], kernel[1], dilation[0], dilation[1], padding[0], padding[1], stride[0], stride[1]};
}

// The plan of an unfold of images [n, c, h, w].
Plan unfoldPlan(const Unfold &u, int64_t n, int64_t c, int64_t h, int64_t w) {
    Plan p;
    p.n = n;
    p.c = c;
    p.h = h;
    p.w = w;
    p.oh = (h + 2 * u.ph - (u.dh * (u.kh - 1) + 1)) / u.sh + 1;
    p.ow = (w + 2 * u.pw - (u.dw * (u.kw - 1) + 1)) / u.sw + 1;
    p.kh = static_cast<int>(u.kh);
    p.kw = static_cast<int>(u.kw);
    p.sh = static_cast<int>(u.sh);
    p.sw = static_cast<int>(u.sw);
    p.ph = static_cast<int>(u.ph);
    p.pw = static_cast<int>(u.pw);
    p.dh = static_cast<int>(u.dh);
    p.dw = static_cast<int>(u.dw);
    return p;
}

Tensor im2col(const Tensor &self, at::IntArrayRef kernel, at::IntArrayRef dilation, at::IntArrayRef padding,
              at::IntArrayRef stride) {
    if (!isWindowDtype(self.scalar_type()) || !windowSupports(self.device(), INFINIOP_WINDOW_IM2COL)) {
        return detail::fallback<at::_ops::im2col, Tensor, const Tensor &, at::IntArrayRef, at::IntArrayRef,
                                at::IntArrayRef, at::IntArrayRef>(self, kernel, dilation, padding, stride);
    }
    const char *op = "aten::im2col";
    const Unfold u = unfoldOf(kernel, dilation, padding, stride);
    at::native::im2col_shape_check(self, Tensor(), u.kh, u.kw, u.dh, u.dw, u.ph, u.pw, u.sh, u.sw);
    const bool batched = self.dim() == 4;
    const Tensor x = contiguousAs(op, batched ? self : self.unsqueeze(0));
    const Plan p = unfoldPlan(u, x.size(0), x.size(1), x.size(2), x.size(3));
    Tensor out = at::empty({p.n, p.c * p.kh * p.kw, p.l()}, x.options());
    if (out.numel() > 0) {
        infiniopWindowArgs_t a = windowOf(p, INFINIOP_WINDOW_IM2COL, x.scalar_type(), p.n);
        a.in = x.data_ptr();
        a.out = out.data_ptr();
        runFamily(op, infiniopWindow, x.device(), a);
    }
    return batched ? out : out.squeeze(0);
}

Tensor col2im(const Tensor &self, SymIntArrayRef output_size_s, at::IntArrayRef kernel, at::IntArrayRef dilation,
              at::IntArrayRef padding, at::IntArrayRef stride) {
    if (!isWindowDtype(self.scalar_type()) || !windowSupports(self.device(), INFINIOP_WINDOW_COL2IM)) {
        return detail::fallback<at::_ops::col2im, Tensor, const Tensor &, SymIntArrayRef, at::IntArrayRef,
                                at::IntArrayRef, at::IntArrayRef, at::IntArrayRef>(self, output_size_s, kernel,
                                                                                   dilation, padding, stride);
    }
    const char *op = "aten::col2im";
    const auto output_size = C10_AS_INTARRAYREF_SLOW(output_size_s);
    TORCH_CHECK(output_size.size() == 2, "It is expected output_size equals to 2, but got size ", output_size.size());
    const Unfold u = unfoldOf(kernel, dilation, padding, stride);
    at::native::col2im_shape_check(self, Tensor(), output_size[0], output_size[1], u.kh, u.kw, u.dh, u.dw, u.ph, u.pw,
                                   u.sh, u.sw);
    const bool batched = self.dim() == 3;
    const Tensor cols = contiguousAs(op, batched ? self : self.unsqueeze(0));
    const int64_t c = cols.size(1) / (u.kh * u.kw);
    const Plan p = unfoldPlan(u, cols.size(0), c, output_size[0], output_size[1]);
    Tensor out = at::empty({p.n, c, p.h, p.w}, cols.options());
    if (out.numel() > 0) fold(op, p, cols, out);
    return batched ? out : out.squeeze(0);
}

}  // namespace
}  // namespace infini_torch::aten

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    m.impl("im2col", TORCH_FN(infini_torch::aten::im2col));
    m.impl("col2im", TORCH_FN(infini_torch::aten::col2im));
    m.impl("convolution_overrideable", TORCH_FN(infini_torch::aten::convolution));
    m.impl("convolution_backward_overrideable", TORCH_FN(infini_torch::aten::convolutionBackward));
}

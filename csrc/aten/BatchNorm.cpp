// BatchNorm.cpp: batch norm and group norm on infini, composed of aten ops that run on the device's families:
// per-channel (per-group) statistics with var_mean / sum / mean over dims (the reduce family), everything else
// element-wise (the pointwise family). Statistics and intermediate values are float32 whatever the input's dtype
// (float64 for float64 inputs), so a 16-bit input rounds once, on its output. Results follow torch's CPU kernels:
// save_mean / save_invstd (and group norm's mean / rstd) in the parameters' dtype when a 16-bit input has float32
// parameters, else in the input's; in evaluation batch norm returns empty statistics; the running statistics are
// updated last (momentum, with the unbiased variance), so a failure leaves them untouched.
#include <ATen/ATen.h>
#include <ATen/ops/_native_batch_norm_legit_ops.h>
#include <ATen/ops/native_batch_norm_backward_ops.h>
#include <ATen/ops/native_batch_norm_ops.h>
#include <ATen/ops/native_group_norm_backward_ops.h>
#include <ATen/ops/native_group_norm_ops.h>
#include <torch/library.h>

#include "Structured.h"
#include "Window.h"

namespace infini_torch::aten {
namespace {

using at::Tensor;
using Tensor3 = std::tuple<Tensor, Tensor, Tensor>;

const Tensor &valueOr(const std::optional<Tensor> &t) {
    static const Tensor undefined;
    return t.has_value() ? *t : undefined;
}

// The dtype statistics are computed in, and the one they are returned in (torch's "mixed type": a 16-bit input
// with float32 parameters returns float32 statistics).
at::ScalarType computeType(const Tensor &x) { return x.scalar_type() == at::kDouble ? at::kDouble : at::kFloat; }
at::ScalarType paramType(const Tensor &x, std::initializer_list<const Tensor *> params) {
    for (const Tensor *p : params) {
        if (p->defined() && p->scalar_type() != x.scalar_type()) return p->scalar_type();
    }
    return x.scalar_type();
}

// x as [1, c, 1, ...] for a [c] vector v against x [n, c, ...].
Tensor perChannel(const Tensor &v, const Tensor &x) {
    std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1);
    shape[1] = v.numel();
    return v.view(shape);
}

// Every dim of x but the channels (1).
std::vector<int64_t> reducedDims(const Tensor &x) {
    std::vector<int64_t> dims{0};
    for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
    return dims;
}

bool floatInputs(std::initializer_list<const Tensor *> ts) {
    for (const Tensor *t : ts) {
        if (t->defined() && !at::isFloatingType(t->scalar_type())) return false;
        if (t->defined() && !isWindowDtype(t->scalar_type())) return false;
    }
    return true;
}

void checkChannels(const char *op, const Tensor &input,
                   std::initializer_list<std::pair<const char *, const Tensor *>> ts) {
    TORCH_CHECK(input.dim() >= 2, op, ": expected an input with at least 2 dims (batch, channels), got ",
                input.sizes());
    const int64_t c = input.size(1);
    for (const auto &[name, t] : ts) {
        if (t->defined()) {
            TORCH_CHECK(t->numel() == c, name, " should contain ", c, " elements not ", t->numel());
        }
    }
}

// out = (x - mean) * scale + shift per channel (scale, shift: compute-dtype [c]; shift may be undefined).
void normalizeInto(const Tensor &out, const Tensor &x, const Tensor &mean, const Tensor &scale, const Tensor &shift) {
    Tensor centered = at::sub(x, perChannel(mean, x));
    if (shift.defined()) {
        at::addcmul_out(const_cast<Tensor &>(out), perChannel(shift, x), centered, perChannel(scale, x));
    } else {
        at::mul_out(const_cast<Tensor &>(out), centered, perChannel(scale, x));
    }
}

// ---- batch norm

struct BatchNormResult {
    Tensor out, save_mean, save_invstd;
};

BatchNormResult batchNorm(const char *op, const Tensor &input, const Tensor &weight, const Tensor &bias,
                          const Tensor &running_mean, const Tensor &running_var, bool training, double momentum,
                          double eps) {
    checkChannels(
        op, input,
        {{"weight", &weight}, {"bias", &bias}, {"running_mean", &running_mean}, {"running_var", &running_var}});
    const at::ScalarType ct = computeType(input), pt = paramType(input, {&weight, &bias, &running_mean, &running_var});
    const int64_t c = input.size(1);
    const int64_t count = c > 0 ? input.numel() / c : 0;
    Tensor out = at::empty(input.sizes(), input.options());
    Tensor mean, invstd, var;
    if (training) {
        const Tensor x = contiguousAs(op, input, ct);
        std::tie(var, mean) = at::var_mean(x, reducedDims(x), at::Scalar(0), false);
        invstd = at::rsqrt(at::add(var, eps));
    } else {
        TORCH_CHECK(running_mean.defined() && running_var.defined(), op,
                    ": running_mean and running_var must be defined in evaluation mode");
        mean = contiguousAs(op, running_mean, ct);
        invstd = at::rsqrt(at::add(contiguousAs(op, running_var, ct), eps));
    }
    if (input.numel() > 0) {
        const Tensor scale = weight.defined() ? at::mul(invstd, weight) : invstd;
        normalizeInto(out, input, mean, scale, bias);
    }
    BatchNormResult r{out, Tensor(), Tensor()};
    if (!training) {
        r.save_mean = at::empty({0}, input.options().dtype(pt));
        r.save_invstd = at::empty({0}, input.options().dtype(pt));
        return r;
    }
    r.save_mean = contiguousAs(op, mean, pt);
    r.save_invstd = contiguousAs(op, invstd, pt);
    // running = (1 - momentum) * running + momentum * batch (the unbiased variance), rounded once
    if (running_mean.defined()) {
        Tensor next = at::mul(mean, momentum);
        next.add_(running_mean, 1.0 - momentum);
        copyInto(op, running_mean, next);
    }
    if (running_var.defined()) {
        const double unbias = static_cast<double>(count) / static_cast<double>(count - 1);
        Tensor next = at::mul(var, momentum * unbias);
        next.add_(running_var, 1.0 - momentum);
        copyInto(op, running_var, next);
    }
    return r;
}

Tensor3 nativeBatchNorm(const Tensor &input, const std::optional<Tensor> &weight, const std::optional<Tensor> &bias,
                        const std::optional<Tensor> &running_mean, const std::optional<Tensor> &running_var,
                        bool training, double momentum, double eps) {
    if (!floatInputs({&input, &valueOr(weight), &valueOr(bias), &valueOr(running_mean), &valueOr(running_var)})) {
        return detail::fallback<at::_ops::native_batch_norm, Tensor3, const Tensor &, const std::optional<Tensor> &,
                                const std::optional<Tensor> &, const std::optional<Tensor> &,
                                const std::optional<Tensor> &, bool, double, double>(
            input, weight, bias, running_mean, running_var, training, momentum, eps);
    }
    auto r = batchNorm("aten::native_batch_norm", input, valueOr(weight), valueOr(bias), valueOr(running_mean),
                       valueOr(running_var), training, momentum, eps);
    return {r.out, r.save_mean, r.save_invstd};
}

// Copies a result into given out tensors (resized as torch's out= convention does).
std::tuple<Tensor &, Tensor &, Tensor &> intoOuts(const char *op, const Tensor3 &r, Tensor &out, Tensor &a, Tensor &b) {
    Tensor *outs[3] = {&out, &a, &b};
    const Tensor *vals[3] = {&std::get<0>(r), &std::get<1>(r), &std::get<2>(r)};
    for (int k = 0; k < 3; ++k) {
        TORCH_CHECK(outs[k]->scalar_type() == vals[k]->scalar_type(), op, ": expected out tensor ", k,
                    " to have dtype ", vals[k]->scalar_type(), ", got ", outs[k]->scalar_type());
        at::native::resize_output(*outs[k], vals[k]->sizes());
        copyInto(op, *outs[k], *vals[k]);
    }
    return {out, a, b};
}

std::tuple<Tensor &, Tensor &, Tensor &> nativeBatchNormOut(const Tensor &input, const std::optional<Tensor> &weight,
                                                            const std::optional<Tensor> &bias,
                                                            const std::optional<Tensor> &running_mean,
                                                            const std::optional<Tensor> &running_var, bool training,
                                                            double momentum, double eps, Tensor &out, Tensor &save_mean,
                                                            Tensor &save_invstd) {
    if (!floatInputs({&input, &valueOr(weight), &valueOr(bias), &valueOr(running_mean), &valueOr(running_var)})) {
        return detail::fallback<at::_ops::native_batch_norm_out, std::tuple<Tensor &, Tensor &, Tensor &>,
                                const Tensor &, const std::optional<Tensor> &, const std::optional<Tensor> &,
                                const std::optional<Tensor> &, const std::optional<Tensor> &, bool, double, double,
                                Tensor &, Tensor &, Tensor &>(input, weight, bias, running_mean, running_var, training,
                                                              momentum, eps, out, save_mean, save_invstd);
    }
    Tensor3 r = nativeBatchNorm(input, weight, bias, running_mean, running_var, training, momentum, eps);
    return intoOuts("aten::native_batch_norm.out", r, out, save_mean, save_invstd);
}

Tensor3 batchNormLegit(const Tensor &input, const std::optional<Tensor> &weight, const std::optional<Tensor> &bias,
                       Tensor &running_mean, Tensor &running_var, bool training, double momentum, double eps) {
    if (!floatInputs({&input, &valueOr(weight), &valueOr(bias), &running_mean, &running_var})) {
        return detail::fallback<at::_ops::_native_batch_norm_legit, Tensor3, const Tensor &,
                                const std::optional<Tensor> &, const std::optional<Tensor> &, Tensor &, Tensor &, bool,
                                double, double>(input, weight, bias, running_mean, running_var, training, momentum,
                                                eps);
    }
    auto r = batchNorm("aten::_native_batch_norm_legit", input, valueOr(weight), valueOr(bias), running_mean,
                       running_var, training, momentum, eps);
    return {r.out, r.save_mean, r.save_invstd};
}

std::tuple<Tensor &, Tensor &, Tensor &> batchNormLegitOut(const Tensor &input, const std::optional<Tensor> &weight,
                                                           const std::optional<Tensor> &bias, Tensor &running_mean,
                                                           Tensor &running_var, bool training, double momentum,
                                                           double eps, Tensor &out, Tensor &save_mean,
                                                           Tensor &save_invstd) {
    Tensor3 r = batchNormLegit(input, weight, bias, running_mean, running_var, training, momentum, eps);
    return intoOuts("aten::_native_batch_norm_legit.out", r, out, save_mean, save_invstd);
}

Tensor3 batchNormLegitNoStats(const Tensor &input, const std::optional<Tensor> &weight,
                              const std::optional<Tensor> &bias, bool training, double momentum, double eps) {
    if (!floatInputs({&input, &valueOr(weight), &valueOr(bias)})) {
        return detail::fallback<at::_ops::_native_batch_norm_legit_no_stats, Tensor3, const Tensor &,
                                const std::optional<Tensor> &, const std::optional<Tensor> &, bool, double, double>(
            input, weight, bias, training, momentum, eps);
    }
    auto r = batchNorm("aten::_native_batch_norm_legit.no_stats", input, valueOr(weight), valueOr(bias), Tensor(),
                       Tensor(), training, momentum, eps);
    return {r.out, r.save_mean, r.save_invstd};
}

std::tuple<Tensor &, Tensor &, Tensor &> batchNormLegitNoStatsOut(const Tensor &input,
                                                                  const std::optional<Tensor> &weight,
                                                                  const std::optional<Tensor> &bias, bool training,
                                                                  double momentum, double eps, Tensor &out,
                                                                  Tensor &save_mean, Tensor &save_invstd) {
    Tensor3 r = batchNormLegitNoStats(input, weight, bias, training, momentum, eps);
    return intoOuts("aten::_native_batch_norm_legit.no_stats_out", r, out, save_mean, save_invstd);
}

// dx = (dy - mean(dy) - (x - mean) * k) * invstd * w, k = sum(dy * (x - mean)) * invstd^2 / count (training);
// dx = dy * invstd * w (evaluation); dw = sum(dy * (x - mean)) * invstd; db = sum(dy).
Tensor3 nativeBatchNormBackward(const Tensor &grad_out, const Tensor &input, const std::optional<Tensor> &weight_opt,
                                const std::optional<Tensor> &running_mean_opt,
                                const std::optional<Tensor> &running_var_opt,
                                const std::optional<Tensor> &save_mean_opt,
                                const std::optional<Tensor> &save_invstd_opt, bool train, double eps,
                                std::array<bool, 3> mask) {
    const Tensor &weight = valueOr(weight_opt), &running_mean = valueOr(running_mean_opt),
                 &running_var = valueOr(running_var_opt), &save_mean = valueOr(save_mean_opt),
                 &save_invstd = valueOr(save_invstd_opt);
    if (!floatInputs({&grad_out, &input, &weight, &running_mean, &running_var, &save_mean, &save_invstd})) {
        return detail::fallback<at::_ops::native_batch_norm_backward, Tensor3, const Tensor &, const Tensor &,
                                const std::optional<Tensor> &, const std::optional<Tensor> &,
                                const std::optional<Tensor> &, const std::optional<Tensor> &,
                                const std::optional<Tensor> &, bool, double, std::array<bool, 3>>(
            grad_out, input, weight_opt, running_mean_opt, running_var_opt, save_mean_opt, save_invstd_opt, train, eps,
            mask);
    }
    const char *op = "aten::native_batch_norm_backward";
    checkChannels(op, input, {{"weight", &weight}, {"running_mean", &running_mean}, {"running_var", &running_var}});
    TORCH_CHECK(grad_out.sizes() == input.sizes(), op, ": grad_out ", grad_out.sizes(), " and input ", input.sizes(),
                " differ in shape");
    const at::ScalarType ct = computeType(input), pt = paramType(input, {&weight, &running_mean, &running_var});
    const int64_t c = input.size(1);
    const int64_t count = c > 0 ? input.numel() / c : 0;
    Tensor mean, invstd;
    if (train) {
        TORCH_CHECK(save_mean.defined() && save_invstd.defined() && save_mean.numel() == c && save_invstd.numel() == c,
                    op, ": training needs save_mean and save_invstd of ", c, " elements");
        mean = contiguousAs(op, save_mean, ct);
        invstd = contiguousAs(op, save_invstd, ct);
    } else {
        TORCH_CHECK(running_mean.defined() && running_var.defined(), op,
                    ": running_mean and running_var must be defined in evaluation mode");
        mean = contiguousAs(op, running_mean, ct);
        invstd = at::rsqrt(at::add(contiguousAs(op, running_var, ct), eps));
    }
    const Tensor scale = weight.defined() ? at::mul(invstd, weight) : invstd;  // [c]
    const std::vector<int64_t> dims = reducedDims(input);
    const bool need_dot = mask[1] || (mask[0] && train);
    Tensor sum_dy, dot, centered;
    if (mask[2] || (mask[0] && train)) sum_dy = at::sum(grad_out, dims, false, ct);
    if (need_dot) {
        centered = at::sub(contiguousAs(op, input, ct), perChannel(mean, input));
        dot = at::sum(at::mul(grad_out, centered), dims, false, ct);
    }
    Tensor dx, dw, db;
    if (mask[0]) {
        dx = at::empty(input.sizes(), input.options());
        if (input.numel() > 0) {
            if (train) {
                const double inv_count = count > 0 ? 1.0 / static_cast<double>(count) : 0.0;
                Tensor k = at::mul(at::mul(dot, invstd), invstd).mul_(inv_count);
                Tensor t = at::sub(grad_out, at::mul(centered, perChannel(k, input)));
                t.sub_(perChannel(at::mul(sum_dy, inv_count), input));
                at::mul_out(dx, t, perChannel(scale, input));
            } else {
                at::mul_out(dx, grad_out, perChannel(scale, input));
            }
        }
    }
    if (mask[1]) dw = contiguousAs(op, at::mul(dot, invstd), weight.defined() ? weight.scalar_type() : pt);
    if (mask[2]) db = contiguousAs(op, sum_dy, weight.defined() ? weight.scalar_type() : pt);
    return {dx, dw, db};
}

// ---- group norm: statistics per (sample, group) of c / g channels * hw values

Tensor3 nativeGroupNorm(const Tensor &input, const std::optional<Tensor> &weight_opt,
                        const std::optional<Tensor> &bias_opt, c10::SymInt n_s, c10::SymInt c_s, c10::SymInt hw_s,
                        int64_t group, double eps) {
    const Tensor &weight = valueOr(weight_opt), &bias = valueOr(bias_opt);
    if (!floatInputs({&input, &weight, &bias})) {
        return detail::fallback<at::_ops::native_group_norm, Tensor3, const Tensor &, const std::optional<Tensor> &,
                                const std::optional<Tensor> &, c10::SymInt, c10::SymInt, c10::SymInt, int64_t, double>(
            input, weight_opt, bias_opt, std::move(n_s), std::move(c_s), std::move(hw_s), group, eps);
    }
    const char *op = "aten::native_group_norm";
    const int64_t n = n_s.guard_int(__FILE__, __LINE__), c = c_s.guard_int(__FILE__, __LINE__),
                  hw = hw_s.guard_int(__FILE__, __LINE__);
    TORCH_CHECK(group > 0 && c % group == 0, "Expected number of channels in input to be divisible by num_groups, ",
                "but got input of shape ", input.sizes(), " and num_groups=", group);
    TORCH_CHECK(input.numel() == n * c * hw, op, ": input ", input.sizes(), " is not N=", n, " x C=", c, " x HxW=", hw);
    for (const Tensor *t : {&weight, &bias}) {
        TORCH_CHECK(!t->defined() || t->numel() == c, "Expected weight / bias to be a vector of size equal to the ",
                    "number of channels in input, but got ", t->sizes(), " and input of shape ", input.sizes());
    }
    const at::ScalarType ct = computeType(input), pt = paramType(input, {&weight, &bias});
    Tensor out = at::empty(input.sizes(), input.options());
    const int64_t d = c / group * hw;
    const Tensor x = contiguousAs(op, input, ct).view({n, group, d});
    const std::vector<int64_t> last{2};
    Tensor var, mean;
    std::tie(var, mean) = at::var_mean(x, last, at::Scalar(0), false);  // [n, group]
    Tensor rstd = at::rsqrt(at::add(var, eps));
    if (input.numel() > 0) {
        Tensor xhat = at::mul(at::sub(x, mean.unsqueeze(2)), rstd.unsqueeze(2)).view({n, c, hw});
        Tensor out3 = out.view({n, c, hw});
        if (weight.defined() && bias.defined()) {
            at::addcmul_out(out3, bias.view({1, c, 1}), xhat, weight.view({1, c, 1}));
        } else if (weight.defined()) {
            at::mul_out(out3, xhat, weight.view({1, c, 1}));
        } else if (bias.defined()) {
            at::add_out(out3, xhat, bias.view({1, c, 1}));
        } else {
            copyInto(op, out3, xhat);
        }
    }
    return {out, contiguousAs(op, mean, pt), contiguousAs(op, rstd, pt)};
}

// With xhat = (x - mean) * rstd and g = dy * w: dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) per group;
// dw = sum(dy * xhat), db = sum(dy) per channel.
Tensor3 nativeGroupNormBackward(const Tensor &grad_out, const Tensor &input, const Tensor &mean_in,
                                const Tensor &rstd_in, const std::optional<Tensor> &weight_opt, c10::SymInt n_s,
                                c10::SymInt c_s, c10::SymInt hw_s, int64_t group, std::array<bool, 3> mask) {
    const Tensor &weight = valueOr(weight_opt);
    if (!floatInputs({&grad_out, &input, &mean_in, &rstd_in, &weight})) {
        return detail::fallback<at::_ops::native_group_norm_backward, Tensor3, const Tensor &, const Tensor &,
                                const Tensor &, const Tensor &, const std::optional<Tensor> &, c10::SymInt, c10::SymInt,
                                c10::SymInt, int64_t, std::array<bool, 3>>(grad_out, input, mean_in, rstd_in,
                                                                           weight_opt, std::move(n_s), std::move(c_s),
                                                                           std::move(hw_s), group, mask);
    }
    const char *op = "aten::native_group_norm_backward";
    const int64_t n = n_s.guard_int(__FILE__, __LINE__), c = c_s.guard_int(__FILE__, __LINE__),
                  hw = hw_s.guard_int(__FILE__, __LINE__);
    TORCH_CHECK(group > 0 && c % group == 0, op, ": ", c, " channels do not split into ", group, " groups");
    TORCH_CHECK(input.numel() == n * c * hw && grad_out.numel() == input.numel(), op, ": input ", input.sizes(),
                " and grad_out ", grad_out.sizes(), " are not N=", n, " x C=", c, " x HxW=", hw);
    TORCH_CHECK(mean_in.numel() == n * group && rstd_in.numel() == n * group, op, ": mean and rstd must have ",
                n * group, " elements");
    TORCH_CHECK(!weight.defined() || weight.numel() == c, op, ": weight must have ", c, " elements");
    const at::ScalarType ct = computeType(input), pt = paramType(input, {&weight});
    const Tensor mean = contiguousAs(op, mean_in, ct).view({n, group, 1});
    const Tensor rstd = contiguousAs(op, rstd_in, ct).view({n, group, 1});
    const Tensor dy = contiguousAs(op, grad_out, ct).view({n, c, hw});
    const int64_t d = c / group * hw;
    const Tensor xhat = at::mul(at::sub(contiguousAs(op, input, ct).view({n, group, d}), mean), rstd).view({n, c, hw});
    const std::vector<int64_t> last{2}, channels{0, 2};
    Tensor dx, dw, db;
    if (mask[0]) {
        dx = at::empty(input.sizes(), input.options());
        if (input.numel() > 0) {
            const Tensor g = (weight.defined() ? at::mul(dy, weight.view({1, c, 1})) : dy).view({n, group, d});
            const Tensor xg = xhat.view({n, group, d});
            const Tensor m1 = at::mean(g, last, true, ct);
            const Tensor m2 = at::mean(at::mul(g, xg), last, true, ct);
            Tensor t = at::sub(g, at::mul(xg, m2));
            t.sub_(m1);
            Tensor dx3 = dx.view({n, group, d});
            at::mul_out(dx3, t, rstd);
        }
    }
    const auto dtype = weight.defined() ? weight.scalar_type() : pt;
    if (mask[1]) dw = contiguousAs(op, at::sum(at::mul(dy, xhat), channels, false, ct), dtype);
    if (mask[2]) db = contiguousAs(op, at::sum(dy, channels, false, ct), dtype);
    return {dx, dw, db};
}

}  // namespace
}  // namespace infini_torch::aten

using namespace infini_torch::aten;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    m.impl("native_batch_norm", TORCH_FN(nativeBatchNorm));
    m.impl("native_batch_norm.out", TORCH_FN(nativeBatchNormOut));
    m.impl("_native_batch_norm_legit", TORCH_FN(batchNormLegit));
    m.impl("_native_batch_norm_legit.out", TORCH_FN(batchNormLegitOut));
    m.impl("_native_batch_norm_legit.no_stats", TORCH_FN(batchNormLegitNoStats));
    m.impl("_native_batch_norm_legit.no_stats_out", TORCH_FN(batchNormLegitNoStatsOut));
    m.impl("native_batch_norm_backward", TORCH_FN(nativeBatchNormBackward));
    m.impl("native_group_norm", TORCH_FN(nativeGroupNorm));
    m.impl("native_group_norm_backward", TORCH_FN(nativeGroupNormBackward));
}

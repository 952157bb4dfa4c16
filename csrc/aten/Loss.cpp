// Loss.cpp: nll_loss and nll_loss2d (forward and backward) on the nll_loss family (infiniopNllLoss), and
// mse_loss from element-wise ops and a reduction. F.cross_entropy is log_softmax (NN.cpp) then nll_loss (nll_loss2d
// for spatial targets). Native for float inputs with int64 targets and class weights of the input's dtype, as
// torch's CPU kernels take; anything else goes to the CPU fallback, which raises torch's own error. A target out of
// range is found by the kernel: the error ("Target t is out of bounds") is raised at the next synchronization.
#include <ATen/ATen.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Reduction.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/mse_loss_backward_ops.h>
#include <ATen/ops/mse_loss_ops.h>
#include <ATen/ops/nll_loss2d_backward_ops.h>
#include <ATen/ops/nll_loss2d_forward_ops.h>
#include <ATen/ops/nll_loss_backward_meta.h>
#include <ATen/ops/nll_loss_backward_ops.h>
#include <ATen/ops/nll_loss_forward_meta.h>
#include <ATen/ops/nll_loss_forward_ops.h>
#include <torch/library.h>

#include "Family.h"
#include "Route.h"

namespace infini_torch::aten {
namespace {

using at::Tensor;

void *dataOf(const Tensor &t) { return t.defined() && t.numel() > 0 ? t.data_ptr() : nullptr; }

// Float input, int64 target, weight and the other float operands of the input's dtype.
struct NllTypes {
    static bool same(const Tensor &t, const Tensor &self) {
        return !t.defined() || t.scalar_type() == self.scalar_type();
    }
    static bool same(const std::optional<Tensor> &t, const Tensor &self) { return !t.has_value() || same(*t, self); }
    static bool input(const Tensor &self, const Tensor &target, const std::optional<Tensor> &weight) {
        return isRowsFloat(self.scalar_type()) && target.scalar_type() == at::kLong && same(weight, self);
    }
    // forward: (self, target, weight, reduction, ignore_index[, output, total_weight])
    static bool ok(const Tensor &self, const Tensor &target, const std::optional<Tensor> &weight, int64_t,
                   const c10::SymInt &) {
        return input(self, target, weight);
    }
    static bool ok(const Tensor &self, const Tensor &target, const std::optional<Tensor> &weight, int64_t,
                   const c10::SymInt &, const Tensor &output, const Tensor &total_weight) {
        return input(self, target, weight) && same(output, self) && same(total_weight, self);
    }
    // backward: (grad_output, self, target, weight, reduction, ignore_index, total_weight[, grad_input])
    static bool ok(const Tensor &grad, const Tensor &self, const Tensor &target, const std::optional<Tensor> &weight,
                   int64_t, const c10::SymInt &, const Tensor &total_weight) {
        return input(self, target, weight) && same(grad, self) && same(total_weight, self);
    }
    static bool ok(const Tensor &grad, const Tensor &self, const Tensor &target, const std::optional<Tensor> &weight,
                   int64_t, const c10::SymInt &, const Tensor &total_weight, const Tensor &grad_input) {
        return input(self, target, weight) && same(grad, self) && same(total_weight, self) && same(grad_input, self);
    }
};

using NllArgs = OnFamily<INFINIOP_FAMILY_NLL_LOSS, NllTypes>;

// The loss of log-probabilities self viewed as [n, c, d] into out (and total_weight).
void nllForward(const char *name, const Tensor &self, const Tensor &target, const Tensor &weight, int64_t reduction,
                int64_t ignore_index, int64_t n, int64_t c, int64_t d, const Tensor &out, const Tensor &total_weight) {
    checkSameDevice(name, self.device(), {&target, &weight, &out, &total_weight});
    const Tensor x = self.contiguous(), t = target.contiguous(), w = weight.defined() ? weight.contiguous() : weight;
    // a loss of one element (no batch dim) is its own sum, and torch gives its weight as total_weight
    const bool scalar = reduction == at::Reduction::None && out.dim() == 0;
    const int32_t kernel_reduction = scalar ? 2 : static_cast<int32_t>(reduction);
    const bool direct = out.is_contiguous();
    const Tensor target_out = direct ? out : at::empty(out.sizes(), out.options());
    if (kernel_reduction == 0) total_weight.zero_();
    infiniopNllLossArgs_t a{};
    a.backward = 0;
    a.reduction = kernel_reduction;
    a.n = n;
    a.c = c;
    a.d = d;
    a.ignore_index = ignore_index;
    a.dtype = familyDtype(x.scalar_type());
    a.target_dtype = INFINI_DTYPE_I64;
    a.out = dataOf(target_out);
    a.total_weight = kernel_reduction == 0 ? nullptr : dataOf(total_weight);
    a.x = dataOf(x);
    a.target = dataOf(t);
    a.weight = dataOf(w);
    runFamily(name, infiniopNllLoss, self.device(), a);
    if (!direct) out.copy_(target_out);
}

// grad_input [n, c, d] of the loss, from grad_output ([n, d] or 0-d) and the forward's total_weight.
void nllBackward(const char *name, const Tensor &grad_output, const Tensor &self, const Tensor &target,
                 const Tensor &weight, int64_t reduction, int64_t ignore_index, const Tensor &total_weight, int64_t n,
                 int64_t c, int64_t d, const Tensor &grad_input) {
    checkSameDevice(name, self.device(), {&grad_output, &target, &weight, &total_weight, &grad_input});
    const Tensor g = grad_output.contiguous(), t = target.contiguous(), tw = total_weight.contiguous();
    const Tensor w = weight.defined() ? weight.contiguous() : weight;
    const bool direct = grad_input.is_contiguous();
    const Tensor target_in = direct ? grad_input : at::empty(grad_input.sizes(), grad_input.options());
    infiniopNllLossArgs_t a{};
    a.backward = 1;
    a.reduction = reduction == at::Reduction::None && g.dim() == 0 ? 2 : static_cast<int32_t>(reduction);
    a.n = n;
    a.c = c;
    a.d = d;
    a.ignore_index = ignore_index;
    a.dtype = familyDtype(self.scalar_type());
    a.target_dtype = INFINI_DTYPE_I64;
    a.out = dataOf(target_in);
    a.x = dataOf(g);
    a.target = dataOf(t);
    a.weight = dataOf(w);
    a.total_weight_in = dataOf(tw);
    if (n * d > 0) {
        runFamily(name, infiniopNllLoss, self.device(), a);
    } else {
        target_in.zero_();
    }
    if (!direct) grad_input.copy_(target_in);
}

Tensor weightOf(const std::optional<Tensor> &w) { return w.has_value() ? *w : Tensor(); }

// ---- nll_loss (structured: torch's meta checks the shapes and makes the outputs) ----

using ForwardMeta = at::meta::structured_nll_loss_forward;
using BackwardMeta = at::meta::structured_nll_loss_backward;

std::tuple<Tensor, Tensor> nllLossForward(const Tensor &self, const Tensor &target, const std::optional<Tensor> &weight,
                                          int64_t reduction, c10::SymInt ignore_index) {
    const int64_t ii = ignore_index.expect_int();
    Functional<ForwardMeta, 2> op;
    op.meta(self, target, detail::metaArg(weight), reduction, ii);
    const int64_t n = self.dim() == 1 ? 1 : self.size(0);
    nllForward("aten::nll_loss_forward", self, target, weightOf(weight), reduction, ii, n, self.size(-1), 1,
               op.outputs_[0], op.outputs_[1]);
    return {std::move(op.outputs_[0]), std::move(op.outputs_[1])};
}

std::tuple<Tensor &, Tensor &> nllLossForwardOut(const Tensor &self, const Tensor &target,
                                                 const std::optional<Tensor> &weight, int64_t reduction,
                                                 c10::SymInt ignore_index, Tensor &output, Tensor &total_weight) {
    const int64_t ii = ignore_index.expect_int();
    Out<ForwardMeta, 2> op(output, total_weight);
    op.meta(self, target, detail::metaArg(weight), reduction, ii);
    const int64_t n = self.dim() == 1 ? 1 : self.size(0);
    nllForward("aten::nll_loss_forward.output", self, target, weightOf(weight), reduction, ii, n, self.size(-1), 1,
               op.maybe_get_output(0), op.maybe_get_output(1));
    op.finish();
    return {output, total_weight};
}

Tensor nllLossBackward(const Tensor &grad_output, const Tensor &self, const Tensor &target,
                       const std::optional<Tensor> &weight, int64_t reduction, c10::SymInt ignore_index,
                       const Tensor &total_weight) {
    const int64_t ii = ignore_index.expect_int();
    Functional<BackwardMeta> op;
    op.meta(grad_output, self, target, detail::metaArg(weight), reduction, ii, total_weight);
    const int64_t n = self.dim() == 1 ? 1 : self.size(0);
    nllBackward("aten::nll_loss_backward", grad_output, self, target, weightOf(weight), reduction, ii, total_weight, n,
                self.size(-1), 1, op.outputs_[0]);
    return std::move(op.outputs_[0]);
}

Tensor &nllLossBackwardOut(const Tensor &grad_output, const Tensor &self, const Tensor &target,
                           const std::optional<Tensor> &weight, int64_t reduction, c10::SymInt ignore_index,
                           const Tensor &total_weight, Tensor &grad_input) {
    const int64_t ii = ignore_index.expect_int();
    Out<BackwardMeta> op(grad_input);
    op.meta(grad_output, self, target, detail::metaArg(weight), reduction, ii, total_weight);
    const int64_t n = self.dim() == 1 ? 1 : self.size(0);
    nllBackward("aten::nll_loss_backward.grad_input", grad_output, self, target, weightOf(weight), reduction, ii,
                total_weight, n, self.size(-1), 1, op.maybe_get_output(0));
    op.finish();
    return grad_input;
}

// ---- nll_loss2d: input [N, C, H, W], target [N, H, W]; torch's checks and messages ----

void check2d(const Tensor &input, const Tensor &target, const Tensor &weight) {
    TORCH_CHECK(target.dim() == 3, "only batches of spatial targets supported (3D tensors) but got targets of ",
                "dimension: ", target.dim());
    TORCH_CHECK(input.dim() == 4,
                "only batches of spatial inputs supported (4D tensors), but got input of dimension: ", input.dim());
    TORCH_CHECK(!weight.defined() || weight.numel() == input.size(1),
                "weight tensor should be defined either for all or no classes");
    TORCH_CHECK(input.size(0) == target.size(0) && input.size(2) == target.size(1) && input.size(3) == target.size(2),
                "size mismatch (got input: ", input.sizes(), " , target: ", target.sizes());
}

std::tuple<Tensor &, Tensor &> nll2dForwardOut(const Tensor &self, const Tensor &target,
                                               const std::optional<Tensor> &weight, int64_t reduction,
                                               c10::SymInt ignore_index, Tensor &output, Tensor &total_weight) {
    const char *name = "aten::nll_loss2d_forward";
    const Tensor w = weightOf(weight);
    check2d(self, target, w);
    TORCH_CHECK(output.scalar_type() == self.scalar_type() && total_weight.scalar_type() == self.scalar_type(), name,
                ": expected output and total_weight of dtype ", self.scalar_type());
    if (reduction == at::Reduction::None) {
        at::native::resize_output(output, target.sizes());
    } else {
        at::native::resize_output(output, {});
    }
    at::native::resize_output(total_weight, {});
    nllForward(name, self, target, w, reduction, ignore_index.expect_int(), self.size(0), self.size(1),
               self.size(2) * self.size(3), output, total_weight);
    return {output, total_weight};
}

std::tuple<Tensor, Tensor> nll2dForward(const Tensor &self, const Tensor &target, const std::optional<Tensor> &weight,
                                        int64_t reduction, c10::SymInt ignore_index) {
    Tensor output = at::empty({0}, self.options()), total_weight = at::empty({}, self.options());
    nll2dForwardOut(self, target, weight, reduction, std::move(ignore_index), output, total_weight);
    return {std::move(output), std::move(total_weight)};
}

Tensor &nll2dBackwardOut(const Tensor &grad_output, const Tensor &self, const Tensor &target,
                         const std::optional<Tensor> &weight, int64_t reduction, c10::SymInt ignore_index,
                         const Tensor &total_weight, Tensor &grad_input) {
    const char *name = "aten::nll_loss2d_backward";
    const Tensor w = weightOf(weight);
    check2d(self, target, w);
    TORCH_CHECK(total_weight.numel() == 1,
                "expected total_weight to be a single element tensor, got: ", total_weight.sizes(), " (",
                total_weight.numel(), " elements)");
    if (reduction == at::Reduction::None) {
        TORCH_CHECK(grad_output.dim() == 3,
                    "grad_output must have same dimension as target (3) but got dimension: ", grad_output.sizes());
        TORCH_CHECK(grad_output.sizes() == target.sizes(), "size mismatch (got grad_output: ", grad_output.sizes(),
                    " target: ", target.sizes());
    } else {
        TORCH_CHECK(grad_output.dim() <= 1 && grad_output.numel() == 1,
                    "Expected a single element grad_output tensor, but got: ", grad_output.sizes());
    }
    TORCH_CHECK(grad_input.scalar_type() == self.scalar_type(), name, ": expected grad_input of dtype ",
                self.scalar_type());
    at::native::resize_output(grad_input, self.sizes());
    nllBackward(name, grad_output.reshape(reduction == at::Reduction::None ? target.sizes() : at::IntArrayRef{}), self,
                target, w, reduction, ignore_index.expect_int(), total_weight, self.size(0), self.size(1),
                self.size(2) * self.size(3), grad_input);
    return grad_input;
}

Tensor nll2dBackward(const Tensor &grad_output, const Tensor &self, const Tensor &target,
                     const std::optional<Tensor> &weight, int64_t reduction, c10::SymInt ignore_index,
                     const Tensor &total_weight) {
    Tensor grad_input = at::empty(self.sizes(), self.options());
    return nll2dBackwardOut(grad_output, self, target, weight, reduction, std::move(ignore_index), total_weight,
                            grad_input);
}

// ---- mse_loss: (self - target)^2, reduced; its backward 2 * (self - target) * grad (/ numel for the mean) ----

using FloatArgs = AllTensors<&isRowsFloat>;

Tensor &mseLossOut(const Tensor &self, const Tensor &target, int64_t reduction, Tensor &out) {
    checkSameDevice("aten::mse_loss", self.device(), {&target, &out});
    if (reduction == at::Reduction::None) {
        at::sub_out(out, self, target);
        out.mul_(out);
        return out;
    }
    Tensor squared = at::sub(self, target);
    squared.mul_(squared);
    if (reduction == at::Reduction::Mean) {
        at::mean_out(out, squared, at::IntArrayRef{});
    } else {
        at::sum_out(out, squared, at::IntArrayRef{});
    }
    return out;
}

Tensor mseLoss(const Tensor &self, const Tensor &target, int64_t reduction) {
    Tensor out = at::empty({0}, self.options().dtype(at::result_type(self, target)));
    return mseLossOut(self, target, reduction, out);
}

Tensor &mseLossBackwardOut(const Tensor &grad_output, const Tensor &self, const Tensor &target, int64_t reduction,
                           Tensor &grad_input) {
    checkSameDevice("aten::mse_loss_backward", self.device(), {&grad_output, &target, &grad_input});
    const double norm = reduction == at::Reduction::Mean ? 2.0 / static_cast<double>(self.numel()) : 2.0;
    Tensor diff = at::sub(self, target);
    diff.mul_(norm);
    at::mul_out(grad_input, diff, grad_output);
    return grad_input;
}

Tensor mseLossBackward(const Tensor &grad_output, const Tensor &self, const Tensor &target, int64_t reduction) {
    Tensor grad_input = at::empty({0}, self.options());
    return mseLossBackwardOut(grad_output, self, target, reduction, grad_input);
}

}  // namespace
}  // namespace infini_torch::aten

using namespace infini_torch::aten;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    INFINI_ROUTED(m, "nll_loss_forward", nll_loss_forward, NllArgs, nllLossForward);
    INFINI_ROUTED(m, "nll_loss_forward.output", nll_loss_forward_output, NllArgs, nllLossForwardOut);
    INFINI_ROUTED(m, "nll_loss_backward", nll_loss_backward, NllArgs, nllLossBackward);
    INFINI_ROUTED(m, "nll_loss_backward.grad_input", nll_loss_backward_grad_input, NllArgs, nllLossBackwardOut);
    INFINI_ROUTED(m, "nll_loss2d_forward", nll_loss2d_forward, NllArgs, nll2dForward);
    INFINI_ROUTED(m, "nll_loss2d_forward.output", nll_loss2d_forward_output, NllArgs, nll2dForwardOut);
    INFINI_ROUTED(m, "nll_loss2d_backward", nll_loss2d_backward, NllArgs, nll2dBackward);
    INFINI_ROUTED(m, "nll_loss2d_backward.grad_input", nll_loss2d_backward_grad_input, NllArgs, nll2dBackwardOut);
    INFINI_ROUTED(m, "mse_loss", mse_loss, FloatArgs, mseLoss);
    INFINI_ROUTED(m, "mse_loss.out", mse_loss_out, FloatArgs, mseLossOut);
    INFINI_ROUTED(m, "mse_loss_backward", mse_loss_backward, FloatArgs, mseLossBackward);
    INFINI_ROUTED(m, "mse_loss_backward.grad_input", mse_loss_backward_grad_input, FloatArgs, mseLossBackwardOut);
}

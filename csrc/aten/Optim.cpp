// Optim.cpp: the fused optimizer steps (torch.optim's fused=True paths) on the pointwise family's ADAMW op, one
// launch per parameter tensor. The foreach paths need nothing here: torch decomposes _foreach_* into per-tensor
// ops, which are native.
#include <ATen/ATen.h>
#include <ATen/Operators.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "Pointwise.h"
#include "Structured.h"

namespace infini_torch::aten {
namespace {

using at::Tensor;
using at::TensorList;

void adamStep(const char *name, TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
              TensorList steps, double lr, double beta1, double beta2, double wd, double eps, bool amsgrad,
              bool maximize, bool decoupled) {
    const size_t n = params.size();
    TORCH_CHECK(!amsgrad, name, ": amsgrad runs through the fallback");
    TORCH_CHECK(grads.size() == n && exp_avgs.size() == n && exp_avg_sqs.size() == n && steps.size() == n, name,
                ": the tensor lists must have the same length");
    for (size_t i = 0; i < n; ++i) {
        const Tensor &p = params[i];
        if (p.numel() == 0) continue;
        TORCH_CHECK(
            grads[i].sizes() == p.sizes() && exp_avgs[i].sizes() == p.sizes() && exp_avg_sqs[i].sizes() == p.sizes(),
            name, ": parameter ", i, " and its gradient / state differ in shape");
        TORCH_CHECK(steps[i].numel() == 1, name, ": state_steps[", i, "] must hold one value");
        Tensor step = steps[i].reshape({}).expand(p.sizes());  // read on the device, stride 0
        infiniopPointwiseArgs_t a{};
        a.op = INFINIOP_PW_ADAMW;
        a.noutputs = 3;  // amsgrad's fourth state does not fit the family's eight operands: it falls back
        a.compute = p.scalar_type() == at::kDouble ? INFINI_DTYPE_F64 : INFINI_DTYPE_F32;
        a.f[0] = lr;
        a.f[1] = beta1;
        a.f[2] = beta2;
        a.f[3] = eps;
        a.wd = wd;
        a.flags = (maximize ? 2 : 0) | (decoupled ? 4 : 0);
        a.iter =
            iterOfTensors({&p, &exp_avgs[i], &exp_avg_sqs[i], &p, &exp_avgs[i], &exp_avg_sqs[i], &grads[i], &step});
        c10::DeviceGuard guard(p.device());
        runFamily(name, infiniopPointwise, p.device(), a);
    }
}

bool nativeAdam(TensorList params, TensorList grads, const std::optional<Tensor> &grad_scale,
                const std::optional<Tensor> &found_inf, bool amsgrad) {
    if (grad_scale.has_value() || found_inf.has_value() || amsgrad) return false;  // GradScaler / amsgrad: fallback
    for (size_t i = 0; i < params.size(); ++i) {
        const auto t = params[i].scalar_type();
        if (!isFamilyDtype(t) || !at::isFloatingType(t) || grads[i].scalar_type() != t) return false;
    }
    return true;
}

template <bool kDecoupled, class Op>
void fusedAdam(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
               TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1, double beta2,
               double weight_decay, double eps, bool amsgrad, bool maximize, const std::optional<Tensor> &grad_scale,
               const std::optional<Tensor> &found_inf) {
    if (!nativeAdam(self, grads, grad_scale, found_inf, amsgrad)) {
        detail::fallback<Op, void, TensorList, TensorList, TensorList, TensorList, TensorList, TensorList, double,
                         double, double, double, double, bool, bool, const std::optional<Tensor> &,
                         const std::optional<Tensor> &>(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                                                        state_steps, lr, beta1, beta2, weight_decay, eps, amsgrad,
                                                        maximize, grad_scale, found_inf);
        return;
    }
    adamStep(Op::name, self, grads, exp_avgs, exp_avg_sqs, state_steps, lr, beta1, beta2, weight_decay, eps, amsgrad,
             maximize, kDecoupled);
}

}  // namespace
}  // namespace infini_torch::aten

using namespace infini_torch::aten;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    m.impl("_fused_adamw_", TORCH_FN((fusedAdam<true, at::_ops::_fused_adamw_>)));
    m.impl("_fused_adam_", TORCH_FN((fusedAdam<false, at::_ops::_fused_adam_>)));
}

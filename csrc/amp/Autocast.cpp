// Autocast.cpp: torch.autocast("infini") uses torch's own op lists, as CUDA does: matmul-like ops
// run in the lower-precision dtype, precision-sensitive ops (softmax, norms, losses) in float32.
#include <ATen/autocast_mode.h>
#include <torch/library.h>

// torch's op lists name at:: types unqualified, so they are expanded inside at::autocast.
namespace at::autocast {
namespace {

#define INFINI_LOWER_PRECISION(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, lower_precision_fp)
#define INFINI_FP32(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32)
#define INFINI_FP32_SET_OPT_DTYPE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32_set_opt_dtype)
#define INFINI_PROMOTE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, promote)

TORCH_LIBRARY_IMPL(aten, AutocastPrivateUse1, m) {
    AT_FORALL_LOWER_PRECISION_FP(INFINI_LOWER_PRECISION)
    AT_FORALL_FP32(INFINI_FP32)
    AT_FORALL_FP32_SET_OPT_DTYPE(INFINI_FP32_SET_OPT_DTYPE)
    AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE(KERNEL_DIFFERENT_REDISPATCH_SIGNATURE_PRIVATEUSEONE)
    AT_FORALL_PROMOTE(INFINI_PROMOTE)
}

}  // namespace
}  // namespace at::autocast

// Ops without an autocast policy run unchanged.
TORCH_LIBRARY_IMPL(_, AutocastPrivateUse1, m) { m.fallback(torch::CppFunction::makeFallthrough()); }

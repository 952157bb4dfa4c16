#include "Interop.h"

#include <ATen/ATen.h>

#include "../runtime/InfiniFunctions.h"

namespace infini_torch::aten {

at::Tensor aliasOnDevice(const at::Tensor &src, c10::Device device) {
    const bool to_cuda = device.is_cuda(), to_infini = device.type() == c10::DeviceType::PrivateUse1;
    TORCH_CHECK(to_cuda || to_infini, "infini: a shared view can be on cuda or infini, not ", device);
    TORCH_CHECK(src.device().is_cuda() || src.device().type() == c10::DeviceType::PrivateUse1,
                "infini: a shared view needs a cuda or infini tensor, got one on ", src.device());
    TORCH_CHECK(backendType() == INFINI_DEVICE_NVIDIA,
                "infini: infini and cuda tensors share memory only with the "
                "nvidia backend (this process runs the ",
                backendName(), " backend)");
    if (src.device().type() == device.type()) return src;
    const c10::DeviceIndex index = device.has_index() ? device.index() : src.device().index();
    TORCH_CHECK(index == src.device().index(), "infini: a shared view stays on the same GPU: ", src.device(),
                " cannot be seen as ", device);
    auto *keep = new at::Tensor(src);
    return at::for_blob(src.data_ptr(), src.sizes())
        .strides(src.strides())
        .context(keep, [](void *p) { delete static_cast<at::Tensor *>(p); })
        .target_device(c10::Device(device.type(), index))
        .options(src.options().device(c10::Device(device.type(), index)))
        .make_tensor();
}

}  // namespace infini_torch::aten

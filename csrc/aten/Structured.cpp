#include "Structured.h"

#include <c10/core/DeviceGuard.h>

#include "../runtime/InfiniAllocator.h"

namespace infini_torch::aten {

at::Tensor newOutput(at::IntArrayRef sizes, at::IntArrayRef strides, const at::TensorOptions &options) {
    TORCH_INTERNAL_ASSERT(options.device().type() == c10::DeviceType::PrivateUse1);
    c10::DeviceGuard guard(options.device());
    constexpr c10::DispatchKeySet keys{c10::DispatchKey::PrivateUse1};
    const auto dtype = options.dtype().toScalarType();
    if (strides.empty()) {
        return at::detail::empty_generic(sizes, getDeviceAllocator(), keys, dtype, options.memory_format_opt());
    }
    return at::detail::empty_strided_generic(sizes, strides, getDeviceAllocator(), keys, dtype);
}

namespace detail {

void resizeOut(const at::Tensor &out, at::IntArrayRef sizes, at::IntArrayRef strides,
               const at::TensorOptions &options) {
    TORCH_CHECK(options.dtype() == out.dtype(), "Expected out tensor to have dtype ", options.dtype(), ", but got ",
                out.dtype(), " instead");
    TORCH_CHECK(options.device() == out.device(), "Expected out tensor to have device ", options.device(), ", but got ",
                out.device(), " instead");
    const bool resized = at::native::resize_output(out, sizes);
    if (resized) {  // restride only a resized tensor: otherwise its strides win over the meta's advice
        if (!strides.empty()) {
            out.as_strided_(sizes, strides);
        } else if (options.memory_format_opt().has_value()) {
            out.unsafeGetTensorImpl()->empty_tensor_restride(*options.memory_format_opt());
        }
    }
}

void checkInplace(const at::Tensor &self, at::IntArrayRef sizes, const at::TensorOptions &options) {
    TORCH_CHECK(options.dtype() == self.dtype(), "Bad in-place call: input tensor dtype ", self.dtype(),
                " and output tensor dtype ", options.dtype(), " should match");
    TORCH_CHECK(options.device() == self.device(), "Bad in-place call: input tensor device ", self.device(),
                " and output tensor device ", options.device(), " should match");
    TORCH_CHECK(sizes == self.sizes(), "Bad in-place call: input tensor size ", self.sizes(),
                " and output tensor size ", sizes, " should match");
}

std::optional<at::Tensor> maybeProxy(const at::Tensor &out, at::IntArrayRef sizes, at::IntArrayRef strides,
                                     const at::TensorOptions &options) {
    if (out.strides() != strides) return newOutput(sizes, strides, options);
    return std::nullopt;
}

}  // namespace detail
}  // namespace infini_torch::aten

#include "Window.h"

#include <ATen/ATen.h>

#include <array>
#include <atomic>

#include "Pointwise.h"

namespace infini_torch::aten {

bool isWindowDtype(at::ScalarType t) {
    return t == at::kFloat || t == at::kHalf || t == at::kBFloat16 || t == at::kDouble;
}

bool windowSupports(c10::Device device, infiniopWindowOp_t op) {
    constexpr int kDevices = 64;
    // per device and op: 0 not asked yet, 1 supported, 2 not
    static std::array<std::array<std::atomic<int8_t>, INFINIOP_WINDOW_OP_END>, kDevices> known{};
    const int index = device.index() < 0 ? 0 : device.index();
    if (index >= kDevices || op < 0 || op >= INFINIOP_WINDOW_OP_END) return false;
    std::atomic<int8_t> &k = known[index][op];
    int8_t v = k.load(std::memory_order_relaxed);
    if (v == 0) {
        const infiniopWindowArgs_t empty = windowArgs(op, at::kFloat, 0, 0, 0, 0, 0, 0);
        v = callFamily("infini window", infiniopWindow, device, empty) == INFINI_STATUS_SUCCESS ? 1 : 2;
        k.store(v, std::memory_order_relaxed);
    }
    return v == 1;
}

infiniopWindowArgs_t windowArgs(infiniopWindowOp_t op, at::ScalarType dtype, int64_t n, int64_t c, int64_t h, int64_t w,
                                int64_t oh, int64_t ow) {
    infiniopWindowArgs_t a{};
    a.op = op;
    a.dtype = familyDtype(dtype);
    a.n = n;
    a.c = c;
    a.h = h;
    a.w = w;
    a.oh = oh;
    a.ow = ow;
    a.kh = a.kw = a.sh = a.sw = a.dh = a.dw = 1;
    return a;
}

void copyInto(const char *op, const at::Tensor &dst, const at::Tensor &src) {
    TORCH_INTERNAL_ASSERT(dst.sizes() == src.sizes());
    if (dst.numel() == 0) return;
    Pw p(INFINIOP_PW_COPY);
    p.a.iter = iterOfTensors({&dst, &src});
    const bool wide = dst.scalar_type() == at::kDouble || src.scalar_type() == at::kDouble;
    p.a.compute = wide ? INFINI_DTYPE_F64 : computeDtype(dst.scalar_type());
    p.runIter(op, dst.device());
}

at::Tensor contiguousAs(const char *op, const at::Tensor &t, std::optional<at::ScalarType> dtype) {
    const at::ScalarType to = dtype.value_or(t.scalar_type());
    if (t.is_contiguous() && t.scalar_type() == to) return t;
    at::Tensor out = at::empty(t.sizes(), t.options().dtype(to));
    copyInto(op, out, t);
    return out;
}

}  // namespace infini_torch::aten

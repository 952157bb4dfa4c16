#include "Family.h"

#include <array>
#include <atomic>
#include <mutex>

#include "../runtime/InfiniFunctions.h"
#include "../runtime/InfiniStream.h"

namespace infini_torch::aten {

infiniDtype_t familyDtype(at::ScalarType t) {
    switch (t) {
        case at::kFloat: return INFINI_DTYPE_F32;
        case at::kHalf: return INFINI_DTYPE_F16;
        case at::kBFloat16: return INFINI_DTYPE_BF16;
        case at::kDouble: return INFINI_DTYPE_F64;
        case at::kChar: return INFINI_DTYPE_I8;
        case at::kShort: return INFINI_DTYPE_I16;
        case at::kInt: return INFINI_DTYPE_I32;
        case at::kLong: return INFINI_DTYPE_I64;
        case at::kByte: return INFINI_DTYPE_U8;
        case at::kBool: return INFINI_DTYPE_BOOL;
        default: return INFINI_DTYPE_INVALID;
    }
}

infiniDtype_t computeDtype(at::ScalarType t) {
    switch (t) {
        case at::kFloat:
        case at::kHalf:
        case at::kBFloat16: return INFINI_DTYPE_F32;
        case at::kDouble: return INFINI_DTYPE_F64;
        default: return INFINI_DTYPE_I64;
    }
}

namespace {

constexpr int kMaxDevices = 64;

struct Handles {
    std::array<std::atomic<infiniopHandle_t>, kMaxDevices> by_device{};
    std::mutex mu;  // serializes creation only
};

Handles &handles() {
    static auto *h = new Handles();  // kept for the process, as the devices are
    return *h;
}

}  // namespace

infiniopHandle_t handleOf(c10::Device device) {
    int index = device.index() < 0 ? current_device() : device.index();
    TORCH_CHECK(index < kMaxDevices, "infini: device index ", index, " out of range");
    Handles &h = handles();
    infiniopHandle_t found = h.by_device[index].load(std::memory_order_acquire);
    if (C10_LIKELY(found != nullptr)) return found;
    std::lock_guard<std::mutex> lock(h.mu);
    found = h.by_device[index].load(std::memory_order_relaxed);
    if (found != nullptr) return found;
    infiniDevice_t old_type;
    int old_id;
    INFINI_CHECK(infinirtGetDevice(&old_type, &old_id));
    INFINI_CHECK(infinirtSetDevice(backendType(), index));
    infiniopHandle_t made = nullptr;
    infiniStatus_t s = infiniopCreateHandle(&made);
    INFINI_CHECK(infinirtSetDevice(old_type, old_id));
    INFINI_CHECK(s);
    h.by_device[index].store(made, std::memory_order_release);
    return made;
}

infinirtStream_t streamOf(c10::Device device) {
    int index = device.index() < 0 ? current_device() : device.index();
    return native_stream(getCurrentStream(static_cast<c10::DeviceIndex>(index)));
}

bool fitsFamilies(const at::TensorIteratorBase &iter) {
    return iter.ndim() <= INFINIOP_MAX_DIMS && iter.ntensors() <= INFINIOP_MAX_OPERANDS;
}

infiniopIter_t iterOf(const at::TensorIteratorBase &iter) {
    TORCH_CHECK(fitsFamilies(iter), "infini: an iteration over ", iter.ndim(), " dims and ", iter.ntensors(),
                " operands exceeds the kernel families' ", INFINIOP_MAX_DIMS, " dims / ", INFINIOP_MAX_OPERANDS,
                " operands");
    infiniopIter_t it{};
    it.ndim = static_cast<int32_t>(iter.ndim());
    it.noperands = static_cast<int32_t>(iter.ntensors());
    auto shape = iter.shape();
    for (int d = 0; d < it.ndim; ++d) it.shape[d] = shape[d];
    for (int k = 0; k < it.noperands; ++k) {
        it.dtype[k] = familyDtype(iter.dtype(k));
        if (iter.is_cpu_scalar(k)) {
            it.data[k] = nullptr;  // the caller passes its value as a constant
            continue;
        }
        it.data[k] = iter.data_ptr(k);
        const int64_t size = static_cast<int64_t>(iter.element_size(k));
        auto strides = iter.strides(k);
        for (int d = 0; d < it.ndim; ++d) it.strides[k][d] = strides[d] / size;
    }
    return it;
}

infiniopIter_t iterOfTensors(std::initializer_list<const at::Tensor *> tensors) {
    infiniopIter_t it{};
    const at::Tensor *first = *tensors.begin();
    TORCH_CHECK(first->dim() <= INFINIOP_MAX_DIMS, "infini: ", first->dim(), " dims exceed the kernel families' ",
                INFINIOP_MAX_DIMS);
    TORCH_CHECK(tensors.size() <= INFINIOP_MAX_OPERANDS, "infini: too many operands");
    it.ndim = static_cast<int32_t>(first->dim());
    it.noperands = static_cast<int32_t>(tensors.size());
    for (int d = 0; d < it.ndim; ++d) it.shape[d] = first->size(it.ndim - 1 - d);
    int k = 0;
    for (const at::Tensor *t : tensors) {
        TORCH_INTERNAL_ASSERT(t->sizes() == first->sizes());
        it.dtype[k] = familyDtype(t->scalar_type());
        it.data[k] = t->data_ptr();
        for (int d = 0; d < it.ndim; ++d) it.strides[k][d] = t->stride(it.ndim - 1 - d);
        ++k;
    }
    return it;
}

infiniopTensor_t tensorOf(const at::Tensor &t) {
    TORCH_CHECK(t.dim() <= INFINIOP_MAX_DIMS, "infini: ", t.dim(), " dims exceed the kernel families' ",
                INFINIOP_MAX_DIMS);
    infiniopTensor_t out{};
    out.ndim = static_cast<int32_t>(t.dim());
    out.dtype = familyDtype(t.scalar_type());
    out.data = t.numel() > 0 ? t.data_ptr() : nullptr;
    for (int d = 0; d < out.ndim; ++d) {
        out.shape[d] = t.size(d);
        out.strides[d] = t.stride(d);
    }
    return out;
}

void raiseFamily(const char *op, infiniStatus_t status) {
    const char *msg = infiniGetLastErrorMessage();
    if (status == INFINI_STATUS_OUT_OF_MEMORY) {
        TORCH_CHECK_WITH(OutOfMemoryError, false, op, ": ", msg);
    }
    TORCH_CHECK(false, op, ": ", msg, " (", infiniGetStatusString(status), ")");
}

}  // namespace infini_torch::aten

// Route.cpp: familyOn (Route.h): whether a device's backend has a kernel family, asked once per device and family.
#include "Route.h"

#include <array>
#include <atomic>

#include "../runtime/InfiniFunctions.h"

namespace infini_torch::aten {
namespace {

constexpr int kMaxDevices = 64;

// A call over nothing: the backend answers NOT_IMPLEMENTED when it has no such family, and queues no work when
// it has one.
infiniStatus_t probe(infiniopHandle_t handle, infinirtStream_t stream, infiniopFamily_t family) {
    switch (family) {
        case INFINIOP_FAMILY_ROWS: {
            infiniopRowsArgs_t a{};
            a.op = INFINIOP_ROWS_SOFTMAX;
            a.out_dtype = a.x_dtype = a.y_dtype = INFINI_DTYPE_F32;
            return infiniopRows(handle, &a, stream);
        }
        case INFINIOP_FAMILY_NORM: {
            infiniopNormArgs_t a{};
            a.op = INFINIOP_NORM_LAYER_NORM;
            a.dtype = a.w_dtype = INFINI_DTYPE_F32;
            return infiniopNorm(handle, &a, stream);
        }
        case INFINIOP_FAMILY_NLL_LOSS: {
            infiniopNllLossArgs_t a{};
            a.dtype = INFINI_DTYPE_F32;
            a.target_dtype = INFINI_DTYPE_I64;
            return infiniopNllLoss(handle, &a, stream);
        }
        case INFINIOP_FAMILY_SDPA: {
            infiniopSdpaArgs_t a{};
            a.dtype = INFINI_DTYPE_F32;
            a.mask_dtype = INFINI_DTYPE_INVALID;
            for (infiniopTensor_t *t : {&a.q, &a.k, &a.v, &a.out}) {  // [0, 1, 0, 0]
                t->ndim = 4;
                t->dtype = INFINI_DTYPE_F32;
                t->shape[1] = 1;
                t->strides[0] = t->strides[1] = t->strides[2] = t->strides[3] = 1;
            }
            return infiniopSdpa(handle, &a, stream);
        }
        default: return INFINI_STATUS_NOT_IMPLEMENTED;  // no probe written: the family counts as absent
    }
}

}  // namespace

bool familyOn(c10::Device device, infiniopFamily_t family) {
    // per device and family: 0 unknown, 1 absent, 2 present (a race probes twice, to the same answer)
    static std::array<std::atomic<int8_t>, kMaxDevices * INFINIOP_FAMILY_COUNT> known{};
    const int index = device.index() < 0 ? current_device() : device.index();
    if (index >= kMaxDevices) return false;
    std::atomic<int8_t> &slot = known[static_cast<size_t>(index * INFINIOP_FAMILY_COUNT + family)];
    int8_t state = slot.load(std::memory_order_relaxed);
    if (state == 0) {
        const c10::Device d(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(index));
        state = probe(handleOf(d), streamOf(d), family) == INFINI_STATUS_NOT_IMPLEMENTED ? 1 : 2;
        slot.store(state, std::memory_order_relaxed);
    }
    return state == 2;
}

}  // namespace infini_torch::aten

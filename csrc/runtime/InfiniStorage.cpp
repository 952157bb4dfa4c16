#include "InfiniStorage.h"

#include <c10/core/DeviceGuard.h>

#include "InfiniFunctions.h"

namespace infini_torch {

void resizeStorageBytes(c10::StorageImpl *storage, size_t nbytes) {
    TORCH_CHECK(storage->resizable(), "infini: trying to resize a storage that is not resizable");
    c10::Allocator *allocator = storage->allocator();
    TORCH_CHECK(allocator != nullptr, "infini: trying to resize a storage without an allocator");
    c10::Device device = storage->data_ptr().device();
    c10::OptionalDeviceGuard guard;
    if (device.type() == c10::DeviceType::PrivateUse1) guard.reset_device(device);
    c10::DataPtr fresh = allocator->allocate(nbytes);
    size_t keep = std::min(nbytes, storage->nbytes());
    if (keep > 0 && storage->data() != nullptr) {
        // synchronous: the old block is released right below
        INFINI_CHECK(infinirtMemcpy(fresh.get(), storage->data(), keep, INFINIRT_MEMCPY_D2D));
    }
    storage->set_data_ptr_noswap(std::move(fresh));
    storage->set_nbytes(nbytes);
}

}  // namespace infini_torch

// InfiniHooks.cpp: PrivateUse1 hooks (availability, device count, lazy init, generators, pinned
// memory, device of a pointer, storage resize).
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/StorageImpl.h>

#include "InfiniAllocator.h"
#include "InfiniFunctions.h"
#include "InfiniGenerator.h"
#include "InfiniHostAllocator.h"
#include "InfiniStorage.h"

namespace infini_torch {
namespace {

struct InfiniHooks final : public at::PrivateUse1HooksInterface {
    void init() const override { lazy_init(); }
    bool isBuilt() const override { return true; }
    bool isAvailable() const override { return device_count() > 0; }
    bool hasPrimaryContext(c10::DeviceIndex device) const override { return is_initialized(); }
    c10::DeviceIndex deviceCount() const override { return device_count(); }
    void setCurrentDevice(c10::DeviceIndex device) const override { set_device(device); }
    c10::DeviceIndex getCurrentDevice() const override { return current_device(); }
    c10::DeviceIndex exchangeDevice(c10::DeviceIndex device) const override { return ExchangeDevice(device); }
    c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex device) const override {
        if (device < 0 || device >= device_count()) return current_device();
        return ExchangeDevice(device);
    }
    const at::Generator &getDefaultGenerator(c10::DeviceIndex device) const override {
        return infini_torch::getDefaultGenerator(device);
    }
    at::Generator getNewGenerator(c10::DeviceIndex device = -1) const override { return createGenerator(device); }
    at::Allocator *getPinnedMemoryAllocator() const override { return getPinnedAllocator(); }
    bool isPinnedPtr(const void *data) const override { return infini_torch::isPinnedPtr(data); }
    at::Device getDeviceFromPtr(void *data) const override {
        current_device();
        infinirtPointerAttributes_t attr{};
        INFINI_CHECK(infinirtPointerGetAttributes(&attr, data));
        TORCH_CHECK(attr.type == INFINIRT_MEMORY_DEVICE, "infini: ", data, " is not infini device memory");
        return at::Device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(attr.device_id));
    }
    void resizePrivateUse1Bytes(const c10::Storage &storage, size_t newsize) const override {
        resizeStorageBytes(storage.unsafeGetStorageImpl(), newsize);
    }
};

// Registered at load time so that torch finds the hooks before any infini call.
const bool registered = [] {
    static InfiniHooks hooks;
    at::RegisterPrivateUse1HooksInterface(&hooks);
    return true;
}();

}  // namespace
}  // namespace infini_torch

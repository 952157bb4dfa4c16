// InfiniGuard.cpp: c10's device guard for "infini": devices, streams and events through infinirt,
// so that torch.Stream, torch.Event, torch.accelerator and DeviceGuard work on infini tensors.
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "InfiniAllocator.h"
#include "InfiniFunctions.h"
#include "InfiniStream.h"

namespace infini_torch {
namespace {

constexpr c10::DeviceType kType = c10::DeviceType::PrivateUse1;

// Runs f with device current, restoring the previous device.
template <typename F>
auto onDevice(c10::DeviceIndex device, F f) {
    c10::DeviceIndex previous = ExchangeDevice(device);
    struct Restore {
        c10::DeviceIndex d;
        ~Restore() { set_device(d); }
    } restore{previous};
    return f();
}

struct InfiniGuardImpl final : public c10::impl::DeviceGuardImplInterface {
    c10::DeviceType type() const override { return kType; }

    c10::Device exchangeDevice(c10::Device d) const override {
        TORCH_INTERNAL_ASSERT(d.type() == kType);
        return c10::Device(kType, ExchangeDevice(d.index()));
    }

    c10::Device getDevice() const override { return c10::Device(kType, current_device()); }

    void setDevice(c10::Device d) const override {
        TORCH_INTERNAL_ASSERT(d.type() == kType);
        set_device(d.index());
    }

    void uncheckedSetDevice(c10::Device d) const noexcept override {
        try {
            set_device(d.index());
        } catch (...) {
        }
    }

    c10::Stream getStream(c10::Device d) const override { return getCurrentStream(d.index()); }

    c10::Stream getDefaultStream(c10::Device d) const override { return infini_torch::getDefaultStream(d.index()); }

    c10::Stream getStreamFromGlobalPool(c10::Device d, bool /*isHighPriority*/ = false) const override {
        return getStreamFromPool(d.index());
    }

    c10::Stream getNewStream(c10::Device d, int /*priority*/ = 0) const override {
        return getStreamFromPool(d.index());
    }

    c10::Stream exchangeStream(c10::Stream s) const override { return infini_torch::exchangeStream(s); }

    c10::DeviceIndex deviceCount() const noexcept override { return device_count(); }

    // (no `override`: older torch versions lack this method)
    void *getStreamNativeHandle(const c10::Stream s) const { return native_stream(s); }

    void destroyEvent(void *event, const c10::DeviceIndex device) const noexcept override {
        if (event == nullptr) return;
        try {
            onDevice(device, [&] { return infinirtEventDestroy(event); });
        } catch (...) {
        }
    }

    void record(void **event, const c10::Stream &stream, const c10::DeviceIndex device,
                const c10::EventFlag flag) const override {
        TORCH_CHECK(device == -1 || device == stream.device_index(), "infini: an event of device ", device,
                    " cannot be recorded on ", stream);
        onDevice(stream.device_index(), [&] {
            if (*event == nullptr) {
                uint32_t flags =
                    flag == c10::EventFlag::BACKEND_DEFAULT ? INFINIRT_EVENT_DEFAULT : INFINIRT_EVENT_DISABLE_TIMING;
                INFINI_CHECK(infinirtEventCreateWithFlags(event, flags));
            }
            INFINI_CHECK(infinirtEventRecord(*event, native_stream(stream)));
            return 0;
        });
    }

    void block(void *event, const c10::Stream &stream) const override {
        if (event == nullptr) return;
        onDevice(stream.device_index(), [&] {
            INFINI_CHECK(infinirtStreamWaitEvent(native_stream(stream), event));
            return 0;
        });
    }

    bool queryEvent(void *event) const override {
        if (event == nullptr) return true;
        current_device();  // routes the call to the infini backend on any thread
        infinirtEventStatus_t st;
        INFINI_CHECK(infinirtEventQuery(event, &st));
        return st == INFINIRT_EVENT_COMPLETE;
    }

    bool queryStream(const c10::Stream &stream) const override { return infini_torch::queryStream(stream); }

    void synchronizeStream(const c10::Stream &stream) const override { infini_torch::synchronizeStream(stream); }

    void synchronizeEvent(void *event) const override {
        if (event == nullptr) return;
        current_device();
        INFINI_CHECK(infinirtEventSynchronize(event));
    }

    void synchronizeDevice(const c10::DeviceIndex device) const override {
        c10::DeviceIndex d = device < 0 ? current_device() : device;
        onDevice(d, [] {
            INFINI_CHECK(infinirtDeviceSynchronize());
            return 0;
        });
    }

    void recordDataPtrOnStream(const c10::DataPtr &data_ptr, const c10::Stream &stream) const override {
        getDeviceAllocator()->recordStream(data_ptr, stream);
    }

    double elapsedTime(void *start, void *end, const c10::DeviceIndex device) const override {
        TORCH_CHECK(start != nullptr && end != nullptr,
                    "infini: both events must be recorded before calculating elapsed time");
        float ms = 0;
        current_device();
        INFINI_CHECK(infinirtEventElapsedTime(&ms, start, end));
        return ms;
    }
};

}  // namespace

C10_REGISTER_GUARD_IMPL(PrivateUse1, InfiniGuardImpl);

}  // namespace infini_torch

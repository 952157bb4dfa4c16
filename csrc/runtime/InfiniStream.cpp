#include "InfiniStream.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "InfiniFunctions.h"

namespace infini_torch {
namespace {

struct DevicePool {
    std::once_flag created;
    std::array<infinirtStream_t, kStreamPoolSize> streams{};
    std::atomic<uint32_t> next{0};
};

std::vector<std::unique_ptr<DevicePool>> &pools() {
    static auto *p = [] {
        auto *v = new std::vector<std::unique_ptr<DevicePool>>();
        for (int i = 0; i < device_count(); ++i) v->push_back(std::make_unique<DevicePool>());
        return v;
    }();
    return *p;
}

DevicePool &poolFor(c10::DeviceIndex device) {
    DevicePool &pool = *pools().at(device);
    std::call_once(pool.created, [&] {
        c10::DeviceIndex previous = ExchangeDevice(device);
        for (auto &s : pool.streams) INFINI_CHECK(infinirtStreamCreate(&s));
        set_device(previous);
    });
    return pool;
}

// This thread's current stream id per device.
std::vector<c10::StreamId> &currentIds() {
    thread_local std::vector<c10::StreamId> ids;
    if (ids.empty()) ids.assign(device_count(), 0);
    return ids;
}

c10::DeviceIndex resolve(c10::DeviceIndex device) {
    lazy_init();
    if (device < 0) return current_device();
    check_device_index(device);
    return device;
}

c10::Stream makeStream(c10::DeviceIndex device, c10::StreamId id) {
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, device), id);
}

}  // namespace

infinirtStream_t native_stream(const c10::Stream &stream) {
    TORCH_CHECK(stream.device_type() == c10::DeviceType::PrivateUse1, "infini: ", stream, " is not an infini stream");
    c10::StreamId id = stream.id();
    if (id == 0) return nullptr;
    TORCH_CHECK(id >= 1 && id <= kStreamPoolSize, "infini: stream id ", id, " is not an infini stream");
    return poolFor(stream.device_index()).streams[id - 1];
}

c10::Stream getCurrentStream(c10::DeviceIndex device) {
    device = resolve(device);
    return makeStream(device, currentIds()[device]);
}

c10::Stream getDefaultStream(c10::DeviceIndex device) { return makeStream(resolve(device), 0); }

c10::Stream getStreamFromPool(c10::DeviceIndex device) {
    device = resolve(device);
    uint32_t index = poolFor(device).next.fetch_add(1) % kStreamPoolSize;
    return makeStream(device, index + 1);
}

c10::Stream exchangeStream(const c10::Stream &stream) {
    native_stream(stream);  // validates
    auto &ids = currentIds();
    c10::Stream previous = makeStream(stream.device_index(), ids[stream.device_index()]);
    ids[stream.device_index()] = stream.id();
    return previous;
}

void synchronizeStream(const c10::Stream &stream) {
    infinirtStream_t handle = native_stream(stream);
    c10::DeviceIndex previous = ExchangeDevice(stream.device_index());
    infiniStatus_t status = infinirtStreamSynchronize(handle);
    set_device(previous);
    INFINI_CHECK(status);
}

bool queryStream(const c10::Stream &stream) {
    infinirtStream_t handle = native_stream(stream);
    c10::DeviceIndex previous = ExchangeDevice(stream.device_index());
    infinirtEventStatus_t result;
    infiniStatus_t status = infinirtStreamQuery(handle, &result);
    set_device(previous);
    INFINI_CHECK(status);
    return result == INFINIRT_EVENT_COMPLETE;
}

}  // namespace infini_torch

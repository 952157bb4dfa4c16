#include "InfiniFunctions.h"

#include <pthread.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace infini_torch {
namespace {

std::atomic<bool> g_initialized{false};
std::atomic<bool> g_bad_fork{false};

void onForkChild() {
    if (g_initialized.load()) g_bad_fork = true;
}

infiniDevice_t chooseBackend() {
    const char *env = std::getenv("INFINI_DEVICE");
    if (env != nullptr && env[0] != '\0') {
        for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
            if (std::strcmp(env, infiniGetDeviceTypeName(static_cast<infiniDevice_t>(t))) == 0) {
                return static_cast<infiniDevice_t>(t);
            }
        }
        TORCH_CHECK(false, "INFINI_DEVICE='", env, "' is not a device type (cpu, nvidia, ...)");
    }
    int n = 0;
    if (infinirtGetDeviceCount(INFINI_DEVICE_NVIDIA, &n) == INFINI_STATUS_SUCCESS && n > 0) return INFINI_DEVICE_NVIDIA;
    return INFINI_DEVICE_CPU;
}

}  // namespace

infiniDevice_t backendType() {
    static const infiniDevice_t type = chooseBackend();
    return type;
}

const char *backendName() { return infiniGetDeviceTypeName(backendType()); }

[[noreturn]] void raise_status(infiniStatus_t status, const char *expr) {
    std::string msg = infiniGetLastErrorMessage();
    if (msg.empty()) msg = expr;
    msg += std::string(" [") + infiniGetStatusString(status) + "]";
    if (status == INFINI_STATUS_OUT_OF_MEMORY) TORCH_CHECK_WITH(OutOfMemoryError, false, "infini: ", msg);
    TORCH_CHECK(false, "infini: ", msg);
}

c10::DeviceIndex device_count() noexcept {
    int n = 0;
    try {
        if (infinirtGetDeviceCount(backendType(), &n) != INFINI_STATUS_SUCCESS) return 0;
    } catch (...) {
        return 0;
    }
    return static_cast<c10::DeviceIndex>(n);
}

void check_device_index(c10::DeviceIndex device) {
    auto n = device_count();
    TORCH_CHECK(device >= 0 && device < n, "infini: device index ", static_cast<int>(device),
                " is out of range: there ", n == 1 ? "is " : "are ", static_cast<int>(n), " infini device",
                n == 1 ? "" : "s", " (", backendName(), " backend)");
}

c10::DeviceIndex current_device() {
    infiniDevice_t type;
    int id;
    INFINI_CHECK(infinirtGetDevice(&type, &id));
    if (type != backendType()) {  // a thread that never chose an infini device starts on device 0
        set_device(0);
        return 0;
    }
    return static_cast<c10::DeviceIndex>(id);
}

void set_device(c10::DeviceIndex device) {
    infiniDevice_t type;
    int id;
    INFINI_CHECK(infinirtGetDevice(&type, &id));
    if (type == backendType() && id == device) return;
    check_device_index(device);
    INFINI_CHECK(infinirtSetDevice(backendType(), device));
}

c10::DeviceIndex ExchangeDevice(c10::DeviceIndex device) {
    c10::DeviceIndex previous = current_device();
    if (previous != device) set_device(device);
    return previous;
}

void lazy_init() {
    TORCH_CHECK(!g_bad_fork.load(),
                "infini: cannot re-initialize the infini device in a forked subprocess. To use infini with "
                "multiprocessing, use the 'spawn' start method");
    if (g_initialized.load(std::memory_order_acquire)) return;
    static std::once_flag once;
    std::call_once(once, [] {
        INFINI_CHECK(infinirtInit());
        TORCH_CHECK(device_count() > 0, "infini: the ", backendName(), " backend has no devices");
        pthread_atfork(nullptr, nullptr, onForkChild);
        g_initialized = true;
    });
}

bool is_initialized() { return g_initialized.load() && !g_bad_fork.load(); }

bool is_in_bad_fork() { return g_bad_fork.load(); }

}  // namespace infini_torch

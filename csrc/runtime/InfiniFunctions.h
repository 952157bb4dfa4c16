// InfiniFunctions.h: the one place the torch glue wraps the infinirt device API.
//
// "infini" devices are the devices of one infini backend, chosen once per process:
// INFINI_DEVICE=cpu|nvidia|..., or by default nvidia when it has devices, else cpu.
#pragma once

#include <c10/core/Device.h>
#include <c10/util/Exception.h>

#include <infini/infinirt.h>

namespace infini_torch {

// The infini backend behind the "infini" device type.
infiniDevice_t backendType();
// Its short name ("cpu", "nvidia").
const char *backendName();

// Number of infini devices; 0 (never an exception) when the backend is missing.
c10::DeviceIndex device_count() noexcept;
// The calling thread's current infini device.
c10::DeviceIndex current_device();
// Makes device the calling thread's current infini device (checks the index).
void set_device(c10::DeviceIndex device);
// Sets device and returns the previous one.
c10::DeviceIndex ExchangeDevice(c10::DeviceIndex device);
// Raises an IndexError-like error unless 0 <= device < device_count().
void check_device_index(c10::DeviceIndex device);

// Runtime state: first use, and use after fork.
void lazy_init();
bool is_initialized();
bool is_in_bad_fork();

// Raises a RuntimeError (OutOfMemoryError for OUT_OF_MEMORY) that carries the library's message.
[[noreturn]] void raise_status(infiniStatus_t status, const char *expr);

}  // namespace infini_torch

// Turns a failing infini status into a Python-visible exception.
#define INFINI_CHECK(expr)                                           \
    do {                                                             \
        infiniStatus_t infini_status_ = (expr);                      \
        if (C10_UNLIKELY(infini_status_ != INFINI_STATUS_SUCCESS)) { \
            ::infini_torch::raise_status(infini_status_, #expr);     \
        }                                                            \
    } while (0)

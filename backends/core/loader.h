// loader.h: finds the backend libraries, loads them, and remembers what it found.
#pragma once

#include <infini/backend.h>

#include <string>
#include <vector>

namespace infini::core {

struct BackendLibrary {
    std::string name;     // the backend's name, or the file name when it did not load
    std::string path;     // where the library is
    std::string message;  // why it was not loaded, or ""
    int device_type = -1;
    int device_count = 0;
    bool loaded = false;
    const infiniBackend_t *table = nullptr;
};

// Loads the backends once per process (thread-safe); every public function calls it first.
void ensureLoaded();

// Every library the loader looked at, in search order.
const std::vector<BackendLibrary> &libraries();

// The loaded backend for a device type, or nullptr.
const infiniBackend_t *backendFor(int device_type);

// Number of devices of a loaded backend (0 when absent).
int deviceCount(int device_type);

// True when a backend's table has every collective entry (infiniccl).
bool hasCollectives(const infiniBackend_t *b);

}  // namespace infini::core

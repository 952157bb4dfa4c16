// runtime.cpp: devices (count and memory capacity from the environment), the live-handle tables.
#include "runtime.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace infini::cpu {
namespace {

constexpr int kDefaultDeviceCount = 2;
constexpr int kMaxDeviceCount = 64;
constexpr size_t kDefaultCapacity = size_t(8) << 30;

// Parses "8589934592", "8G", "512M", "64K" (binary units); false on anything else.
bool parseBytes(const char *text, size_t *out) {
    errno = 0;
    char *end = nullptr;
    unsigned long long v = std::strtoull(text, &end, 10);
    if (errno != 0 || end == text || text[0] == '-') return false;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, ++end;
    else if (*end == 'M' || *end == 'm')
        shift = 20, ++end;
    else if (*end == 'G' || *end == 'g')
        shift = 30, ++end;
    else if (*end == 'T' || *end == 't')
        shift = 40, ++end;
    if (*end == 'B' || *end == 'b') ++end;
    if (*end != '\0' || v == 0 || (shift && (v >> (64 - shift)) != 0)) return false;
    *out = static_cast<size_t>(v << shift);
    return true;
}

}  // namespace

Runtime &Runtime::get() {
    static Runtime *r = new Runtime();  // never destroyed: worker threads may outlive static destructors
    return *r;
}

int &Runtime::currentDevice() {
    thread_local int device = 0;
    return device;
}

infiniStatus_t Runtime::init() {
    int count = kDefaultDeviceCount;
    if (const char *env = std::getenv("INFINI_CPU_DEVICE_COUNT")) {
        char *end = nullptr;
        long v = std::strtol(env, &end, 10);
        if (end == env || *end != '\0' || v < 1 || v > kMaxDeviceCount) {
            return fail(INFINI_STATUS_BAD_PARAM, "INFINI_CPU_DEVICE_COUNT='%s' is not an integer in [1, %d]", env,
                        kMaxDeviceCount);
        }
        count = static_cast<int>(v);
    }
    size_t capacity = kDefaultCapacity;
    if (const char *env = std::getenv("INFINI_CPU_DEVICE_MEMORY")) {
        if (!parseBytes(env, &capacity)) {
            return fail(INFINI_STATUS_BAD_PARAM,
                        "INFINI_CPU_DEVICE_MEMORY='%s' is not a byte count such as 8589934592, 8G or 512M", env);
        }
    }
    for (int i = 0; i < count; ++i) {
        auto d = std::make_unique<Device>();
        d->id = i;
        d->capacity = capacity;
        d->default_stream = std::make_shared<Stream>(i);
        devices_.push_back(std::move(d));
    }
    return INFINI_STATUS_SUCCESS;
}

// The object a live handle of `table` names, else INVALID_HANDLE ("<what> %p is not a live <what>"); the caller
// holds handles_mu_.
template <typename T>
static infiniStatus_t findLive(const std::unordered_map<void *, std::shared_ptr<T>> &table, void *handle,
                               const char *what, std::shared_ptr<T> *out) {
    auto it = table.find(handle);
    if (it == table.end()) return fail(INFINI_STATUS_INVALID_HANDLE, "%s %p is not a live %s", what, handle, what);
    *out = it->second;
    return INFINI_STATUS_SUCCESS;
}

std::shared_ptr<Stream> Runtime::createStream(int device) {
    auto s = std::make_shared<Stream>(device);
    std::lock_guard<std::mutex> lock(handles_mu_);
    streams_.emplace(s.get(), s);
    return s;
}

infiniStatus_t Runtime::findStream(infinirtStream_t handle, std::shared_ptr<Stream> *out) {
    if (handle == nullptr) {
        *out = devices_[currentDevice()]->default_stream;
        return INFINI_STATUS_SUCCESS;
    }
    std::lock_guard<std::mutex> lock(handles_mu_);
    return findLive(streams_, handle, "stream", out);
}

infiniStatus_t Runtime::destroyStream(infinirtStream_t handle) {
    std::shared_ptr<Stream> s;
    {
        std::lock_guard<std::mutex> lock(handles_mu_);
        auto it = streams_.find(handle);
        if (it == streams_.end()) return fail(INFINI_STATUS_INVALID_HANDLE, "stream %p is not a live stream", handle);
        s = std::move(it->second);
        streams_.erase(it);
    }
    if (s->capturing()) {
        std::lock_guard<std::mutex> lock(handles_mu_);
        streams_.emplace(handle, s);
        return fail(INFINI_STATUS_CAPTURE_UNSUPPORTED, "stream %p is capturing; end the capture first", handle);
    }
    s->synchronize();
    return takeStreamError(*s);  // the worker stops when the last reference goes
}

infiniStatus_t Runtime::synchronizeDevice(int device) {
    std::vector<std::shared_ptr<Stream>> streams{devices_[device]->default_stream};
    {
        std::lock_guard<std::mutex> lock(handles_mu_);
        for (auto &kv : streams_) {
            if (kv.second->device() == device) streams.push_back(kv.second);
        }
    }
    infiniStatus_t result = INFINI_STATUS_SUCCESS;
    for (auto &s : streams) {
        if (infiniStatus_t st = refuseIfCapturing(*s, "synchronizing its device"); st != INFINI_STATUS_SUCCESS) {
            result = st;
        }
    }
    if (result != INFINI_STATUS_SUCCESS) return result;
    for (auto &s : streams) {
        s->synchronize();
        if (infiniStatus_t st = takeStreamError(*s); st != INFINI_STATUS_SUCCESS) result = st;
    }
    return result;
}

std::shared_ptr<Event> Runtime::createEvent(int device, uint32_t flags) {
    auto e = std::make_shared<Event>(device, flags);
    std::lock_guard<std::mutex> lock(handles_mu_);
    events_.emplace(e.get(), e);
    return e;
}

infiniStatus_t Runtime::findEvent(infinirtEvent_t handle, std::shared_ptr<Event> *out) {
    std::lock_guard<std::mutex> lock(handles_mu_);
    return findLive(events_, handle, "event", out);
}

infiniStatus_t Runtime::destroyEvent(infinirtEvent_t handle) {
    std::lock_guard<std::mutex> lock(handles_mu_);
    if (events_.erase(handle) == 0) return fail(INFINI_STATUS_INVALID_HANDLE, "event %p is not a live event", handle);
    return INFINI_STATUS_SUCCESS;  // records still queued keep the event alive until they run
}

infinirtGraph_t Runtime::addGraph(std::shared_ptr<Graph> graph) {
    infinirtGraph_t handle = graph.get();
    std::lock_guard<std::mutex> lock(handles_mu_);
    graphs_.emplace(handle, std::move(graph));
    return handle;
}

infiniStatus_t Runtime::findGraph(infinirtGraph_t handle, std::shared_ptr<Graph> *out) {
    std::lock_guard<std::mutex> lock(handles_mu_);
    return findLive(graphs_, handle, "graph", out);
}

infiniStatus_t Runtime::destroyGraph(infinirtGraph_t handle) {
    std::lock_guard<std::mutex> lock(handles_mu_);
    if (graphs_.erase(handle) == 0) return fail(INFINI_STATUS_INVALID_HANDLE, "graph %p is not a live graph", handle);
    return INFINI_STATUS_SUCCESS;  // launches already queued hold their own tasks
}

void completeEvent(Event &e, uint64_t version) {
    auto now = Clock::now();
    std::lock_guard<std::mutex> lock(e.mu);
    if (version > e.completed) {
        e.completed = version;
        e.time = now;
    }
    e.cv.notify_all();
}

infiniStatus_t refuseIfCapturing(Stream &stream, const char *what) {
    if (!stream.capturing()) return INFINI_STATUS_SUCCESS;
    char why[256];
    std::snprintf(why, sizeof(why), "%s is not allowed while a stream of cpu:%d is capturing a graph", what,
                  stream.device());
    stream.invalidateCapture(why);
    return fail(INFINI_STATUS_CAPTURE_UNSUPPORTED, "%s (the capture is invalidated)", why);
}

const std::pair<const uintptr_t, Allocation> *Runtime::findContaining(const void *p) {
    uintptr_t addr = reinterpret_cast<uintptr_t>(p);
    auto it = allocations.upper_bound(addr);
    if (it == allocations.begin()) return nullptr;
    --it;
    return addr - it->first < it->second.size ? &*it : nullptr;
}

infiniStatus_t takeStreamError(Stream &stream) {
    std::string e = stream.takeError();
    if (e.empty()) return INFINI_STATUS_SUCCESS;
    // families.h: an index a kernel found out of range is reported as BAD_PARAM, "index out of range"
    const infiniStatus_t status =
        e.find("index out of range") != std::string::npos ? INFINI_STATUS_BAD_PARAM : INFINI_STATUS_INTERNAL_ERROR;
    return fail(status, "asynchronous error on a stream of cpu:%d: %s", stream.device(), e.c_str());
}

}  // namespace infini::cpu

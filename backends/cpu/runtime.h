// runtime.h: the CPU backend's process-wide state: devices, live streams and events, allocations.
#pragma once

#include <infini/backend.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "../common/error.h"
#include "stream.h"

namespace infini::cpu {

using Clock = std::chrono::steady_clock;

// An event: each record gets a version; the version completes when the stream reaches it.
struct Event {
    Event(int device, uint32_t flags) : device(device), flags(flags) {}
    const int device;
    const uint32_t flags;
    std::mutex mu;
    std::condition_variable cv;
    uint64_t recorded = 0;   // versions handed out by record()
    uint64_t completed = 0;  // highest version that has run
    Clock::time_point time;  // when `completed` ran
    // The latest record was captured into a graph: it gets a version only when the graph is launched.
    bool captured = false;
    std::weak_ptr<Stream> capture_stream;  // the stream whose capture holds that record
};

// Marks the next record of e complete (run by the stream when it reaches the record).
void completeEvent(Event &e, uint64_t version);

struct Device {
    int id = 0;
    size_t capacity = 0;
    size_t allocated = 0;  // guarded by Runtime::mem_mu
    std::shared_ptr<Stream> default_stream;
};

struct Allocation {
    size_t size;
    int device;  // -1 for pinned host memory
};

class Runtime {
   public:
    static Runtime &get();

    infiniStatus_t init();
    int deviceCount() const { return static_cast<int>(devices_.size()); }
    Device &device(int id) { return *devices_[id]; }
    static int &currentDevice();  // this thread's current device

    // Streams and events: handles are the raw pointers; these turn a handle into a live object.
    std::shared_ptr<Stream> createStream(int device);
    infiniStatus_t findStream(infinirtStream_t handle, std::shared_ptr<Stream> *out);  // NULL: default stream
    infiniStatus_t destroyStream(infinirtStream_t handle);
    infiniStatus_t synchronizeDevice(int device);
    std::shared_ptr<Event> createEvent(int device, uint32_t flags);
    infiniStatus_t findEvent(infinirtEvent_t handle, std::shared_ptr<Event> *out);
    infiniStatus_t destroyEvent(infinirtEvent_t handle);
    infinirtGraph_t addGraph(std::shared_ptr<Graph> graph);
    infiniStatus_t findGraph(infinirtGraph_t handle, std::shared_ptr<Graph> *out);
    infiniStatus_t destroyGraph(infinirtGraph_t handle);

    // Allocations.
    std::mutex mem_mu;
    std::map<uintptr_t, Allocation> allocations;  // by base address
    // The allocation whose range holds p, or nullptr (mem_mu must be held).
    const std::pair<const uintptr_t, Allocation> *findContaining(const void *p);

   private:
    std::vector<std::unique_ptr<Device>> devices_;
    std::mutex handles_mu_;
    std::unordered_map<void *, std::shared_ptr<Stream>> streams_;
    std::unordered_map<void *, std::shared_ptr<Event>> events_;
    std::unordered_map<void *, std::shared_ptr<Graph>> graphs_;
};

// Fails with CAPTURE_UNSUPPORTED, invalidating the capture, when stream is capturing: `what` would wait for or
// depend on work that the capture only records.
infiniStatus_t refuseIfCapturing(Stream &stream, const char *what);

// The stream's sticky error, if a task failed since the last check, as a status.
infiniStatus_t takeStreamError(Stream &stream);

}  // namespace infini::cpu

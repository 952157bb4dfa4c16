// backend.cpp: the CPU backend's entry point: devices, streams, events and handles, and the table
// that the core loads.
#include <cstdio>
#include <exception>
#include <fstream>

#include "ccl.h"
#include "families/family.h"
#include "memory.h"
#include <infini/backend_fill.h>
#include "ops/ops.h"
#include "runtime.h"

namespace infini::cpu {
namespace {

const char *lastError() { return lastErrorMessage().c_str(); }

infiniStatus_t init() {
    // the kernels are built for x86-64-v3 (see CMakeLists.txt): refuse cleanly on older CPUs
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") || !__builtin_cpu_supports("f16c")) {
        return fail(INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED, "the cpu backend needs AVX2, FMA and F16C");
    }
    return Runtime::get().init();
}

infiniStatus_t getDeviceCount(int *count) {
    *count = Runtime::get().deviceCount();
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t setDevice(int id) {
    if (id < 0 || id >= Runtime::get().deviceCount())
        return fail(INFINI_STATUS_DEVICE_NOT_FOUND, "no device cpu:%d", id);
    Runtime::currentDevice() = id;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceSynchronize() { return Runtime::get().synchronizeDevice(Runtime::currentDevice()); }

const std::string &hostCpuName() {
    static const std::string name = [] {
        std::ifstream in("/proc/cpuinfo");
        std::string line;
        while (std::getline(in, line)) {
            if (line.rfind("model name", 0) == 0) {
                size_t colon = line.find(':');
                if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
            }
        }
        return std::string("host CPU");
    }();
    return name;
}

infiniStatus_t getDeviceName(int id, char *name, size_t len) {
    std::snprintf(name, len, "InfiniCore CPU device %d (%s)", id, hostCpuName().c_str());
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamCreate(infinirtStream_t *stream) {
    *stream = Runtime::get().createStream(Runtime::currentDevice()).get();
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamDestroy(infinirtStream_t stream) { return Runtime::get().destroyStream(stream); }

infiniStatus_t streamSynchronize(infinirtStream_t stream) {
    std::shared_ptr<Stream> s;
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    INFINI_RETURN_IF_ERROR(refuseIfCapturing(*s, "synchronizing a capturing stream"));
    s->synchronize();
    return takeStreamError(*s);
}

infiniStatus_t streamQuery(infinirtStream_t stream, infinirtEventStatus_t *status) {
    std::shared_ptr<Stream> s;
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    INFINI_RETURN_IF_ERROR(refuseIfCapturing(*s, "querying a capturing stream"));
    *status = s->idle() ? INFINIRT_EVENT_COMPLETE : INFINIRT_EVENT_NOT_READY;
    return INFINI_STATUS_SUCCESS;
}

// Refuses to use an event whose latest record was captured by a stream other than `user` (nullptr: any), as that
// record has no version until its graph is launched; the capture holding it is invalidated (e->mu held).
infiniStatus_t refuseCapturedEvent(Event &e, const Stream *user, const char *what) {
    if (!e.captured) return INFINI_STATUS_SUCCESS;
    std::shared_ptr<Stream> capturer = e.capture_stream.lock();
    if (user != nullptr && capturer.get() == user) return INFINI_STATUS_SUCCESS;
    std::string why = std::string(what) +
                      " of an event recorded during a stream capture is not allowed (the record happens only when "
                      "the graph is launched; the cpu backend captures one stream at a time)";
    if (capturer) capturer->invalidateCapture(why);
    return fail(INFINI_STATUS_CAPTURE_UNSUPPORTED, "%s", why.c_str());
}

// The task that makes a stream wait for version of e (nothing when version is 0: never recorded).
std::function<void()> waitTask(const std::shared_ptr<Event> &e, uint64_t version) {
    if (version == 0) return [] {};
    return [e, version] {
        std::unique_lock<std::mutex> lock(e->mu);
        e->cv.wait(lock, [&] { return e->completed >= version; });
    };
}

infiniStatus_t streamWaitEvent(infinirtStream_t stream, infinirtEvent_t event) {
    std::shared_ptr<Stream> s;
    std::shared_ptr<Event> e;
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    INFINI_RETURN_IF_ERROR(Runtime::get().findEvent(event, &e));
    uint64_t version;
    {
        std::lock_guard<std::mutex> lock(e->mu);
        INFINI_RETURN_IF_ERROR(refuseCapturedEvent(*e, s.get(), "waiting on a stream for the record"));
        version = e->recorded;
    }
    // captured: the launch waits for the record that is latest when the graph is launched
    if (s->capture([e] {
            std::lock_guard<std::mutex> lock(e->mu);
            return waitTask(e, e->recorded);
        })) {
        return INFINI_STATUS_SUCCESS;
    }
    if (version == 0) return INFINI_STATUS_SUCCESS;  // never recorded: nothing to wait for
    s->enqueue(waitTask(e, version));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t launchHostFunc(infinirtStream_t stream, void (*fn)(void *), void *user_data) {
    std::shared_ptr<Stream> s;
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    s->enqueue([fn, user_data] { fn(user_data); });
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventCreate(infinirtEvent_t *event, uint32_t flags) {
    *event = Runtime::get().createEvent(Runtime::currentDevice(), flags).get();
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventRecord(infinirtEvent_t event, infinirtStream_t stream) {
    std::shared_ptr<Stream> s;
    std::shared_ptr<Event> e;
    INFINI_RETURN_IF_ERROR(Runtime::get().findEvent(event, &e));
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    if (s->device() != e->device) {
        return fail(INFINI_STATUS_BAD_PARAM, "an event of cpu:%d cannot be recorded on a stream of cpu:%d", e->device,
                    s->device());
    }
    std::lock_guard<std::mutex> lock(e->mu);
    // captured: each launch records a new version
    if (s->capture([e] {
            std::lock_guard<std::mutex> lock(e->mu);
            const uint64_t version = ++e->recorded;
            e->captured = false;
            return std::function<void()>([e, version] { completeEvent(*e, version); });
        })) {
        e->captured = true;
        e->capture_stream = s;
        return INFINI_STATUS_SUCCESS;
    }
    const uint64_t version = ++e->recorded;
    e->captured = false;
    s->enqueue([e, version] { completeEvent(*e, version); });  // (the task locks e->mu when it runs)
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventQuery(infinirtEvent_t event, infinirtEventStatus_t *status) {
    std::shared_ptr<Event> e;
    INFINI_RETURN_IF_ERROR(Runtime::get().findEvent(event, &e));
    std::lock_guard<std::mutex> lock(e->mu);
    INFINI_RETURN_IF_ERROR(refuseCapturedEvent(*e, nullptr, "querying the record"));
    *status = e->completed >= e->recorded ? INFINIRT_EVENT_COMPLETE : INFINIRT_EVENT_NOT_READY;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventSynchronize(infinirtEvent_t event) {
    std::shared_ptr<Event> e;
    INFINI_RETURN_IF_ERROR(Runtime::get().findEvent(event, &e));
    std::unique_lock<std::mutex> lock(e->mu);
    INFINI_RETURN_IF_ERROR(refuseCapturedEvent(*e, nullptr, "synchronizing with the record"));
    uint64_t version = e->recorded;
    e->cv.wait(lock, [&] { return e->completed >= version; });
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventDestroy(infinirtEvent_t event) { return Runtime::get().destroyEvent(event); }

// The completion time of a finished timing event.
infiniStatus_t completedTime(const char *name, infinirtEvent_t handle, Clock::time_point *out) {
    std::shared_ptr<Event> e;
    INFINI_RETURN_IF_ERROR(Runtime::get().findEvent(handle, &e));
    if (e->flags & INFINIRT_EVENT_DISABLE_TIMING) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s event %p was created with INFINIRT_EVENT_DISABLE_TIMING", name,
                    handle);
    }
    std::lock_guard<std::mutex> lock(e->mu);
    INFINI_RETURN_IF_ERROR(refuseCapturedEvent(*e, nullptr, "timing the record"));
    if (e->recorded == 0) return fail(INFINI_STATUS_BAD_PARAM, "%s event %p was never recorded", name, handle);
    if (e->completed < e->recorded) {
        return fail(INFINI_STATUS_NOT_READY, "%s event %p has not completed yet", name, handle);
    }
    *out = e->time;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventElapsedTime(float *ms, infinirtEvent_t start, infinirtEvent_t end) {
    Clock::time_point t0, t1;
    INFINI_RETURN_IF_ERROR(completedTime("start", start, &t0));
    INFINI_RETURN_IF_ERROR(completedTime("end", end, &t1));
    *ms = std::chrono::duration<float, std::milli>(t1 - t0).count();
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamBeginCapture(infinirtStream_t stream, infinirtStreamCaptureMode_t) {
    std::shared_ptr<Stream> s;
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    if (!s->beginCapture()) return fail(INFINI_STATUS_BAD_PARAM, "stream %p is capturing already", stream);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamEndCapture(infinirtStream_t stream, infinirtGraph_t *graph) {
    std::shared_ptr<Stream> s;
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    std::string why;
    std::shared_ptr<Graph> g = s->endCapture(&why);
    if (!g) return fail(INFINI_STATUS_CAPTURE_UNSUPPORTED, "stream %p has no graph: %s", stream, why.c_str());
    *graph = Runtime::get().addGraph(std::move(g));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamIsCapturing(infinirtStream_t stream, infinirtStreamCaptureStatus_t *status) {
    std::shared_ptr<Stream> s;
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    *status = static_cast<infinirtStreamCaptureStatus_t>(s->captureStatus());
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t graphLaunch(infinirtGraph_t graph, infinirtStream_t stream) {
    std::shared_ptr<Graph> g;
    std::shared_ptr<Stream> s;
    INFINI_RETURN_IF_ERROR(Runtime::get().findGraph(graph, &g));
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    if (s->device() != g->device) {
        return fail(INFINI_STATUS_BAD_PARAM, "a graph captured on cpu:%d cannot be launched on a stream of cpu:%d",
                    g->device, s->device());
    }
    if (s->capturing()) {  // launched into a capture: its nodes become part of that graph
        for (const GraphNode &node : g->nodes) s->capture(node);
        return INFINI_STATUS_SUCCESS;
    }
    std::vector<std::function<void()>> tasks;
    tasks.reserve(g->nodes.size());
    for (const GraphNode &node : g->nodes) tasks.push_back(node());
    // every task runs (a later event record must not be lost to an earlier failure); the first failure is raised
    s->enqueue([tasks = std::move(tasks)] {
        std::exception_ptr first;
        for (const auto &task : tasks) {
            try {
                task();
            } catch (...) {
                if (!first) first = std::current_exception();
            }
        }
        if (first) std::rethrow_exception(first);
    });
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t graphDestroy(infinirtGraph_t graph) { return Runtime::get().destroyGraph(graph); }

struct CpuHandle {
    InfiniopHandle header;
};

infiniStatus_t createHandle(infiniopHandle_t *handle) {
    auto *h = new CpuHandle{{INFINI_DEVICE_CPU, Runtime::currentDevice()}};
    *handle = &h->header;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t destroyHandle(infiniopHandle_t handle) {
    delete reinterpret_cast<CpuHandle *>(handle);
    return INFINI_STATUS_SUCCESS;
}

infiniBackend_t makeTable() {
    infiniBackend_t t{};
    t.abi_version = INFINI_BACKEND_ABI_VERSION;
    t.struct_size = sizeof(infiniBackend_t);
    t.device_type = INFINI_DEVICE_CPU;
    t.name = "cpu";
    INFINI_BACKEND_FILL_RUNTIME(t, ops::createOp);
    INFINI_BACKEND_FILL_GRAPH(t);
    fillCclTable(t);
    t.family = families::family;
    return t;
}

}  // namespace
}  // namespace infini::cpu

extern "C" INFINI_EXPORT const infiniBackend_t *infiniBackendGetV1(void) {
    static const infiniBackend_t table = infini::cpu::makeTable();
    return &table;
}

#include "InfiniGraph.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

#include "InfiniAllocator.h"
#include "InfiniFunctions.h"
#include "InfiniStream.h"

namespace infini_torch {
namespace {

std::atomic<c10::CaptureId_t> g_next_id{1};

// The streams capturing through an InfiniGraph, as (device, stream id).
std::mutex g_capturing_mu;
std::vector<std::pair<c10::DeviceIndex, c10::StreamId>> g_capturing;
std::atomic<int> g_capture_count{0};

void markCapturing(c10::DeviceIndex device, c10::StreamId stream, bool on) {
    std::lock_guard<std::mutex> lock(g_capturing_mu);
    auto key = std::make_pair(device, stream);
    if (on) {
        g_capturing.push_back(key);
        g_capture_count += 1;
        return;
    }
    auto it = std::find(g_capturing.begin(), g_capturing.end(), key);
    if (it == g_capturing.end()) return;
    g_capturing.erase(it);
    g_capture_count -= 1;
}

infinirtStreamCaptureMode_t captureMode(const std::string &mode) {
    if (mode == "global") return INFINIRT_STREAM_CAPTURE_MODE_GLOBAL;
    if (mode == "thread_local") return INFINIRT_STREAM_CAPTURE_MODE_THREAD_LOCAL;
    if (mode == "relaxed") return INFINIRT_STREAM_CAPTURE_MODE_RELAXED;
    TORCH_CHECK(false, "infini: capture_error_mode must be \"global\", \"thread_local\" or \"relaxed\", not \"", mode,
                "\"");
    return INFINIRT_STREAM_CAPTURE_MODE_GLOBAL;
}

// Makes a device current for the scope.
struct OnDevice {
    explicit OnDevice(c10::DeviceIndex device) : previous(ExchangeDevice(device)) {}
    ~OnDevice() {
        try {
            set_device(previous);
        } catch (...) {
        }
    }
    c10::DeviceIndex previous;
};

}  // namespace

c10::MempoolId_t graphPoolHandle() { return {0, g_next_id.fetch_add(1)}; }

bool currentStreamCapturing(c10::DeviceIndex device) {
    if (g_capture_count.load(std::memory_order_relaxed) == 0) return false;
    c10::Stream stream = getCurrentStream(device);
    std::lock_guard<std::mutex> lock(g_capturing_mu);
    return std::find(g_capturing.begin(), g_capturing.end(), std::make_pair(stream.device_index(), stream.id())) !=
           g_capturing.end();
}

InfiniGraph::~InfiniGraph() {
    try {
        reset();
    } catch (...) {
    }
}

void InfiniGraph::capture_begin(c10::MempoolId_t pool, const std::string &mode) {
    TORCH_CHECK(!capturing_, "infini: this graph is capturing already");
    TORCH_CHECK(graph_ == nullptr, "infini: this graph holds a capture already; reset() it before capturing again");
    infinirtStreamCaptureMode_t capture_mode = captureMode(mode);
    lazy_init();
    c10::DeviceIndex device = current_device();
    c10::Stream stream = getCurrentStream(device);
    TORCH_CHECK(stream.id() != 0,
                "infini: graphs cannot be captured on the default stream; capture on another stream "
                "(torch.infini.graph does, or `with torch.infini.stream(torch.infini.Stream()):`)");
    const bool shared = pool.first != 0 || pool.second != 0;
    c10::MempoolId_t id = shared ? pool : c10::MempoolId_t{g_next_id.fetch_add(1), 0};
    beginAllocateToPool(device, id, stream.id());
    infiniStatus_t status = infinirtStreamBeginCapture(native_stream(stream), capture_mode);
    if (status != INFINI_STATUS_SUCCESS) {
        endAllocateToPool(device, id, stream.id());
        releasePool(device, id);
        INFINI_CHECK(status);
    }
    markCapturing(device, stream.id(), true);
    capturing_ = true;
    device_ = device;
    stream_ = stream;
    pool_ = id;
}

infiniStatus_t InfiniGraph::endCapture(infinirtGraph_t *graph) {
    OnDevice on(device_);
    infiniStatus_t status = infinirtStreamEndCapture(native_stream(*stream_), graph);
    capturing_ = false;
    markCapturing(device_, stream_->id(), false);
    endAllocateToPool(device_, pool_, stream_->id());
    return status;
}

void InfiniGraph::capture_end() {
    TORCH_CHECK(capturing_, "infini: capture_end() without capture_begin()");
    infinirtGraph_t graph = nullptr;
    infiniStatus_t status = endCapture(&graph);
    if (status != INFINI_STATUS_SUCCESS) {
        std::string why = infiniGetLastErrorMessage();
        releasePool(device_, pool_);
        TORCH_CHECK(false, "infini: the graph capture failed: ", why, " [", infiniGetStatusString(status), "]");
    }
    graph_ = graph;
}

void InfiniGraph::replay() {
    TORCH_CHECK(graph_ != nullptr, "infini: replay() of a graph that holds no capture (capture it first)");
    OnDevice on(device_);
    INFINI_CHECK(infinirtGraphLaunch(graph_, native_stream(getCurrentStream(device_))));
}

void InfiniGraph::reset() {
    if (capturing_) {  // abandoned: whatever the capture recorded is dropped
        infinirtGraph_t graph = nullptr;
        if (endCapture(&graph) == INFINI_STATUS_SUCCESS && graph != nullptr) {
            OnDevice on(device_);
            infinirtGraphDestroy(graph);
        }
        releasePool(device_, pool_);
        return;
    }
    if (graph_ == nullptr) return;
    infiniStatus_t status;
    {
        OnDevice on(device_);
        status = infinirtGraphDestroy(graph_);
    }
    graph_ = nullptr;
    releasePool(device_, pool_);
    INFINI_CHECK(status);
}

c10::MempoolId_t InfiniGraph::pool() const {
    TORCH_CHECK(capturing_ || graph_ != nullptr, "infini: pool() of a graph that has not captured");
    return pool_;
}

}  // namespace infini_torch

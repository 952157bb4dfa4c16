// InfiniGraph.h: torch.infini graphs: work captured from a stream (infinirtStreamBeginCapture) and replayed.
//
// The shape of torch.cuda.CUDAGraph. capture_begin() starts capturing the current stream of the current device
// (not its default stream) and routes that stream's allocations to a private pool of the caching allocator
// (InfiniAllocator.h): a new one, or a pool shared with other graphs (graph_pool_handle()). capture_end() makes
// the graph; replay() launches it on the current stream; reset() (and the destructor) destroys it and drops its
// hold on the pool. Tensors allocated during the capture live in the pool, and a replay writes them in place.
// Graphs sharing a pool must be replayed in the order they were captured, as with torch.cuda.
//
// Random ops cannot be captured: the infini generator hands kernels its (seed, offset) by value, so a replay
// would draw the same numbers each time; they raise while the current stream is capturing.
#pragma once

#include <c10/core/Stream.h>
#include <c10/core/Allocator.h>

#include <infini/infinirt.h>

#include <optional>
#include <string>

namespace infini_torch {

class InfiniGraph {
   public:
    InfiniGraph() = default;
    ~InfiniGraph();
    InfiniGraph(const InfiniGraph &) = delete;
    InfiniGraph &operator=(const InfiniGraph &) = delete;

    // pool {0, 0}: a private pool of its own. mode: "global", "thread_local" or "relaxed" (infinirt.h).
    void capture_begin(c10::MempoolId_t pool = {0, 0}, const std::string &mode = "global");
    void capture_end();
    void replay();
    // Destroys the graph, or abandons a capture underway; the graph can then capture again.
    void reset();
    c10::MempoolId_t pool() const;

   private:
    // Ends the capture on its stream and stops the routing of its allocations; the status of the end.
    infiniStatus_t endCapture(infinirtGraph_t *graph);

    infinirtGraph_t graph_ = nullptr;
    bool capturing_ = false;
    c10::DeviceIndex device_ = -1;
    std::optional<c10::Stream> stream_;  // the stream captured
    c10::MempoolId_t pool_{0, 0};
};

// A new id for a private pool that graphs can share.
c10::MempoolId_t graphPoolHandle();

// True while the calling thread's current stream of `device` is capturing through an InfiniGraph.
bool currentStreamCapturing(c10::DeviceIndex device);

}  // namespace infini_torch

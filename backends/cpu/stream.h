// stream.h: a CPU-backend stream, an ordered queue of tasks run by one worker thread.
//
// enqueue() returns at once; tasks run one after another in enqueue order. A task that throws
// leaves a sticky error on the stream, reported by the next synchronization (as a device fault would be).
//
// Capture: between beginCapture() and endCapture(), enqueue() records tasks into a Graph instead of queueing
// them. A Graph is a list of nodes; a node is prepared at each launch (an event record takes its version then)
// and the prepared tasks of one launch run as one task, in capture order.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace infini::cpu {

// A captured node: called when the graph is launched, returns the task that the launch runs.
using GraphNode = std::function<std::function<void()>()>;

struct Graph {
    explicit Graph(int device) : device(device) {}
    const int device;
    std::vector<GraphNode> nodes;
};

class Stream {
   public:
    explicit Stream(int device);
    ~Stream();  // runs what is queued, then stops the worker
    Stream(const Stream &) = delete;
    Stream &operator=(const Stream &) = delete;

    int device() const { return device_; }

    // Queues a task; returns its sequence number (1, 2, ...).
    uint64_t enqueue(std::function<void()> task);
    // Blocks until the task with sequence number seq (and all before it) has run.
    void waitFor(uint64_t seq);
    // Blocks until everything queued so far has run.
    void synchronize();
    // True when everything queued so far has run.
    bool idle();
    // The first error a task raised since the last call, or "" (and clears it).
    std::string takeError();

    // Starts recording; false when the stream is capturing already.
    bool beginCapture();
    // Stops recording: the graph, or nullptr with *why set when a refused call invalidated the capture (or the
    // stream was not capturing).
    std::shared_ptr<Graph> endCapture(std::string *why);
    // 0: not capturing, 1: capturing, 2: capturing but invalidated (infinirtStreamCaptureStatus_t's values).
    int captureStatus();
    bool capturing() { return captureStatus() != 0; }
    // Records node when capturing (true); false when not, and the caller does the work itself.
    bool capture(GraphNode node);
    // Marks the ongoing capture invalid with the first reason given (a no-op when not capturing).
    void invalidateCapture(const std::string &why);

   private:
    void run();

    const int device_;
    std::mutex mu_;
    std::condition_variable has_work_;
    std::condition_variable done_;
    std::deque<std::function<void()>> queue_;
    uint64_t enqueued_ = 0;
    uint64_t completed_ = 0;
    bool stopping_ = false;
    std::string error_;
    std::shared_ptr<Graph> capture_;  // the graph being recorded, or nullptr
    std::string capture_error_;       // why the ongoing capture is invalid, or ""
    std::thread worker_;              // last: starts after the members above exist
};

}  // namespace infini::cpu

// stream.h: a CPU-backend stream, an ordered queue of tasks run by one worker thread.
//
// enqueue() returns at once; tasks run one after another in enqueue order. A task that throws
// leaves a sticky error on the stream, reported by the next synchronization (as a device fault would be).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace infini::cpu {

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
    std::thread worker_;  // last: starts after the members above exist
};

}  // namespace infini::cpu

// Watchdog.h: the fault monitor of one ProcessGroupInfiniCCL.
//
// A thread per group (started with its first communicator) that, every poll period, asks each
// communicator for its async error and each issued work whether its end event has been reached. A
// communicator error, or a work not reached within the group's timeout (counted from when it was
// issued), fails the group: every watched work is marked failed with the reason (so Work::wait raises
// DistBackendError), then every communicator of the group is aborted (infinicclCommAbort: kernels and
// queued work that wait for a dead peer end), and every later collective of the group raises the same
// reason. ProcessGroup.abort() fails the group the same way. The issuing thread only appends the work to
// a list; completion is observed through events, never by synchronizing streams.
#pragma once

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include <infini/infiniccl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace infini_torch::distributed {

// The end of one collective, or of a coalescing block (whose calls share it). `end` (an event recorded on
// the communication stream after the work), `future`, `device`, `op`, `comm` and `issued` are set when the
// work has been issued (for a coalescing block: at its end) and do not change afterwards. The failure is
// set at most once (later reasons are dropped).
struct Completion {
    c10::Device device{c10::DeviceType::PrivateUse1, 0};
    infinirtEvent_t end = nullptr;
    c10::intrusive_ptr<c10::ivalue::Future> future;
    std::string op;  // the collective, as messages name it
    infinicclComm_t comm = nullptr;
    std::chrono::steady_clock::time_point issued;

    Completion() = default;
    Completion(const Completion &) = delete;
    Completion &operator=(const Completion &) = delete;
    ~Completion();

    // Whether the end event has been reached; an event that cannot be queried counts as reached (the
    // communicator's async error then tells why). Never throws.
    bool reached() const;
    bool failed() const { return failed_.load(std::memory_order_acquire); }
    // The failure's reason ("" while the work has not failed).
    std::string failure() const;
    void setFailure(const std::string &reason);

   private:
    mutable std::mutex mu_;
    std::atomic<bool> failed_{false};
    std::string reason_;
};

class Watchdog {
   public:
    Watchdog(int rank, std::chrono::milliseconds timeout);
    ~Watchdog();
    Watchdog(const Watchdog &) = delete;
    Watchdog &operator=(const Watchdog &) = delete;

    void setTimeout(std::chrono::milliseconds timeout);
    // A communicator of the group (on `device`): polled for async errors, aborted when the group fails.
    // Starts the thread with the first one.
    void addComm(infinicclComm_t comm, c10::Device device);
    // Watches an issued work until its end event is reached or the group fails.
    void watch(std::shared_ptr<Completion> work);
    // Fails the group with `reason` (the first reason stays): marks the watched works that have not completed
    // failed, then aborts every communicator. Any thread; the first caller returns once the aborts have.
    void failGroup(const std::string &reason);
    bool failed() const { return failed_.load(std::memory_order_acquire); }
    // The group's failure reason ("" while healthy).
    std::string failure() const;
    // Stops and joins the thread (idempotent); the watched works are dropped (not failed).
    void stop();

   private:
    void loop();
    // One round of checks; returns the failure reason found, or "".
    std::string check(const std::vector<std::pair<infinicclComm_t, c10::Device>> &comms,
                      std::vector<std::shared_ptr<Completion>> &works, std::chrono::milliseconds timeout);

    const int rank_;
    mutable std::mutex mu_;  // guards everything below but failed_ and the failure (fail_mu_)
    std::condition_variable cv_;
    std::chrono::milliseconds timeout_;
    std::vector<std::pair<infinicclComm_t, c10::Device>> comms_;
    std::vector<std::shared_ptr<Completion>> works_;
    std::thread thread_;
    bool stop_ = false;

    mutable std::mutex fail_mu_;  // held by failGroup while it aborts; guards reason_
    std::atomic<bool> failed_{false};
    std::string reason_;
};

}  // namespace infini_torch::distributed

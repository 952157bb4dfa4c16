// Watchdog.cpp: see Watchdog.h.
#include "Watchdog.h"

#include <c10/core/DeviceGuard.h>
#include <c10/util/StringUtil.h>

#include <algorithm>

namespace infini_torch::distributed {

Completion::~Completion() {
    if (end == nullptr) return;
    try {
        c10::DeviceGuard guard(device);
        infinirtEventDestroy(end);
    } catch (...) {  // a destructor does not throw; the event is lost at worst
    }
}

bool Completion::reached() const {
    if (end == nullptr) return false;
    try {
        c10::DeviceGuard guard(device);
        infinirtEventStatus_t status;
        if (infinirtEventQuery(end, &status) != INFINI_STATUS_SUCCESS) return true;
        return status == INFINIRT_EVENT_COMPLETE;
    } catch (...) {  // the device cannot be set: the event cannot be queried either
        return true;
    }
}

std::string Completion::failure() const {
    if (!failed()) return "";
    std::lock_guard<std::mutex> lock(mu_);
    return reason_;
}

void Completion::setFailure(const std::string &reason) {
    std::lock_guard<std::mutex> lock(mu_);
    if (failed_.load(std::memory_order_relaxed)) return;
    reason_ = reason;
    failed_.store(true, std::memory_order_release);
}

Watchdog::Watchdog(int rank, std::chrono::milliseconds timeout) : rank_(rank), timeout_(timeout) {}

Watchdog::~Watchdog() { stop(); }

void Watchdog::setTimeout(std::chrono::milliseconds timeout) {
    std::lock_guard<std::mutex> lock(mu_);
    timeout_ = timeout;
}

void Watchdog::addComm(infinicclComm_t comm, c10::Device device) {
    std::lock_guard<std::mutex> lock(mu_);
    comms_.emplace_back(comm, device);
    if (!thread_.joinable() && !stop_) thread_ = std::thread([this] { loop(); });
}

void Watchdog::watch(std::shared_ptr<Completion> work) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (!failed()) {
            works_.push_back(std::move(work));
            return;
        }
    }
    work->setFailure(failure());  // issued while the group was failing: failGroup may not have seen it
}

std::string Watchdog::failure() const {
    std::lock_guard<std::mutex> lock(fail_mu_);
    return reason_;
}

void Watchdog::failGroup(const std::string &reason) {
    {
        std::lock_guard<std::mutex> lock(fail_mu_);
        if (failed()) return;
        reason_ = reason;
        failed_.store(true, std::memory_order_release);
    }
    std::vector<std::pair<infinicclComm_t, c10::Device>> comms;
    std::vector<std::shared_ptr<Completion>> works;
    {
        std::lock_guard<std::mutex> lock(mu_);
        comms = comms_;
        works.swap(works_);
    }
    // works first: a wait() that returns because an abort ended its work must find the reason already set.
    // A work that completed before the failure keeps its success.
    for (auto &w : works) {
        if (!w->reached()) w->setFailure(reason);
    }
    for (auto &[comm, device] : comms) {
        try {
            c10::DeviceGuard guard(device);
            infinicclCommAbort(comm);  // NOT_IMPLEMENTED on a backend without abort: its work fails by itself
        } catch (...) {                // the device cannot be set: the other communicators are still aborted
        }
    }
    cv_.notify_all();
}

void Watchdog::stop() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
    std::lock_guard<std::mutex> lock(mu_);
    works_.clear();
}

void Watchdog::loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_ && !failed()) {
        const auto period = std::clamp(timeout_ / 10, std::chrono::milliseconds(1), std::chrono::milliseconds(100));
        cv_.wait_for(lock, period, [&] { return stop_ || failed(); });
        if (stop_ || failed()) break;
        const auto comms = comms_;
        const auto timeout = timeout_;
        std::vector<std::shared_ptr<Completion>> works;
        works.swap(works_);
        lock.unlock();
        std::string reason;
        try {
            reason = check(comms, works, timeout);
        } catch (const std::exception &e) {
            reason = c10::str("infiniccl: the watchdog of rank ", rank_, " could not check the group: ", e.what());
        }
        lock.lock();
        works_.insert(works_.begin(), std::make_move_iterator(works.begin()), std::make_move_iterator(works.end()));
        if (!reason.empty()) {
            lock.unlock();
            failGroup(reason);
            lock.lock();
        }
    }
    // a group failed by another thread while this round held some works: they fail too
    std::vector<std::shared_ptr<Completion>> left;
    if (failed()) left.swap(works_);
    lock.unlock();
    if (!left.empty()) {
        const std::string reason = failure();
        for (auto &w : left) {
            if (!w->reached()) w->setFailure(reason);
        }
    }
}

std::string Watchdog::check(const std::vector<std::pair<infinicclComm_t, c10::Device>> &comms,
                            std::vector<std::shared_ptr<Completion>> &works, std::chrono::milliseconds timeout) {
    for (const auto &[comm, device] : comms) {
        c10::DeviceGuard guard(device);
        infiniStatus_t error = INFINI_STATUS_SUCCESS;
        if (infinicclCommGetAsyncError(comm, &error) == INFINI_STATUS_SUCCESS && error != INFINI_STATUS_SUCCESS) {
            return c10::str("infiniccl: the communicator of rank ", rank_, " on ", device,
                            " failed: ", infiniGetLastErrorMessage(), " [", infiniGetStatusString(error),
                            "]; the group's communicators were aborted");
        }
    }
    const auto now = std::chrono::steady_clock::now();
    std::string reason;
    for (auto it = works.begin(); it != works.end();) {
        c10::DeviceGuard guard((*it)->device);  // a reached work is released (its event destroyed) under it
        if ((*it)->reached()) {
            it = works.erase(it);
            continue;
        }
        if (reason.empty() && now - (*it)->issued >= timeout) {
            reason = c10::str("infiniccl ", (*it)->op, ": timed out after ", timeout.count(),
                              " ms (the group's timeout) waiting for the collective to complete on rank ", rank_,
                              " (a peer exited, hung or did not issue it); the group's communicators were aborted");
        }
        ++it;
    }
    return reason;
}

}  // namespace infini_torch::distributed

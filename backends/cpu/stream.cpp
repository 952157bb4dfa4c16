#include "stream.h"

#include <exception>

namespace infini::cpu {

Stream::Stream(int device) : device_(device), worker_([this] { run(); }) {}

Stream::~Stream() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
    }
    has_work_.notify_one();
    worker_.join();
}

uint64_t Stream::enqueue(std::function<void()> task) {
    uint64_t seq;
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (capture_) {
            capture_->nodes.push_back([task = std::move(task)] { return task; });
            return 0;
        }
        queue_.push_back(std::move(task));
        seq = ++enqueued_;
    }
    has_work_.notify_one();
    return seq;
}

void Stream::waitFor(uint64_t seq) {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return completed_ >= seq; });
}

void Stream::synchronize() {
    std::unique_lock<std::mutex> lock(mu_);
    uint64_t target = enqueued_;
    done_.wait(lock, [&] { return completed_ >= target; });
}

bool Stream::idle() {
    std::lock_guard<std::mutex> lock(mu_);
    return completed_ == enqueued_;
}

std::string Stream::takeError() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string e;
    e.swap(error_);
    return e;
}

bool Stream::beginCapture() {
    std::lock_guard<std::mutex> lock(mu_);
    if (capture_) return false;
    capture_ = std::make_shared<Graph>(device_);
    capture_error_.clear();
    return true;
}

std::shared_ptr<Graph> Stream::endCapture(std::string *why) {
    std::lock_guard<std::mutex> lock(mu_);
    std::shared_ptr<Graph> g = std::move(capture_);
    capture_ = nullptr;
    if (!g) {
        *why = "the stream is not capturing";
        return nullptr;
    }
    if (!capture_error_.empty()) {
        why->swap(capture_error_);
        capture_error_.clear();
        return nullptr;
    }
    return g;
}

int Stream::captureStatus() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!capture_) return 0;
    return capture_error_.empty() ? 1 : 2;
}

bool Stream::capture(GraphNode node) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!capture_) return false;
    capture_->nodes.push_back(std::move(node));
    return true;
}

void Stream::invalidateCapture(const std::string &why) {
    std::lock_guard<std::mutex> lock(mu_);
    if (capture_ && capture_error_.empty()) capture_error_ = why;
}

void Stream::run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
        has_work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping and drained
        std::function<void()> task = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        std::string failure;
        try {
            task();
        } catch (const std::exception &e) {
            failure = e.what();
        } catch (...) {
            failure = "unknown exception in a stream task";
        }
        task = nullptr;  // release what the task captured before reporting completion
        lock.lock();
        if (!failure.empty() && error_.empty()) error_ = failure;
        ++completed_;
        done_.notify_all();
    }
}

}  // namespace infini::cpu

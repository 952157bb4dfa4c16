// live_set.h: the set of live objects of one kind (handles, descriptors), so that a call can tell a
// live object from a stale or foreign pointer and answer with an error status instead of crashing.
#pragma once

#include <mutex>
#include <unordered_set>

namespace infini::core {

template <typename T>
class LiveSet {
   public:
    void add(T p) {
        std::lock_guard<std::mutex> lock(mu_);
        live_.insert(p);
    }
    bool contains(T p) {
        std::lock_guard<std::mutex> lock(mu_);
        return live_.count(p) != 0;
    }
    bool remove(T p) {
        std::lock_guard<std::mutex> lock(mu_);
        return live_.erase(p) != 0;
    }

   private:
    std::mutex mu_;
    std::unordered_set<T> live_;
};

// The live handles and tensor descriptors (owned by infiniop.cpp).
LiveSet<infiniopHandle_t> &liveHandles();
LiveSet<infiniopTensorDescriptor_t> &liveTensorDescriptors();

}  // namespace infini::core

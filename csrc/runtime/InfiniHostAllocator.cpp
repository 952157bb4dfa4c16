#include "InfiniHostAllocator.h"

#include <c10/util/flat_hash_map.h>
#include <c10/util/llvmMathExtras.h>

#include <deque>
#include <map>
#include <mutex>
#include <vector>

#include "InfiniFunctions.h"
#include "InfiniStream.h"

namespace infini_torch {
namespace {

struct HostBlock {
    size_t size;
    bool allocated = false;
    int pending = 0;  // events to wait for before reuse
    std::vector<c10::Stream> uses;
};

class PinnedAllocator final : public c10::Allocator {
   public:
    c10::DataPtr allocate(size_t nbytes) override {
        if (nbytes == 0) return {nullptr, nullptr, &noop, c10::Device(c10::DeviceType::CPU)};
        lazy_init();
        current_device();  // routes the infinirt calls below to the infini backend
        size_t size = c10::llvm::PowerOf2Ceil(std::max<size_t>(nbytes, 512));
        std::lock_guard<std::mutex> lock(mu_);
        processEvents();
        void *ptr = nullptr;
        auto &bucket = free_[size];
        if (!bucket.empty()) {
            ptr = bucket.back();
            bucket.pop_back();
        } else {
            infiniStatus_t status = infinirtMallocHost(&ptr, size);
            if (status == INFINI_STATUS_OUT_OF_MEMORY) {
                releaseFree();
                status = infinirtMallocHost(&ptr, size);
            }
            INFINI_CHECK(status);
            blocks_[ptr] = HostBlock{size};
        }
        blocks_[ptr].allocated = true;
        return {ptr, ptr, &deleteBlock, c10::Device(c10::DeviceType::CPU)};
    }

    c10::DeleterFnPtr raw_deleter() const override { return &deleteBlock; }

    void copy_data(void *dest, const void *src, std::size_t count) const override { std::memcpy(dest, src, count); }

    void free(void *ptr) {
        std::lock_guard<std::mutex> lock(mu_);
        HostBlock &b = blocks_.at(ptr);
        b.allocated = false;
        if (b.uses.empty()) {
            free_[b.size].push_back(ptr);
            return;
        }
        current_device();
        if (anyCapturing(b.uses)) {  // an event recorded now would be captured: record it once the capture ends
            deferred_.push_back(ptr);
            return;
        }
        recordUseEvents(ptr, b);
    }

    // Records an event on each stream that used the block; the block is reused once they complete.
    void recordUseEvents(void *ptr, HostBlock &b) {
        for (const c10::Stream &s : b.uses) {
            c10::DeviceIndex previous = ExchangeDevice(s.device_index());
            infinirtEvent_t e = nullptr;
            INFINI_CHECK(infinirtEventCreateWithFlags(&e, INFINIRT_EVENT_DISABLE_TIMING));
            INFINI_CHECK(infinirtEventRecord(e, native_stream(s)));
            set_device(previous);
            b.pending += 1;
            events_.emplace_back(e, ptr);
        }
        b.uses.clear();
    }

    bool owns(const void *p) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = blocks_.upper_bound(const_cast<void *>(p));
        if (it == blocks_.begin()) return false;
        --it;
        return static_cast<const char *>(p) < static_cast<const char *>(it->first) + it->second.size;
    }

    void recordUse(const void *p, const c10::Stream &stream) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = blocks_.upper_bound(const_cast<void *>(p));
        if (it == blocks_.begin()) return;
        --it;
        if (static_cast<const char *>(p) >= static_cast<const char *>(it->first) + it->second.size) return;
        auto &uses = it->second.uses;
        if (std::find(uses.begin(), uses.end(), stream) == uses.end()) uses.push_back(stream);
    }

    void emptyCache() {
        std::lock_guard<std::mutex> lock(mu_);
        processEvents();
        releaseFree();
    }

   private:
    static void noop(void *) {}
    static void deleteBlock(void *ptr);

    static bool anyCapturing(const std::vector<c10::Stream> &streams) {
        for (const c10::Stream &s : streams) {
            c10::DeviceIndex previous = ExchangeDevice(s.device_index());
            infinirtStreamCaptureStatus_t status = INFINIRT_STREAM_CAPTURE_STATUS_NONE;
            infiniStatus_t rc = infinirtStreamIsCapturing(native_stream(s), &status);
            set_device(previous);
            if (rc == INFINI_STATUS_SUCCESS && status != INFINIRT_STREAM_CAPTURE_STATUS_NONE) return true;
        }
        return false;
    }

    void processEvents() {
        for (auto it = deferred_.begin(); it != deferred_.end();) {
            HostBlock &b = blocks_.at(*it);
            if (anyCapturing(b.uses)) {
                ++it;
                continue;
            }
            recordUseEvents(*it, b);
            it = deferred_.erase(it);
        }
        while (!events_.empty()) {
            auto [e, ptr] = events_.front();
            infinirtEventStatus_t st;
            INFINI_CHECK(infinirtEventQuery(e, &st));
            if (st != INFINIRT_EVENT_COMPLETE) break;
            events_.pop_front();
            INFINI_CHECK(infinirtEventDestroy(e));
            HostBlock &b = blocks_.at(ptr);
            if (--b.pending == 0 && !b.allocated) free_[b.size].push_back(ptr);
        }
    }

    void releaseFree() {
        current_device();
        for (auto &[size, ptrs] : free_) {
            for (void *p : ptrs) {
                INFINI_CHECK(infinirtFreeHost(p));
                blocks_.erase(p);
            }
            ptrs.clear();
        }
    }

    std::mutex mu_;
    std::map<void *, HostBlock> blocks_;  // by address, for lookups of interior pointers
    std::map<size_t, std::vector<void *>> free_;
    std::deque<std::pair<infinirtEvent_t, void *>> events_;
    std::vector<void *> deferred_;  // freed while a stream that used them was capturing
};

PinnedAllocator g_pinned;

void PinnedAllocator::deleteBlock(void *ptr) { g_pinned.free(ptr); }

}  // namespace

c10::Allocator *getPinnedAllocator() { return &g_pinned; }

bool isPinnedPtr(const void *ptr) { return ptr != nullptr && g_pinned.owns(ptr); }

void recordPinnedUse(const void *ptr, const c10::Stream &stream) { g_pinned.recordUse(ptr, stream); }

void emptyPinnedCache() { g_pinned.emptyCache(); }

}  // namespace infini_torch

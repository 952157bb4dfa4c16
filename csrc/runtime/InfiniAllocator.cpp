#include "InfiniAllocator.h"

#include <c10/util/flat_hash_map.h>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "InfiniFunctions.h"
#include "InfiniStream.h"

namespace infini_torch {
namespace {

using c10::CachingDeviceAllocator::DeviceStats;
using c10::CachingDeviceAllocator::StatArray;

constexpr size_t kMinBlockSize = 512;        // every size is rounded up to this
constexpr size_t kSmallSize = 1 << 20;       // requests up to this use the small pool
constexpr size_t kSmallBuffer = 2 << 20;     // small-pool segment size
constexpr size_t kLargeBuffer = 20 << 20;    // segment size for requests in (1 MiB, 10 MiB)
constexpr size_t kMinLargeAlloc = 10 << 20;  // at and above this, one segment per request
constexpr size_t kRoundLarge = 2 << 20;      // large segments are rounded to this

struct Block;
struct PrivatePool;
using StreamKey = c10::StreamId;
using MempoolId = c10::MempoolId_t;

struct BlockCompare {
    bool operator()(const Block *a, const Block *b) const;
};

// The free blocks of one size class, of the device's shared cache or of one private pool.
struct BlockPool {
    BlockPool(bool small, PrivatePool *owner) : small(small), owner(owner) {}
    std::set<Block *, BlockCompare> blocks;
    const bool small;
    PrivatePool *const owner;  // nullptr: the shared cache
};

// The memory of graphs (InfiniGraph.h): segments of its own, used only by allocations made on a capturing stream
// routed to it, so that no allocation outside those captures takes a block that a replay may still write.
// `use_count` counts the graphs and captures holding it; at 0 its unused segments are released by empty_cache.
struct PrivatePool {
    BlockPool small{true, this};
    BlockPool large{false, this};
    int use_count = 1;
    int segments = 0;     // segments it owns
    size_t reserved = 0;  // their bytes
};

struct Block {
    c10::DeviceIndex device;
    StreamKey stream;
    size_t size;           // bytes of the block
    size_t requested = 0;  // bytes asked for (when allocated)
    void *ptr;
    BlockPool *pool;
    bool allocated = false;
    int pending_events = 0;  // events to wait for before reuse
    Block *prev = nullptr;   // neighbours within the segment
    Block *next = nullptr;
    std::vector<c10::Stream> stream_uses;  // other streams that used it (record_stream)

    Block(c10::DeviceIndex d, StreamKey s, size_t sz, BlockPool *p, void *ptr_)
        : device(d), stream(s), size(sz), ptr(ptr_), pool(p) {}
    bool isSplit() const { return prev != nullptr || next != nullptr; }
};

bool BlockCompare::operator()(const Block *a, const Block *b) const {
    if (a->stream != b->stream) return a->stream < b->stream;
    if (a->size != b->size) return a->size < b->size;
    return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
}

size_t roundSize(size_t size) {
    return size < kMinBlockSize ? kMinBlockSize : (size + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t segmentSize(size_t size) {
    if (size <= kSmallSize) return kSmallBuffer;
    if (size < kMinLargeAlloc) return kLargeBuffer;
    return (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

std::string formatBytes(size_t n) {
    char buf[64];
    if (n >= (size_t(1) << 30))
        std::snprintf(buf, sizeof(buf), "%.2f GiB", n / double(1 << 30));
    else if (n >= (size_t(1) << 20))
        std::snprintf(buf, sizeof(buf), "%.2f MiB", n / double(1 << 20));
    else if (n >= 1024)
        std::snprintf(buf, sizeof(buf), "%.2f KiB", n / 1024.0);
    else
        std::snprintf(buf, sizeof(buf), "%zu bytes", n);
    return buf;
}

// Updates the aggregate entry and the entry of the block's pool.
template <typename F>
void forStats(StatArray &array, bool small, F f) {
    f(array[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)]);
    f(array[static_cast<size_t>(small ? c10::CachingAllocator::StatType::SMALL_POOL
                                      : c10::CachingAllocator::StatType::LARGE_POOL)]);
}

class DeviceCache {
   public:
    explicit DeviceCache(c10::DeviceIndex device) : device_(device) {}

    Block *malloc(size_t requested, StreamKey stream) {
        std::unique_lock<std::recursive_mutex> lock(mu_);
        // (no event queries while a capture is underway: the stream being captured may have recorded them)
        if (captures_.empty()) processEvents();
        size_t size = roundSize(requested);
        bool small = size <= kSmallSize;
        PrivatePool *priv = privatePoolFor(stream);
        BlockPool &pool = priv ? (small ? priv->small : priv->large) : (small ? small_ : large_);
        Block *block = findFree(pool, stream, size);
        if (block == nullptr) block = newSegment(pool, stream, size, requested, small);
        if (shouldSplit(block, size)) {
            auto *rest = new Block(device_, stream, block->size - size, &pool, static_cast<char *>(block->ptr) + size);
            rest->prev = block;
            rest->next = block->next;
            if (rest->next) rest->next->prev = rest;
            block->next = rest;
            block->size = size;
            pool.blocks.insert(rest);
            forStats(stats_.inactive_split, small, [&](auto &s) { s.increase(1); });
            forStats(stats_.inactive_split_bytes, small, [&](auto &s) { s.increase(rest->size); });
        }
        block->allocated = true;
        block->requested = requested;
        active_[block->ptr] = block;
        forStats(stats_.allocation, small, [&](auto &s) { s.increase(1); });
        forStats(stats_.allocated_bytes, small, [&](auto &s) { s.increase(block->size); });
        forStats(stats_.active, small, [&](auto &s) { s.increase(1); });
        forStats(stats_.active_bytes, small, [&](auto &s) { s.increase(block->size); });
        forStats(stats_.requested_bytes, small, [&](auto &s) { s.increase(requested); });
        return block;
    }

    void free(void *ptr) {
        std::lock_guard<std::recursive_mutex> lock(mu_);
        auto it = active_.find(ptr);
        TORCH_INTERNAL_ASSERT(it != active_.end(), "infini allocator: freeing an unknown pointer");
        Block *block = it->second;
        active_.erase(it);
        bool small = block->pool->small;
        block->allocated = false;
        forStats(stats_.allocation, small, [&](auto &s) { s.decrease(1); });
        forStats(stats_.allocated_bytes, small, [&](auto &s) { s.decrease(block->size); });
        forStats(stats_.requested_bytes, small, [&](auto &s) { s.decrease(block->requested); });
        if (!block->stream_uses.empty()) {
            if (captures_.empty()) {
                recordUseEvents(block);  // reuse waits for the other streams
            } else {
                deferred_.push_back(block);  // their events are recorded when the captures end
            }
        } else {
            release(block);
        }
    }

    void recordStream(void *ptr, const c10::Stream &stream) {
        std::lock_guard<std::recursive_mutex> lock(mu_);
        auto it = active_.find(ptr);
        if (it == active_.end()) return;  // not ours (e.g. a view of memory from elsewhere)
        Block *block = it->second;
        if (stream.id() == block->stream) return;
        if (std::find(block->stream_uses.begin(), block->stream_uses.end(), stream) == block->stream_uses.end()) {
            block->stream_uses.push_back(stream);
        }
    }

    // Releases every unused whole segment back to infinirt: of the shared cache and of the private pools that no
    // graph holds.
    void emptyCache() {
        std::lock_guard<std::recursive_mutex> lock(mu_);
        TORCH_CHECK(captures_.empty(), "infini: empty_cache() cannot run while a graph is being captured on infini:",
                    static_cast<int>(device_));
        releaseCached();
    }

    // Allocations on `stream` come from the private pool `id` (made, or its use count raised) until
    // endAllocateToPool.
    void beginAllocateToPool(MempoolId id, StreamKey stream) {
        std::lock_guard<std::recursive_mutex> lock(mu_);
        for (const auto &c : captures_) {
            TORCH_CHECK(c.second != stream, "infini: stream ", stream, " of infini:", static_cast<int>(device_),
                        " is capturing already");
        }
        auto &pool = private_pools_[id];
        if (!pool) {
            pool = std::make_unique<PrivatePool>();
        } else {
            pool->use_count += 1;
        }
        captures_.emplace_back(id, stream);
    }

    void endAllocateToPool(MempoolId id, StreamKey stream) {
        std::lock_guard<std::recursive_mutex> lock(mu_);
        auto it = std::find(captures_.begin(), captures_.end(), std::make_pair(id, stream));
        if (it != captures_.end()) captures_.erase(it);
        if (!captures_.empty()) return;
        for (Block *block : deferred_) recordUseEvents(block);
        deferred_.clear();
    }

    // Drops one hold on the private pool `id`.
    void releasePool(MempoolId id) {
        std::lock_guard<std::recursive_mutex> lock(mu_);
        auto it = private_pools_.find(id);
        if (it == private_pools_.end()) return;
        it->second->use_count -= 1;
    }

    // Bytes of the segments of private pool `id` (0 when it has none).
    size_t poolReservedBytes(MempoolId id) {
        std::lock_guard<std::recursive_mutex> lock(mu_);
        auto it = private_pools_.find(id);
        return it == private_pools_.end() ? 0 : it->second->reserved;
    }

    DeviceStats stats() {
        std::lock_guard<std::recursive_mutex> lock(mu_);
        return stats_;
    }

    void resetAccumulated() {
        std::lock_guard<std::recursive_mutex> lock(mu_);
        for (StatArray *a : statArrays())
            for (auto &s : *a) s.reset_accumulated();
        stats_.num_alloc_retries = 0;
        stats_.num_ooms = 0;
        stats_.num_device_alloc = 0;
        stats_.num_device_free = 0;
    }

    void resetPeak() {
        std::lock_guard<std::recursive_mutex> lock(mu_);
        for (StatArray *a : statArrays())
            for (auto &s : *a) s.reset_peak();
    }

   private:
    std::vector<StatArray *> statArrays() {
        return {&stats_.allocation,      &stats_.segment,        &stats_.active,       &stats_.inactive_split,
                &stats_.allocated_bytes, &stats_.reserved_bytes, &stats_.active_bytes, &stats_.inactive_split_bytes,
                &stats_.requested_bytes};
    }

    // The private pool that allocations on `stream` go to, or nullptr.
    PrivatePool *privatePoolFor(StreamKey stream) {
        for (const auto &[id, s] : captures_) {
            if (s == stream) return private_pools_.at(id).get();
        }
        return nullptr;
    }

    // Waits for the pending events, then releases the unused segments of the shared cache and of the private pools
    // no graph holds (the pools themselves go once they have no segments).
    void releaseCached() {
        synchronizeEvents();
        releaseUnusedSegments(small_);
        releaseUnusedSegments(large_);
        for (auto it = private_pools_.begin(); it != private_pools_.end();) {
            PrivatePool &pool = *it->second;
            if (pool.use_count > 0) {
                ++it;
                continue;
            }
            releaseUnusedSegments(pool.small);
            releaseUnusedSegments(pool.large);
            it = pool.segments == 0 ? private_pools_.erase(it) : std::next(it);
        }
    }

    Block *findFree(BlockPool &pool, StreamKey stream, size_t size) {
        Block key(device_, stream, size, &pool, nullptr);
        auto it = pool.blocks.lower_bound(&key);
        if (it == pool.blocks.end() || (*it)->stream != stream) return nullptr;
        Block *block = *it;
        pool.blocks.erase(it);
        if (block->isSplit()) {
            bool small = pool.small;
            forStats(stats_.inactive_split, small, [&](auto &s) { s.decrease(1); });
            forStats(stats_.inactive_split_bytes, small, [&](auto &s) { s.decrease(block->size); });
        }
        return block;
    }

    bool shouldSplit(const Block *block, size_t size) const {
        size_t rest = block->size - size;
        return block->pool->small ? rest >= kMinBlockSize : rest > kSmallSize;
    }

    Block *newSegment(BlockPool &pool, StreamKey stream, size_t size, size_t requested, bool small) {
        size_t bytes = segmentSize(size);
        void *ptr = nullptr;
        infiniStatus_t status = deviceMalloc(&ptr, bytes);
        // (no retry while a capture is underway: releasing memory synchronizes the device)
        if (status == INFINI_STATUS_OUT_OF_MEMORY && captures_.empty()) {
            stats_.num_alloc_retries += 1;
            releaseCached();
            status = deviceMalloc(&ptr, bytes);
        }
        if (status == INFINI_STATUS_OUT_OF_MEMORY) {
            stats_.num_ooms += 1;
            std::string why = infiniGetLastErrorMessage();
            size_t free_bytes = 0, total = 0;
            infinirtGetMemInfo(backendType(), device_, &free_bytes, &total);
            size_t reserved = static_cast<size_t>(stats_.reserved_bytes[0].current);
            size_t allocated = static_cast<size_t>(stats_.allocated_bytes[0].current);
            TORCH_CHECK_WITH(
                OutOfMemoryError, false, "infini out of memory on device infini:", static_cast<int>(device_), " (",
                backendName(), " backend). Tried to allocate ", formatBytes(requested), "; the device has ",
                formatBytes(free_bytes), " free of ", formatBytes(total), ". Of the memory in use by this process, ",
                formatBytes(reserved), " is reserved by the caching allocator and ", formatBytes(allocated),
                " is allocated to tensors. (", why, ")");
        }
        INFINI_CHECK(status);
        stats_.num_device_alloc += 1;
        forStats(stats_.segment, small, [&](auto &s) { s.increase(1); });
        forStats(stats_.reserved_bytes, small, [&](auto &s) { s.increase(bytes); });
        if (pool.owner) {
            pool.owner->segments += 1;
            pool.owner->reserved += bytes;
        }
        return new Block(device_, stream, bytes, &pool, ptr);
    }

    infiniStatus_t deviceMalloc(void **ptr, size_t bytes) {
        c10::DeviceIndex previous = ExchangeDevice(device_);
        infiniStatus_t status = infinirtMalloc(ptr, bytes);
        set_device(previous);
        return status;
    }

    void recordUseEvents(Block *block) {
        c10::DeviceIndex previous = ExchangeDevice(device_);
        for (const c10::Stream &s : block->stream_uses) {
            infinirtEvent_t event = nullptr;
            INFINI_CHECK(infinirtEventCreateWithFlags(&event, INFINIRT_EVENT_DISABLE_TIMING));
            INFINI_CHECK(infinirtEventRecord(event, native_stream(s)));
            block->pending_events += 1;
            events_.emplace_back(event, block);
        }
        set_device(previous);
        block->stream_uses.clear();
    }

    // Returns blocks whose events have completed to their pools.
    void processEvents() {
        while (!events_.empty()) {
            auto [event, block] = events_.front();
            infinirtEventStatus_t st;
            INFINI_CHECK(infinirtEventQuery(event, &st));
            if (st != INFINIRT_EVENT_COMPLETE) break;
            events_.pop_front();
            INFINI_CHECK(infinirtEventDestroy(event));
            if (--block->pending_events == 0) release(block);
        }
    }

    void synchronizeEvents() {
        for (auto &[event, block] : events_) {
            INFINI_CHECK(infinirtEventSynchronize(event));
            INFINI_CHECK(infinirtEventDestroy(event));
            if (--block->pending_events == 0) release(block);
        }
        events_.clear();
    }

    // A free block goes back to its pool, merged with free neighbours.
    void release(Block *block) {
        BlockPool &pool = *block->pool;
        bool small = pool.small;
        size_t active_size = block->size;
        for (Block *neighbour : {block->prev, block->next}) {
            if (neighbour == nullptr || neighbour->allocated || neighbour->pending_events > 0) continue;
            if (pool.blocks.erase(neighbour) == 0) continue;  // deferred: not free yet
            forStats(stats_.inactive_split, small, [&](auto &s) { s.decrease(1); });
            forStats(stats_.inactive_split_bytes, small, [&](auto &s) { s.decrease(neighbour->size); });
            if (neighbour == block->prev) {
                block->ptr = neighbour->ptr;
                block->prev = neighbour->prev;
                if (block->prev) block->prev->next = block;
            } else {
                block->next = neighbour->next;
                if (block->next) block->next->prev = block;
            }
            block->size += neighbour->size;
            delete neighbour;
        }
        forStats(stats_.active, small, [&](auto &s) { s.decrease(1); });
        forStats(stats_.active_bytes, small, [&](auto &s) { s.decrease(active_size); });
        if (block->isSplit()) {
            forStats(stats_.inactive_split, small, [&](auto &s) { s.increase(1); });
            forStats(stats_.inactive_split_bytes, small, [&](auto &s) { s.increase(block->size); });
        }
        pool.blocks.insert(block);
    }

    void releaseUnusedSegments(BlockPool &pool) {
        bool small = pool.small;
        for (auto it = pool.blocks.begin(); it != pool.blocks.end();) {
            Block *block = *it;
            if (block->isSplit()) {
                ++it;
                continue;
            }
            it = pool.blocks.erase(it);
            c10::DeviceIndex previous = ExchangeDevice(device_);
            infiniStatus_t status = infinirtFree(block->ptr);
            set_device(previous);
            INFINI_CHECK(status);
            stats_.num_device_free += 1;
            forStats(stats_.segment, small, [&](auto &s) { s.decrease(1); });
            forStats(stats_.reserved_bytes, small, [&](auto &s) { s.decrease(block->size); });
            if (pool.owner) {
                pool.owner->segments -= 1;
                pool.owner->reserved -= block->size;
            }
            delete block;
        }
    }

    const c10::DeviceIndex device_;
    std::recursive_mutex mu_;
    BlockPool small_{true, nullptr}, large_{false, nullptr};
    ska::flat_hash_map<void *, Block *> active_;
    std::deque<std::pair<infinirtEvent_t, Block *>> events_;
    std::map<MempoolId, std::unique_ptr<PrivatePool>> private_pools_;
    std::vector<std::pair<MempoolId, StreamKey>> captures_;  // capturing streams and the pools they allocate from
    std::vector<Block *> deferred_;  // freed during a capture, waiting to record their use events
    DeviceStats stats_;
};

class InfiniCachingAllocator final : public c10::DeviceAllocator {
   public:
    c10::DataPtr allocate(size_t nbytes) override {
        lazy_init();
        c10::DeviceIndex device = current_device();
        if (nbytes == 0) return {nullptr, nullptr, &deleteNothing, c10::Device(c10::DeviceType::PrivateUse1, device)};
        c10::Stream stream = getCurrentStream(device);
        Block *block = cache(device).malloc(nbytes, stream.id());
        {
            std::lock_guard<std::mutex> lock(mu_);
            owner_[block->ptr] = device;
        }
        return {block->ptr, block->ptr, &deleteBlock, c10::Device(c10::DeviceType::PrivateUse1, device)};
    }

    c10::DeleterFnPtr raw_deleter() const override { return &deleteBlock; }

    void copy_data(void *dest, const void *src, std::size_t count) const final {
        INFINI_CHECK(infinirtMemcpy(dest, src, count, INFINIRT_MEMCPY_D2D));
    }

    bool initialized() override { return is_initialized(); }

    void emptyCache(c10::MempoolId_t /*mempool_id*/ = {0, 0}) override {
        if (!is_initialized()) return;
        for (c10::DeviceIndex d = 0; d < device_count(); ++d) cache(d).emptyCache();
    }

    void recordStream(const c10::DataPtr &ptr, c10::Stream stream) override {
        if (ptr.get() == nullptr) return;
        c10::DeviceIndex device = ownerOf(ptr.get_context());
        if (device < 0) return;
        cache(device).recordStream(ptr.get_context(), stream);
    }

    DeviceStats getDeviceStats(c10::DeviceIndex device) override {
        check_device_index(device);
        return cache(device).stats();
    }

    void resetAccumulatedStats(c10::DeviceIndex device) override {
        check_device_index(device);
        cache(device).resetAccumulated();
    }

    void resetPeakStats(c10::DeviceIndex device) override {
        check_device_index(device);
        cache(device).resetPeak();
    }

    std::pair<size_t, size_t> getMemoryInfo(c10::DeviceIndex device) override {
        check_device_index(device);
        size_t free_bytes = 0, total = 0;
        INFINI_CHECK(infinirtGetMemInfo(backendType(), device, &free_bytes, &total));
        return {free_bytes, total};
    }

    void freeBlock(void *ptr) {
        c10::DeviceIndex device;
        {
            std::lock_guard<std::mutex> lock(mu_);
            auto it = owner_.find(ptr);
            TORCH_INTERNAL_ASSERT(it != owner_.end(), "infini allocator: freeing an unknown pointer");
            device = it->second;
            owner_.erase(it);
        }
        cache(device).free(ptr);
    }

    DeviceCache &cache(c10::DeviceIndex device) {
        std::call_once(caches_once_, [this] {
            for (c10::DeviceIndex d = 0; d < device_count(); ++d) caches_.push_back(std::make_unique<DeviceCache>(d));
        });
        return *caches_.at(device);
    }

   private:
    static void deleteNothing(void *) {}
    static void deleteBlock(void *ptr);

    c10::DeviceIndex ownerOf(void *ptr) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = owner_.find(ptr);
        return it == owner_.end() ? -1 : it->second;
    }

    std::mutex mu_;
    ska::flat_hash_map<void *, c10::DeviceIndex> owner_;
    std::once_flag caches_once_;
    std::vector<std::unique_ptr<DeviceCache>> caches_;
};

InfiniCachingAllocator g_allocator;

void InfiniCachingAllocator::deleteBlock(void *ptr) { g_allocator.freeBlock(ptr); }

}  // namespace

c10::DeviceAllocator *getDeviceAllocator() { return &g_allocator; }

void emptyCache() { g_allocator.emptyCache(); }

c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex device) {
    return g_allocator.getDeviceStats(device);
}

void beginAllocateToPool(c10::DeviceIndex device, c10::MempoolId_t pool, c10::StreamId stream) {
    g_allocator.cache(device).beginAllocateToPool(pool, stream);
}

void endAllocateToPool(c10::DeviceIndex device, c10::MempoolId_t pool, c10::StreamId stream) {
    g_allocator.cache(device).endAllocateToPool(pool, stream);
}

void releasePool(c10::DeviceIndex device, c10::MempoolId_t pool) { g_allocator.cache(device).releasePool(pool); }

size_t poolReservedBytes(c10::DeviceIndex device, c10::MempoolId_t pool) {
    return g_allocator.cache(device).poolReservedBytes(pool);
}

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_allocator);

}  // namespace infini_torch
